// Package expand grows a chosen set of units into their intact
// surroundings while the token budget allows.
//
// A set policy chooses the few units that cover the state's requirements;
// it usually leaves much of the budget unspent, because the units that
// cover a requirement are small (a method, a field block). The code that
// must change with them is most often next to them: the class header above
// a method, the sibling method below it, the rest of a short module. Grow
// spends the remaining budget on that context, one neighbouring unit at a
// time, round-robin over the chosen units in their delivery order, so the
// best-ranked unit grows first but no unit takes the whole remainder.
//
// Before any neighbour, a chosen method or class header whose whole class
// fits in one unit can grow into the whole class (Options.WholeClass): a
// small class is read whole, as a function is. A chosen file header that
// defines nothing is tied to the code under it.
//
// Growth never cuts a unit: a grown unit is a contiguous run of whole
// units of one file, and it never reaches into lines the agent has already
// read (a blank line between units too) or into another chosen unit (with
// Options.Join, a unit that meets a later chosen one takes it in whole).
// A chosen unit that is the unread part of one unit of the file (the rest
// of a unit read in part) stands in that unit's place, and grows or joins
// only on the side that was not read. The chosen units keep their order,
// so whatever prefix a reader takes still holds the same choices.
package expand

import (
	"fmt"
	"slices"
	"strings"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/render"
	"github.com/missingcomplement/mss/segment"
)

// Options bound the growth.
type Options struct {
	// MaxUnitTokens caps one grown unit; 0 means a quarter of the budget.
	MaxUnitTokens int
	// Reserve is the share of the budget left unspent, covering blank lines
	// between units whose exact bytes the units do not carry.
	Reserve float64
	// Tie, when set, admits only the neighbours it gives a reason for
	// (see Ties); a neighbour it rejects ends growth on that side, and
	// the budget it would have taken stays unspent. Nil admits every
	// neighbour. Whatever Tie says, a chosen file header that defines
	// nothing (comments, a package clause, imports) is tied to the unit
	// right under it, the code it introduces (see bareHeader).
	Tie func(chosen, neighbour *mss.Unit) string
	// Join lets a unit take in a later chosen unit it meets (adjacent in
	// the file, nothing between them but blank lines): the two are
	// delivered as one unit at the earlier one's place, which costs only
	// the blank lines between them and needs no tie, since both were
	// chosen.
	Join bool
	// MinUnits: a join never leaves fewer units than this.
	MinUnits int
	// BridgeLines lets a join reach a later chosen unit of the same file
	// at most this many lines away, taking in the units between them,
	// tied or not, when none of them is read or chosen and the budget
	// allows (0: only a unit it meets).
	BridgeLines int
	// HeldTies asks Tie of every chosen unit a grown unit holds: the one
	// it grew from, then those it took in (Join, WholeClass), in the
	// order taken. Off, only the one it grew from ties a neighbour.
	HeldTies bool
	// WholeClass grows a chosen method or class header, first, into the
	// whole of its class (the contiguous units of the class, its header
	// and its members; for a nested class, the outermost class around it
	// that fits, segment.WholeClass) when that class costs at most this
	// many tokens, fits in one unit by the segmenter's limits
	// (segment.MaxUnitLines, segment.MaxUnitTokens) and the budget
	// allows: a small class is read whole. A later chosen unit inside
	// the class is taken in (a join); an earlier one, or a read line
	// inside it, leaves the unit as it was. 0: no unit grows this way.
	WholeClass int
	// Fixed: the first this many units are delivered as they are,
	// neither grown nor joined, though they count against the budget and
	// nothing grows into them.
	Fixed int
}

// DefaultReserve keeps 2% of the budget for blank-line slack.
const DefaultReserve = 0.02

// Score rates a neighbouring unit for growth (higher first); nil rates all
// neighbours alike, and growth then prefers the unit above (the enclosing
// header or the preceding sibling) on ties.
type Score func(u *mss.Unit) float64

