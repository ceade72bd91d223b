package repobench

import (
	"context"
	"strings"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/retrieve"
)

// OrderDepth is how many of a state's first candidates (in fused order)
// the order model is fitted on.
const OrderDepth = 80

// OrderIters is how many gradient steps fit the order model.
const OrderIters = 2000

// OrderSamples are the features of the first OrderDepth unobserved cached
// candidates of each state (in fused order; not the unread rests of units
// read in part, which the order does not score), whether each overlaps a
// line its labels need, and which of its groups (the required groups,
// then those of the alternative sets) it overlaps; a state's samples are
// numbered by its place in states.
func (t *Tuner) OrderSamples(states []*mss.State) []retrieve.OrderSample {
	var out []retrieve.OrderSample
	for si, st := range states {
		cs := t.Replay.Cache.States[st.StateID]
		lab := t.Labels[st.StateID]
		if cs == nil || lab == nil {
			continue
		}
		cands := retrieve.WithoutRests(retrieve.FusedOrder(cs.Candidates))
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
			var needs []int
			for g := range groups {
				if groups[g].overlaps(&cands[i].Unit) {
					needs = append(needs, g)
				}
			}
			out = append(out, retrieve.OrderSample{X: xs[i], Y: len(needs) > 0, State: si, Needs: needs})
		}
	}
	return out
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
	// Predictions are the held-out answers by method and order
	// ("fused", "learned"), in the fold's state order; a state the cache
	// lacks has none.
	Predictions map[string]map[string][]*Prediction
}

// foldOrders readies the replay for folds that each answer in an order of
// their own, which the settings it records for its order would misname:
// it records none. The function it returns puts the order and the
// settings back.
func (t *Tuner) foldOrders() (restore func()) {
	saved, settings := t.Replay.Order, t.Replay.Settings
	t.Replay.Settings = ""
	return func() { t.Replay.Order, t.Replay.Settings = saved, settings }
}

// CrossValidateOrder fits the order model on all folds but one and
// replays methods on the one left out in the fused order and in the
// model's, for every fold.
func (t *Tuner) CrossValidateOrder(ctx context.Context, folds [][]*mss.State, methods []string) ([]OrderFold, error) {
	defer t.foldOrders()()
	var out []OrderFold
	for i, held := range folds {
		model := t.FitOrder(t.OrderSamples(others(folds, i)))
		fr := OrderFold{Fold: i + 1, States: len(held), Repos: reposOf(held), Fused: map[string]float64{}, Learned: map[string]float64{},
			Fused2: map[string]float64{}, Learned2: map[string]float64{}, Predictions: map[string]map[string][]*Prediction{}}
		for _, m := range methods {
			fr.Predictions[m] = map[string][]*Prediction{}
			for _, order := range []*retrieve.OrderModel{retrieve.Fused, model} {
				t.Replay.Order = order
				rows, err := t.Evaluate(ctx, held, m, Point{})
				if err != nil {
					return nil, err
				}
				name := "learned"
				if order == retrieve.Fused {
					name = "fused"
					fr.Fused[m], fr.Fused2[m] = MeanC5(rows), Mean2(rows)
				} else {
					fr.Learned[m], fr.Learned2[m] = MeanC5(rows), Mean2(rows)
				}
				for _, r := range rows {
					if r.Prediction != nil {
						fr.Predictions[m][name] = append(fr.Predictions[m][name], r.Prediction)
					}
				}
			}
		}
		out = append(out, fr)
	}
	return out, nil
}

// VariantFold is one fold of CrossValidateVariant: each method's held-out
// complete@5 on the fold's base states and on its variant states, in the
// order fitted on the other folds' base states, on their variant states,
// and on both, by training subset ("base", "variant", "both").
type VariantFold struct {
	Fold    int
	Repos   []string
	States  int
	Base    map[string]map[string]float64 // training subset -> method -> C@5
	Variant map[string]map[string]float64
}

// VariantSubsets are the training subsets of CrossValidateVariant, in order.
var VariantSubsets = []string{"base", "variant", "both"}

// CrossValidateVariant compares what an order model learns from two
// versions of the same states: a variant state's id is its base state's
// followed by suffix (the same instance with other text, say). For each
// fold of whole repositories, it fits the model on the other folds' base
// states, on their variant states and on both, and replays methods in
// each order on the held-out base states and variant states apart.
func (t *Tuner) CrossValidateVariant(ctx context.Context, folds [][]*mss.State, methods []string, suffix string) ([]VariantFold, error) {
	defer t.foldOrders()()
	split := func(ss []*mss.State) (base, variant []*mss.State) {
		for _, s := range ss {
			if strings.HasSuffix(s.StateID, suffix) {
				variant = append(variant, s)
			} else {
				base = append(base, s)
			}
		}
		return base, variant
	}
	var out []VariantFold
	for i, held := range folds {
		train := others(folds, i)
		tb, tv := split(train)
		hb, hv := split(held)
		fr := VariantFold{Fold: i + 1, States: len(held), Repos: reposOf(held),
			Base: map[string]map[string]float64{}, Variant: map[string]map[string]float64{}}
		for k, on := range [][]*mss.State{tb, tv, train} {
			sub := VariantSubsets[k]
			t.Replay.Order = t.FitOrder(t.OrderSamples(on))
			fr.Base[sub], fr.Variant[sub] = map[string]float64{}, map[string]float64{}
			for _, m := range methods {
				for _, h := range []struct {
					states []*mss.State
					into   map[string]float64
				}{{hb, fr.Base[sub]}, {hv, fr.Variant[sub]}} {
					rows, err := t.Evaluate(ctx, h.states, m, Point{})
					if err != nil {
						return nil, err
					}
					h.into[m] = MeanC5(rows)
				}
			}
		}
		out = append(out, fr)
	}
	return out, nil
}

// Order losses (Tuner.OrderLoss): the order model is fitted over sets,
// each required group of a state asked to rank near its top
// (retrieve.FitOrderGroupsTrees, which fitted retrieve.LearnedOrder), or
// over samples, each candidate's own logistic loss
// (retrieve.FitOrderTrees).
const (
	OrderLossGroups  = "groups"
	OrderLossSamples = "samples"
)

// OrderLosses lists the order losses, the default first.
var OrderLosses = []string{OrderLossGroups, OrderLossSamples}

// FitOrder fits the order model to samples with the tuner's loss, and
// boosts its OrderTrees trees on it.
func (t *Tuner) FitOrder(samples []retrieve.OrderSample) *retrieve.OrderModel {
	if t.OrderLoss == OrderLossSamples {
		return retrieve.FitOrderTrees(samples, OrderIters, t.OrderTrees, retrieve.OrderTreeDepth, retrieve.OrderTreeRate)
	}
	return retrieve.FitOrderGroupsTrees(samples, OrderIters, t.OrderTrees, retrieve.OrderTreeDepth, retrieve.OrderTreeRate)
}
