package semantic

import "github.com/missingcomplement/mss"

// Method names registered by this package.
const (
	NameComplement     = "mss-complement"
	NameSSR            = "ssr"
	NameProposeOnly    = "propose-only"
	NameSimilarity3    = "similarity-3call"
	NameOracle         = "oracle-mss"
	NameOracleMinusOne = "oracle-minus-one"
)

// modelMethods are the methods that call models (and need Preflight).
var modelMethods = map[string]bool{NameComplement: true, NameSSR: true, NameProposeOnly: true, NameSimilarity3: true}

// UsesModel reports whether the named method calls a model endpoint, so a
// runner knows to call Preflight before starting.
func UsesModel(method string) bool { return modelMethods[method] }

func init() {
	mss.RegisterMethod(NameComplement,
		"three-stage semantic controller: propose, expand, finalize over OpenAI-compatible endpoints (MSS_LLM_BASE_URL, MSS_LLM_API_KEY, MSS_PROPOSE_MODEL, MSS_FAST_MODEL)",
		func(o mss.MethodOptions) (mss.Controller, error) { return NewComplement(o) })
	mss.RegisterMethod(NameSSR,
		"comparator: one-pass semantic set selection (one call selects the set; propose-stage model)",
		func(o mss.MethodOptions) (mss.Controller, error) { return NewSSR(o) })
	mss.RegisterMethod(NameProposeOnly,
		"comparator: the proposal stage of mss-complement alone",
		func(o mss.MethodOptions) (mss.Controller, error) { return NewProposeOnly(o) })
	mss.RegisterMethod(NameSimilarity3,
		"comparator: three independent relevance-scoring calls, no set objective, fixed 7 units",
		func(o mss.MethodOptions) (mss.Controller, error) { return NewSimilarity3(o) })
	mss.RegisterMethod(NameOracle,
		"DIAGNOSTIC, reads gold labels (--set labels=FILE), never deployable: the cheapest complete gold set",
		func(o mss.MethodOptions) (mss.Controller, error) { return NewOracle(o, false) })
	mss.RegisterMethod(NameOracleMinusOne,
		"DIAGNOSTIC, reads gold labels (--set labels=FILE), never deployable: the gold set less its most necessary unit",
		func(o mss.MethodOptions) (mss.Controller, error) { return NewOracle(o, true) })
}
