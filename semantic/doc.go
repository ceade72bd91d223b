// Package semantic holds the model-calling evidence controllers of mss and
// their diagnostics, all registered by name with mss.RegisterMethod:
//
//   - mss-complement: the paper's three-stage set policy over a fused
//     candidate ranking. (1) propose: a strong model reads the state card,
//     the leading candidate cards and selects up to eight units covering the
//     entities, values, conditions and causal links the next decision
//     needs, and names what the proposal still lacks; (2) expand: a fast
//     model reads that set, the lacking facts and further candidate
//     summaries (the proposal excluded) and adds support only for facts the
//     proposal lacks; (3) finalize: the fast model reads proposal, expansion
//     and a ranked reserve, each tagged by origin, checks joint support,
//     removes repeated support and returns 4–8 ranked units. render.Fit
//     then keeps units intact within the token budget.
//   - ssr, propose-only, similarity-3call: comparators under the same
//     candidates and budget (one-pass set selection; the proposal alone;
//     three independent relevance-scoring calls with no set objective).
//   - oracle-mss, oracle-minus-one: diagnostics that read gold labels.
//
// Every reply is constrained by a JSON Schema whose id fields enumerate the
// offered candidate ids; ids outside them are rejected and counted, and
// observed candidates are never offered. A stage that fails after the llm
// client's retries (or returns nothing usable after a repair round) hands
// the request to the deterministic policy registered as "complement"
// (setting fallback); its units, grown ones included, are delivered minus
// anything the agent has read, and the answer says so in Result.Fallback
// (stage and cause), the trace and Usage.Fallbacks. Check sends each
// stage's exact request to its endpoint ("mss llm check"). Each stage's raw reply is kept in the trace under
// "<stage>.raw". Result.Config carries a short hash of the configuration.
//
// Configuration comes from mss.MethodOptions.Settings and the environment
// (ParseConfig; docs/llm.md lists every key); API keys come from the
// environment only. Runners call Preflight before a run and
// SummarizeUsage after it.
package semantic
