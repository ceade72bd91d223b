package repobench

import (
	"context"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/retrieve"
)

// OrderDepth is how many of a state's first candidates (in fused order)
// the order model is fitted on.
const OrderDepth = 80

// OrderIters is how many gradient steps fit the order model.
const OrderIters = 2000

// OrderSamples are the features of the first OrderDepth unobserved cached
// candidates of each state (in fused order) and whether each overlaps a
// line its labels need.
func (t *Tuner) OrderSamples(states []*mss.State) []retrieve.OrderSample {
	var out []retrieve.OrderSample
	for _, st := range states {
		cs := t.Replay.Cache.States[st.StateID]
		lab := t.Labels[st.StateID]
		if cs == nil || lab == nil {
			continue
		}
		cands := retrieve.FusedOrder(cs.Candidates)
		xs := retrieve.OrderInputs(cands, t.Replay.Cache.Mentions(st))
		groups := append([]LineGroup(nil), lab.RequiredGroups...)
		for _, alt := range lab.AlternativeSets {
			groups = append(groups, alt...)
		}
		n := 0
		for i := range cands {
			if n == OrderDepth {
				break
			}
			if cands[i].Observed {
				continue
			}
			n++
			out = append(out, retrieve.OrderSample{X: xs[i], Y: needed(&cands[i].Unit, groups)})
		}
	}
	return out
}

// needed says whether u overlaps a needed line of one of groups.
func needed(u *mss.Unit, groups []LineGroup) bool {
	for i := range groups {
		if groups[i].overlaps(u) {
			return true
		}
	}
	return false
}

// OrderFold is one fold of CrossValidateOrder: the order model fitted on
// the other folds, and each method's held-out means (complete@5, and on
// states with two or more groups) in the fused order and in the fitted
// model's.
type OrderFold struct {
	Fold             int
	Repos            []string
	States           int
	Fused, Learned   map[string]float64
	Fused2, Learned2 map[string]float64
}

// CrossValidateOrder fits the order model on all folds but one and
// replays methods on the one left out in the fused order and in the
// model's, for every fold.
func (t *Tuner) CrossValidateOrder(ctx context.Context, folds [][]*mss.State, methods []string) ([]OrderFold, error) {
	saved := t.Replay.Order
	defer func() { t.Replay.Order = saved }()
	var out []OrderFold
	for i, held := range folds {
		model := retrieve.FitOrder(t.OrderSamples(others(folds, i)), OrderIters)
		fr := OrderFold{Fold: i + 1, States: len(held), Repos: reposOf(held), Fused: map[string]float64{}, Learned: map[string]float64{},
			Fused2: map[string]float64{}, Learned2: map[string]float64{}}
		for _, m := range methods {
			for _, order := range []*retrieve.OrderModel{retrieve.Fused, model} {
				t.Replay.Order = order
				rows, err := t.Evaluate(ctx, held, m, Point{})
				if err != nil {
					return nil, err
				}
				if order == retrieve.Fused {
					fr.Fused[m], fr.Fused2[m] = MeanC5(rows), Mean2(rows)
				} else {
					fr.Learned[m], fr.Learned2[m] = MeanC5(rows), Mean2(rows)
				}
			}
		}
		out = append(out, fr)
	}
	return out, nil
}
