package repobench

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/missingcomplement/mss"
)

// DefaultKs are the answer sizes score.py reports by default.
var DefaultKs = []int{1, 3, 5, 8, 10}

// Metric names, suffixed with "@k".
const (
	Complete      = "complete"
	GroupRecall   = "group_recall"
	Necessity     = "necessity"
	Tokens        = "tokens"
	ObservedUnits = "observed_units"
)

// MetricNames lists the per-k metrics in score.py's order.
var MetricNames = []string{Complete, GroupRecall, Necessity, Tokens, ObservedUnits}

// Key is the name of metric m at k, e.g. "complete@5".
func Key(m string, k int) string { return fmt.Sprintf("%s@%d", m, k) }

// IsCount says whether a metric ("tokens@8") is a count per state, where
// less is better (tokens, observed units), rather than a rate, where more
// is.
func IsCount(metric string) bool {
	m, _, _ := strings.Cut(metric, "@")
	return m == Tokens || m == ObservedUnits
}

// Stratum names beside the state types.
const (
	OneGroup  = "groups=1"
	TwoGroups = "groups>=2"
)

// StateScore is one state's figures for one method.
type StateScore struct {
	StateID   string
	Repo      string
	StateType string
	Groups    int  // required groups
	Missing   bool // no prediction: every figure is zero
	Metrics   map[string]float64
	// Cuts are the figures of the answer cut to each of Tuner.Cuts.
	Cuts map[int]map[string]float64
	// Prediction is the answer scored, when Tuner.Evaluate made one (nil
	// for a state the cache lacks).
	Prediction *Prediction
}

// Strata names the strata a state belongs to: its state type and its group
// count bucket.
func (s *StateScore) Strata() []string {
	g := OneGroup
	if s.Groups != 1 {
		g = TwoGroups
	}
	return []string{s.StateType, g}
}

// Stratum is the mean of every metric over a subset of states.
type Stratum struct {
	N    int
	Mean map[string]float64
}

// MethodScore is one method's figures over a states file.
type MethodScore struct {
	Method  string
	Ks      []int
	Budget  int
	States  []StateScore // in states-file order
	Mean    map[string]float64
	Missing int
	Strata  map[string]*Stratum
}

// Scorer scores predictions against labels with score.py's rule.
type Scorer struct {
	Source *Source
	Ks     []int // answer sizes; nil means DefaultKs
	Budget int   // source tokens; 0 means mss.DefaultBudget
}

func (sc *Scorer) ks() []int {
	if len(sc.Ks) == 0 {
		return DefaultKs
	}
	return sc.Ks
}

// check refuses answer sizes below 1 and a negative budget.
func (sc *Scorer) check() error {
	for _, k := range sc.Ks {
		if k < 1 {
			return fmt.Errorf("answer size %d: want a positive number of units", k)
		}
	}
	if sc.Budget < 0 {
		return fmt.Errorf("budget %d: want a positive number of tokens (0 means %d)", sc.Budget, mss.DefaultBudget)
	}
	return nil
}

func (sc *Scorer) budget() int {
	if sc.Budget <= 0 {
		return mss.DefaultBudget
	}
	return sc.Budget
}

// Check verifies that every state's repository and base commit can be read,
// so a broken mirror fails before any scoring.
func (sc *Scorer) Check(states []*mss.State) error {
	for _, st := range states {
		if err := sc.Source.CheckCommit(st.Repo, st.BaseCommit); err != nil {
			return fmt.Errorf("state %s: %w", st.StateID, err)
		}
	}
	return nil
}

// Score scores every method of ps over states. Every state needs a label.
func (sc *Scorer) Score(states []*mss.State, labels map[string]*Label, ps *PredictionSet) ([]*MethodScore, error) {
	for _, st := range states {
		if labels[st.StateID] == nil {
			return nil, fmt.Errorf("state %s: no label in the labels file", st.StateID)
		}
	}
	if err := sc.Check(states); err != nil {
		return nil, err
	}
	var out []*MethodScore
	for _, method := range ps.Methods() {
		ms, err := sc.ScoreMethod(method, states, labels, ps.ByMethod[method])
		if err != nil {
			return nil, err
		}
		out = append(out, ms)
	}
	return out, nil
}

