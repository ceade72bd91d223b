package serbench

import (
	"fmt"
	"slices"
	"sort"

	"github.com/missingcomplement/mss/internal/stats"
)

// CompareOptions names the two methods and the measure to compare.
type CompareOptions struct {
	Baseline string // method A
	Method   string // method B
	Metric   string // one of MetricNames
	K        int
	Draws    int
	Seed     int64
}

// Stratum is the comparison over one subset of the states.
type Stratum struct {
	Name string `json:"stratum"`
	stats.Comparison
}

// Compare pairs the two methods' scores state by state and bootstraps the
// difference (Method minus Baseline) over repositories: over all states,
// then by number of required groups (1, 2, >=3), by state_type, and by
// whether the state's observed evidence overlaps its pool. States where
// either method has no prediction are left out (validation, unless
// partial, has already required them all). Strata are listed in a fixed
// order; an empty stratum has N = 0.
func Compare(items *Items, labels *Labels, preds *Predictions, opt CompareOptions) ([]Stratum, error) {
	if !slices.Contains(MetricNames, opt.Metric) {
		return nil, fmt.Errorf("unknown metric %q (known: %v)", opt.Metric, MetricNames)
	}
	if opt.K <= 0 {
		return nil, fmt.Errorf("k must be positive, not %d", opt.K)
	}
	byMethod := map[string]map[string]*Prediction{}
	for _, p := range preds.Predictions {
		if byMethod[p.Method] == nil {
			byMethod[p.Method] = map[string]*Prediction{}
		}
		byMethod[p.Method][p.StateID] = p
	}
	for _, m := range []string{opt.Baseline, opt.Method} {
		if byMethod[m] == nil {
			return nil, fmt.Errorf("%s has no predictions of method %q (methods: %v)", preds.File, m, preds.Methods())
		}
	}

	type keyed struct {
		name string
		pair stats.Pair
	}
	var all []keyed
	key := fmt.Sprintf("%s@%d", opt.Metric, opt.K)
	stateTypes := map[string]bool{}
	for _, it := range items.Items {
		id := it.State.StateID
		a, b := byMethod[opt.Baseline][id], byMethod[opt.Method][id]
		l := labels.Get(id)
		if a == nil || b == nil || l == nil {
			continue
		}
		ideal := IdealGroupDCG(l.Cert.Groups, opt.K)
		va, _ := score(a.RankedIDs, &l.Cert, opt.K, func() float64 { return ideal }).Get(opt.Metric)
		vb, _ := score(b.RankedIDs, &l.Cert, opt.K, func() float64 { return ideal }).Get(opt.Metric)
		for _, v := range []float64{va, vb} {
			if err := finiteScore(labels, l, key, v); err != nil {
				return nil, err
			}
		}
		if it.State.Repo == "" {
			// The bootstrap resamples repositories: every state
			// without one would be drawn together, as one.
			return nil, fmt.Errorf("%s:%d: repo: missing or empty; compare resamples states by repository, so each compared state needs its own", items.File, it.Line)
		}
		p := stats.Pair{Cluster: it.State.Repo, A: va, B: vb}
		groups := "groups>=3"
		switch len(l.Cert.Groups) {
		case 1:
			groups = "groups=1"
		case 2:
			groups = "groups=2"
		}
		observed := "observed=without"
		if it.ObservedInPool() > 0 {
			observed = "observed=with"
		}
		st := "state_type=" + it.State.StateType
		stateTypes[st] = true
		for _, name := range []string{"all", groups, st, observed} {
			all = append(all, keyed{name, p})
		}
	}
	names := []string{"all", "groups=1", "groups=2", "groups>=3"}
	var types []string
	for t := range stateTypes {
		types = append(types, t)
	}
	sort.Strings(types)
	names = append(names, types...)
	names = append(names, "observed=with", "observed=without")

	out := make([]Stratum, 0, len(names))
	for _, name := range names {
		var pairs []stats.Pair
		for _, k := range all {
			if k.name == name {
				pairs = append(pairs, k.pair)
			}
		}
		out = append(out, Stratum{Name: name, Comparison: stats.PairedBootstrap(pairs, opt.Draws, opt.Seed)})
	}
	return out, nil
}
