package controller

import (
	"fmt"
	"strconv"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/expand"
	"github.com/missingcomplement/mss/retrieve"
)

// Growth is the stage every selection method can end with: what the
// chosen set leaves of the budget goes to the chosen units' intact
// surroundings, but only to neighbours tied to the state or to the chosen
// unit (expand.Ties); otherwise the budget stays unspent. Every method runs
// the same code, so methods compare at equal budget and equal growth.
type Growth struct {
	On bool
	// ByPosition grows into the unit above first (the enclosing header or
	// preceding sibling) instead of the neighbour the ranking rates.
	ByPosition bool
	// MaxShare caps one grown unit at this share of the budget.
	MaxShare float64
	// Untied admits every neighbour, tied or not (the ablation).
	Untied bool
	// MaxRank ties a neighbour the fused ranking puts within this rank
	// for the state (0: none).
	MaxRank int
	// Join lets a unit take in a later chosen unit it meets
	// (expand.Options.Join).
	Join bool
	// Bridge lets a join take in the units between two chosen units of a
	// file at most this many lines apart, tied or not
	// (expand.Options.BridgeLines; 0, the default: none).
	Bridge int
}

// DefaultGrowMaxShare caps one grown unit at 40% of the budget.
const DefaultGrowMaxShare = 0.4

// DefaultGrowJoin: a unit takes in a later chosen unit it meets.
const DefaultGrowJoin = true

// defaultGrowth is growth as no setting changes it, on or off.
func defaultGrowth(on bool) Growth {
	return Growth{On: on, MaxShare: DefaultGrowMaxShare, Join: DefaultGrowJoin}
}

// growKeys are the settings Growth reads.
var growKeys = []string{"grow", "grow_order", "grow_max_share", "grow_tied", "grow_rank", "grow_join", "grow_bridge"}

// parseGrowth reads the growth settings from a method's settings; on says
// whether growth is on when "grow" is not given. It returns the settings
// it did not read.
func parseGrowth(method string, settings map[string]string, on bool) (Growth, map[string]string, error) {
	g := defaultGrowth(on)
	rest := map[string]string{}
	for _, k := range sortedSettings(settings) {
		v := settings[k]
		switch k {
		case "grow", "grow_tied", "grow_join":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return g, nil, fmt.Errorf("%s: setting %s=%q: want true or false", method, k, v)
			}
			switch k {
			case "grow":
				g.On = b
			case "grow_tied":
				g.Untied = !b
			default:
				g.Join = b
			}
		case "grow_order":
			switch v {
			case "relevance":
				g.ByPosition = false
			case "position":
				g.ByPosition = true
			default:
				return g, nil, fmt.Errorf("%s: setting grow_order=%q: want relevance or position", method, v)
			}
		case "grow_rank":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return g, nil, fmt.Errorf("%s: setting grow_rank=%q: want a rank, 0 or more", method, v)
			}
			g.MaxRank = n
		case "grow_bridge":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return g, nil, fmt.Errorf("%s: setting grow_bridge=%q: want a number of lines, 0 or more", method, v)
			}
			g.Bridge = n
		case "grow_max_share":
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || !(f > 0 && f <= 1) {
				return g, nil, fmt.Errorf("%s: setting grow_max_share=%q: want a share in (0, 1]", method, v)
			}
			g.MaxShare = f
		default:
			rest[k] = v
		}
	}
	return g, rest, nil
}

// Grow is the growth stage with its defaults (neighbours tied to the
// state or to the chosen unit, one grown unit at most 40% of the budget),
// for methods built outside this package: mss-complement grows its answer
// with the same code as every embedded method.
func Grow(res *mss.Result, req *mss.Request, budget int) {
	defaultGrowth(true).apply(res, req, budget)
}

// config describes the growth settings for a result's Config.
func (g Growth) config() string {
	if !g.On {
		return "grow=false"
	}
	order := "relevance"
	if g.ByPosition {
		order = "position"
	}
	joins := "" // named only when on, so answers without them read as before
	if g.Join {
		joins = " grow_join=true"
	}
	if g.Bridge > 0 {
		joins += fmt.Sprintf(" grow_bridge=%d", g.Bridge)
	}
	return fmt.Sprintf("grow=true grow_tied=%t grow_rank=%d%s grow_order=%s grow_max_share=%g", !g.Untied, g.MaxRank, joins, order, g.MaxShare)
}

// apply grows res.Units within budget when growth is on and the request
// gives the index's units. Candidates the state has read (flagged, named
// or overlapping a span) are never grown into, and the requirements they
// resolve do not tie anything.
func (g Growth) apply(res *mss.Result, req *mss.Request, budget int) {
	if !g.On || req.Source == nil || len(res.Units) == 0 {
		return
	}
	obs := newObservedSet(req.State)
	marked := make([]mss.Candidate, len(req.Candidates))
	copy(marked, req.Candidates)
	spans := append([]mss.Span(nil), req.State.ObservedSpans...)
	score := make(map[string]float64, len(marked))
	for i := range marked {
		c := &marked[i]
		if obs.has(c) {
			c.Observed = true
			spans = append(spans, mss.Span{Path: c.Unit.Path, StartLine: c.Unit.StartLine, EndLine: c.Unit.EndLine})
		}
		if _, ok := score[c.Unit.ID]; !ok {
			score[c.Unit.ID] = c.Score
		}
	}
	_, minUnits, _ := req.Limits()
	opt := expand.Options{MaxUnitTokens: int(g.MaxShare * float64(budget)), Join: g.Join, MinUnits: minUnits, BridgeLines: g.Bridge}
	if !g.Untied {
		ties := &expand.Ties{Required: map[string]string{}, Ranked: map[string]int{}, MaxRank: g.MaxRank}
		for i := range marked {
			if _, ok := ties.Ranked[marked[i].Unit.ID]; !ok && !marked[i].Observed {
				ties.Ranked[marked[i].Unit.ID] = i + 1
			}
		}
		for _, r := range retrieve.Requirements(req.State, req.Mentions, marked) {
			// A named file ties every unit in it, which is no tie at all.
			if r.Kind == retrieve.RequirementFile {
				continue
			}
			for _, i := range r.Covers {
				if _, ok := ties.Required[marked[i].Unit.ID]; !ok {
					ties.Required[marked[i].Unit.ID] = r.ID
				}
			}
		}
		opt.Tie = ties.Why
	}
	rate := func(u *mss.Unit) float64 { return score[u.ID] }
	if g.ByPosition {
		rate = nil
	}
	grown, steps := expand.Grow(res.Units, req.Source, spans, budget, rate, opt)
	res.Units = grown
	res.Trace = append(res.Trace, steps...)
}
