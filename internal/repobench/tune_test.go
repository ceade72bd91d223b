package repobench

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/internal/gittest"
	"github.com/missingcomplement/mss/retrieve"
)

// probe answers with the candidate its "pick" setting names.
type probe struct{ pick int }

func (p *probe) Name() string { return "tune-probe" }

func (p *probe) Select(_ context.Context, req *mss.Request) (*mss.Result, error) {
	res := &mss.Result{Method: "tune-probe"}
	if p.pick < len(req.Candidates) {
		res.Units = []mss.Unit{req.Candidates[p.pick].Unit}
	}
	return res, nil
}

func init() {
	mss.RegisterMethod("tune-probe", "test method: answers with candidate #pick", func(o mss.MethodOptions) (mss.Controller, error) {
		p := &probe{}
		for k, v := range o.Settings {
			f, err := strconv.ParseFloat(v, 64)
			if k != "pick" || err != nil {
				return nil, fmt.Errorf("tune-probe: bad setting %s=%s", k, v)
			}
			p.pick = int(f)
		}
		return p, nil
	})
}

func TestTunerFitsAndCrossValidates(t *testing.T) {
	fx := newFixture(t)
	src := NewSource(fx.root)
	defer src.Close()
	alpha := mss.Candidate{Unit: mss.Unit{ID: "a", Path: "a.py", StartLine: 1, EndLine: 2}, Views: map[string]int{"lexical": 1}, Signals: map[string]float64{"prior": 1}}
	beta := mss.Candidate{Unit: mss.Unit{ID: "b", Path: "a.py", StartLine: 4, EndLine: 5}, Views: map[string]int{"lexical": 2}, Signals: map[string]float64{"prior": 1}}
	cache := &Cache{States: map[string]*CachedState{}}
	labels := map[string]*Label{}
	var states []*mss.State
	for i, repo := range []string{"acme/widget", "Acme/Widget", "ACME/widget"} {
		// Three spellings of one repository: one fold.
		id := fmt.Sprintf("s%d", i)
		states = append(states, &mss.State{StateID: id, Repo: repo, BaseCommit: fx.c1})
		cache.States[id] = &CachedState{Candidates: []mss.Candidate{alpha, beta}}
		labels[id] = &Label{RequiredGroups: []LineGroup{{Path: "a.py", Lines: [][2]int{{4, 4}}}}}
	}
	// A fourth state, of a repository the cache lacks: scored as missing.
	states = append(states, &mss.State{StateID: "gone", Repo: "acme/other", BaseCommit: fx.c1})
	labels["gone"] = &Label{RequiredGroups: []LineGroup{{Path: "a.py", Lines: [][2]int{{1, 1}}}}}
	tu := &Tuner{Method: "tune-probe", Params: []Param{{Setting: "pick", Grid: []float64{0, 1}}},
		Replay: &Replay{Cache: cache, Order: retrieve.Fused}, Scorer: &Scorer{Source: src, Ks: []int{5, 8}}, Labels: labels, Workers: 2}
	pt, obj, err := tu.Fit(context.Background(), states, Point{"pick": 0})
	if err != nil {
		t.Fatal(err)
	}
	if pt["pick"] != 1 || obj != 0.75*1.1 {
		t.Errorf("fit = %v objective %g, want pick=1 objective %g", pt, obj, 0.75*1.1)
	}
	// Cut to 1 token, no answer holds anything: the objective over the
	// cuts 1 and 6,144 is half the one at 6,144.
	tu.Cuts = []int{1, 6144}
	pt, obj, err = tu.Fit(context.Background(), states, Point{"pick": 0})
	if err != nil {
		t.Fatal(err)
	}
	if pt["pick"] != 1 || obj != 0.75*1.1/2 {
		t.Errorf("fit over cuts = %v objective %g, want pick=1 objective %g", pt, obj, 0.75*1.1/2)
	}
	tu.Cuts = nil
	folds := Folds(states, 5)
	if len(folds) != 2 {
		t.Fatalf("%d folds, want 2 (two repositories)", len(folds))
	}
	res, err := tu.CrossValidate(context.Background(), folds, Point{"pick": 0}, "tune-probe")
	if err != nil {
		t.Fatal(err)
	}
	// Fold 1 holds the three widget states: fitted on the other repository
	// alone (where nothing scores), the start point stays, and it misses.
	if res[0].States != 3 || res[0].Tuned != 0 || res[1].States != 1 {
		t.Errorf("folds: %+v", res)
	}
}

