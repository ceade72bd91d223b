package controller

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/expand"
	"github.com/missingcomplement/mss/render"
	"github.com/missingcomplement/mss/retrieve"
	"github.com/missingcomplement/mss/segment"
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
	// HeldTies lets a unit that took in another chosen unit grow by the
	// neighbours tied to either (expand.Options.HeldTies; off, the
	// default: only the unit it grew from ties).
	HeldTies bool
	// Refill gives the places joins free back to the method: while fewer
	// units are delivered than it chose, its next choices that fit the
	// budget growth left are delivered after the grown units, and grow
	// in turn (never into the units before them).
	Refill bool
	// Class grows a chosen method or class header into its whole class
	// when the class costs at most this many tokens and fits in one unit
	// (expand.Options.WholeClass; 0: none).
	Class int
}

// DefaultGrowMaxShare caps one grown unit at 40% of the budget.
const DefaultGrowMaxShare = 0.4

// DefaultGrowJoin: a unit takes in a later chosen unit it meets.
const DefaultGrowJoin = true

// DefaultGrowRefill: the slots joins free go to the method's next choices.
const DefaultGrowRefill = true

// DefaultGrowClass: a chosen method or class header grows into its whole
// class when the class fits in one unit (docs/measurements.md, "Reading a small
// class whole").
const DefaultGrowClass = segment.MaxUnitTokens

// defaultGrowth is growth as no setting changes it, on or off.
func defaultGrowth(on bool) Growth {
	return Growth{On: on, MaxShare: DefaultGrowMaxShare, Join: DefaultGrowJoin, Refill: DefaultGrowRefill, Class: DefaultGrowClass}
}

// growKeys are the settings Growth reads.
var growKeys = []string{"grow", "grow_order", "grow_max_share", "grow_tied", "grow_rank", "grow_join", "grow_bridge", "grow_held_ties", "grow_refill", "grow_class"}

// parseGrowth reads the growth settings from a method's settings; on says
// whether growth is on when "grow" is not given. It returns the settings
// it did not read, less the operational ones (mss.OperationalSetting).
func parseGrowth(method string, settings map[string]string, on bool) (Growth, map[string]string, error) {
	g := defaultGrowth(on)
	rest := map[string]string{}
	for _, k := range sortedSettings(settings) {
		v := settings[k]
		switch k {
		case "grow", "grow_tied", "grow_join", "grow_refill", "grow_held_ties":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return g, nil, fmt.Errorf("%s: setting %s=%q: want true or false", method, k, v)
			}
			switch k {
			case "grow":
				g.On = b
			case "grow_tied":
				g.Untied = !b
			case "grow_refill":
				g.Refill = b
			case "grow_held_ties":
				g.HeldTies = b
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
		case "grow_class":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return g, nil, fmt.Errorf("%s: setting grow_class=%q: want a number of tokens, 0 or more", method, v)
			}
			g.Class = n
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
			if !mss.OperationalSetting(k) {
				rest[k] = v
			}
		}
	}
	return g, rest, nil
}

// Grow is the growth stage with its defaults (neighbours tied to the
// state or to the chosen unit, one grown unit at most 40% of the budget),
// for methods built outside this package: mss-complement grows its answer
// with the same code as every embedded method. It has no further choices
// of the method's to refill the places joins free with: those stay empty.
func Grow(res *mss.Result, req *mss.Request, budget int) {
	defaultGrowth(true).apply(res, req, budget, nil, nil)
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
	if g.HeldTies {
		joins += " grow_held_ties=true"
	}
	if g.Refill {
		joins += " grow_refill=true"
	}
	if g.Class > 0 {
		joins += fmt.Sprintf(" grow_class=%d", g.Class)
	}
	return fmt.Sprintf("grow=true grow_tied=%t grow_rank=%d%s grow_order=%s grow_max_share=%g", !g.Untied, g.MaxRank, joins, order, g.MaxShare)
}

// apply grows res.Units within budget when growth is on and the request
// gives the index's units. Candidates the state has read (flagged, named
// or overlapping a span) are never grown into, and the requirements they
// resolve do not tie anything. next gives the method's further choices,
// for Refill (nil: none). src keeps the file units the method read
// already (nil: none yet).
func (g Growth) apply(res *mss.Result, req *mss.Request, budget int, next further, src *keptUnits) {
	if !g.On || req.Source == nil || len(res.Units) == 0 {
		return
	}
	obs := newObservedSet(req.State)
	marked := make([]mss.Candidate, len(req.Candidates))
	copy(marked, req.Candidates)
	score := make(map[string]float64, len(marked))
	for i := range marked {
		c := &marked[i]
		if obs.has(c) {
			c.Observed = true
		}
		if _, ok := score[c.Unit.ID]; !ok {
			score[c.Unit.ID] = c.Score
		}
	}
	spans := readSpans(req.State, marked)
	_, minUnits, _ := req.Limits()
	opt := expand.Options{MaxUnitTokens: int(g.MaxShare * float64(budget)), Join: g.Join, MinUnits: minUnits, BridgeLines: g.Bridge, HeldTies: g.HeldTies, WholeClass: g.Class}
	if !g.Untied {
		opt.Tie = g.tie(marked, retrieve.Requirements(req.State, req.Mentions, marked))
	}
	rate := func(u *mss.Unit) float64 { return score[u.ID] }
	if g.ByPosition {
		rate = nil
	}
	chosen := len(res.Units) // what refills bring the answer back to
	if src == nil {
		src = newKeptUnits(req.Source)
	}
	grown, steps := expand.Grow(res.Units, src, spans, budget, rate, opt)
	res.Units = grown
	res.Trace = append(res.Trace, steps...)
	if !g.Refill {
		return
	}
	// Refill and growth take turns until the answer holds as many units
	// as were chosen or none of the further choices fits. What a refill
	// delivers grows in turn, and joins what was refilled before it that
	// it meets, which frees a place again; the units delivered before the
	// first refill are left as they are (their growth is done), so no
	// refill makes the front of the answer cost more. Each turn delivers
	// one of next at least, so it ends.
	opt.Fixed, opt.MinUnits = len(res.Units), 0
	for refill(res, marked, next, spans, budget, chosen) {
		grown, steps := expand.Grow(res.Units, src, spans, budget, rate, opt)
		res.Units = grown
		res.Trace = append(res.Trace, steps...)
	}
}

