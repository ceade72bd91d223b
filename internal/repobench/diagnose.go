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
	return poolComplete(label, cands, depth, false)
}

// poolComplete is PoolComplete, counting only the candidates the state
// has not read when unread is set.
func poolComplete(label *Label, cands []mss.Candidate, depth int, unread bool) bool {
	if depth > len(cands) {
		depth = len(cands)
	}
	top := cands[:depth]
	covers := func(g *LineGroup) bool {
		for i := range top {
			if !(unread && top[i].Observed) && g.overlaps(&top[i].Unit) {
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
func (g *LineGroup) overlaps(u *mss.Unit) bool { return g.overlapsSpan(u.Path, u.StartLine, u.EndLine) }

func (g *LineGroup) overlapsSpan(path string, start, end int) bool {
	if !g.on(path) {
		return false
	}
	for _, r := range g.Lines {
		if start <= r[1] && end >= r[0] {
			return true
		}
	}
	return false
}

// on says whether path is g's file.
func (g *LineGroup) on(path string) bool { return strings.TrimLeft(path, "./") == g.Path }

// Diagnosis says where a method's misses come from.
type Diagnosis struct {
	States int
	// PoolRecall is the share of states whose first d candidates are
	// complete (PoolComplete), by depth.
	PoolRecall map[int]float64
	// Complete is the method's mean complete@5; LostRetrieval the share
	// of states it misses whose whole candidate list is not complete;
	// LostRead the share it misses whose list is complete only with
	// candidates the state has read (which no answer repeats); and
	// LostSelection the share it misses although the candidates it has
	// not read are complete.
	Complete, LostRetrieval, LostRead, LostSelection float64
	// Missed breaks down the groups its missed states leave uncovered
	// (when Diagnose is given the answers).
	Missed Missed
	// Slots says what the units of the missed states' answers hold (when
	// Diagnose is given the answers).
	Slots Slots
}

// Slots counts the units of a method's answers at C@5 over the states it
// misses, by what each adds to the units before it in its answer: a
// required group none of them overlaps (New), only groups they overlap
// already (Repeat), or no required group (None). Many Repeat units mean
// answers spend places on what they hold already, which a set-level
// choice avoids; many None units mean places go to units that hold none
// of the evidence, which is a matter of each unit's relevance.
type Slots struct {
	Units, New, Repeat, None int
}

// add counts the units of a missed state's answer.
func (s *Slots) add(l *Label, ans []PredUnit) {
	covered := make([]bool, len(l.RequiredGroups))
	for _, u := range ans {
		s.Units++
		hit, fresh := false, false
		for i := range l.RequiredGroups {
			if l.RequiredGroups[i].overlapsSpan(u.Path, u.StartLine, u.EndLine) {
				hit = true
				fresh = fresh || !covered[i]
				covered[i] = true
			}
		}
		switch {
		case fresh:
			s.New++
		case hit:
			s.Repeat++
		default:
			s.None++
		}
	}
}

// Missed counts the required groups that a method's answers at C@5 leave
// uncovered, over the states it misses, by how near the method came. A
// group is offered when a candidate overlaps it, and its file is shown
// when the answer holds a unit of that file.
type Missed struct {
	Groups int
	// Offered by a candidate the state has not read, and the answer
	// shows its file (another unit of it) or not.
	OfferedShown, OfferedElsewhere int
	// Offered only by candidates the state has read.
	Read int
	// Not offered: the answer shows its file; or some other candidate is
	// in its file; or no candidate is.
	FileShown, FileOffered, FileAbsent int
}

// Diagnose computes pool recall over the cached candidates of the scored
// states and splits the method's complete@5 misses between retrieval and
// selection; given each state's answer at C@5 (Scorer.Answer; answer may
// be nil), it also counts the groups the missed states leave uncovered
// (Diagnosis.Missed) and what their answers' units hold (Diagnosis.Slots).
func Diagnose(rows []StateScore, labels map[string]*Label, cands func(stateID string) []mss.Candidate, answer func(stateID string) []PredUnit) Diagnosis {
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
		case poolComplete(l, cs, len(cs), true):
			d.LostSelection += 1 / n
		case PoolComplete(l, cs, len(cs)):
			d.LostRead += 1 / n
		default:
			d.LostRetrieval += 1 / n
		}
		if !hit && answer != nil {
			ans := answer(r.StateID)
			d.Missed.add(l, cs, ans)
			d.Slots.add(l, ans)
		}
	}
	return d
}

// add counts the required groups of a missed state that its answer leaves
// uncovered.
func (m *Missed) add(l *Label, cands []mss.Candidate, ans []PredUnit) {
	for i := range l.RequiredGroups {
		g := &l.RequiredGroups[i]
		shown, covered := false, false
		for _, u := range ans {
			covered = covered || g.overlapsSpan(u.Path, u.StartLine, u.EndLine)
			shown = shown || g.on(u.Path)
		}
		if covered {
			continue
		}
		offered, read, fileOffered := false, false, false
		for j := range cands {
			if g.overlaps(&cands[j].Unit) {
				if cands[j].Observed {
					read = true
				} else {
					offered = true
				}
			}
			fileOffered = fileOffered || g.on(cands[j].Unit.Path)
		}
		m.Groups++
		switch {
		case offered && shown:
			m.OfferedShown++
		case offered:
			m.OfferedElsewhere++
		case read:
			m.Read++
		case shown:
			m.FileShown++
		case fileOffered:
			m.FileOffered++
		default:
			m.FileAbsent++
		}
	}
}