// TestOrderSamplesAndFolds: order samples are the unobserved cached
// candidates in fused order, labelled by whether they overlap a needed
// line; the cross-validation replays each held-out fold in the fused
// order and in the fitted one.
func TestOrderSamplesAndFolds(t *testing.T) {
	fx := newFixture(t)
	src := NewSource(fx.root)
	defer src.Close()
	mk := func(id, kind string, start, rank int, score float64, observed bool) mss.Candidate {
		return mss.Candidate{Unit: mss.Unit{ID: id, Path: "a.py", Kind: kind, StartLine: start, EndLine: start + 1, Tokens: 10}, Score: score,
			Views: map[string]int{"lexical": rank}, Signals: map[string]float64{"prior": 1, "rrf:lexical": 1 / float64(20+rank), "lexical": float64(10 - rank)},
			Observed: observed}
	}
	cache := &Cache{States: map[string]*CachedState{}}
	labels := map[string]*Label{}
	var states []*mss.State
	for i, repo := range []string{"acme/one", "acme/two", "acme/three"} {
		gittest.Run(t, fx.root, "clone", "-q", "--bare", fx.gitDir, filepath.Join(fx.root, strings.ReplaceAll(repo, "/", "+"), "repo"))
		id := fmt.Sprintf("s%d", i)
		states = append(states, &mss.State{StateID: id, Repo: repo, BaseCommit: fx.c1})
		// The needed unit (lines 4-5, a function) comes second in the
		// fused order, after a window; an observed unit is left out.
		cache.States[id] = &CachedState{Candidates: []mss.Candidate{
			mk("seen", "function", 7, 1, 0.06, true), mk("w", "window", 1, 2, 0.05, false), mk("f", "function", 4, 3, 0.04, false)}}
		labels[id] = &Label{RequiredGroups: []LineGroup{{Path: "a.py", Lines: [][2]int{{4, 4}}}}}
	}
	tu := &Tuner{Replay: &Replay{Cache: cache}, Scorer: &Scorer{Source: src, Ks: []int{1, 5, 8}}, Labels: labels, Workers: 1}
	samples := tu.OrderSamples(states)
	if len(samples) != 6 {
		t.Fatalf("%d samples, want 6 (two unobserved candidates of three states)", len(samples))
	}
	for i, s := range samples {
		if want := i%2 == 1; s.Y != want {
			t.Errorf("sample %d needed %v, want %v", i, s.Y, want)
		}
	}
	res, err := tu.CrossValidateOrder(context.Background(), Folds(states, 3), []string{"tune-probe"})
	if err != nil {
		t.Fatal(err)
	}
	// The probe answers with the first candidate: the window in the fused
	// order, the function once the order fitted on the other folds puts
	// it first.
	for _, r := range res {
		if f, ok := r.Fused["tune-probe"]; !ok || f != 0 || r.Learned["tune-probe"] != 1 {
			t.Errorf("fold %d: fused %v, learned %v; want 0 and 1", r.Fold, r.Fused, r.Learned)
		}
		// The held-out answers scored are kept, by order (the probe takes
		// the first candidate even when it was read: the fused order's).
		for order, start := range map[string]int{"fused": 7, "learned": 4} {
			ps := r.Predictions["tune-probe"][order]
			if len(ps) != r.States || len(ps[0].Units) == 0 || ps[0].Units[0].StartLine != start {
				t.Errorf("fold %d: %s answers %+v, want %d starting at line %d", r.Fold, order, ps[0], r.States, start)
			}
		}
	}
	if tu.Replay.Order != nil {
		t.Error("CrossValidateOrder left an order on the replay")
	}

	// A variant of each state needs the window instead: an order fitted on
	// the variants puts windows first, one fitted on the base states
	// functions; each is measured on the held-out base and variant states
	// apart.
	all := states
	for _, st := range states {
		v := *st
		v.StateID += "~v"
		cache.States[v.StateID] = cache.States[st.StateID]
		labels[v.StateID] = &Label{RequiredGroups: []LineGroup{{Path: "a.py", Lines: [][2]int{{1, 1}}}}}
		all = append(all, &v)
	}
	vres, err := tu.CrossValidateVariant(context.Background(), Folds(all, 3), []string{"tune-probe"}, "~v")
	if err != nil {
		t.Fatal(err)
	}
	if len(vres) != 3 {
		t.Fatalf("%d folds, want 3", len(vres))
	}
	for _, r := range vres {
		if r.States != 2 || r.Base["base"]["tune-probe"] != 1 || r.Variant["base"]["tune-probe"] != 0 ||
			r.Base["variant"]["tune-probe"] != 0 || r.Variant["variant"]["tune-probe"] != 1 {
			t.Errorf("fold %d (%d states): base-fitted %v %v, variant-fitted %v %v; want 1 0 and 0 1",
				r.Fold, r.States, r.Base["base"], r.Variant["base"], r.Base["variant"], r.Variant["variant"])
		}
	}
	if tu.Replay.Order != nil {
		t.Error("CrossValidateVariant left an order on the replay")
	}
}
