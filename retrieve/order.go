package retrieve

import (
	"math"
	"sort"
	"strings"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/segment"
)

// The learned order (Options.Order; the default without an embedding
// view). Fusion adds the views' reciprocal ranks; it cannot see how
// strongly a view matched, what kind of unit a candidate is, how large,
// whether the state names it, how well it matches the title, or
// how much of it is comment (segment.CommentShare).
// A logistic model over
// those facts of each fused candidate, fitted on labelled states of
// repositories in none of the benchmark splits (FitOrder; `mss bench tune
// --fit-order`), estimates how likely the candidate holds evidence the
// state needs, and the candidates are put in that order. Their scores
// are the fused scores, reassigned best first, so that what reads scores
// sees the same scale; the fused score and the model's log-odds stay in
// the candidate's signals (SignalFused, SignalOrder), and the complement
// policy's relevance reads the log-odds.

// OrderFeatures names the features of a candidate the order model reads,
// in the order of OrderModel.Weights.
var OrderFeatures = orderFeatureNames()

// orderViews are the views whose reciprocal rank and relative raw score
// are features.
var orderViews = []string{ViewLexical, ViewEntity, ViewSemantic, ViewStructural, ViewHistory, ViewRecency}

// orderKinds are the unit kinds with a feature each.
var orderKinds = []string{"function", "method", "class", "type", "module", "window", "value"}

func orderFeatureNames() []string {
	var out []string
	for _, v := range orderViews {
		out = append(out, "rrf:"+v, "raw:"+v)
	}
	out = append(out, "fused", "position", "prior", "log_tokens")
	for _, k := range orderKinds {
		out = append(out, "kind:"+k)
	}
	return append(out, "test", "named", "path_named", "raw:title", "comment")
}

// SignalFused is the signal that keeps a candidate's fused score once the
// learned order has reassigned scores, and SignalFusedRank its place in
// the fused order (1 for the first), which breaks ties between equal
// fused scores as fusion broke them.
const (
	SignalFused     = "fused"
	SignalFusedRank = "fused_rank"
	// SignalOrder keeps the order model's log-odds of a reordered
	// candidate (the rest of a unit read in part has its unit's).
	SignalOrder = "order"
)

// OrderModel is a linear model over OrderFeatures: a logistic one as
// FitOrder fits it (its bias and sigmoid matter to that loss, not to the
// order), with regression trees boosted on it (FitOrderTrees).
type OrderModel struct {
	Weights []float64
	Bias    float64
	// Trees add their values to the linear log-odds.
	Trees []OrderTree
}

// Fused is the order model that keeps the fused order (Options.Order).
var Fused = &OrderModel{}

// OrderModel is the candidate order o asks for (see Options.Order).
func (o Options) OrderModel() *OrderModel {
	switch {
	case o.Order != nil:
		return o.Order
	case o.Embedder != nil:
		return Fused
	}
	return LearnedOrder
}

// FusedOrder returns candidates in fused order: as fuse returned them,
// undoing a Reorder (each gets its fused score back, and candidates of
// equal fused scores their fused places), whatever order reordered them.
func FusedOrder(cands []mss.Candidate) []mss.Candidate {
	out := make([]mss.Candidate, len(cands))
	copy(out, cands)
	reordered := false
	for i := range out {
		if s, ok := out[i].Signals[SignalFused]; ok {
			reordered = true
			out[i].Score = s
		}
	}
	if !reordered {
		return out
	}
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].Score != out[b].Score {
			return out[a].Score > out[b].Score
		}
		return out[a].Signals[SignalFusedRank] < out[b].Signals[SignalFusedRank]
	})
	for i := range out {
		sig := make(map[string]float64, len(out[i].Signals))
		for k, v := range out[i].Signals {
			if k != SignalFused && k != SignalFusedRank && k != SignalOrder {
				sig[k] = v
			}
		}
		out[i].Signals = sig
	}
	return out
}

