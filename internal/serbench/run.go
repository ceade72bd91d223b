package serbench

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/missingcomplement/mss"
)

// CandidateFunc orders a state's pool into candidates for a controller
// (pipeline.PoolCandidates for the embedded engine).
type CandidateFunc func(ctx context.Context, state *mss.State, pool []mss.Unit) ([]mss.Candidate, *mss.Mentions, error)

// RunOptions configures Run.
type RunOptions struct {
	Name     string            // method name written to predictions; default the controller's
	K        int               // most units per answer (the request's MaxUnits)
	Budget   int               // source-token budget (mss.DefaultBudget by default); must be positive
	Settings map[string]string // the method settings, recorded in config
	// SkipObserved removes candidates marked Observed before the method
	// sees them, so no method can return evidence the agent has read.
	SkipObserved bool
	// OnResult, when set, sees every answer (for usage accounting).
	OnResult func(*mss.Result)
}

// RunConfig is the configuration recorded with every prediction row.
type RunConfig struct {
	Controller string            `json:"controller"`
	K          int               `json:"k"`
	Budget     int               `json:"budget"`
	Settings   map[string]string `json:"settings,omitempty"`
	// SkipObserved records that observed candidates were withheld.
	SkipObserved bool   `json:"skip_observed,omitempty"`
	Detail       string `json:"detail,omitempty"` // the controller's own Config string
	// Fallback flags an answer a model method gave with its fallback
	// policy: which stage failed and why.
	Fallback *mss.Fallback `json:"fallback,omitempty"`
}

// CheckMethodName refuses a method name a prediction row cannot carry:
// empty, or only white space (LoadPredictions refuses such a row).
func CheckMethodName(name string) error {
	if strings.TrimSpace(name) == "" {
		return fmt.Errorf("method name %q: want a non-empty name, not only white space", name)
	}
	return nil
}

// Run asks ctrl for every item's answer, in items order, and returns one
// prediction per state: the ids of the units it returned, in its order.
// An answer naming a unit outside the pool, or the same unit twice, is an
// error (the controller broke its contract), not something to repair.
func Run(ctx context.Context, items *Items, ctrl mss.Controller, candidates CandidateFunc, opt RunOptions) ([]*Prediction, error) {
	name := opt.Name
	if name == "" {
		name = ctrl.Name()
	}
	if err := CheckMethodName(name); err != nil {
		return nil, err
	}
	budget := opt.Budget
	if budget <= 0 {
		return nil, fmt.Errorf("budget must be positive, not %d", budget)
	}
	if opt.K <= 0 {
		return nil, fmt.Errorf("k must be positive, not %d", opt.K)
	}
	out := make([]*Prediction, 0, len(items.Items))
	for _, it := range items.Items {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		st := it.State
		cands, mentions, err := candidates(ctx, &st, it.Units())
		if err != nil {
			return nil, fmt.Errorf("%s:%d: state %s: %w", items.File, it.Line, st.StateID, err)
		}
		if opt.SkipObserved {
			kept := cands[:0:0]
			for _, c := range cands {
				if !c.Observed {
					kept = append(kept, c)
				}
			}
			cands = kept
		}
		req := &mss.Request{
			State:      &st,
			Candidates: cands,
			Budget:     budget,
			MaxUnits:   opt.K,
			MinUnits:   min(mss.DefaultMinUnits, opt.K),
			Mentions:   mentions,
		}
		res, err := ctrl.Select(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: state %s: %s: %w", items.File, it.Line, st.StateID, name, err)
		}
		if opt.OnResult != nil {
			opt.OnResult(res)
		}
		ids := make([]string, 0, len(res.Units))
		seen := map[string]bool{}
		for _, u := range res.Units {
			if !it.InPool(u.ID) {
				return nil, fmt.Errorf("%s:%d: state %s: %s returned %q, which is not in the pool", items.File, it.Line, st.StateID, name, u.ID)
			}
			if seen[u.ID] {
				return nil, fmt.Errorf("%s:%d: state %s: %s returned %q twice", items.File, it.Line, st.StateID, name, u.ID)
			}
			seen[u.ID] = true
			ids = append(ids, u.ID)
		}
		cfg, err := json.Marshal(RunConfig{
			Controller: ctrl.Name(), K: opt.K, Budget: budget, Settings: opt.Settings,
			SkipObserved: opt.SkipObserved, Detail: res.Config, Fallback: res.Fallback,
		})
		if err != nil {
			return nil, err
		}
		out = append(out, &Prediction{StateID: st.StateID, Method: name, RankedIDs: ids, Config: cfg})
	}
	return out, nil
}
