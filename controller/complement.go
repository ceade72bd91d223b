package controller

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/retrieve"
	"github.com/missingcomplement/mss/segment"
)

// Complement is the deterministic set-level policy. Relevance is scored
// per unit, but sufficiency belongs to the set, so it selects jointly:
//
//  1. Requirements: the facets the state names (entities, stack frames,
//     files, and, once the agent has read code, the code that changes
//     together with it) that no observed unit covers yet
//     (retrieve.Requirements).
//  2. Greedy coverage: each step takes the unread unit with the largest
//     gain, gain being the weight of the still-uncovered requirements it
//     covers (scaled by its relevance: the learned order's estimate, or
//     its fused score, relative to the best's) plus its relevance, times a
//     size factor (a giant unit spends budget a focused one would not) and
//     an optional same-file factor, plus a companion bonus for units tied
//     by name to a chosen one (callers, callees, twins, siblings: the
//     other edit sites of one change), plus a reach bonus for a unit whose
//     growth would take in further relevant candidates (see reacher). Units
//     overlapping a chosen one are redundant and skipped.
//  3. Adaptive size: at least MinUnits; past that it stops once every
//     requirement is covered and the best remaining gain is weak.
//  4. Render: units are delivered intact within the token budget.
//  5. Grow: what the chosen set leaves of the budget is spent on the chosen
//     units' intact surroundings, only on neighbours tied to the state or
//     to the chosen unit (the class header above a method, a callee or
//     caller next to it, a unit covering an open requirement), most
//     relevant first, when the runner gives the index's units
//     (mss.Request.Source); see Growth and package expand.
type Complement struct {
	// Growth is the growth stage (on by default; see Growth).
	Growth Growth
	// RelevanceWeight scales a unit's fused relevance in its gain.
	RelevanceWeight float64
	// CoverageWeight scales the requirements a unit covers in its gain.
	CoverageWeight float64
	// CompanionWeight scales the bonus of a unit related to a chosen one.
	CompanionWeight float64
	// ObservedCompanion is the relevance credited to an observed unit when
	// a candidate is its companion (chosen units count their own).
	ObservedCompanion float64
	// SameFileFactor multiplies the gain of a unit per chosen unit of the
	// same file. 1 (the default) is neutral: on real issues the other
	// edit sites are as often in the same file as elsewhere.
	SameFileFactor float64
	// PairWeight scales the bonus of a definition whose declaration was
	// chosen, or the reverse (see pairs).
	PairWeight float64
	// TwinWeight is the tie of two units that define the same name and
	// are not tied otherwise (twins in two classes or files), against 1
	// for a reference either way and 0.5 for siblings of one scope. 1 by
	// default; 0 measured in docs/measurements.md, "Twins as companions".
	TwinWeight float64
	// CounterpartWeight is the tie of two units whose names are the two
	// sides of one operation (to_json and from_json, lock and unlock) and
	// are not tied otherwise; see counterpart.
	CounterpartWeight float64
	// StopRelevance ends selection past MinUnits once all requirements are
	// covered and no remaining unit is this relevant, relevance being the
	// score relative to the best unread unit's (the fused score, or the
	// one the learned order reassigned when OrderTemperature is 0).
	StopRelevance float64
	// OrderTemperature makes a unit's relevance, when the learned order
	// put the candidates in its order, the order's estimate relative to
	// the best unread unit's: exp((z-zbest)/OrderTemperature) for the
	// order's log-odds z (retrieve.SignalOrder). The reassigned scores
	// keep the fused scores' spread and tell a near tie from a clear
	// lead no better than places do; the estimate does. 0 reads the
	// reassigned fused scores instead.
	OrderTemperature float64
	// OrderStopRelevance is StopRelevance when relevance is the order's
	// estimate.
	OrderStopRelevance float64
	// ReachWeight scales the reach bonus: the relevance of the unchosen
	// candidates a unit's growth would take in, its tied neighbours
	// within ReachShare of the budget (see reacher). 0 turns it off.
	ReachWeight float64
	// ReachShare is how far reach looks, on both sides of a unit together,
	// as a share of the budget.
	ReachShare float64
}