// Grow returns units grown within budget, and a trace of each growth.
// Units whose file the source does not know are returned unchanged.
func Grow(units []mss.Unit, src mss.UnitSource, observed []mss.Span, budget int, score Score, opt Options) ([]mss.Unit, []mss.TraceStep) {
	if src == nil || len(units) == 0 {
		return units, nil
	}
	if opt.Reserve <= 0 {
		opt.Reserve = DefaultReserve
	}
	maxUnit := opt.MaxUnitTokens
	if maxUnit <= 0 {
		maxUnit = budget / 4
	}
	limit := budget - int(float64(budget)*opt.Reserve)

	type run struct {
		file     []mss.Unit // every unit of the file, line order
		lo, hi   int        // grown run is file[lo..hi]
		grown    bool
		stuck    bool
		joined   bool // taken in by an earlier run
		tokens   int  // the estimate growth decides by (an upper bound)
		exact    int  // what the grown unit costs as delivered
		original mss.Unit
		held     []*mss.Unit // the other chosen units the run took in, in the order taken
		// own: file is the run's copy of its file's units, in which a
		// chosen unit that is the unread part of one of them (the rest
		// of a unit read in part) stands in that unit's place.
		own bool
	}
	runs := make([]*run, len(units))
	spent := 0
	files := map[string][]mss.Unit{}
	for i, u := range units {
		spent += cost(&u)
		r := &run{original: u, tokens: cost(&u), exact: cost(&u), stuck: true}
		runs[i] = r
		fu, ok := files[u.Path]
		if !ok {
			fu = src.FileUnits(u.Path)
			files[u.Path] = fu
		}
		// The chosen unit must be exactly a run of the file's units to grow.
		lo, hi := -1, -1
		for j := range fu {
			if fu[j].StartLine == u.StartLine {
				lo = j
			}
			if fu[j].EndLine == u.EndLine {
				hi = j
			}
		}
		if lo >= 0 && hi >= lo {
			r.file, r.lo, r.hi, r.stuck = fu, lo, hi, i < opt.Fixed
			continue
		}
		// The unread part of one file unit grows from the side it was
		// not read on, in that unit's place.
		for j := range fu {
			if fu[j].StartLine <= u.StartLine && u.EndLine <= fu[j].EndLine {
				r.file, r.lo, r.hi, r.stuck, r.own = slices.Clone(fu), j, j, i < opt.Fixed, true
				r.file[j] = u
				break
			}
		}
	}
	// shutAbove (shutBelow) reports whether the first (last) unit of a
	// run is only the lower (upper) lines of its file's unit there: the
	// run neither grows nor joins across the lines it leaves out.
	shutAbove := func(r *run) bool { return r.file[r.lo].StartLine > files[r.original.Path][r.lo].StartLine }
	shutBelow := func(r *run) bool { return r.file[r.hi].EndLine < files[r.original.Path][r.hi].EndLine }
	// span is the units a run r holds from file place a to b, with the
	// places another run o holds (the unread part of a unit, when o is
	// own) as o holds them.
	span := func(r, o *run, a, b int) []mss.Unit {
		if !o.own {
			return r.file[a : b+1]
		}
		s := slices.Clone(r.file[a : b+1])
		copy(s[o.lo-a:], o.file[o.lo:o.hi+1])
		return s
	}
	if spent >= limit && !opt.Join { // nothing to grow, and nothing to join
		return units, nil
	}
	// readIn reports whether the agent has read any of lines s..e of
	// path (blank lines between units too).
	readIn := func(path string, s, e int) bool {
		for _, o := range observed {
			if o.Path == path && o.StartLine <= e && o.EndLine >= s {
				return true
			}
		}
		return false
	}
	// read reports whether a file unit overlaps what the agent has read.
	read := func(u *mss.Unit) bool { return readIn(u.Path, u.StartLine, u.EndLine) }
	// spanOf gives the lines a run holds now.
	spanOf := func(r *run) (int, int) {
		if r.file != nil {
			return r.file[r.lo].StartLine, r.file[r.hi].EndLine
		}
		return r.original.StartLine, r.original.EndLine
	}
	// taken reports whether a file unit is inside another chosen run or
	// overlaps what the agent has read.
	taken := func(self *run, u *mss.Unit) bool {
		if read(u) {
			return true
		}
		for _, r := range runs {
			if r == self {
				continue
			}
			if s, e := spanOf(r); r.original.Path == u.Path && s <= u.EndLine && e >= u.StartLine {
				return true
			}
		}
		return false
	}
	// delivered is what the answer costs so far, as the trace reports it:
	// each grown run is charged by its merged text, while growth decides
	// by the per-piece estimate, which never undercounts.
	delivered := spent
	var trace []mss.TraceStep
	// live counts the units that will be delivered. meets returns the
	// later chosen run that r = runs[i] meets, if any, what the two cost
	// as one, and how many lines between them a join bridges (0 for runs
	// that meet): one of the same file whose first unit follows r's last,
	// or whose last unit precedes r's first (with BridgeLines, up to that
	// many lines away), and which r can take in within the cap of one
	// unit, while joining leaves at least MinUnits.
	live := len(runs)
	meets := func(i int) (*run, int, int) {
		r := runs[i]
		if r.file == nil || live <= opt.MinUnits || i < opt.Fixed {
			return nil, 0, 0
		}
		for _, o := range runs[i+1:] {
			if o.joined || o.file == nil || o.original.Path != r.original.Path {
				continue
			}
			var between []mss.Unit
			gap := 0
			switch {
			case o.lo > r.hi && !shutBelow(r) && !shutAbove(o):
				between, gap = r.file[r.hi+1:o.lo], o.file[o.lo].StartLine-r.file[r.hi].EndLine-1
			case o.hi < r.lo && !shutAbove(r) && !shutBelow(o):
				between, gap = r.file[o.hi+1:r.lo], r.file[r.lo].StartLine-o.file[o.hi].EndLine-1
			default:
				continue
			}
			if len(between) == 0 {
				gap = 0 // runs that meet bridge nothing
			} else if gap > opt.BridgeLines || slices.ContainsFunc(between, func(u mss.Unit) bool { return taken(r, &u) }) {
				continue
			}
			if s, e := spanOf(r); (o.lo > r.hi && readIn(r.original.Path, e+1, o.file[o.lo].StartLine-1)) ||
				(o.hi < r.lo && readIn(r.original.Path, o.file[o.hi].EndLine+1, s-1)) {
				continue // a read line between, if only a blank one
			}
			// A join costs the blank lines between, and may take the
			// share of the budget growth leaves unspent; a bridge costs
			// the units between, within what growth may spend.
			exact := segment.RunTokens(span(r, o, min(r.lo, o.lo), max(r.hi, o.hi)))
			room := budget
			if len(between) > 0 {
				room = limit
			}
			if exact <= maxUnit && spent+exact-r.exact-o.exact <= room {
				return o, exact, gap
			}
		}
		return nil, 0, 0
	}
	// takeIn marks the later chosen run o as delivered within r, which
	// now holds o's chosen units too (kept for HeldTies alone).
	takeIn := func(r, o *run) {
		if opt.HeldTies {
			r.held = append(append(r.held, &o.original), o.held...)
		}
		o.joined, o.stuck = true, true
		live--
	}
	// joinRun takes o into r, the two costing exact as one: what it adds
	// is the blank lines between, or the bridged lines between.
	joinRun := func(r, o *run, exact, bridged int) {
		add := exact - r.exact - o.exact
		where := " and next to it"
		if bridged > 0 {
			where = fmt.Sprintf(", with the %d lines between them", bridged)
		}
		if o.own { // r holds o's places as o does
			if !r.own {
				r.file, r.own = slices.Clone(r.file), true
			}
			copy(r.file[o.lo:], o.file[o.lo:o.hi+1])
		}
		r.lo, r.hi = min(r.lo, o.lo), max(r.hi, o.hi)
		r.tokens += o.tokens + max(add, 0)
		spent += max(add, 0)
		delivered += add
		r.exact = exact
		r.grown = true
		takeIn(r, o)
		trace = append(trace, mss.TraceStep{Stage: "expand", UnitID: r.original.ID, Reason: fmt.Sprintf(
			"took in %s, chosen too%s (%+d tokens, %d of %d spent)", named(&o.original), where, add, delivered, budget)})
	}
	// wholeClass grows runs[i] into its whole class when the class fits
	// in one unit (Options.WholeClass), taking in the later chosen runs
	// inside it.
	wholeClass := func(i int, r *run) {
		lo, hi, class, ok := segment.WholeClass(r.file, r.lo, r.hi, min(opt.WholeClass, maxUnit))
		if !ok || (lo == r.lo && hi == r.hi) {
			return
		}
		exact := segment.RunTokens(r.file[lo : hi+1])
		// What the class holds besides r: nothing read, and no chosen
		// unit but later ones, which it takes in whole.
		if s, e := spanOf(r); readIn(r.original.Path, r.file[lo].StartLine, s-1) || readIn(r.original.Path, e+1, r.file[hi].EndLine) {
			return
		}
		var inside []*run
		for k, o := range runs {
			if o == r || o.joined || o.original.Path != r.original.Path {
				continue
			}
			if s, e := spanOf(o); s > r.file[hi].EndLine || e < r.file[lo].StartLine {
				continue
			}
			if k < i || k < opt.Fixed || o.file == nil || o.lo < lo || o.hi > hi {
				return
			}
			inside = append(inside, o)
		}
		if len(inside) > 0 && live-len(inside) < opt.MinUnits {
			return
		}
		freed := 0
		for _, o := range inside {
			freed += o.exact
		}
		add := exact - r.exact - freed
		if spent+add > limit {
			return
		}
		for _, o := range inside {
			takeIn(r, o)
		}
		r.lo, r.hi = lo, hi
		r.tokens += add
		spent += add
		delivered += add
		r.exact = exact
		r.grown = true
		took := ""
		for k, o := range inside {
			sep := ", "
			if k == 0 {
				sep = ", taking in "
			}
			took += sep + named(&o.original)
		}
		if len(inside) > 0 {
			took += ", chosen too"
		}
		trace = append(trace, mss.TraceStep{Stage: "expand", UnitID: r.original.ID, Reason: fmt.Sprintf(
			"grown to the whole of class %s, %s:%d-%d, which fits in one unit%s (%+d tokens, %d of %d spent)",
			class, r.original.Path, r.file[lo].StartLine, r.file[hi].EndLine, took, add, delivered, budget)})
	}
	if opt.WholeClass > 0 {
		for i, r := range runs {
			if !r.joined && r.file != nil && !r.own && i >= opt.Fixed {
				wholeClass(i, r)
			}
		}
	}
	for progress := true; progress; {
		progress = false
		for i, r := range runs {
			if r.joined {
				continue
			}
			if opt.Join {
				if j, exact, bridged := meets(i); j != nil {
					// Taking in a chosen unit may open a side that was
					// closed.
					joinRun(r, j, exact, bridged)
					r.stuck, progress = false, true
					continue
				}
			}
			if r.stuck {
				continue
			}
			var cands []int
			// A neighbour is out of reach when it, or a blank line
			// between, is read, or it is another chosen unit's.
			s, e := spanOf(r)
			if r.lo > 0 && !shutAbove(r) && !taken(r, &r.file[r.lo-1]) && !readIn(r.original.Path, r.file[r.lo-1].EndLine+1, s-1) {
				cands = append(cands, r.lo-1)
			}
			if r.hi+1 < len(r.file) && !shutBelow(r) && !taken(r, &r.file[r.hi+1]) && !readIn(r.original.Path, e+1, r.file[r.hi+1].StartLine-1) {
				cands = append(cands, r.hi+1)
			}
			best, why := -1, map[int]string{}
			for _, c := range cands {
				add := gapCost(r.file, r.lo, r.hi, c)
				if r.tokens+add > maxUnit || spent+add > limit {
					continue
				}
				if opt.Tie != nil {
					w := opt.Tie(&r.original, &r.file[c])
					for k := 0; opt.HeldTies && w == "" && k < len(r.held); k++ {
						w = opt.Tie(r.held[k], &r.file[c])
					}
					if w == "" && c == r.hi+1 && r.file[r.hi].EndLine == r.original.EndLine && bareHeader(r.file, &r.original) {
						w = "the code under the file's header, which defines nothing itself"
					}
					if w == "" {
						continue
					}
					why[c] = w
				}
				if best < 0 || (score != nil && score(&r.file[c]) > score(&r.file[best])) {
					best = c
				}
			}
			if best < 0 {
				r.stuck = true
				continue
			}
			add := gapCost(r.file, r.lo, r.hi, best)
			if best < r.lo {
				r.lo = best
			} else {
				r.hi = best
			}
			r.tokens += add
			spent += add
			r.grown = true
			progress = true
			exact := segment.RunTokens(r.file[r.lo : r.hi+1])
			delivered += exact - r.exact
			reason := fmt.Sprintf("grown by %s (%+d tokens, %d of %d spent)", named(&r.file[best]), exact-r.exact, delivered, budget)
			r.exact = exact
			if w := why[best]; w != "" {
				reason += ": " + w
			}
			trace = append(trace, mss.TraceStep{Stage: "expand", UnitID: r.original.ID, Reason: reason})
		}
	}
	out := make([]mss.Unit, 0, len(units))
	for i, r := range runs {
		switch {
		case r.joined:
		case !r.grown:
			out = append(out, units[i])
		default:
			out = append(out, merged(r.file[r.lo:r.hi+1], &r.original))
		}
	}
	return out, trace
}