// ScoreMethod scores one method's predictions (by state id).
func (sc *Scorer) ScoreMethod(method string, states []*mss.State, labels map[string]*Label, preds map[string]*Prediction) (*MethodScore, error) {
	if err := sc.check(); err != nil {
		return nil, err
	}
	ms := &MethodScore{Method: method, Ks: sc.ks(), Budget: sc.budget(), Mean: map[string]float64{}, Strata: map[string]*Stratum{}}
	for _, st := range states {
		label := labels[st.StateID]
		if label == nil {
			return nil, fmt.Errorf("state %s: no label in the labels file", st.StateID)
		}
		p := preds[st.StateID]
		var units []PredUnit
		if p != nil {
			units = p.Units
		} else {
			ms.Missing++
		}
		m, err := sc.ScoreState(st, label, units)
		if err != nil {
			return nil, fmt.Errorf("method %s: state %s: %w", method, st.StateID, err)
		}
		ms.States = append(ms.States, StateScore{
			StateID: st.StateID, Repo: st.Repo, StateType: st.StateType,
			Groups: len(label.RequiredGroups), Missing: p == nil, Metrics: m,
		})
	}
	ms.Mean = meanOf(ms.States)
	byStratum := map[string][]StateScore{}
	for _, s := range ms.States {
		for _, name := range s.Strata() {
			byStratum[name] = append(byStratum[name], s)
		}
	}
	for name, rows := range byStratum {
		ms.Strata[name] = &Stratum{N: len(rows), Mean: meanOf(rows)}
	}
	return ms, nil
}

// meanOf averages every metric, summing in row order as score.py does.
func meanOf(rows []StateScore) map[string]float64 {
	out := map[string]float64{}
	if len(rows) == 0 {
		return out
	}
	for _, r := range rows {
		for k, v := range r.Metrics {
			out[k] += v
		}
	}
	for k := range out {
		out[k] /= float64(len(rows))
	}
	return out
}

// scoredUnit is a prediction unit with its cost; invalid units (unknown
// path, empty range) cost nothing and cover nothing.
type scoredUnit struct {
	u     PredUnit
	cost  int
	valid bool
}

// UnitCost is the unit's cost in source tokens at the state's base commit,
// and false when the unit names no lines there.
func (sc *Scorer) UnitCost(st *mss.State, u PredUnit) (int, bool, error) {
	lines, err := sc.Source.Lines(st.Repo, st.BaseCommit, u.Path)
	if err != nil {
		return 0, false, err
	}
	if lines == nil {
		return 0, false, nil
	}
	s, e := max(1, u.StartLine), min(len(lines), u.EndLine)
	if e < s {
		return 0, false, nil
	}
	n := 0
	for _, l := range lines[s-1 : e] {
		n += len(l) + 1
	}
	return mss.BytesCost(n), true, nil
}

// costs prices each unit at the state's base commit.
func (sc *Scorer) costs(st *mss.State, units []PredUnit) ([]scoredUnit, error) {
	scored := make([]scoredUnit, len(units))
	for i, u := range units {
		c, ok, err := sc.UnitCost(st, u)
		if err != nil {
			return nil, err
		}
		scored[i] = scoredUnit{u, c, ok}
	}
	return scored, nil
}