// OrderInputs gives the features of each candidate of a fused list, in
// fused order (as fuse returns them, or FusedOrder restores them), for a
// state whose text names m (nil: none).
func OrderInputs(cands []mss.Candidate, m *Mentions) [][]float64 {
	named, paths := namedInputs(cands, m), namedPaths(m)
	top, maxTitle := 0.0, 0.0
	maxRaw := make([]float64, len(orderViews))
	for i := range cands {
		c := &cands[i]
		top = max(top, c.Score)
		maxTitle = max(maxTitle, c.Signals[SignalTitle])
		for k, v := range orderViews {
			maxRaw[k] = max(maxRaw[k], c.Signals[v])
		}
	}
	out := make([][]float64, len(cands))
	for i := range cands {
		c := &cands[i]
		x := make([]float64, 0, len(OrderFeatures))
		for k, v := range orderViews {
			raw := 0.0
			if maxRaw[k] > 0 {
				raw = c.Signals[v] / maxRaw[k]
			}
			// A reciprocal rank is at most 1/RRFK: scaled to about 1.
			x = append(x, c.Signals[signalRRF+v]*RRFK, raw)
		}
		fused := 0.0
		if top > 0 {
			fused = c.Score / top
		}
		prior, ok := c.Signals[SignalPrior]
		if !ok {
			prior = 1
		}
		x = append(x, fused, 1/float64(1+i), prior, math.Log1p(float64(c.Unit.Tokens))/8)
		for _, k := range orderKinds {
			x = append(x, boolFeature(c.Unit.Kind == k))
		}
		x = append(x, boolFeature(Classify(c.Unit.Path) == ClassTest), named[i])
		title := 0.0
		if maxTitle > 0 {
			title = c.Signals[SignalTitle] / maxTitle
		}
		out[i] = append(x, boolFeature(pathNamed(c.Unit.Path, paths)), title, segment.CommentShare(c.Unit.Content, c.Unit.Language))
	}
	return out
}

// namedInputs gives each candidate's "named" feature: how specifically the
// state names what it defines. A name the text writes as code (Mentions
// Code or Called) that k of the candidates define counts 1/k for each of
// them; a candidate takes its best name (0 when it defines none named).
func namedInputs(cands []mss.Candidate, m *Mentions) []float64 {
	out := make([]float64, len(cands))
	if m == nil || len(m.Code)+len(m.Called) == 0 {
		return out
	}
	definers := map[string]int{}
	for i := range cands {
		for _, d := range cands[i].Unit.Defines {
			if m.Code[d] || m.Called[d] {
				definers[d]++
			}
		}
	}
	for i := range cands {
		for _, d := range cands[i].Unit.Defines {
			if k := definers[d]; k > 0 {
				out[i] = max(out[i], 1/float64(k))
			}
		}
	}
	return out
}

