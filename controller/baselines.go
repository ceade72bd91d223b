package controller

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/retrieve"
	"github.com/missingcomplement/mss/tokenize"
)

// ranker is one of the order-only baselines: bm25, rrf, rrf-grow,
// similarity. Each ends with the growth stage, off by default except for
// rrf-grow (the fused order with growth: the control a set policy must
// beat at equal budget).
type ranker struct {
	name   string
	growth Growth
}

func simple(name string, opts mss.MethodOptions) (mss.Controller, error) {
	g, rest, err := parseGrowth(name, opts.Settings, name == NameRRFGrow)
	if err != nil {
		return nil, err
	}
	if len(rest) > 0 {
		return nil, fmt.Errorf("method %s: unknown settings %v (known: %v)", name, sortedSettings(rest), growKeys)
	}
	return &ranker{name: name, growth: g}, nil
}

func (r *ranker) Name() string { return r.name }

// Select orders candidates by the baseline's rule and delivers a prefix.
func (r *ranker) Select(ctx context.Context, req *mss.Request) (*mss.Result, error) {
	if err := checkRequest(req); err != nil {
		return nil, fmt.Errorf("%s: %w", r.name, err)
	}
	budget, _, maxUnits := req.Limits()
	res := &mss.Result{Method: r.name}
	obs := newObservedSet(req.State)
	idx := make([]int, 0, len(req.Candidates))
	for i := range req.Candidates {
		c := &req.Candidates[i]
		switch r.name {
		case NameBM25:
			if _, ok := c.Views[retrieve.ViewLexical]; !ok {
				continue
			}
		case NameRRF, NameRRFGrow:
			if obs.has(c) {
				res.Trace = append(res.Trace, mss.TraceStep{Stage: "select", UnitID: c.Unit.ID, Reason: "skipped: observed"})
				continue
			}
		}
		idx = append(idx, i)
	}
	order := "fused"
	if len(req.Candidates) > 0 {
		order = orderName(&req.Candidates[0])
	}
	switch r.name {
	case NameBM25:
		sort.SliceStable(idx, func(a, b int) bool {
			return req.Candidates[idx[a]].Views[retrieve.ViewLexical] < req.Candidates[idx[b]].Views[retrieve.ViewLexical]
		})
		res.Config = "order=lexical"
	case NameSimilarity:
		maxUnits = SimilarityUnits
		res.Config = "order=" + order + " units=" + strconv.Itoa(SimilarityUnits)
	default:
		res.Config = "order=" + order + " skip=observed"
	}
	res.Config += " " + r.growth.config()
	units := make([]mss.Unit, 0, len(idx))
	for k, i := range idx {
		c := &req.Candidates[i]
		units = append(units, c.Unit)
		if k < maxUnits {
			res.Trace = append(res.Trace, mss.TraceStep{Stage: "select", UnitID: c.Unit.ID, Reason: rankReason(i, c)})
		}
	}
	deliver(res, units, budget, maxUnits)
	r.growth.apply(res, req, budget, inOrder(idx), nil)
	return res, nil
}

// MMR is maximal marginal relevance: each next unit maximizes
// Lambda*relevance - (1-Lambda)*max similarity to the units already chosen,
// relevance being the fused score scaled to the best candidate's and
// similarity the Jaccard overlap of code terms.
type MMR struct {
	Lambda float64
	Growth Growth
}

// DefaultMMRLambda weighs relevance against redundancy.
const DefaultMMRLambda = 0.7

// mmrPool bounds how deep MMR looks into the fused order.
const mmrPool = 50

// NewMMR builds the mmr baseline; setting "lambda" overrides the default.
func NewMMR(opts mss.MethodOptions) (*MMR, error) {
	m := &MMR{Lambda: DefaultMMRLambda}
	g, rest, err := parseGrowth(NameMMR, opts.Settings, false)
	if err != nil {
		return nil, err
	}
	m.Growth = g
	for k, v := range rest {
		switch k {
		case "lambda":
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || !(f >= 0 && f <= 1) { // NaN too
				return nil, fmt.Errorf("mmr: setting lambda=%q: want a number in [0,1]", v)
			}
			m.Lambda = f
		default:
			return nil, fmt.Errorf("mmr: unknown setting %q", k)
		}
	}
	return m, nil
}

// Name implements mss.Controller.
func (m *MMR) Name() string { return NameMMR }

// Select implements mss.Controller.
func (m *MMR) Select(ctx context.Context, req *mss.Request) (*mss.Result, error) {
	if err := checkRequest(req); err != nil {
		return nil, fmt.Errorf("mmr: %w", err)
	}
	budget, _, maxUnits := req.Limits()
	res := &mss.Result{Method: NameMMR, Config: "lambda=" + strconv.FormatFloat(m.Lambda, 'g', -1, 64) + " " + m.Growth.config()}
	obs := newObservedSet(req.State)
	var pool []int
	for i := range req.Candidates {
		if obs.has(&req.Candidates[i]) {
			continue
		}
		pool = append(pool, i)
		if len(pool) == mmrPool {
			break
		}
	}
	if len(pool) == 0 {
		deliver(res, nil, budget, maxUnits)
		return res, nil
	}
	top := req.Candidates[pool[0]].Score
	if top <= 0 {
		top = 1
	}
	terms := make(map[int]map[string]bool, len(pool))
	for _, i := range pool {
		terms[i] = termSet(req.Candidates[i].Unit.Content)
	}
	var chosen []int
	used := map[int]bool{}
	spent := 0
	for len(chosen) < maxUnits {
		best, bestV := -1, 0.0
		for _, i := range pool {
			c := &req.Candidates[i]
			if used[i] || spent+unitCost(&c.Unit) > budget {
				continue
			}
			sim := 0.0
			for _, j := range chosen {
				sim = max(sim, jaccard(terms[i], terms[j]))
			}
			v := m.Lambda*c.Score/top - (1-m.Lambda)*sim
			if best < 0 || v > bestV {
				best, bestV = i, v
			}
		}
		if best < 0 {
			if len(chosen) == 0 {
				res.Trace = append(res.Trace, mss.TraceStep{Stage: "select",
					Reason: fmt.Sprintf("no unread candidate fits the budget of %d tokens", budget)})
			}
			break
		}
		used[best] = true
		chosen = append(chosen, best)
		spent += unitCost(&req.Candidates[best].Unit)
		res.Trace = append(res.Trace, mss.TraceStep{Stage: "select", UnitID: req.Candidates[best].Unit.ID,
			Reason: fmt.Sprintf("mmr %.3f; %s", bestV, rankReason(best, &req.Candidates[best]))})
	}
	units := make([]mss.Unit, len(chosen))
	for k, i := range chosen {
		units[k] = req.Candidates[i].Unit
	}
	deliver(res, units, budget, maxUnits)
	m.Growth.apply(res, req, budget, inOrder(pool), nil)
	return res, nil
}

func termSet(text string) map[string]bool {
	s := map[string]bool{}
	tokenize.Each(text, func(t string) { s[t] = true })
	return s
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	small, large := a, b
	if len(b) < len(a) {
		small, large = b, a
	}
	inter := 0
	for t := range small {
		if large[t] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}