// named is a unit's place and, when it has one, its symbol, as the trace
// names a piece.
func named(u *mss.Unit) string {
	s := fmt.Sprintf("%s:%d-%d", u.Path, u.StartLine, u.EndLine)
	if u.Symbol != "" {
		s += " " + u.Symbol
	}
	return s
}

// bareHeader reports whether u is the first unit of its file (file, in
// line order) and holds no definition: a licence or doc comment, a
// package clause, imports. Such a unit is chosen for what its comment or
// its imports name, and tells nothing of the code it introduces, which
// is the unit under it (a locale file's "// Bulgarian [bg]" above the
// locale object it heads).
func bareHeader(file []mss.Unit, u *mss.Unit) bool {
	return len(file) > 0 && file[0].StartLine == u.StartLine && u.Kind == segment.KindModule && len(u.Defines) == 0
}

func cost(u *mss.Unit) int {
	if u.Tokens > 0 {
		return u.Tokens
	}
	return mss.TokenCost(u.Content)
}

// gapCost is what adding file[c] to the run file[lo..hi] costs: the unit
// and the blank lines between it and the run, counted as bare newlines.
func gapCost(file []mss.Unit, lo, hi, c int) int {
	u := &file[c]
	var gap int
	if c < lo {
		gap = file[lo].StartLine - u.EndLine - 1
	} else {
		gap = u.StartLine - file[hi].EndLine - 1
	}
	return mss.TokenCost(u.Content + strings.Repeat("\n", max(gap, 0)))
}