// namedPaths are the paths the state names, as a file or in a stack
// frame, normalized once for pathNamed.
func namedPaths(m *Mentions) []string {
	if m == nil {
		return nil
	}
	var out []string
	for _, p := range m.Paths {
		if p = normPath(p); p != "" {
			out = append(out, p)
		}
	}
	for _, f := range m.Frames {
		if p := normPath(f.Path); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// pathNamed says whether one of named (namedPaths) is path, or a tail of
// it that starts at a directory boundary.
func pathNamed(path string, named []string) bool {
	for _, p := range named {
		if path == p || strings.HasSuffix(path, "/"+p) {
			return true
		}
	}
	return false
}

func boolFeature(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// score is the model's log-odds for features x.
func (m *OrderModel) score(x []float64) float64 {
	z := dot64(m.Bias, m.Weights, x)
	for i := range m.Trees {
		z += m.Trees[i].eval(x)
	}
	return z
}

// dot64 adds the products of weights w and features x to z, in order
// (dot is float32's).
func dot64(z float64, w, x []float64) float64 {
	for i, v := range w {
		z += v * x[i]
	}
	return z
}

// Reorder puts candidates in the model's order, best first (ties keep the
// fused order; candidates reordered before are put back in fused order
// first), for a state whose text names named (nil: none), and reassigns
// their scores: the k-th gets the k-th best fused score, and each keeps
// its own, its fused place and the model's log-odds in its signals
// (SignalFused, SignalFusedRank, SignalOrder). The unread rest of a unit
// read in part (SignalRest) is not scored: it follows its unit, wherever
// the model puts that. A nil model, or one without weights, leaves the
// candidates as they are.
func (m *OrderModel) Reorder(cands []mss.Candidate, named *Mentions) []mss.Candidate {
	if m == nil || len(m.Weights) != len(OrderFeatures) || len(cands) < 2 {
		return cands
	}
	cands = FusedOrder(cands)
	// units are the places in cands of the candidates the model scores,
	// each followed by its rests.
	var units []int
	for i := range cands {
		if i == 0 || !isRest(&cands[i]) {
			units = append(units, i)
		}
	}
	base := cands // the scored candidates: all of them but when there are rests
	if len(units) < len(cands) {
		base = make([]mss.Candidate, len(units))
		for j, i := range units {
			base[j] = cands[i]
		}
	}
	xs := OrderInputs(base, named)
	idx := make([]int, len(units))
	z := make([]float64, len(units))
	for j := range units {
		idx[j], z[j] = j, m.score(xs[j])
	}
	sort.SliceStable(idx, func(a, b int) bool { return z[idx[a]] > z[idx[b]] })
	scores := make([]float64, len(cands))
	for i := range cands {
		scores[i] = cands[i].Score
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(scores)))
	out := make([]mss.Candidate, 0, len(cands))
	for _, j := range idx {
		end := len(cands) // units[j] and its rests are cands[units[j]:end]
		if j+1 < len(units) {
			end = units[j+1]
		}
		for i := units[j]; i < end; i++ {
			c := cands[i]
			sig := make(map[string]float64, len(c.Signals)+3)
			for key, v := range c.Signals {
				sig[key] = v
			}
			sig[SignalFused] = c.Score
			sig[SignalFusedRank] = float64(i + 1)
			sig[SignalOrder] = z[j]
			c.Signals, c.Score = sig, scores[len(out)]
			out = append(out, c)
		}
	}
	return out
}

// isRest reports whether c is the unread rest of a unit read in part.
func isRest(c *mss.Candidate) bool { return c.Signals[SignalRest] > 0 }

// WithoutRests leaves out the unread rests of units read in part: the
// candidates the order model scores and is fitted on.
func WithoutRests(cands []mss.Candidate) []mss.Candidate {
	out := make([]mss.Candidate, 0, len(cands))
	for i := range cands {
		if !isRest(&cands[i]) {
			out = append(out, cands[i])
		}
	}
	return out
}

// OrderSample is one candidate's features and whether it holds needed
// evidence.
type OrderSample struct {
	X []float64
	Y bool
	// State numbers the sample's state, and Needs lists the required
	// groups of its state (numbered within it) the candidate overlaps:
	// what FitOrderGroups reads.
	State int
	Needs []int
}

// FitOrder fits a model to samples by full-batch gradient descent on the
// logistic loss, positives and negatives weighing half each, with a small
// L2 penalty: deterministic for the same samples in the same order.
func FitOrder(samples []OrderSample, iters int) *OrderModel {
	d := len(OrderFeatures)
	m := &OrderModel{Weights: make([]float64, d)}
	pos := 0
	for _, s := range samples {
		if s.Y {
			pos++
		}
	}
	if pos == 0 || pos == len(samples) {
		return m
	}
	wPos, wNeg := 0.5/float64(pos), 0.5/float64(len(samples)-pos)
	const rate, l2 = 2.0, orderL2
	grad := make([]float64, d)
	for range iters {
		clear(grad)
		gb := 0.0
		for _, s := range samples {
			p := 1 / (1 + math.Exp(-max(-30, min(30, m.score(s.X)))))
			g := p * wNeg
			if s.Y {
				g = (p - 1) * wPos
			}
			for i, x := range s.X {
				grad[i] += g * x
			}
			gb += g
		}
		for i := range m.Weights {
			m.Weights[i] -= rate * (grad[i] + l2*m.Weights[i])
		}
		m.Bias -= rate * gb
	}
	return m
}

// FitOrderGroups fits a model to samples by full-batch gradient descent
// on a loss over sets rather than samples: for each state, and each
// required group that one of its samples overlaps, minus the log of the
// share of the softmax over the state's samples that falls on the
// group's (GroupLoss). The certificate asks for every group, so every
// group is asked to rank near the top of its state, not only the group
// with the most candidates, as a loss over samples asks. Samples come
// state by state (OrderSample.State); a state without a group overlapped
// adds nothing. Deterministic for the same samples in the same order.
func FitOrderGroups(samples []OrderSample, iters int) *OrderModel {
	const rate = 1.0
	gs := groupStates(samples)
	m := &OrderModel{Weights: make([]float64, len(OrderFeatures))}
	if len(gs) == 0 {
		return m
	}
	grad := make([]float64, len(m.Weights))
	for range iters {
		groupLoss(samples, gs, m.Weights, grad)
		for i := range m.Weights {
			m.Weights[i] -= rate * grad[i]
		}
	}
	return m
}

// GroupLoss is FitOrderGroups' loss for weights w over samples: the mean
// over states, each state's the mean over its groups of -log(share of
// the softmax on the group), plus orderL2 times half the squared norm of
// w.
func GroupLoss(samples []OrderSample, w []float64) float64 {
	return groupLoss(samples, groupStates(samples), w, nil)
}

// orderL2 is the fits' L2 penalty.
const orderL2 = 1e-4

// groupState is one state's samples, samples[from:to], and the number of
// its groups one of them overlaps.
type groupState struct{ from, to, groups int }

// groupStates cuts samples into their states.
func groupStates(samples []OrderSample) []groupState {
	var out []groupState
	for i := 0; i < len(samples); {
		j := i
		seen := map[int]bool{}
		for j < len(samples) && samples[j].State == samples[i].State {
			for _, g := range samples[j].Needs {
				seen[g] = true
			}
			j++
		}
		if len(seen) > 0 {
			out = append(out, groupState{i, j, len(seen)})
		}
		i = j
	}
	return out
}

// stateSoftmax leaves in e each sample's exp(score), relative to the
// best of state st's samples (score(k) is sample k's), and in zg each
// group's sum of them (cleared first); it returns e and their sum. The
// loss over groups and the trees boosted on it read the same pass.
func stateSoftmax(samples []OrderSample, st groupState, score func(k int) float64, e []float64, zg map[int]float64) ([]float64, float64) {
	e = e[:0]
	top := math.Inf(-1)
	for k := st.from; k < st.to; k++ {
		v := score(k)
		e = append(e, v)
		top = max(top, v)
	}
	z := 0.0
	clear(zg)
	for j := range e {
		e[j] = math.Exp(e[j] - top)
		z += e[j]
		for _, g := range samples[st.from+j].Needs {
			zg[g] += e[j]
		}
	}
	return e, z
}

// groupLoss is GroupLoss over states gs; with grad (of len(w)), it
// leaves the loss's gradient there instead, and returns 0: a fitting
// step needs only that.
func groupLoss(samples []OrderSample, gs []groupState, w, grad []float64) float64 {
	clear(grad)
	loss := 0.0
	var e []float64
	zg := map[int]float64{}
	share := 1 / float64(len(gs))
	for _, st := range gs {
		var z float64
		e, z = stateSoftmax(samples, st, func(k int) float64 { return dot64(0, w, samples[k].X) }, e, zg)
		per := share / float64(st.groups)
		if grad == nil {
			for _, g := range sortedInts(zg) { // in order, so that the sum is made in one
				loss -= per * math.Log(zg[g]/z)
			}
			continue
		}
		for k := range e {
			// d/dscore of -log(zg/z), summed over the groups: the
			// sample's softmax share once per group, less its share of
			// each group it is in.
			g := float64(st.groups) * e[k] / z
			for _, h := range samples[st.from+k].Needs {
				g -= e[k] / zg[h]
			}
			g *= per
			for i, x := range samples[st.from+k].X {
				grad[i] += g * x
			}
		}
	}
	if grad != nil {
		for i, v := range w {
			grad[i] += orderL2 * v
		}
		return 0
	}
	return loss + orderL2*dot64(0, w, w)/2
}
