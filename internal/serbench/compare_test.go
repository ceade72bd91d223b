package serbench

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCompare(t *testing.T) {
	items := mustItems(t, `{"state_id":"s1","issue":"x","repo":"o/x","state_type":"before_edit","candidate_evidence":[{"evidence_id":"a"},{"evidence_id":"b"},{"evidence_id":"o"}],"observed_evidence_ids":["o"]}
{"state_id":"s2","issue":"x","repo":"o/x","state_type":"before_edit","candidate_evidence":[{"evidence_id":"a"},{"evidence_id":"b"}]}
{"state_id":"s3","issue":"x","repo":"o/y","state_type":"after_test","candidate_evidence":[{"evidence_id":"a"},{"evidence_id":"b"},{"evidence_id":"c"}]}
`)
	labels, err := ReadLabels(strings.NewReader(`{"state_id":"s1","required_evidence_groups":[{"role":"r","acceptable_evidence_ids":["a"],"minimum_required":1,"necessity_weight":1}],"observed_evidence_ids":["o"]}
{"state_id":"s2","required_evidence_groups":[{"role":"r","acceptable_evidence_ids":["a"],"minimum_required":1,"necessity_weight":1},{"role":"q","acceptable_evidence_ids":["b"],"minimum_required":1,"necessity_weight":1}]}
{"state_id":"s3","required_evidence_groups":[{"role":"r","acceptable_evidence_ids":["a"],"minimum_required":1,"necessity_weight":1},{"role":"q","acceptable_evidence_ids":["b"],"minimum_required":1,"necessity_weight":1},{"role":"p","acceptable_evidence_ids":["c"],"minimum_required":1,"necessity_weight":1}]}
`), "labels.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// group_recall@2: A gets s1 1, s2 1/2, s3 0; B gets s1 1, s2 1, s3 2/3.
	preds := mustPreds(t, `{"state_id":"s1","method":"A","ranked_evidence_ids":["a"]}
{"state_id":"s2","method":"A","ranked_evidence_ids":["a","o"]}
{"state_id":"s3","method":"A","ranked_evidence_ids":[]}
{"state_id":"s1","method":"B","ranked_evidence_ids":["o","a"]}
{"state_id":"s2","method":"B","ranked_evidence_ids":["b","a"]}
{"state_id":"s3","method":"B","ranked_evidence_ids":["c","b","a"]}
`)
	strata, err := Compare(items, labels, preds, CompareOptions{Baseline: "A", Method: "B", Metric: GroupRecall, K: 2, Draws: 0, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Name             string
		N                int
		MeanA, MeanB     float64
		Wins, Ties, Loss int
	}
	var got []row
	for _, s := range strata {
		got = append(got, row{s.Name, s.N, s.MeanA, s.MeanB, s.Wins, s.Ties, s.Losses})
	}
	want := []row{
		{"all", 3, 1.5 / 3, (2 + 2.0/3) / 3, 2, 1, 0},
		{"groups=1", 1, 1, 1, 0, 1, 0},
		{"groups=2", 1, 0.5, 1, 1, 0, 0},
		{"groups>=3", 1, 0, 2.0 / 3, 1, 0, 0},
		{"state_type=after_test", 1, 0, 2.0 / 3, 1, 0, 0},
		{"state_type=before_edit", 2, 0.75, 1, 1, 1, 0},
		{"observed=with", 1, 1, 1, 0, 1, 0},
		{"observed=without", 2, 0.25, (1 + 2.0/3) / 2, 2, 0, 0},
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 })); diff != "" {
		t.Errorf("strata (-want +got):\n%s", diff)
	}
	if _, err := Compare(items, labels, preds, CompareOptions{Baseline: "A", Method: "C", Metric: GroupRecall, K: 2}); err == nil {
		t.Error("Compare with an unknown method gave no error")
	}
	if _, err := Compare(items, labels, preds, CompareOptions{Baseline: "A", Method: "B", Metric: "recall", K: 2}); err == nil {
		t.Error("Compare with an unknown metric gave no error")
	}
	// A state without a repository has no cluster of its own to be
	// resampled with.
	noRepo := mustItems(t, strings.Replace(`{"state_id":"s1","issue":"x","repo":"o/x","state_type":"before_edit","candidate_evidence":[{"evidence_id":"a"},{"evidence_id":"b"},{"evidence_id":"o"}],"observed_evidence_ids":["o"]}
{"state_id":"s2","issue":"x","repo":"o/x","state_type":"before_edit","candidate_evidence":[{"evidence_id":"a"},{"evidence_id":"b"}]}
{"state_id":"s3","issue":"x","repo":"o/y","state_type":"after_test","candidate_evidence":[{"evidence_id":"a"},{"evidence_id":"b"},{"evidence_id":"c"}]}
`, `"repo":"o/y",`, "", 1))
	_, err = Compare(noRepo, labels, preds, CompareOptions{Baseline: "A", Method: "B", Metric: GroupRecall, K: 2, Draws: 10, Seed: 1})
	if want := "items.jsonl:3: repo: missing or empty"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Compare of a state without a repository: got %v, want an error containing %q", err, want)
	}
}
