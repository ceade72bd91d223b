package semantic

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/missingcomplement/mss"
)

// UsageSummary aggregates the usage of a run's answers.
type UsageSummary struct {
	States           int   `json:"states"`            // answers summarized
	ModelStates      int   `json:"model_states"`      // answers that reported usage
	Calls            int   `json:"calls"`             // model calls that replied
	FailedCalls      int   `json:"failed_calls"`      // model calls that got no reply
	PromptTokens     int   `json:"prompt_tokens"`     // controller tokens in
	CompletionTokens int   `json:"completion_tokens"` // controller tokens out
	ReasoningTokens  int   `json:"reasoning_tokens"`  // part of completion tokens
	SourceTokens     int   `json:"source_tokens"`     // delivered source tokens
	Fallbacks        int   `json:"fallbacks"`
	RejectedIDs      int   `json:"rejected_ids"`
	LatencyMS        int64 `json:"latency_ms"` // summed model-call latency
	// LatencyP50MS and LatencyP95MS are per-answer model latency percentiles.
	LatencyP50MS int64               `json:"latency_p50_ms"`
	LatencyP95MS int64               `json:"latency_p95_ms"`
	Stages       []mss.StageUsage    `json:"stages"` // summed per stage, stage order
	Models       []mss.StageUsage    `json:"models"` // summed per model, by name (Stage empty)
	stageModels  map[string][]string // stage -> distinct models
}

// addTo adds st to the row of list named key (idx maps keys to rows),
// starting the row as first when key is new.
func addTo(list *[]mss.StageUsage, idx map[string]int, key string, first, st mss.StageUsage) {
	i, ok := idx[key]
	if !ok {
		i = len(*list)
		idx[key] = i
		*list = append(*list, first)
	}
	(*list)[i].Add(st)
}

// SummarizeUsage sums usages (nil entries are answers without model calls).
func SummarizeUsage(us []*mss.Usage) UsageSummary {
	s := UsageSummary{States: len(us), stageModels: map[string][]string{}}
	idx := map[string]int{}
	midx := map[string]int{}
	var lat []int64
	for _, u := range us {
		if u == nil {
			continue
		}
		s.ModelStates++
		s.Calls += u.Calls
		s.FailedCalls += u.FailedCalls
		s.PromptTokens += u.PromptTokens
		s.CompletionTokens += u.CompletionTokens
		s.ReasoningTokens += u.ReasoningTokens
		s.SourceTokens += u.SourceTokens
		s.Fallbacks += u.Fallbacks
		s.RejectedIDs += u.RejectedIDs
		s.LatencyMS += u.LatencyMS
		lat = append(lat, u.LatencyMS)
		for _, st := range u.StageUsage {
			addTo(&s.Stages, idx, st.Stage, mss.StageUsage{Stage: st.Stage}, st)
			addTo(&s.Models, midx, st.Model, mss.StageUsage{Model: st.Model}, st)
			if !containsStr(s.stageModels[st.Stage], st.Model) {
				s.stageModels[st.Stage] = append(s.stageModels[st.Stage], st.Model)
			}
		}
	}
	for i := range s.Stages {
		ms := s.stageModels[s.Stages[i].Stage]
		sort.Strings(ms)
		s.Stages[i].Model = strings.Join(ms, ",")
	}
	sort.SliceStable(s.Stages, func(i, j int) bool { return stageOrder(s.Stages[i].Stage) < stageOrder(s.Stages[j].Stage) })
	sort.Slice(s.Models, func(i, j int) bool { return s.Models[i].Model < s.Models[j].Model })
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	s.LatencyP50MS, s.LatencyP95MS = pct(lat, 50), pct(lat, 95)
	return s
}

// stageOrder puts the three stages first, then the rest by name.
func stageOrder(s string) string {
	for i, n := range stageNames {
		if s == n {
			return fmt.Sprint(i)
		}
	}
	return "9" + s
}

// pct is the nearest-rank percentile of sorted xs.
func pct(xs []int64, p int) int64 {
	if len(xs) == 0 {
		return 0
	}
	i := (p*len(xs) + 99) / 100
	return xs[max(0, min(len(xs)-1, i-1))]
}

