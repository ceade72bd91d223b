package repobench

import (
	"strings"

	"github.com/missingcomplement/mss"
)

// PoolDepths are the candidate depths pool recall is reported at.
var PoolDepths = []int{20, 80, 200}

// PoolComplete reports whether the first depth candidates could make the
// state complete: every required group (or every group of one alternative
// set) has a candidate on its path overlapping one of its changed line
// ranges. A state whose pool is not complete is lost to retrieval, whatever
// the selection does.
func PoolComplete(label *Label, cands []mss.Candidate, depth int) bool {
	if depth > len(cands) {
		depth = len(cands)
	}
	top := cands[:depth]
	covers := func(g *LineGroup) bool {
		for i := range top {
			if g.overlaps(&top[i].Unit) {
				return true
			}
		}
		return false
	}
	all := func(gs []LineGroup) bool {
		for i := range gs {
			if !covers(&gs[i]) {
				return false
			}
		}
		return true
	}
	if all(label.RequiredGroups) {
		return true
	}
	for _, alt := range label.AlternativeSets {
		if all(alt) {
			return true
		}
	}
	return false
}

// overlaps says whether u is on g's path and overlaps one of its changed
// line ranges.
func (g *LineGroup) overlaps(u *mss.Unit) bool {
	if strings.TrimLeft(u.Path, "./") != g.Path {
		return false
	}
	for _, r := range g.Lines {
		if u.StartLine <= r[1] && u.EndLine >= r[0] {
			return true
		}
	}
	return false
}

// Diagnosis says where a method's misses come from.
type Diagnosis struct {
	States int
	// PoolRecall is the share of states whose first d candidates are
	// complete (PoolComplete), by depth.
	PoolRecall map[int]float64
	// Complete is the method's mean complete@5; LostRetrieval the share
	// of states it misses whose whole candidate list is not complete, and
	// LostSelection the share it misses although the list is complete.
	Complete, LostRetrieval, LostSelection float64
}

// Diagnose computes pool recall over the cached candidates of the scored
// states and splits the method's complete@5 misses between retrieval and
// selection.
func Diagnose(rows []StateScore, labels map[string]*Label, cands func(stateID string) []mss.Candidate) Diagnosis {
	d := Diagnosis{States: len(rows), PoolRecall: map[int]float64{}}
	if len(rows) == 0 {
		return d
	}
	n := float64(len(rows))
	for _, r := range rows {
		cs := cands(r.StateID)
		l := labels[r.StateID]
		for _, depth := range PoolDepths {
			if PoolComplete(l, cs, depth) {
				d.PoolRecall[depth] += 1 / n
			}
		}
		hit := r.Metrics[Key(Complete, 5)] > 0
		switch {
		case hit:
			d.Complete += 1 / n
		case PoolComplete(l, cs, len(cs)):
			d.LostSelection += 1 / n
		default:
			d.LostRetrieval += 1 / n
		}
	}
	return d
}
