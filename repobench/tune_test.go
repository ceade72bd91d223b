package repobench

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/missingcomplement/mss"
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
		Replay: &Replay{Cache: cache}, Scorer: &Scorer{Source: src, Ks: []int{5, 8}}, Labels: labels, Workers: 2}
	pt, obj, err := tu.Fit(context.Background(), states, Point{"pick": 0})
	if err != nil {
		t.Fatal(err)
	}
	if pt["pick"] != 1 || obj != 0.75*1.1 {
		t.Errorf("fit = %v objective %g, want pick=1 objective %g", pt, obj, 0.75*1.1)
	}
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