func containsStr(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// String is a small table for run logs.
func (s UsageSummary) String() string {
	var b strings.Builder
	per := func(n int) string {
		if s.ModelStates == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f", float64(n)/float64(s.ModelStates))
	}
	fmt.Fprintf(&b, "states %d (with model usage %d), calls %d (failed %d), fallbacks %d, rejected ids %d\n", s.States, s.ModelStates, s.Calls, s.FailedCalls, s.Fallbacks, s.RejectedIDs)
	fmt.Fprintf(&b, "controller tokens: prompt %d, completion %d (reasoning %d), total %d (per state %s)\n", s.PromptTokens, s.CompletionTokens, s.ReasoningTokens, s.PromptTokens+s.CompletionTokens, per(s.PromptTokens+s.CompletionTokens))
	fmt.Fprintf(&b, "delivered source tokens: %d (per state %s)\n", s.SourceTokens, per(s.SourceTokens))
	fmt.Fprintf(&b, "model latency: total %d ms, per state p50 %d ms, p95 %d ms\n", s.LatencyMS, s.LatencyP50MS, s.LatencyP95MS)
	if len(s.Stages) > 0 {
		fmt.Fprintf(&b, "%-10s %-24s %6s %10s %11s %10s %10s\n", "stage", "model", "calls", "prompt", "completion", "reasoning", "latency_ms")
		for _, st := range s.Stages {
			fmt.Fprintf(&b, "%-10s %-24s %6d %10d %11d %10d %10d\n", st.Stage, st.Model, st.Calls, st.PromptTokens, st.CompletionTokens, st.ReasoningTokens, st.LatencyMS)
		}
	}
	return b.String()
}

// Price is what a model costs, in dollars per million tokens.
type Price struct{ In, Out float64 }

// ParsePrices reads price.<model>=in,out settings (dollars per million
// prompt and completion tokens; reasoning tokens are billed as
// completion). Other settings are ignored.
func ParsePrices(settings map[string]string) (map[string]Price, error) {
	out := map[string]Price{}
	for _, k := range sortedKeys(settings) {
		model, ok := strings.CutPrefix(k, "price.")
		if !ok {
			continue
		}
		in, outs, ok := strings.Cut(settings[k], ",")
		var p Price
		var err1, err2 error
		if ok {
			p.In, err1 = strconv.ParseFloat(strings.TrimSpace(in), 64)
			p.Out, err2 = strconv.ParseFloat(strings.TrimSpace(outs), 64)
		}
		if !ok || model == "" || err1 != nil || err2 != nil || !(p.In >= 0 && p.Out >= 0) || math.IsInf(p.In, 1) || math.IsInf(p.Out, 1) {
			return nil, fmt.Errorf("setting %s=%q: want price.<model>=<input>,<output> in dollars per million tokens", k, settings[k])
		}
		out[model] = p
	}
	return out, nil
}

// Cost is the estimated cost of the summarized calls at prices, and the
// models that had calls but no price (their calls are not counted).
func (s UsageSummary) Cost(prices map[string]Price) (dollars float64, unpriced []string) {
	for _, m := range s.Models {
		p, ok := prices[m.Model]
		if !ok {
			unpriced = append(unpriced, m.Model)
			continue
		}
		dollars += (float64(m.PromptTokens)*p.In + float64(m.CompletionTokens)*p.Out) / 1e6
	}
	return dollars, unpriced
}

// CostLines are the cost lines runners print: per run and per state, and
// per model.
func (s UsageSummary) CostLines(prices map[string]Price) string {
	if len(prices) == 0 || s.ModelStates == 0 {
		return ""
	}
	var b strings.Builder
	total, unpriced := s.Cost(prices)
	fmt.Fprintf(&b, "estimated cost: $%.4f per run, $%.6f per state (%d states)\n", total, total/float64(s.ModelStates), s.ModelStates)
	for _, m := range s.Models {
		if p, ok := prices[m.Model]; ok {
			fmt.Fprintf(&b, "  %-24s $%.4f (prompt %d at $%g/M, completion %d at $%g/M)\n", m.Model, (float64(m.PromptTokens)*p.In+float64(m.CompletionTokens)*p.Out)/1e6, m.PromptTokens, p.In, m.CompletionTokens, p.Out)
		}
	}
	if len(unpriced) > 0 {
		fmt.Fprintf(&b, "  no price for %s (--set price.<model>=in,out); their calls are not in the estimate\n", strings.Join(unpriced, ", "))
	}
	return b.String()
}
