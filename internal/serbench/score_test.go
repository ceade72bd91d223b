package serbench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
)

func group(id, role string, min int, w float64, ids ...string) mss.Group {
	return mss.Group{GroupID: id, Role: role, AcceptableIDs: ids, MinimumRequired: min, NecessityWeight: w}
}

// Hand-computed cases, one concern each.
func TestScoreHandComputed(t *testing.T) {
	two := &mss.Certificate{
		Groups: []mss.Group{
			group("bug", "bug_location", 1, 2, "e1", "e2"),
			group("check", "verification_constraint", 1, 1, "e3"),
		},
		AlternativeSets: [][]string{{"e1", "e3"}, {"e2", "e3"}},
		ObservedIDs:     []string{"o1"},
	}
	log3 := log2Int(3)
	tests := []struct {
		name   string
		ranked []string
		cert   *mss.Certificate
		k      int
		want   Metrics
	}{
		{
			name:   "gold first completes at ranks 1 and 2",
			ranked: []string{"e1", "e3", "x"},
			cert:   two, k: 5,
			// ideal: e1 then e3 -> 2/1 + 1/log2(3), which this ranking is.
			want: Metrics{MSSComplete: 1, GroupRecall: 1, NecessityWeightedRecall: 1, RoleCoverage: 1, GroupNDCG: 1, RequiredNovelty: 1},
		},
		{
			name:   "reversed: heavy group second",
			ranked: []string{"e3", "e1"},
			cert:   two, k: 5,
			want: Metrics{MSSComplete: 1, GroupRecall: 1, NecessityWeightedRecall: 1, RoleCoverage: 1,
				GroupNDCG: (1 + 2/log3) / (2 + 1/log3), RequiredNovelty: 1},
		},
		{
			name:   "cut by k",
			ranked: []string{"x", "e2", "e3"},
			cert:   two, k: 2,
			want: Metrics{MSSComplete: 0, GroupRecall: 0.5, NecessityWeightedRecall: 2.0 / 3, RoleCoverage: 0.5,
				GroupNDCG: (2 / log3) / (2 + 1/log3), RequiredNovelty: 1},
		},
		{
			name:   "empty ranking abstains",
			ranked: nil,
			cert:   two, k: 8,
			want: Metrics{},
		},
		{
			name:   "observed id keeps its slot",
			ranked: []string{"o1", "e2"},
			cert:   two, k: 1,
			want: Metrics{},
		},
		{
			name:   "minimum_required counts distinct acceptable ids",
			ranked: []string{"a", "x", "b"},
			cert:   &mss.Certificate{Groups: []mss.Group{group("g", "r", 2, 1, "a", "b", "c")}},
			k:      3,
			// completes at rank 3; ideal completes at rank 2.
			want: Metrics{MSSComplete: 1, GroupRecall: 1, NecessityWeightedRecall: 1, RoleCoverage: 1,
				GroupNDCG: (1 / 2.0) / (1 / log3), RequiredNovelty: 1},
		},
		{
			name:   "alternative set completes the state alone",
			ranked: []string{"p", "q"},
			cert: &mss.Certificate{
				Groups:          []mss.Group{group("g1", "r1", 1, 1, "a"), group("g2", "r2", 1, 1, "b")},
				AlternativeSets: [][]string{{"q", "p"}},
			},
			k:    2,
			want: Metrics{MSSComplete: 1},
		},
		{
			name:   "roles: two groups share a role",
			ranked: []string{"a"},
			cert: &mss.Certificate{Groups: []mss.Group{
				group("g1", "bug_location", 1, 3, "a"),
				group("g2", "bug_location", 1, 1, "b"),
				group("g3", "api", 1, 1, "c"),
			}},
			k: 1,
			// ideal at k=1 is 3 (a alone).
			want: Metrics{GroupRecall: 1.0 / 3, NecessityWeightedRecall: 3.0 / 5, RoleCoverage: 0.5, GroupNDCG: 1, RequiredNovelty: 1},
		},
		{
			name:   "one unit completes two groups at once",
			ranked: []string{"x", "s"},
			cert: &mss.Certificate{Groups: []mss.Group{
				group("g1", "r", 1, 1, "s", "a"),
				group("g2", "r", 1, 1, "s", "b"),
			}},
			k: 2,
			// dcg 2/log2(3); ideal puts s first: 2.
			want: Metrics{MSSComplete: 1, GroupRecall: 1, NecessityWeightedRecall: 1, RoleCoverage: 1,
				GroupNDCG: (2 / log3) / 2, RequiredNovelty: 1},
		},
		{
			name:   "novelty counts observed required ids",
			ranked: []string{"a", "b"},
			cert: &mss.Certificate{
				Groups:      []mss.Group{group("g", "r", 2, 1, "a", "b")},
				ObservedIDs: []string{"a"},
			},
			k:    2,
			want: Metrics{MSSComplete: 1, GroupRecall: 1, NecessityWeightedRecall: 1, RoleCoverage: 1, GroupNDCG: 1, RequiredNovelty: 0.5},
		},
		{
			name:   "no groups scores one",
			ranked: nil,
			cert:   &mss.Certificate{},
			k:      5,
			want:   Metrics{1, 1, 1, 1, 1, 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Score(tc.ranked, tc.cert, tc.k)
			if diff := cmp.Diff(tc.want, got, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) <= 1e-15 })); diff != "" {
				t.Errorf("Score(%v, k=%d) mismatch (-want +got):\n%s", tc.ranked, tc.k, diff)
			}
		})
	}
}