// Complement defaults.
const (
	DefaultRelevanceWeight   = 1.0
	DefaultCoverageWeight    = 0.5
	DefaultCompanionWeight   = 0.5
	DefaultObservedCompanion = 1.0
	DefaultSameFileFactor    = 1.0
	DefaultStopRelevance     = 0.35
	// The order's estimate, relative to the best's, at temperature 2;
	// fitted on the training folds (docs/measurements.md, "Relevance from the
	// order's estimate").
	DefaultOrderTemperature   = 2.0
	DefaultOrderStopRelevance = 0.05
	DefaultPairWeight         = 0.5
	DefaultTwinWeight         = 1.0
	DefaultCounterpartWeight  = 0.0
	// The reach bonus, fitted on the training folds (docs/measurements.md,
	// "What a unit's growth would take in").
	DefaultReachWeight = 1.0
	DefaultReachShare  = 0.05
	// complementPool bounds how deep the policy looks into the fused order.
	complementPool = 80
	// sizeSoftShare: units up to this share of the budget cost nothing
	// extra; larger ones lose gain by the square root of the excess.
	sizeSoftShare = 0.2
)

// NewComplement builds the policy; settings relevance_weight,
// coverage_weight, companion_weight, observed_companion, same_file_factor
// and stop_relevance override the defaults, and the growth settings
// (grow, grow_tied, grow_order, grow_max_share) configure its growth.
func NewComplement(opts mss.MethodOptions) (*Complement, error) {
	c := &Complement{RelevanceWeight: DefaultRelevanceWeight, CoverageWeight: DefaultCoverageWeight, CompanionWeight: DefaultCompanionWeight,
		ObservedCompanion: DefaultObservedCompanion, SameFileFactor: DefaultSameFileFactor, StopRelevance: DefaultStopRelevance,
		PairWeight: DefaultPairWeight, TwinWeight: DefaultTwinWeight, CounterpartWeight: DefaultCounterpartWeight,
		OrderTemperature: DefaultOrderTemperature, OrderStopRelevance: DefaultOrderStopRelevance,
		ReachWeight: DefaultReachWeight, ReachShare: DefaultReachShare}
	g, rest, err := parseGrowth(NameComplement, opts.Settings, true)
	if err != nil {
		return nil, err
	}
	c.Growth = g
	for _, k := range sortedSettings(rest) {
		v := rest[k]
		var dst *float64
		switch k {
		case "relevance_weight":
			dst = &c.RelevanceWeight
		case "coverage_weight":
			dst = &c.CoverageWeight
		case "companion_weight":
			dst = &c.CompanionWeight
		case "observed_companion":
			dst = &c.ObservedCompanion
		case "same_file_factor":
			dst = &c.SameFileFactor
		case "stop_relevance":
			dst = &c.StopRelevance
		case "pair_weight":
			dst = &c.PairWeight
		case "twin_weight":
			dst = &c.TwinWeight
		case "counterpart_weight":
			dst = &c.CounterpartWeight
		case "order_temperature":
			dst = &c.OrderTemperature
		case "order_stop_relevance":
			dst = &c.OrderStopRelevance
		case "reach_weight":
			dst = &c.ReachWeight
		case "reach_share":
			dst = &c.ReachShare
		default:
			return nil, fmt.Errorf("complement: unknown setting %q (known: %s, relevance_weight, coverage_weight, companion_weight, observed_companion, same_file_factor, stop_relevance, pair_weight, twin_weight, counterpart_weight, order_temperature, order_stop_relevance, reach_weight, reach_share)", k, strings.Join(growKeys, ", "))
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("complement: setting %s=%q: want a non-negative number", k, v)
		}
		if k == "reach_share" && f > 1 {
			return nil, fmt.Errorf("complement: setting %s=%q: want a share of the budget, 0 to 1", k, v)
		}
		*dst = f
	}
	return c, nil
}