// joined is a run's text, the blank lines between its units restored.
func joined(run []mss.Unit) string {
	var b strings.Builder
	line := run[0].StartLine
	for _, u := range run {
		for ; line < u.StartLine; line++ {
			b.WriteByte('\n')
		}
		b.WriteString(u.Content)
		line = u.EndLine + 1
	}
	return b.String()
}

// merged joins a run of whole units into one unit; blank lines between
// them are restored as empty lines. The grown unit keeps the chosen unit's
// symbol and kind, so its provenance still names what was chosen.
func merged(run []mss.Unit, chosen *mss.Unit) mss.Unit {
	m := mss.Unit{
		Path:      chosen.Path,
		StartLine: run[0].StartLine,
		EndLine:   run[len(run)-1].EndLine,
		Symbol:    chosen.Symbol,
		Kind:      chosen.Kind,
		Language:  chosen.Language,
		Content:   joined(run),
		// A run that starts inside a split definition is read, as its
		// first unit is, under that definition's signature.
		Context: run[0].Context,
	}
	segment.Identify(&m)
	m.Symbols = render.Symbols(run)
	for _, u := range run {
		m.Defines = append(m.Defines, u.Defines...)
		m.References = append(m.References, u.References...)
		m.Imports = append(m.Imports, u.Imports...)
	}
	return m
}