func TestIdealGroupDCG(t *testing.T) {
	log3 := log2Int(3)
	tests := []struct {
		name   string
		groups []mss.Group
		k      int
		want   float64
	}{
		{"k zero", []mss.Group{group("g", "r", 1, 1, "a")}, 0, 0},
		{"sorted weights", []mss.Group{group("g1", "r", 1, 1, "a"), group("g2", "r", 1, 3, "b")}, 5, 3 + 1/log3},
		{"k limits", []mss.Group{group("g1", "r", 1, 1, "a"), group("g2", "r", 1, 3, "b")}, 1, 3},
		{"shared unit", []mss.Group{group("g1", "r", 1, 1, "s", "a"), group("g2", "r", 1, 2, "s")}, 3, 3},
		{"two needed", []mss.Group{group("g1", "r", 2, 4, "a", "b"), group("g2", "r", 1, 1, "c")}, 3,
			// c first (1) then a, b (4/2) = 3; a, b then c = 4/log3 + 1/2.
			math.Max(1+4/2.0, 4/log3+1/2.0)},
	}
	for _, tc := range tests {
		if got := IdealGroupDCG(tc.groups, tc.k); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("%s: IdealGroupDCG = %v, want %v", tc.name, got, tc.want)
		}
	}
	// Above the exact-search limit the ideal is the sum of the weights.
	var big []mss.Group
	for i := 0; i <= maxIdealUniverse; i++ {
		big = append(big, group(fmt.Sprint("g", i), "r", 1, 0.5, fmt.Sprint("e", i)))
	}
	if got, want := IdealGroupDCG(big, 3), 0.5*float64(len(big)); got != want {
		t.Errorf("fallback ideal = %v, want %v", got, want)
	}
}

func TestLog2IntCorrectlyRounded(t *testing.T) {
	// log2(3) and log2(9) as correctly rounded float64 (math.Log2 is one
	// ulp off on both).
	for n, want := range map[int]uint64{3: 0x3ff95c01a39fbd68, 9: 0x40095c01a39fbd68, 8: 0x4008000000000000} {
		if got := math.Float64bits(log2Int(n)); got != want {
			t.Errorf("log2Int(%d) bits = %#x, want %#x", n, got, want)
		}
	}
}

