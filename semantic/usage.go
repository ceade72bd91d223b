package semantic

import (
	"fmt"
	"sort"
	"strings"

	"github.com/missingcomplement/mss"
)

// UsageSummary aggregates the usage of a run's answers.
type UsageSummary struct {
	States           int   `json:"states"`            // answers summarized
	ModelStates      int   `json:"model_states"`      // answers that reported usage
	Calls            int   `json:"calls"`             // model calls
	PromptTokens     int   `json:"prompt_tokens"`     // controller tokens in
	CompletionTokens int   `json:"completion_tokens"` // controller tokens out
	SourceTokens     int   `json:"source_tokens"`     // delivered source tokens
	Fallbacks        int   `json:"fallbacks"`
	RejectedIDs      int   `json:"rejected_ids"`
	LatencyMS        int64 `json:"latency_ms"` // summed model-call latency
	// LatencyP50MS and LatencyP95MS are per-answer model latency percentiles.
	LatencyP50MS int64               `json:"latency_p50_ms"`
	LatencyP95MS int64               `json:"latency_p95_ms"`
	Stages       []mss.StageUsage    `json:"stages"` // summed per stage, stage order
	stageModels  map[string][]string // stage -> distinct models
}

// SummarizeUsage sums usages (nil entries are answers without model calls).
func SummarizeUsage(us []*mss.Usage) UsageSummary {
	s := UsageSummary{States: len(us), stageModels: map[string][]string{}}
	idx := map[string]int{}
	var lat []int64
	for _, u := range us {
		if u == nil {
			continue
		}
		s.ModelStates++
		s.Calls += u.Calls
		s.PromptTokens += u.PromptTokens
		s.CompletionTokens += u.CompletionTokens
		s.SourceTokens += u.SourceTokens
		s.Fallbacks += u.Fallbacks
		s.RejectedIDs += u.RejectedIDs
		s.LatencyMS += u.LatencyMS
		lat = append(lat, u.LatencyMS)
		for _, st := range u.StageUsage {
			i, ok := idx[st.Stage]
			if !ok {
				i = len(s.Stages)
				idx[st.Stage] = i
				s.Stages = append(s.Stages, mss.StageUsage{Stage: st.Stage})
			}
			a := &s.Stages[i]
			a.Calls += st.Calls
			a.PromptTokens += st.PromptTokens
			a.CompletionTokens += st.CompletionTokens
			a.LatencyMS += st.LatencyMS
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
	fmt.Fprintf(&b, "states %d (with model usage %d), calls %d, fallbacks %d, rejected ids %d\n", s.States, s.ModelStates, s.Calls, s.Fallbacks, s.RejectedIDs)
	fmt.Fprintf(&b, "controller tokens: prompt %d, completion %d, total %d (per state %s)\n", s.PromptTokens, s.CompletionTokens, s.PromptTokens+s.CompletionTokens, per(s.PromptTokens+s.CompletionTokens))
	fmt.Fprintf(&b, "delivered source tokens: %d (per state %s)\n", s.SourceTokens, per(s.SourceTokens))
	fmt.Fprintf(&b, "model latency: total %d ms, per state p50 %d ms, p95 %d ms\n", s.LatencyMS, s.LatencyP50MS, s.LatencyP95MS)
	if len(s.Stages) > 0 {
		fmt.Fprintf(&b, "%-10s %-24s %6s %10s %11s %10s\n", "stage", "model", "calls", "prompt", "completion", "latency_ms")
		for _, st := range s.Stages {
			fmt.Fprintf(&b, "%-10s %-24s %6d %10d %11d %10d\n", st.Stage, st.Model, st.Calls, st.PromptTokens, st.CompletionTokens, st.LatencyMS)
		}
	}
	return b.String()
}
