package repobench

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func scoreOf(method string, rows []StateScore) *MethodScore {
	return &MethodScore{Method: method, Ks: []int{5}, States: rows}
}

func row(id, repo, typ string, groups int, c5 float64) StateScore {
	return StateScore{StateID: id, Repo: repo, StateType: typ, Groups: groups, Metrics: map[string]float64{"complete@5": c5}}
}

func TestCompare(t *testing.T) {
	base := scoreOf("bm25", []StateScore{
		row("a", "o/x", "before_search", 1, 0), row("b", "o/x", "before_search", 2, 1),
		row("c", "o/y", "after_file_inspection", 1, 0), row("d", "o/z", "before_search", 3, 0),
	})
	base.Strata = map[string]*Stratum{"before_search": {}, "after_file_inspection": {}, OneGroup: {}, TwoGroups: {}}
	method := scoreOf("complement", []StateScore{
		row("a", "o/x", "before_search", 1, 1), row("b", "o/x", "before_search", 2, 1),
		row("c", "o/y", "after_file_inspection", 1, 1), row("d", "o/z", "before_search", 3, 0),
	})
	got, err := Compare(base, method, "complete@5", 0, 7)
	if err != nil {
		t.Fatal(err)
	}
	type fig struct {
		Stratum           string
		N                 int
		A, B, Diff, Lo    float64
		Wins, Ties, Losse int
	}
	var g []fig
	for _, p := range got {
		if p.Baseline != "bm25" || p.Method != "complement" || p.Metric != "complete@5" || p.Seed != 7 || p.Hi != p.Lo {
			t.Errorf("comparison header %+v", p)
		}
		g = append(g, fig{p.Stratum, p.N, p.MeanA, p.MeanB, p.Diff, p.Lo, p.Wins, p.Ties, p.Losses})
	}
	want := []fig{
		{"all", 4, 0.25, 0.75, 0.5, 0.5, 2, 2, 0},
		{"after_file_inspection", 1, 0, 1, 1, 1, 1, 0, 0},
		{"before_search", 3, 1.0 / 3, 2.0 / 3, 1.0 / 3, 1.0 / 3, 1, 2, 0},
		{OneGroup, 2, 0, 1, 1, 1, 2, 0, 0},
		{TwoGroups, 2, 0.5, 0.5, 0, 0, 0, 2, 0},
	}
	approx := cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-12 })
	if diff := cmp.Diff(want, g, approx); diff != "" {
		t.Errorf("comparisons (-want +got):\n%s", diff)
	}

	// With resampling, the interval brackets the difference.
	got, err = Compare(base, method, "complete@5", 2000, 1)
	if err != nil {
		t.Fatal(err)
	}
	if p := got[0]; p.Lo > p.Diff || p.Hi < p.Diff || p.Lo == p.Hi || p.Draws != 2000 {
		t.Errorf("bootstrap interval %+v", p)
	}

	if _, err := Compare(base, method, "complete@8", 0, 1); err == nil || !strings.Contains(err.Error(), `metric "complete@8" not scored`) {
		t.Errorf("unscored metric: got %v", err)
	}
	// A state one side has no prediction for is no figure to pair.
	gap := scoreOf("partial", append([]StateScore(nil), method.States...))
	gap.States[2].Missing, gap.States[3].Missing = true, true
	if _, err := Compare(base, gap, "complete@5", 0, 1); err == nil || !strings.Contains(err.Error(), "partial has no prediction for 2 of 4 states (first: c)") {
		t.Errorf("missing predictions: got %v", err)
	}
	if _, err := Compare(gap, method, "complete@5", 0, 1); err == nil || !strings.Contains(err.Error(), "partial has no prediction for 2 of 4 states (first: c)") {
		t.Errorf("missing baseline predictions: got %v", err)
	}
	method.States = method.States[:3]
	if _, err := Compare(base, method, "complete@5", 0, 1); err == nil || !strings.Contains(err.Error(), "different states") {
		t.Errorf("different states: got %v", err)
	}
}

// States of one repository are one cluster of the bootstrap however
// their repo field is cased, as they are one index and one fold.
func TestCompareClustersFoldCase(t *testing.T) {
	rows := func(method string, c5 ...float64) *MethodScore {
		repos := []string{"o/x", "O/X", "o/y", "o/y"}
		var rs []StateScore
		for i, v := range c5 {
			rs = append(rs, row(string(rune('a'+i)), repos[i], "before_search", 1, v))
		}
		ms := scoreOf(method, rs)
		ms.Strata = map[string]*Stratum{"before_search": {}, OneGroup: {}}
		return ms
	}
	folded := func(method string, c5 ...float64) *MethodScore {
		ms := rows(method, c5...)
		for i := range ms.States {
			ms.States[i].Repo = strings.ToLower(ms.States[i].Repo)
		}
		return ms
	}
	got, err := Compare(rows("a", 0, 0, 0, 0), rows("b", 1, 0, 1, 1), "complete@5", 500, 3)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Compare(folded("a", 0, 0, 0, 0), folded("b", 1, 0, 1, 1), "complete@5", 500, 3)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("a repository spelled two ways (-as one cluster +got):\n%s", diff)
	}
}

// On a count, where less is better (tokens, observed units), a state wins
// when the method spends less; the difference keeps its sign.
func TestCompareCountsWinLower(t *testing.T) {
	tok := func(id string, n float64) StateScore {
		return StateScore{StateID: id, Repo: "o/x", StateType: "before_search", Groups: 1, Metrics: map[string]float64{"tokens@5": n, "complete@5": 0}}
	}
	base := scoreOf("bm25", []StateScore{tok("a", 100), tok("b", 100), tok("c", 100), tok("d", 100)})
	method := scoreOf("complement", []StateScore{tok("a", 50), tok("b", 60), tok("c", 100), tok("d", 390)})
	method.States[0].Metrics["complete@5"] = 1
	got, err := Compare(base, method, "tokens@5", 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if p := got[0]; p.Wins != 2 || p.Ties != 1 || p.Losses != 1 || math.Abs(p.Diff-50) > 1e-9 {
		t.Errorf("tokens@5: %d/%d/%d, diff %v; want 2/1/1, +50", p.Wins, p.Ties, p.Losses, p.Diff)
	}
	if got, err = Compare(base, method, "complete@5", 0, 1); err != nil || got[0].Wins != 1 || got[0].Losses != 0 {
		t.Errorf("complete@5: %+v, %v; want 1 win, no loss", got[0], err)
	}
	for metric, want := range map[string]bool{"tokens@8": true, "observed_units@5": true, "complete@5": false, "group_recall@8": false, "necessity@3": false} {
		if IsCount(metric) != want {
			t.Errorf("IsCount(%q) = %v, want %v", metric, !want, want)
		}
	}
}