// counterpartConfig names counterpart_weight in the config only when it
// is set, so that the default's config reads as before.
func (c *Complement) counterpartConfig() string {
	if c.CounterpartWeight == 0 {
		return ""
	}
	return fmt.Sprintf(" counterpart_weight=%g", c.CounterpartWeight)
}

// Name implements mss.Controller.
func (c *Complement) Name() string { return NameComplement }

func (c *Complement) config() string {
	return fmt.Sprintf("%s relevance_weight=%g coverage_weight=%g companion_weight=%g observed_companion=%g same_file_factor=%g stop_relevance=%g pair_weight=%g twin_weight=%g%s order_temperature=%g order_stop_relevance=%g reach_weight=%g reach_share=%g",
		c.Growth.config(), c.RelevanceWeight, c.CoverageWeight, c.CompanionWeight, c.ObservedCompanion, c.SameFileFactor, c.StopRelevance, c.PairWeight, c.TwinWeight, c.counterpartConfig(), c.OrderTemperature, c.OrderStopRelevance, c.ReachWeight, c.ReachShare)
}

// Select implements mss.Controller.
func (c *Complement) Select(ctx context.Context, req *mss.Request) (*mss.Result, error) {
	if err := checkRequest(req); err != nil {
		return nil, fmt.Errorf("complement: %w", err)
	}
	budget, minUnits, maxUnits := req.Limits()
	res := &mss.Result{Method: NameComplement, Config: c.config()}
	cands := req.Candidates
	obs := newObservedSet(req.State)
	// Mark observed candidates so requirements they cover count as resolved.
	marked := make([]mss.Candidate, len(cands))
	copy(marked, cands)
	var pool, observed []int
	for i := range marked {
		if obs.has(&marked[i]) {
			marked[i].Observed = true
			observed = append(observed, i)
			continue
		}
		if len(pool) < complementPool {
			pool = append(pool, i)
		}
	}
	reqs := retrieve.Requirements(req.State, req.Mentions, marked)
	names := newTieNames(marked)
	defs := map[string]int{}
	for _, n := range names.name {
		if n != "" {
			defs[n]++
		}
	}
	var uses segment.UseCache
	coveredBy := map[int][]int{} // candidate -> requirement indices
	for r, q := range reqs {
		for _, i := range q.Covers {
			coveredBy[i] = append(coveredBy[i], r)
		}
		res.Trace = append(res.Trace, mss.TraceStep{Stage: "requirements",
			Reason: fmt.Sprintf("%s weight %.2f, %d candidates cover it", q.ID, q.Weight, len(q.Covers))})
	}
	if len(reqs) == 0 {
		res.Trace = append(res.Trace, mss.TraceStep{Stage: "requirements", Reason: "none unresolved; ranking by relevance"})
	}
	if len(pool) == 0 {
		reason := "no unread candidate"
		if len(cands) == 0 {
			reason = "no candidates (empty index or nothing matched the state)"
		}
		res.Trace = append(res.Trace, mss.TraceStep{Stage: "select", Reason: reason})
		deliver(res, nil, budget, maxUnits)
		return res, nil
	}
	rels, stop := c.relevance(marked, pool)
	soft := max(1, int(sizeSoftShare*float64(budget)))
	covered := make([]bool, len(reqs))
	perFile := map[string]int{}
	var chosen []int
	spent := 0
	// pick gives the candidate of the largest gain next to chosen among
	// those that fit room tokens and overlap no chosen unit (index -1:
	// none).
	tw := tieWeights{twin: c.TwinWeight, counterpart: c.CounterpartWeight}
	var src *keptUnits // the file units reach and growth read
	if req.Source != nil {
		src = newKeptUnits(req.Source)
	}
	reach := c.reacher(req, src, marked, pool, reqs, rels, budget)
	pick := func(chosen []int, room int) choice {
		best := choice{i: -1}
		for _, i := range pool {
			cand := &marked[i]
			u := &cand.Unit
			cost := unitCost(u)
			if cost > room || overlapsAny(u, marked, chosen) {
				continue
			}
			rel := rels[i]
			t := gainTerms{relevance: c.RelevanceWeight * rel, size: 1}
			var cov []int
			for _, r := range coveredBy[i] {
				if !covered[r] {
					t.coverage += c.CoverageWeight * reqs[r].Weight * (0.5 + 0.5*rel)
					cov = append(cov, r)
				}
			}
			// Companions: units related to one already chosen (caller,
			// callee, same-scope sibling, same-name twin) are likely
			// further edit sites of the same change.
			compOf := -1
			if c.CompanionWeight > 0 {
				comp := 0.0
				for _, j := range chosen {
					w, why := tie(names, j, i, defs, tw, &uses)
					if v := w * rels[j]; v > comp {
						comp, compOf, t.tie = v, j, why
					}
				}
				// What the agent read is the surest edit site of all.
				for _, j := range observed {
					w, why := tie(names, j, i, defs, tw, &uses)
					if v := w * c.ObservedCompanion; v > comp {
						comp, compOf, t.tie = v, j, why
					}
				}
				t.companion = c.CompanionWeight * comp * rel
			}
			// A declaration and its definition (a C or C++ header and its
			// source, an interface or trait method and its implementation,
			// a TypeScript or Python stub's type and the code it types) are
			// read together, however the definition ranks.
			if c.PairWeight > 0 {
				// credit gives the pair of the first of js that pairs
				// with i the bonus v(j) when it is more than the bonus
				// so far (at least, for a chosen one).
				credit := func(js []int, declFiles bool, v func(j int) float64, atLeast bool) {
					for _, j := range js {
						if !pairs(names, j, i, defs, declFiles) {
							continue
						}
						if w := v(j); w > t.pair || atLeast && w == t.pair {
							t.pair = w
							if compOf < 0 {
								compOf, t.tie = j, pairWhy(names, i)
							}
						}
						return
					}
				}
				credit(chosen, false, func(j int) float64 { return c.PairWeight * rels[j] }, true)
				// The agent read one side: the other is the complement,
				// credited as a read companion is. A type declaration
				// file's unit pairs with a read unit it declares, not
				// with a chosen one, which it would take a place from
				// (docs/measurements.md, "Declaration files").
				credit(observed, true, func(int) float64 { return c.PairWeight * c.ObservedCompanion }, false)
			}
			var reached []int
			if reach != nil {
				var r float64
				r, reached = reach(i, chosen)
				t.reach = c.ReachWeight * r * rel
			}
			if cost > soft {
				t.size = math.Sqrt(float64(soft) / float64(cost))
			}
			t.sameFile = math.Pow(c.SameFileFactor, float64(perFile[u.Path]))
			if gain := t.gain(); best.i < 0 || gain > best.gain {
				best = choice{i: i, gain: gain, rel: rel, covers: cov, comp: compOf, reached: reached, terms: t}
			}
		}
		return best
	}
	for len(chosen) < maxUnits {
		ch := pick(chosen, budget-spent)
		best := ch.i
		if best < 0 {
			if len(chosen) == 0 {
				res.Trace = append(res.Trace, mss.TraceStep{Stage: "select",
					Reason: fmt.Sprintf("no unread candidate fits the budget of %d tokens", budget)})
			}
			break
		}
		if len(chosen) >= minUnits && allTrue(covered) && ch.rel < stop {
			res.Trace = append(res.Trace, mss.TraceStep{Stage: "select",
				Reason: fmt.Sprintf("stop at %d units: every requirement covered, best remaining relevance %.2f < %.2f", len(chosen), ch.rel, stop)})
			break
		}
		chosen = append(chosen, best)
		u := &marked[best].Unit
		spent += unitCost(u)
		perFile[u.Path]++
		var names []string
		for _, r := range ch.covers {
			covered[r] = true
			names = append(names, reqs[r].ID)
		}
		why := "relevance"
		if len(names) > 0 {
			why = "covers " + strings.Join(names, ", ")
		}
		if ch.comp >= 0 {
			why += "; companion of " + marked[ch.comp].Unit.ID
			if ch.terms.tie != "" {
				why += " (" + ch.terms.tie + ")"
			}
		}
		if ch.terms.reach > 0 {
			why += "; " + reachReason(marked, ch.reached)
		}
		res.Trace = append(res.Trace, mss.TraceStep{Stage: "select", UnitID: u.ID,
			Reason: fmt.Sprintf("%s; gain %.3f%s; %s", why, ch.gain, ch.terms, rankReason(best, &marked[best]))})
	}
	for r, ok := range covered {
		if !ok {
			why := fmt.Sprintf("no candidate covering it fits the %d tokens left", budget-spent)
			switch {
			case len(reqs[r].Covers) == 0:
				why = "no candidate covers it"
			case len(chosen) >= maxUnits:
				why = fmt.Sprintf("the answer holds the most units allowed, %d", maxUnits)
			}
			res.Trace = append(res.Trace, mss.TraceStep{Stage: "select", Reason: "uncovered: " + reqs[r].ID + ", " + why})
		}
	}
	chosen, test := c.addTest(res, req.State, marked, names, defs, &uses, reqs, covered, chosen, spent, budget, maxUnits)
	units := make([]mss.Unit, len(chosen))
	for k, i := range chosen {
		units[k] = marked[i].Unit
	}
	deliver(res, units, budget, maxUnits)
	// The choices the policy would make next, had it room and slots, in
	// its order: the places joins free go to them. Each is made when
	// refilling asks for it, and refilling passes over those that overlap
	// what growth delivered or do not fit what is left, so they are not
	// cut at the answer's size (docs/measurements.md, "Every further
	// choice").
	var next further
	if c.Growth.On && c.Growth.Refill {
		more := slices.Clone(chosen)
		var picks []int
		none := false
		next = func(k int) int {
			for !none && len(picks) <= k {
				ch := pick(more, budget)
				best := ch.i
				if best < 0 {
					none = true
					break
				}
				more, picks = append(more, best), append(picks, best)
				perFile[marked[best].Unit.Path]++
				for _, r := range ch.covers {
					covered[r] = true
				}
			}
			if k < len(picks) {
				return picks[k]
			}
			return -1
		}
	}
	c.Growth.apply(res, req, budget, next, src)
	if test >= 0 {
		keepLast(res, &marked[test].Unit)
	}
	return res, nil
}

