package serbench

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
)

func mustItems(t *testing.T, s string) *Items {
	t.Helper()
	items, err := ReadItems(strings.NewReader(s), "items.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return items
}

func mustPreds(t *testing.T, s string) *Predictions {
	t.Helper()
	p, err := ReadPredictions(strings.NewReader(s), "preds.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

const twoItems = `{"state_id":"a","issue":"x","repo":"o/x","candidate_evidence":[{"evidence_id":"a1"},{"evidence_id":"a2"}],"observed_evidence_ids":["a2"]}
{"state_id":"b","issue":"x","repo":"o/y","candidate_evidence":[{"evidence_id":"b1"}]}
`

func messages(es Errors) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Error())
	}
	return out
}

func TestValidatePredictions(t *testing.T) {
	items := mustItems(t, twoItems)
	tests := []struct {
		name    string
		preds   string
		partial bool
		want    []string
	}{
		{"valid, observed slot kept", `{"state_id":"a","method":"m","ranked_evidence_ids":["a2","a1"]}` + "\n" + `{"state_id":"b","method":"m","ranked_evidence_ids":[]}`, false, nil},
		{"missing state", `{"state_id":"a","method":"m","ranked_evidence_ids":[]}`, false,
			[]string{`items.jsonl:2: state_id: method "m" has no prediction for state "b" in preds.jsonl`}},
		{"missing state, partial", `{"state_id":"a","method":"m","ranked_evidence_ids":[]}`, true, nil},
		{"id of another state's pool", `{"state_id":"a","method":"m","ranked_evidence_ids":["b1"]}` + "\n" + `{"state_id":"b","method":"m","ranked_evidence_ids":["b1"]}`, false,
			[]string{`preds.jsonl:1: ranked_evidence_ids[0]: evidence id "b1" is not a candidate of state "a"`}},
		{"another split", `{"state_id":"t1","method":"m","ranked_evidence_ids":["x"]}` + "\n" + `{"state_id":"t2","method":"m","ranked_evidence_ids":[]}`, false,
			[]string{`preds.jsonl:1: state_id: unknown state_id "t1": not in items.jsonl`, `preds.jsonl:2: state_id: unknown state_id "t2": not in items.jsonl`}},
	}
	for _, tc := range tests {
		got := messages(Validate(items, nil, mustPreds(t, tc.preds), Options{Partial: tc.partial}))
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestValidateWithoutItems(t *testing.T) {
	labels, err := ReadLabels(strings.NewReader(`{"state_id":"a","required_evidence_groups":[{"role":"r","acceptable_evidence_ids":["a1"],"minimum_required":1,"necessity_weight":1}]}`), "labels.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	preds := mustPreds(t, `{"state_id":"a","method":"m","ranked_evidence_ids":["anything"]}`+"\n"+`{"state_id":"z","method":"m","ranked_evidence_ids":[]}`)
	got := messages(Validate(nil, labels, preds, Options{}))
	want := []string{`preds.jsonl:2: state_id: unknown state_id "z": not in labels.jsonl`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// fakeController answers with fixed ids per state.
type fakeController struct{ answers map[string][]string }

func (f *fakeController) Name() string { return "fake" }

func (f *fakeController) Select(_ context.Context, req *mss.Request) (*mss.Result, error) {
	byID := map[string]mss.Unit{}
	for _, c := range req.Candidates {
		byID[c.Unit.ID] = c.Unit
	}
	res := &mss.Result{Method: "fake", Config: "x=1"}
	for _, id := range f.answers[req.State.StateID] {
		u, ok := byID[id]
		if !ok {
			u = mss.Unit{ID: id}
		}
		res.Units = append(res.Units, u)
	}
	return res, nil
}

func poolOrder(_ context.Context, _ *mss.State, pool []mss.Unit) ([]mss.Candidate, *mss.Mentions, error) {
	out := make([]mss.Candidate, len(pool))
	for i, u := range pool {
		out[i] = mss.Candidate{Unit: u}
	}
	return out, nil, nil
}

func TestRun(t *testing.T) {
	items := mustItems(t, twoItems)
	ctrl := &fakeController{answers: map[string][]string{"a": {"a1"}, "b": nil}}
	preds, err := Run(context.Background(), items, ctrl, poolOrder, RunOptions{Name: "fake_k3", K: 3, Budget: mss.DefaultBudget})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WritePredictions(&b, preds); err != nil {
		t.Fatal(err)
	}
	want := `{"state_id":"a","method":"fake_k3","ranked_evidence_ids":["a1"],"config":{"controller":"fake","k":3,"budget":6144,"detail":"x=1"}}
{"state_id":"b","method":"fake_k3","ranked_evidence_ids":[],"config":{"controller":"fake","k":3,"budget":6144,"detail":"x=1"}}
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("predictions (-want +got):\n%s", diff)
	}
	// The written rows load back and validate.
	back := mustPreds(t, b.String())
	if es := Validate(items, nil, back, Options{}); len(es) != 0 {
		t.Errorf("run output does not validate: %v", es)
	}

	if _, err := Run(context.Background(), items, ctrl, poolOrder, RunOptions{K: 3}); err == nil || !strings.Contains(err.Error(), "budget must be positive") {
		t.Errorf("no budget: error %v", err)
	}
	if _, err := Run(context.Background(), items, ctrl, poolOrder, RunOptions{Name: " ", K: 3, Budget: mss.DefaultBudget}); err == nil || !strings.Contains(err.Error(), `method name " "`) {
		t.Errorf("blank name: error %v", err)
	}
	for name, answers := range map[string]map[string][]string{
		"out of pool": {"a": {"b1"}},
		"twice":       {"a": {"a1", "a1"}},
	} {
		_, err := Run(context.Background(), items, &fakeController{answers}, poolOrder, RunOptions{K: 3, Budget: mss.DefaultBudget})
		if err == nil || !strings.HasPrefix(err.Error(), "items.jsonl:1: state a: fake returned") {
			t.Errorf("%s: error %v", name, err)
		}
	}
}

func TestValidateExampleRuns(t *testing.T) {
	dir := exampleDir(t)
	items, err := LoadItems(filepath.Join(dir, "items.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// Abstaining on every state is valid; scoring it gives zeros.
	var rows []string
	for _, it := range items.Items {
		rows = append(rows, `{"state_id":"`+it.State.StateID+`","method":"none","ranked_evidence_ids":[]}`)
	}
	preds := mustPreds(t, strings.Join(rows, "\n"))
	labels, err := LoadLabels(filepath.Join(dir, "labels.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if es := Validate(items, labels, preds, Options{}); len(es) != 0 {
		t.Fatalf("abstentions do not validate: %v", es)
	}
	_, sum, err := ScoreAll(labels, preds, []int{5})
	if err != nil {
		t.Fatal(err)
	}
	if got := sum["none"]["mss_complete@5"]; got != 0 || sum["none"]["states"] != 3 {
		t.Errorf("abstention summary %v", sum["none"])
	}
}

// firstController returns the first candidates it is offered.
type firstController struct{}

func (firstController) Name() string { return "first" }

func (firstController) Select(_ context.Context, req *mss.Request) (*mss.Result, error) {
	_, _, maxUnits := req.Limits()
	res := &mss.Result{Method: "first"}
	for i := 0; i < len(req.Candidates) && i < maxUnits; i++ {
		res.Units = append(res.Units, req.Candidates[i].Unit)
	}
	return res, nil
}

func TestRunSkipObserved(t *testing.T) {
	items := mustItems(t, twoItems) // a2 is observed in state a
	marked := func(ctx context.Context, st *mss.State, pool []mss.Unit) ([]mss.Candidate, *mss.Mentions, error) {
		cands, _, _ := poolOrder(ctx, st, pool)
		for i := range cands {
			for _, id := range st.ObservedEvidenceIDs {
				if cands[i].Unit.ID == id {
					cands[i].Observed = true
				}
			}
		}
		// Observed first, so a method that keeps them returns them.
		sort.SliceStable(cands, func(i, j int) bool { return cands[i].Observed && !cands[j].Observed })
		return cands, nil, nil
	}
	for _, tc := range []struct {
		skip bool
		want []string
	}{{false, []string{"a2", "a1"}}, {true, []string{"a1"}}} {
		preds, err := Run(context.Background(), items, firstController{}, marked, RunOptions{K: 2, Budget: mss.DefaultBudget, SkipObserved: tc.skip})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, preds[0].RankedIDs); diff != "" {
			t.Errorf("skip=%v (-want +got):\n%s", tc.skip, diff)
		}
		if got := strings.Contains(string(preds[0].Config), `"skip_observed":true`); got != tc.skip {
			t.Errorf("skip=%v: config %s", tc.skip, preds[0].Config)
		}
	}
}