// tie gives what ties a neighbour to a chosen unit in growth
// (expand.Ties): covering one of reqs, the state's unresolved
// requirements over cands (but a named file, which would tie every unit
// in it), a fused rank within MaxRank, or a name; nil when growth is
// untied, which admits every neighbour. The policy's reach asks the
// same.
func (g Growth) tie(cands []mss.Candidate, reqs []retrieve.Requirement) func(chosen, n *mss.Unit) string {
	if g.Untied {
		return nil
	}
	ties := &expand.Ties{Required: map[string]string{}, Ranked: map[string]int{}, MaxRank: g.MaxRank}
	for i := range cands {
		if _, ok := ties.Ranked[cands[i].Unit.ID]; !ok && !cands[i].Observed {
			ties.Ranked[cands[i].Unit.ID] = i + 1
		}
	}
	for _, r := range reqs {
		// A named file ties every unit in it, which is no tie at all.
		if r.Kind == retrieve.RequirementFile {
			continue
		}
		for _, i := range r.Covers {
			if _, ok := ties.Required[cands[i].Unit.ID]; !ok {
				ties.Required[cands[i].Unit.ID] = r.ID
			}
		}
	}
	return ties.Why
}

// keptUnits keeps the units a source gave for each file while one answer
// is made: the policy's reach, growth and refill ask for the same files,
// and a stored engine reads them from the index each time.
type keptUnits struct {
	src mss.UnitSource
	got map[string][]mss.Unit
}

func newKeptUnits(src mss.UnitSource) *keptUnits {
	return &keptUnits{src: src, got: map[string][]mss.Unit{}}
}

// readSpans gives the lines the state has read: its observed spans and
// the units of the candidates marked Observed.
func readSpans(st *mss.State, marked []mss.Candidate) []mss.Span {
	spans := slices.Clone(st.ObservedSpans)
	for i := range marked {
		if marked[i].Observed {
			spans = append(spans, marked[i].Unit.Span())
		}
	}
	return spans
}

func (k *keptUnits) FileUnits(path string) []mss.Unit {
	us, ok := k.got[path]
	if !ok {
		us = k.src.FileUnits(path)
		k.got[path] = us
	}
	return us
}

// further gives a method's k-th further choice after the units it
// delivered (k from 0, best first), as an index of the request's
// candidates, or -1 when it has no more. A method whose next choices cost
// work makes each only when asked for it.
type further func(k int) int

// inOrder gives the choices of list, in its order.
func inOrder(list []int) further {
	return func(k int) int {
		if k < len(list) {
			return list[k]
		}
		return -1
	}
}

// refill delivers, after res.Units, the choices of next that overlap
// nothing delivered or read (read holds the spans of the candidates the
// state has read) and fit what the budget has left, until as many units
// are delivered as were chosen; it reports whether it delivered any.
func refill(res *mss.Result, cands []mss.Candidate, next further, read []mss.Span, budget, chosen int) bool {
	if next == nil {
		return false
	}
	spent := render.Tokens(res.Units)
	taken := slices.Clone(read)
	for _, d := range res.Units {
		taken = append(taken, d.Span())
	}
	added := false
	for k := 0; len(res.Units) < chosen; k++ {
		i := next(k)
		if i < 0 {
			break
		}
		c := &cands[i]
		u := c.Unit
		cost := unitCost(&u)
		if spent+cost > budget || slices.ContainsFunc(taken, u.Overlaps) {
			continue
		}
		spent += cost
		if len(u.Symbols) == 0 {
			u.Symbols = render.Symbols([]mss.Unit{u})
		}
		res.Units = append(res.Units, u)
		taken = append(taken, u.Span())
		added = true
		res.Trace = append(res.Trace, mss.TraceStep{Stage: "refill", UnitID: u.ID, Reason: fmt.Sprintf(
			"a join freed a slot: the next choice (%+d tokens, %d of %d spent); %s", cost, spent, budget, rankReason(i, c))})
	}
	return added
}