// relevance gives each candidate's relevance, relative to the best of the
// pool's, and the stop threshold that goes with it: the learned order's
// estimate at OrderTemperature when the order put the candidates in its
// order (each has retrieve.SignalOrder), else the score (the fused
// score, or the one the order reassigned).
func (c *Complement) relevance(cands []mss.Candidate, pool []int) ([]float64, float64) {
	rel := make([]float64, len(cands))
	if c.OrderTemperature > 0 {
		zbest, ok := math.Inf(-1), true
		for _, i := range pool {
			z, has := cands[i].Signals[retrieve.SignalOrder]
			ok = ok && has
			zbest = max(zbest, z)
		}
		if ok {
			for i := range cands {
				if z, has := cands[i].Signals[retrieve.SignalOrder]; has {
					rel[i] = math.Exp((z - zbest) / c.OrderTemperature)
				}
			}
			return rel, c.OrderStopRelevance
		}
	}
	top := cands[pool[0]].Score
	for _, i := range pool {
		top = max(top, cands[i].Score)
	}
	if top <= 0 {
		top = 1
	}
	for i := range cands {
		rel[i] = cands[i].Score / top
	}
	return rel, c.StopRelevance
}

// maxTwins: a name defined by more candidates than this relates none of
// them by name.
const maxTwins = 3

