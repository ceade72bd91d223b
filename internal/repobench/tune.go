package repobench

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/missingcomplement/mss"
)

// Param is one tunable value: a method setting (Setting) or a fusion
// weight (View, or View "k" for the rank constant), with the grid of
// values coordinate ascent tries.
type Param struct {
	Setting string
	View    string
	Grid    []float64
	// Shared settings (the growth stage's) apply to the control too, so
	// the method and its control are compared at equal growth.
	Shared bool
}

// Name is the parameter's name as --set or the fusion spells it.
func (p Param) Name() string {
	if p.View != "" {
		return "fusion." + p.View
	}
	return p.Setting
}

// Point is one assignment of values to parameters.
type Point map[string]float64

func (pt Point) clone() Point {
	out := make(Point, len(pt))
	for k, v := range pt {
		out[k] = v
	}
	return out
}

// String lists the point's values, sorted by name.
func (pt Point) String() string {
	keys := make([]string, 0, len(pt))
	for k := range pt {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + strconv.FormatFloat(pt[k], 'g', -1, 64)
	}
	return strings.Join(parts, " ")
}

// Tuner fits parameters of one method on cached candidates by coordinate
// ascent: parameters in a fixed order, each set to the grid value with the
// best objective while the others stay, rounds until a round changes
// nothing (or MaxRounds). A value replaces the current one only when it is
// strictly better, so ties keep the earlier value and the fit is
// deterministic.
type Tuner struct {
	Method    string
	Base      map[string]string // settings every point shares
	Params    []Param
	Replay    *Replay
	Scorer    *Scorer
	Labels    map[string]*Label
	Workers   int // states answered at once; 0 means 1
	MaxRounds int
	// OrderLoss is the loss the order model is fitted on (OrderLosses;
	// "" is OrderLossGroups, the loss retrieve.LearnedOrder was fitted on).
	OrderLoss string
	// OrderTrees is how many regression trees are boosted on the linear
	// order, on its loss (retrieve.FitOrderGroupsTrees,
	// retrieve.FitOrderTrees; 0: none).
	OrderTrees int
	// Log, when set, receives one line per evaluated step.
	Log func(string)
	// Cuts are the budgets the fit's objective is taken at: each answer,
	// made at the scorer's budget, is cut to each of them as score.py
	// --budget cuts it, and the objective is the mean of Objective over
	// them. None: the scorer's budget alone.
	Cuts []int
}

// Objective is the figure the fit maximizes: mean complete@5, with mean
// complete@8 as a tie-breaker worth a tenth.
func Objective(rows []StateScore) float64 {
	return objectiveOf(meanOf(rows))
}

// objectiveOf is Objective's figure from the mean figures m.
func objectiveOf(m map[string]float64) float64 {
	return m[Key(Complete, 5)] + 0.1*m[Key(Complete, 8)]
}

// objective is the figure Fit maximizes over rows: Objective, or its mean
// over the cuts when there are any.
func (t *Tuner) objective(rows []StateScore) float64 {
	if len(t.Cuts) == 0 {
		return Objective(rows)
	}
	sum := 0.0
	for _, b := range t.Cuts {
		sum += objectiveOf(meanOfCut(rows, b))
	}
	return sum / float64(len(t.Cuts))
}

// meanOfCut is meanOf the rows' figures at cut b.
func meanOfCut(rows []StateScore, b int) map[string]float64 {
	cut := make([]StateScore, len(rows))
	for i, r := range rows {
		cut[i] = r
		cut[i].Metrics = r.Cuts[b]
	}
	return meanOf(cut)
}

// split turns a point into a method's settings and a fusion; only the
// tuned method takes Base and the setting parameters.
func (t *Tuner) split(pt Point, method string) (map[string]string, Fusion) {
	set := map[string]string{}
	own := method == t.Method
	if own {
		for k, v := range t.Base {
			set[k] = v
		}
	}
	f := Fusion{Weights: map[string]float64{}}
	for _, p := range t.Params {
		v, ok := pt[p.Name()]
		if !ok {
			continue
		}
		switch {
		case p.View == "k":
			f.K = v
		case p.View != "":
			f.Weights[p.View] = v
		case own || p.Shared:
			set[p.Setting] = strconv.FormatFloat(v, 'g', -1, 64)
		}
	}
	return set, f
}

// Evaluate answers and scores the states at a point.
func (t *Tuner) Evaluate(ctx context.Context, states []*mss.State, method string, pt Point) ([]StateScore, error) {
	set, fus := t.split(pt, method)
	ctl, err := mss.NewMethod(method, mss.MethodOptions{Settings: set})
	if err != nil {
		return nil, err
	}
	rp := *t.Replay
	rp.Fusion = fus
	rows := make([]StateScore, len(states))
	workers := max(t.Workers, 1)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				st := states[i]
				var units []PredUnit
				var p *Prediction
				var err error
				if rp.Cache.States[st.StateID] != nil {
					if p, err = rp.answer(ctx, st, method, ctl); err == nil {
						units = p.Units
					}
				}
				var m map[string]float64
				var cuts map[int]map[string]float64
				if err == nil {
					m, err = t.Scorer.ScoreState(st, t.Labels[st.StateID], units)
				}
				for _, b := range t.Cuts {
					if err != nil {
						break
					}
					if cuts == nil {
						cuts = map[int]map[string]float64{}
					}
					if b == t.Scorer.budget() {
						cuts[b] = m // the answer as made
						continue
					}
					sc := *t.Scorer
					sc.Budget = b
					cuts[b], err = sc.ScoreState(st, t.Labels[st.StateID], units)
				}
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("state %s: %w", st.StateID, err)
					}
					mu.Unlock()
					continue
				}
				rows[i] = StateScore{StateID: st.StateID, Repo: st.Repo, StateType: st.StateType,
					Groups: len(t.Labels[st.StateID].RequiredGroups), Metrics: m, Cuts: cuts, Prediction: p}
			}
		}()
	}
	for i := range states {
		next <- i
	}
	close(next)
	wg.Wait()
	return rows, firstErr
}