// ScoreState computes every metric at every k for one state's units.
func (sc *Scorer) ScoreState(st *mss.State, label *Label, units []PredUnit) (map[string]float64, error) {
	if err := sc.check(); err != nil {
		return nil, err
	}
	scored, err := sc.costs(st, units)
	if err != nil {
		return nil, err
	}
	budget := sc.budget()
	groups := label.RequiredGroups
	var wsum float64
	for i := range groups {
		wsum += groups[i].Weight()
	}
	out := map[string]float64{}
	for _, k := range sc.ks() {
		ans, spent := answerAt(scored, k, budget)
		hits, all := 0, true
		var necessity float64
		for i := range groups {
			if coveredBy(ans, &groups[i]) {
				hits++
				necessity += groups[i].Weight()
			} else {
				all = false
			}
		}
		complete := all
		for _, alt := range label.AlternativeSets {
			if complete {
				break
			}
			complete = true
			for i := range alt {
				if !coveredBy(ans, &alt[i]) {
					complete = false
					break
				}
			}
		}
		wasted := 0
		for _, su := range ans {
			if su.valid && overlapsObserved(su.u, st.ObservedSpans) {
				wasted++
			}
		}
		out[Key(Complete, k)] = b2f(complete)
		out[Key(GroupRecall, k)] = float64(hits) / float64(len(groups))
		out[Key(Necessity, k)] = necessity / wsum
		out[Key(Tokens, k)] = float64(spent)
		out[Key(ObservedUnits, k)] = float64(wasted)
	}
	return out, nil
}

// answerAt is the answer at (k, budget): the longest prefix of at most k
// units whose summed cost stays within the budget, and what it costs.
func answerAt(scored []scoredUnit, k, budget int) (ans []scoredUnit, spent int) {
	for _, su := range scored[:min(k, len(scored))] {
		if spent+su.cost > budget {
			break
		}
		spent += su.cost
		ans = append(ans, su)
	}
	return ans, spent
}

// Answer is the answer at k units within the scorer's budget, as score.py
// takes it: its valid units (those naming lines at the base commit).
func (sc *Scorer) Answer(st *mss.State, units []PredUnit, k int) ([]PredUnit, error) {
	if err := sc.check(); err != nil {
		return nil, err
	}
	// Only the first k units can be in the answer.
	scored, err := sc.costs(st, units[:min(k, len(units))])
	if err != nil {
		return nil, err
	}
	ans, _ := answerAt(scored, k, sc.budget())
	var out []PredUnit
	for _, su := range ans {
		if su.valid {
			out = append(out, su.u)
		}
	}
	return out, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// coveredBy reports whether a valid answer unit on the group's path overlaps
// one of its changed line ranges.
func coveredBy(ans []scoredUnit, g *LineGroup) bool {
	for _, su := range ans {
		if su.valid && g.overlapsSpan(su.u.Path, su.u.StartLine, su.u.EndLine) {
			return true
		}
	}
	return false
}

func overlapsObserved(u PredUnit, obs []mss.Span) bool {
	for _, o := range obs {
		if o.Path == u.Path && u.StartLine <= o.EndLine && u.EndLine >= o.StartLine {
			return true
		}
	}
	return false
}

// StratumNames lists the strata of a score in score.py's print order
// (sorted by name).
func (ms *MethodScore) StratumNames() []string {
	var out []string
	for n := range ms.Strata {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func hasK(ks []int, k int) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

// WriteText prints scores as score.py does without --json.
func WriteText(w io.Writer, scores []*MethodScore) error {
	for _, ms := range scores {
		var b strings.Builder
		fmt.Fprintf(&b, "%s: states=%d missing=%d", ms.Method, len(ms.States), ms.Missing)
		for _, k := range ms.Ks {
			fmt.Fprintf(&b, " C@%d=%.1f", k, 100*ms.Mean[Key(Complete, k)])
		}
		b.WriteString(" ")
		var gs []string
		for _, k := range []int{5, 8} {
			if hasK(ms.Ks, k) {
				gs = append(gs, fmt.Sprintf("G@%d=%.1f", k, 100*ms.Mean[Key(GroupRecall, k)]))
			}
		}
		b.WriteString(strings.Join(gs, " "))
		fmt.Fprintf(&b, " tok@8=%.0f\n", ms.Mean[Key(Tokens, 8)])
		if hasK(ms.Ks, 5) {
			for _, name := range ms.StratumNames() {
				st := ms.Strata[name]
				fmt.Fprintf(&b, "   %s: n=%d C@5=%.1f\n", name, st.N, 100*st.Mean[Key(Complete, 5)])
			}
		}
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
	}
	return nil
}