// tie says how closely the units of candidates a and b are tied by
// their names, and names the tie: 1 when one references a name the other
// defines ("it uses <name>": a references b's name; "this uses <name>": b
// references a's), twin when both define the same name ("same name":
// twins in two classes or files), 0.5 for siblings of one scope in one
// file ("same scope <scope>"), tw.counterpart when the two names are the
// two sides of one operation ("counterpart, to/from": to_json and
// from_json; see counterpart), the largest when several hold, else 0 and
// "". defs counts the candidates defining each name; a name many define
// ties nothing. names gives what is compared of each candidate.
func tie(names *tieNames, a, b int, defs map[string]int, tw tieWeights, uses *segment.UseCache) (float64, string) {
	ua, ub := &names.cands[a].Unit, &names.cands[b].Unit
	an, bn := names.name[a], names.name[b]
	if an == "" || bn == "" {
		return 0, ""
	}
	if ref := usesName(names, a, b, defs, uses); ref != "" {
		return 1, "it uses " + ref
	}
	if ref := usesName(names, b, a, defs, uses); ref != "" {
		return 1, "this uses " + ref
	}
	w, why := 0.0, ""
	// A name many candidates define (String, format, a locale's fields)
	// ties nothing together; nor does a twin in another case (a method
	// split and a function Split are two names).
	at, bt := names.tail[a], names.tail[b]
	if tw.twin > 0 && at == bt && !strings.HasPrefix(an, "__") && defs[an] <= maxTwins {
		w, why = tw.twin, "same name"
	}
	if ua.Path == ub.Path && scope(ua.Symbol) != "" && scope(ua.Symbol) == scope(ub.Symbol) && 0.5 > w {
		w, why = 0.5, "same scope "+scope(ua.Symbol)
	}
	if tw.counterpart > w && defs[bn] <= maxTwins {
		if words := counterpart(at, bt); words != "" {
			w, why = tw.counterpart, "counterpart, "+words
		}
	}
	return w, why
}