// TestGolden checks the scorer against per-state scores and summaries the
// release's reference scorer computed for 160 random certificates and
// eight kinds of ranking each (gold first, reversed, random, empty,
// shorter than k, observed first, an alternative set first, interleaved).
func TestGolden(t *testing.T) {
	dir := filepath.Join("testdata", "golden")
	labels, err := LoadLabels(filepath.Join(dir, "labels.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	preds, err := LoadPredictions(filepath.Join(dir, "predictions.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	rows, summary, err := ScoreAll(labels, preds, []int{1, 2, 3, 5, 8, 10, 16})
	if err != nil {
		t.Fatal(err)
	}

	var want Summary
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, summary); diff != "" {
		t.Errorf("summary differs from the reference (-want +got):\n%s", diff)
	}

	f, err := Open(filepath.Join(dir, "per_state.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	i := 0
	for ; sc.Scan(); i++ {
		var ref map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ref); err != nil {
			t.Fatal(err)
		}
		if i >= len(rows) {
			t.Fatalf("reference has more rows than the %d scored", len(rows))
		}
		got := rows[i]
		if ref["state_id"] != got.StateID || ref["method"] != got.Method {
			t.Fatalf("row %d: reference is %v/%v, got %s/%s", i, ref["state_id"], ref["method"], got.StateID, got.Method)
		}
		for key, v := range ref {
			if key == "state_id" || key == "method" {
				continue
			}
			if g := got.Values[key]; g != v.(float64) {
				t.Errorf("%s/%s %s = %v, reference %v", got.StateID, got.Method, key, g, v)
			}
		}
	}
	if i != len(rows) {
		t.Errorf("reference has %d rows, scored %d", i, len(rows))
	}
}

// Labels whose weights overflow are refused by the loader, but ScoreAll,
// Compare and Mean may still be handed them (or other non-finite values):
// they must answer with an error or a non-finite number, never panic.
func TestScoreNonFiniteWeights(t *testing.T) {
	labels, err := ReadLabels(strings.NewReader(`{"state_id":"s1","required_evidence_groups":[{"role":"r","acceptable_evidence_ids":["a"],"minimum_required":1,"necessity_weight":1.7e308},{"role":"q","acceptable_evidence_ids":["b"],"minimum_required":1,"necessity_weight":1.7e308}]}
`), "labels.jsonl")
	if err == nil {
		t.Error("ReadLabels accepted weights summing to +Inf")
	}
	preds := mustPreds(t, `{"state_id":"s1","method":"A","ranked_evidence_ids":["a","b"]}
{"state_id":"s1","method":"B","ranked_evidence_ids":["b"]}
`)
	_, _, err = ScoreAll(labels, preds, []int{1, 2})
	if err == nil || !strings.Contains(err.Error(), "labels.jsonl:1: ") || !strings.Contains(err.Error(), "not finite") {
		t.Errorf("ScoreAll = %v, want an error naming labels.jsonl:1 and the non-finite score", err)
	}
	items := mustItems(t, `{"state_id":"s1","issue":"x","repo":"o/x","candidate_evidence":[{"evidence_id":"a"},{"evidence_id":"b"}]}`+"\n")
	_, err = Compare(items, labels, preds, CompareOptions{Baseline: "A", Method: "B", Metric: GroupNDCG, K: 2, Draws: 10, Seed: 1})
	if err == nil || !strings.Contains(err.Error(), "labels.jsonl:1: ") || !strings.Contains(err.Error(), "not finite") {
		t.Errorf("Compare = %v, want an error naming labels.jsonl:1 and the non-finite score", err)
	}
	for _, xs := range [][]float64{{1, math.NaN()}, {math.Inf(1), 1}, {math.Inf(-1)}} {
		if m := Mean(xs); !math.IsNaN(m) && !math.IsInf(m, 0) {
			t.Errorf("Mean(%v) = %v, want a non-finite mean", xs, m)
		}
	}
}