// Fit runs coordinate ascent from start on the states and returns the
// fitted point and its objective.
func (t *Tuner) Fit(ctx context.Context, states []*mss.State, start Point) (Point, float64, error) {
	cur := start.clone()
	rows, err := t.Evaluate(ctx, states, t.Method, cur)
	if err != nil {
		return nil, 0, err
	}
	best := t.objective(rows)
	rounds := t.MaxRounds
	if rounds <= 0 {
		rounds = 2
	}
	for round := 1; round <= rounds; round++ {
		changed := false
		for _, p := range t.Params {
			name := p.Name()
			for _, v := range p.Grid {
				if v == cur[name] {
					continue
				}
				try := cur.clone()
				try[name] = v
				rows, err := t.Evaluate(ctx, states, t.Method, try)
				if err != nil {
					return nil, 0, err
				}
				o, kept := t.objective(rows), ""
				if o > best+1e-9 {
					best, cur, changed, kept = o, try, true, " (kept)"
				}
				if t.Log != nil {
					t.Log(fmt.Sprintf("round %d: %s=%g -> objective %.4f%s", round, name, v, o, kept))
				}
			}
		}
		if !changed {
			break
		}
	}
	return cur, best, nil
}

// Folds splits states into n folds by repository: every state of a
// repository is in one fold. Repositories go, largest first (ties by
// name), to the fold with the fewest states so far (ties to the lower
// fold), so the folds are as even as whole repositories allow.
func Folds(states []*mss.State, n int) [][]*mss.State {
	byRepo := map[string][]*mss.State{}
	var repos []string
	for _, s := range states {
		r := strings.ToLower(s.Repo)
		if byRepo[r] == nil {
			repos = append(repos, r)
		}
		byRepo[r] = append(byRepo[r], s)
	}
	n = min(n, len(repos))
	if n <= 0 {
		return nil
	}
	sort.Slice(repos, func(a, b int) bool {
		if len(byRepo[repos[a]]) != len(byRepo[repos[b]]) {
			return len(byRepo[repos[a]]) > len(byRepo[repos[b]])
		}
		return repos[a] < repos[b]
	})
	folds := make([][]*mss.State, n)
	for _, r := range repos {
		f := 0
		for i := range folds {
			if len(folds[i]) < len(folds[f]) {
				f = i
			}
		}
		folds[f] = append(folds[f], byRepo[r]...)
	}
	return folds
}

// FoldResult is one cross-validation fold: fitted on the other folds,
// measured on this one's states.
type FoldResult struct {
	Fold           int
	Repos          []string
	States         int
	Fitted         Point
	TrainObjective float64
	// Held-out means (complete@5 and complete@5 on states with two or
	// more groups) of the method at its start point, at the fitted point,
	// and of the control at the fitted fusion.
	Start, Tuned, Control    float64
	Start2, Tuned2, Control2 float64
}

// Mean2 is the mean complete@5 over states with two or more groups, NaN
// when rows hold none: no figure, which a 0 would pass for.
func Mean2(rows []StateScore) float64 {
	var s float64
	n := 0
	for _, r := range rows {
		if r.Groups >= 2 {
			s += r.Metrics[Key(Complete, 5)]
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}

// MeanC5 is the mean complete@5 of rows.
func MeanC5(rows []StateScore) float64 { return meanOf(rows)[Key(Complete, 5)] }

// CrossValidate fits on all folds but one and measures on the one left
// out, for every fold; control is the method compared at the fitted
// fusion (its own settings fixed).
func (t *Tuner) CrossValidate(ctx context.Context, folds [][]*mss.State, start Point, control string) ([]FoldResult, error) {
	var out []FoldResult
	for i, held := range folds {
		fitted, obj, err := t.Fit(ctx, others(folds, i), start)
		if err != nil {
			return nil, err
		}
		fr := FoldResult{Fold: i + 1, States: len(held), Fitted: fitted, TrainObjective: obj, Repos: reposOf(held)}
		a, err := t.Evaluate(ctx, held, t.Method, start)
		if err != nil {
			return nil, err
		}
		b, err := t.Evaluate(ctx, held, t.Method, fitted)
		if err != nil {
			return nil, err
		}
		c, err := t.Evaluate(ctx, held, control, t.fusionOnly(fitted))
		if err != nil {
			return nil, err
		}
		fr.Start, fr.Tuned, fr.Control = MeanC5(a), MeanC5(b), MeanC5(c)
		fr.Start2, fr.Tuned2, fr.Control2 = Mean2(a), Mean2(b), Mean2(c)
		out = append(out, fr)
	}
	return out, nil
}

// others are the states of every fold but the i-th.
func others(folds [][]*mss.State, i int) []*mss.State {
	var out []*mss.State
	for j, f := range folds {
		if j != i {
			out = append(out, f...)
		}
	}
	return out
}

// reposOf names the repositories of states, sorted, each once however
// its name is cased.
func reposOf(states []*mss.State) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range states {
		if r := strings.ToLower(s.Repo); !seen[r] {
			seen[r] = true
			out = append(out, s.Repo)
		}
	}
	sort.Strings(out)
	return out
}

// fusionOnly keeps the parameters of a point the control shares: the
// fusion and the shared settings.
func (t *Tuner) fusionOnly(pt Point) Point {
	out := Point{}
	for _, p := range t.Params {
		if v, ok := pt[p.Name()]; ok && (p.View != "" || p.Shared) {
			out[p.Name()] = v
		}
	}
	return out
}