// usesName gives the reference by which candidate a's unit uses the name
// b's unit defines (as a caller its callee), or "" when it does not, the
// name is one many candidates define, or either unit has no name of its
// own (as in tie).
func usesName(names *tieNames, a, b int, defs map[string]int, uses *segment.UseCache) string {
	bn := names.name[b]
	if names.name[a] == "" || bn == "" || defs[bn] > maxTwins {
		return ""
	}
	ua, ub := &names.cands[a].Unit, &names.cands[b].Unit
	for k, r := range names.refs[a] {
		if strings.EqualFold(r, bn) && uses.Refers(ua, bn, ub) {
			return ua.References[k]
		}
	}
	return ""
}

// tieNames keeps what tie and pairs compare of each candidate, worked out
// once per answer (an answer compares the same candidates thousands of
// times): its unit's name (unitName), its symbol's last part, and the last
// part of each name it references, in the order of its References.
type tieNames struct {
	cands []mss.Candidate
	name  []string
	tail  []string
	refs  [][]string
	// decl marks the units of type declaration files
	// (segment.DeclarationFile), which restate the types of what the
	// source defines.
	decl []bool
}

func newTieNames(cands []mss.Candidate) *tieNames {
	n := len(cands)
	t := &tieNames{cands: cands, name: make([]string, n), tail: make([]string, n), refs: make([][]string, n), decl: make([]bool, n)}
	for i := range cands {
		u := &cands[i].Unit
		t.name[i], t.tail[i] = unitName(u), lastPart(u.Symbol)
		t.decl[i] = retrieve.Classify(u.Path) == retrieve.ClassDeclaration
		t.refs[i] = make([]string, len(u.References))
		for k, r := range u.References {
			t.refs[i][k] = lastPart(r)
		}
	}
	return t
}

