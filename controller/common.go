package controller

import (
	"fmt"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/render"
	"github.com/missingcomplement/mss/retrieve"
)

func init() {
	mss.RegisterMethod(NameComplement, "set-level policy: cover every unresolved requirement of the state, skip what it read (default)",
		func(opts mss.MethodOptions) (mss.Controller, error) { return NewComplement(opts) })
	mss.RegisterMethod(NameBM25, "baseline: BM25 order of the lexical view, observed units not skipped",
		func(opts mss.MethodOptions) (mss.Controller, error) { return simple(NameBM25, opts) })
	mss.RegisterMethod(NameRRF, "baseline: fused reciprocal-rank order, top k, observed units skipped",
		func(opts mss.MethodOptions) (mss.Controller, error) { return simple(NameRRF, opts) })
	mss.RegisterMethod(NameRRFGrow, "control: the fused order with growth, same budget (what a set policy must beat)",
		func(opts mss.MethodOptions) (mss.Controller, error) { return simple(NameRRFGrow, opts) })
	mss.RegisterMethod(NameMMR, "baseline: maximal marginal relevance over the fused order, observed units skipped",
		func(opts mss.MethodOptions) (mss.Controller, error) { return NewMMR(opts) })
	mss.RegisterMethod(NameSimilarity, "control: fused score alone, fixed 7 units, observed units not skipped",
		func(opts mss.MethodOptions) (mss.Controller, error) { return simple(NameSimilarity, opts) })
}

// Method names.
const (
	NameComplement = "complement"
	NameBM25       = "bm25"
	NameRRF        = "rrf"
	NameRRFGrow    = "rrf-grow"
	NameMMR        = "mmr"
	NameSimilarity = "similarity"
)

// SimilarityUnits is the similarity control's fixed output size.
const SimilarityUnits = 7

// observedSet decides whether a candidate is evidence the agent has read:
// flagged by the candidate stage, or observed by the state (mss.Observed).
type observedSet struct{ obs *mss.Observed }

func newObservedSet(s *mss.State) *observedSet { return &observedSet{mss.ObservedOf(s)} }

func (o *observedSet) has(c *mss.Candidate) bool {
	return c.Observed || o.obs.Unit(&c.Unit)
}

// checkRequest rejects requests no method can answer.
func checkRequest(req *mss.Request) error {
	if req == nil {
		return fmt.Errorf("nil request")
	}
	if req.State == nil {
		return fmt.Errorf("request has no state")
	}
	return nil
}

// deliver fits units into the budget and records the render trace.
func deliver(res *mss.Result, units []mss.Unit, budget, maxUnits int) {
	out, trace := render.Fit(units, budget, maxUnits)
	res.Units = out
	res.Trace = append(res.Trace, trace...)
	if len(out) == 0 && (len(units) > 0 || !explained(res.Trace)) {
		reason := "no candidate to deliver"
		if len(units) > 0 {
			reason = fmt.Sprintf("no candidate fits the budget of %d tokens", budget)
		}
		res.Trace = append(res.Trace, mss.TraceStep{Stage: "render", Reason: reason})
	}
	if res.Units == nil {
		res.Units = []mss.Unit{}
	}
}

// explained reports whether a trace already says why nothing was chosen.
func explained(tr []mss.TraceStep) bool {
	for _, s := range tr {
		if s.Stage == "select" && s.UnitID == "" {
			return true
		}
	}
	return false
}

// rankReason names a candidate's place in the order it came in: the
// learned order (when it reordered the candidates) or the fused one.
func rankReason(rank int, c *mss.Candidate) string {
	return fmt.Sprintf("%s #%d (%s)", orderName(c), rank+1, retrieve.Explain(c))
}

// orderName names the order c came in: "learned" when the learned order
// reordered the candidates (each keeps its fused score as a signal),
// else "fused".
func orderName(c *mss.Candidate) string {
	if _, ok := c.Signals[retrieve.SignalFused]; ok {
		return "learned"
	}
	return "fused"
}
