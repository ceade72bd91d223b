package repobench

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/pipeline"
	"github.com/missingcomplement/mss/render"
	"github.com/missingcomplement/mss/retrieve"
)

// Fusion overrides the fusion of cached candidates: view weights by view
// name and the rank constant. The zero value keeps the cached order.
type Fusion struct {
	Weights map[string]float64
	K       float64
}

// zero reports whether the fusion keeps the cached order.
func (f Fusion) zero() bool { return len(f.Weights) == 0 && f.K == 0 }

// FusionSettings takes the fusion.<view>=w and fusion.k=k settings out of
// settings (as --fit names its fusion parameters) into a Fusion; the rest
// stay. A view fusion does not weigh (retrieve.ViewWeight), or a value
// that is no non-negative number (k: positive), is an error.
func FusionSettings(settings map[string]string) (Fusion, error) {
	var f Fusion
	for _, k := range slices.Sorted(maps.Keys(settings)) {
		view, ok := strings.CutPrefix(k, "fusion.")
		if !ok {
			continue
		}
		val := settings[k]
		w, err := strconv.ParseFloat(val, 64)
		if err != nil || w < 0 || math.IsInf(w, 0) || math.IsNaN(w) || view == "k" && w == 0 {
			return f, fmt.Errorf("setting %s=%q: want a non-negative number (k: positive)", k, val)
		}
		switch {
		case view == "k":
			f.K = w
		case retrieve.ViewWeight(view) > 0:
			if f.Weights == nil {
				f.Weights = map[string]float64{}
			}
			f.Weights[view] = w
		default:
			return f, fmt.Errorf("setting %s: no view %q", k, view)
		}
		delete(settings, k)
	}
	return f, nil
}

// String lists the overrides, sorted, e.g. "entity=1.4 k=20".
func (f Fusion) String() string {
	var parts []string
	for v, w := range f.Weights {
		parts = append(parts, v+"="+strconv.FormatFloat(w, 'g', -1, 64))
	}
	sort.Strings(parts)
	if f.K > 0 {
		parts = append(parts, "k="+strconv.FormatFloat(f.K, 'g', -1, 64))
	}
	return strings.Join(parts, " ")
}

// Replay answers states from a candidate cache with one controller, as a
// benchmark run would have answered them from the same candidates.
type Replay struct {
	Cache    *Cache
	Budget   int
	MaxUnits int
	Fusion   Fusion
	// Order puts the (re)fused candidates in its order, as
	// retrieve.Options.Order does in a live run: nil is the live default
	// (the learned order), retrieve.Fused keeps the fused order.
	Order *retrieve.OrderModel
	// Files, when set, holds the states' repositories, and answers are
	// verified against their base commits' files as a live run verifies
	// them (pipeline.Verify): each unit is delivered with the file's own
	// bytes, so a unit grown over blank lines costs, and is fitted to the
	// budget, as it is live (its line endings, what its blank lines hold).
	// Without it, answers hold the units' text as cached.
	Files *Source
	// Settings are recorded in each prediction's config after the
	// method's, as RunOptions.Settings are in a live run (RunConfig).
	Settings string
}

// commitFiles reads one commit of one repository of a Source, as
// pipeline.Files.
type commitFiles struct {
	src            *Source
	repo, revision string
}

func (c commitFiles) ReadFile(p string) ([]byte, error) {
	lines, err := c.src.Lines(c.repo, c.revision, p)
	if err != nil {
		return nil, err
	}
	if lines == nil {
		return nil, fmt.Errorf("%s: no such file at %s", p, c.revision)
	}
	return bytes.Join(lines, []byte("\n")), nil
}

// Answer runs the controller on every state the cache holds and returns
// its predictions by state id; a state the cache does not hold gets none
// (it scores as missing, as score.py scores a state without a prediction).
func (r *Replay) Answer(ctx context.Context, states []*mss.State, method string, ctl mss.Controller) (map[string]*Prediction, error) {
	out := make(map[string]*Prediction, len(states))
	for _, st := range states {
		if r.Cache.States[st.StateID] == nil {
			continue
		}
		p, err := r.answer(ctx, st, method, ctl)
		if err != nil {
			return nil, fmt.Errorf("state %s: %w", st.StateID, err)
		}
		out[st.StateID] = p
	}
	return out, nil
}

func (r *Replay) answer(ctx context.Context, st *mss.State, method string, ctl mss.Controller) (p *Prediction, err error) {
	defer func() {
		if e := recover(); e != nil {
			err = fmt.Errorf("panic: %v\n%s", e, debug.Stack())
		}
	}()
	cs := r.Cache.States[st.StateID]
	if cs == nil {
		return nil, fmt.Errorf("not in the candidate cache")
	}
	cands := cs.Candidates
	if !r.Fusion.zero() {
		cands = retrieve.Refuse(cands, r.Fusion.Weights, r.Fusion.K)
	} else {
		cands = retrieve.FusedOrder(cands)
	}
	cands = retrieve.Options{Order: r.Order}.OrderModel().Reorder(cands, r.Cache.Mentions(st))
	req := &mss.Request{State: st, Candidates: cands, Budget: r.Budget, MaxUnits: r.MaxUnits, Source: cs}
	budget, _, maxUnits := req.Limits()
	res, err := ctl.Select(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("method %s: %w", method, err)
	}
	// What pipeline.Select does after the method: verify against the
	// files (dropping what the state has observed), then fit.
	obs := mss.ObservedOf(st)
	var units []mss.Unit
	if r.Files != nil {
		units, _ = pipeline.Verify(commitFiles{r.Files, st.Repo, st.BaseCommit}, res.Units, obs)
	} else {
		for _, u := range res.Units {
			if !obs.Unit(&u) {
				units = append(units, u)
			}
		}
	}
	units, _ = render.Fit(units, budget, maxUnits)
	p = &Prediction{StateID: st.StateID, Method: method, Config: withSettings(res.Config, r.Settings), Units: make([]PredUnit, 0, len(units)), Candidates: len(cands)}
	for _, u := range units {
		p.Units = append(p.Units, predUnit(&u))
	}
	return p, nil
}
