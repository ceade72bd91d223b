package semantic

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestSummarizeUsage(t *testing.T) {
	us := []*mss.Usage{
		{PromptTokens: 1500, CompletionTokens: 150, Calls: 2, LatencyMS: 900, SourceTokens: 3000, StageUsage: []mss.StageUsage{
			{Stage: "finalize", Model: "fast", Calls: 1, PromptTokens: 500, CompletionTokens: 50, LatencyMS: 300},
			{Stage: "propose", Model: "strong", Calls: 1, PromptTokens: 1000, CompletionTokens: 100, ReasoningTokens: 40, LatencyMS: 600},
		}},
		nil, // a method without model calls
		{PromptTokens: 1000, CompletionTokens: 100, Calls: 1, FailedCalls: 1, Fallbacks: 1, RejectedIDs: 2, LatencyMS: 2000, SourceTokens: 5000, StageUsage: []mss.StageUsage{
			{Stage: "propose", Model: "strong-2", Calls: 1, PromptTokens: 1000, CompletionTokens: 100, LatencyMS: 2000},
		}},
	}
	s := SummarizeUsage(us)
	want := []mss.StageUsage{
		{Stage: "propose", Model: "strong,strong-2", Calls: 2, PromptTokens: 2000, CompletionTokens: 200, ReasoningTokens: 40, LatencyMS: 2600},
		{Stage: "finalize", Model: "fast", Calls: 1, PromptTokens: 500, CompletionTokens: 50, LatencyMS: 300},
	}
	if d := cmp.Diff(want, s.Stages); d != "" {
		t.Errorf("stages (-want +got):\n%s", d)
	}
	got := []any{s.States, s.ModelStates, s.Calls, s.PromptTokens, s.CompletionTokens, s.SourceTokens, s.Fallbacks, s.RejectedIDs, s.LatencyMS, s.LatencyP50MS, s.LatencyP95MS}
	if d := cmp.Diff([]any{3, 2, 3, 2500, 250, 8000, 1, 2, int64(2900), int64(900), int64(2000)}, got); d != "" {
		t.Errorf("totals (-want +got):\n%s", d)
	}
	golden := filepath.Join("testdata", "usage_summary.txt")
	if *update {
		os.MkdirAll("testdata", 0o755)
		os.WriteFile(golden, []byte(s.String()), 0o644)
	}
	b, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(b), s.String()); d != "" {
		t.Errorf("String (-golden +got):\n%s", d)
	}
}

func TestCost(t *testing.T) {
	s := SummarizeUsage([]*mss.Usage{{StageUsage: []mss.StageUsage{
		{Stage: "propose", Model: "strong", Calls: 1, PromptTokens: 1_000_000, CompletionTokens: 100_000},
		{Stage: "expand", Model: "fast", Calls: 1, PromptTokens: 2_000_000, CompletionTokens: 0},
		{Stage: "finalize", Model: "other", Calls: 1, PromptTokens: 5, CompletionTokens: 5},
	}}})
	prices, err := ParsePrices(map[string]string{"price.strong": "2,8", "price.fast": " 0.5 , 2", "propose.model": "strong"})
	if err != nil {
		t.Fatal(err)
	}
	got, unpriced := s.Cost(prices)
	if want := 2.0 + 0.8 + 1.0; got != want || !cmp.Equal(unpriced, []string{"other"}) {
		t.Errorf("cost = %v, unpriced %v; want %v, [other]", got, unpriced, want)
	}
	for _, bad := range []string{"2", "a,b", "-1,2", "", "NaN,NaN", "1,NaN", "NaN,1", "Inf,1", "1,+Inf", "-Inf,1"} {
		if _, err := ParsePrices(map[string]string{"price.m": bad}); err == nil {
			t.Errorf("price %q accepted", bad)
		}
	}
}