// tieWeights are the weights of the ties by name that are settings: a
// twin's and a counterpart's.
type tieWeights struct{ twin, counterpart float64 }

// pairWhy names the side of a declaration-definition pair candidate b
// is on.
func pairWhy(names *tieNames, b int) string {
	if declares(&names.cands[b].Unit) || names.decl[b] {
		return "its declaration"
	}
	return "its definition"
}

// choice is a candidate pick found: its index (-1: none), gain,
// relevance, the requirements it newly covers, the chosen or read unit
// it is a companion of (-1: none), the candidates its growth would take
// in and the terms of its gain.
type choice struct {
	i         int
	gain, rel float64
	covers    []int
	comp      int
	reached   []int
	terms     gainTerms
}

// gainTerms are the labelled terms of a candidate's gain: the sum of
// relevance, coverage, companion, pair and reach, times the size and
// same-file factors; tie names the companion's or pair's tie.
type gainTerms struct {
	relevance, coverage, companion, pair, reach float64
	size, sameFile                              float64
	tie                                         string
}

// gain is the candidate's gain the terms make.
func (t gainTerms) gain() float64 {
	return (t.relevance + t.coverage + t.companion + t.pair + t.reach) * t.size * t.sameFile
}

// String gives the terms as " = relevance r + coverage c …", the sum in
// brackets "× size s × same file f" when a factor is not 1; terms of 0
// and factors of 1 are left out.
func (t gainTerms) String() string {
	var terms []string
	for _, term := range []struct {
		name string
		v    float64
	}{{"relevance", t.relevance}, {"coverage", t.coverage}, {"companion", t.companion}, {"pair", t.pair}, {"reach", t.reach}} {
		if term.v != 0 {
			terms = append(terms, fmt.Sprintf("%s %.3f", term.name, term.v))
		}
	}
	if len(terms) == 0 {
		terms = []string{"relevance 0.000"}
	}
	var factors []string
	for _, f := range []struct {
		name string
		v    float64
	}{{"size", t.size}, {"same file", t.sameFile}} {
		if f.v != 1 {
			factors = append(factors, fmt.Sprintf("%s %.3f", f.name, f.v))
		}
	}
	sum := strings.Join(terms, " + ")
	if len(factors) == 0 {
		return " = " + sum
	}
	if len(terms) > 1 {
		sum = "(" + sum + ")"
	}
	return " = " + sum + " × " + strings.Join(factors, " × ")
}

func unitName(u *mss.Unit) string {
	n := strings.ToLower(lastPart(u.Symbol))
	if strings.HasPrefix(n, "<") {
		return ""
	}
	return n
}

func lastPart(s string) string {
	if i := strings.LastIndexAny(s, ".:#"); i >= 0 {
		return s[i+1:]
	}
	return s
}

func scope(symbol string) string {
	if i := strings.LastIndexAny(symbol, ".:#"); i >= 0 {
		return symbol[:i]
	}
	return ""
}

func unitCost(u *mss.Unit) int {
	if u.Tokens > 0 {
		return u.Tokens
	}
	return mss.TokenCost(u.Content)
}

func overlapsAny(u *mss.Unit, cands []mss.Candidate, chosen []int) bool {
	for _, j := range chosen {
		v := &cands[j].Unit
		if v.ID == u.ID || v.EndLine > 0 && u.EndLine > 0 && v.Path == u.Path && u.StartLine <= v.EndLine && u.EndLine >= v.StartLine {
			return true
		}
	}
	return false
}

func allTrue(bs []bool) bool {
	for _, b := range bs {
		if !b {
			return false
		}
	}
	return true
}

func sortedSettings(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
