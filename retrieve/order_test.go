package retrieve

import (
	"math"
	"slices"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
)

func orderCands() []mss.Candidate {
	mk := func(id, path, kind string, tokens int, score float64, views map[string]int) mss.Candidate {
		sig := map[string]float64{SignalPrior: 1}
		for v, r := range views {
			sig[signalRRF+v] = 1 / (RRFK + float64(r))
			sig[v] = 10 / float64(r)
		}
		return mss.Candidate{Unit: mss.Unit{ID: id, Path: path, Kind: kind, Tokens: tokens}, Score: score, Views: views, Signals: sig}
	}
	return []mss.Candidate{
		mk("doc", "docs/guide.md", "window", 300, 0.09, map[string]int{ViewLexical: 1}),
		mk("test", "tests/test_parse.py", "function", 120, 0.08, map[string]int{ViewLexical: 2}),
		mk("fn", "pkg/parse.py", "function", 200, 0.05, map[string]int{ViewLexical: 3, ViewEntity: 1}),
		mk("mod", "pkg/util.py", "module", 40, 0.01, map[string]int{ViewSemantic: 4}),
	}
}

// TestReorder: the learned order puts code before text and tests, keeps
// the fused scores (reassigned best first; each candidate's own in its
// signals, with the model's log-odds), is undone by FusedOrder, and
// starts from the fused order whatever order it is given; no model
// changes nothing.
func TestReorder(t *testing.T) {
	cands := orderCands()
	got := LearnedOrder.Reorder(cands, nil)
	if g := ids(got); g[0] != "fn" || g[len(g)-1] == "fn" || slices.Index(g, "doc") < slices.Index(g, "fn") {
		t.Errorf("learned order %v: want the code function first", g)
	}
	for k := range got {
		if got[k].Score != cands[k].Score {
			t.Errorf("position %d scores %v, want the fused scores best first (%v)", k, got[k].Score, cands[k].Score)
		}
		own := cands[slices.Index(ids(cands), got[k].Unit.ID)].Score
		if got[k].Signals[SignalFused] != own {
			t.Errorf("%s keeps fused score %v, want %v", got[k].Unit.ID, got[k].Signals[SignalFused], own)
		}
		z, ok := got[k].Signals[SignalOrder]
		if !ok || k > 0 && z > got[k-1].Signals[SignalOrder] {
			t.Errorf("%s keeps log-odds %v (%v): want them kept, falling along the order", got[k].Unit.ID, z, ok)
		}
	}
	if diff := cmp.Diff(cands, FusedOrder(got)); diff != "" {
		t.Errorf("FusedOrder does not undo Reorder (-fused +undone):\n%s", diff)
	}
	if diff := cmp.Diff(got, LearnedOrder.Reorder(got, nil)); diff != "" {
		t.Errorf("reordering again differs (-once +twice):\n%s", diff)
	}
	var none *OrderModel
	if diff := cmp.Diff(ids(cands), ids(none.Reorder(cands, nil))); diff != "" {
		t.Errorf("no model reorders:\n%s", diff)
	}
	if _, ok := Refuse(got, nil, 0)[0].Signals[SignalFused]; ok {
		t.Error("Refuse keeps the fused score of an earlier order")
	}
}

// TestReorderRests: the unread rest of a unit read in part follows its
// unit wherever the model puts that, the other candidates are ordered as
// they would be without it, and FusedOrder undoes it all.
func TestReorderRests(t *testing.T) {
	cands := orderCands()
	rest := func(of mss.Candidate, id string) mss.Candidate {
		c := of
		c.Unit.ID, c.Unit.Tokens, c.Observed = id, 5, false // a few lines: alone, the model would put it last
		c.Signals = map[string]float64{SignalRest: 1}
		for k, v := range of.Signals {
			c.Signals[k] = v
		}
		return c
	}
	cands[2].Observed = true // fn was read in part: two rests follow it
	with := slices.Insert(slices.Clone(cands), 3, rest(cands[2], "fn-head"), rest(cands[2], "fn-tail"))
	got := LearnedOrder.Reorder(with, nil)
	want := ids(LearnedOrder.Reorder(cands, nil))
	at := slices.Index(want, "fn")
	want = slices.Insert(want, at+1, "fn-head", "fn-tail")
	if diff := cmp.Diff(want, ids(got)); diff != "" {
		t.Errorf("learned order with rests (-want +got):\n%s", diff)
	}
	for k := 1; k < len(got); k++ {
		if got[k].Score > got[k-1].Score {
			t.Errorf("scores not best first: %v after %v", got[k].Score, got[k-1].Score)
		}
	}
	if diff := cmp.Diff(ids(with), ids(FusedOrder(got))); diff != "" {
		t.Errorf("FusedOrder does not undo Reorder (-fused +undone):\n%s", diff)
	}
	if diff := cmp.Diff(ids(cands), ids(WithoutRests(with))); diff != "" {
		t.Errorf("WithoutRests (-want +got):\n%s", diff)
	}
}

// TestFusedOrderTies: candidates of equal fused scores go back to the
// places fusion gave them, whichever model reordered them, so a replay
// from candidates another model ordered sees the same fused order.
func TestFusedOrderTies(t *testing.T) {
	cands := orderCands()
	for i := range cands {
		cands[i].Score = 0.05 // all tied
	}
	up := &OrderModel{Weights: make([]float64, len(OrderFeatures))}
	up.Weights[slices.Index(OrderFeatures, "log_tokens")] = 1
	down := &OrderModel{Weights: make([]float64, len(OrderFeatures))}
	down.Weights[slices.Index(OrderFeatures, "log_tokens")] = -1
	a, b := up.Reorder(cands, nil), down.Reorder(cands, nil)
	if slices.Equal(ids(a), ids(b)) {
		t.Fatalf("both models give %v: the test needs two orders", ids(a))
	}
	for name, got := range map[string][]mss.Candidate{"larger first": a, "smaller first": b} {
		if diff := cmp.Diff(ids(cands), ids(FusedOrder(got))); diff != "" {
			t.Errorf("%s: FusedOrder of tied candidates (-fused +restored):\n%s", name, diff)
		}
	}
	if diff := cmp.Diff(up.Reorder(b, nil), a); diff != "" {
		t.Errorf("reordering another model's order differs from reordering the fused one (-want +got):\n%s", diff)
	}
}

// TestFitOrder: the fit separates needed candidates from the rest, and
// the same samples give the same model.
func TestFitOrder(t *testing.T) {
	var samples []OrderSample
	for round := range 20 {
		cands := orderCands()
		xs := OrderInputs(cands, nil)
		for i, c := range cands {
			samples = append(samples, OrderSample{X: xs[i], Y: c.Unit.ID == "fn" || round%5 == 0 && c.Unit.ID == "mod"})
		}
	}
	m := FitOrder(samples, 500)
	xs := OrderInputs(orderCands(), nil)
	if !(m.score(xs[2]) > m.score(xs[0]) && m.score(xs[2]) > m.score(xs[1])) {
		t.Errorf("fitted model scores fn %v, doc %v, test %v: want fn highest", m.score(xs[2]), m.score(xs[0]), m.score(xs[1]))
	}
	if diff := cmp.Diff(m, FitOrder(samples, 500)); diff != "" {
		t.Errorf("fitting again differs:\n%s", diff)
	}
	if z := FitOrder(samples[:0], 10); len(z.Weights) != len(OrderFeatures) || z.Bias != 0 {
		t.Errorf("no samples: %+v", z)
	}
}

// groupSamples: states of twelve samples, each with one sample of group
// 0 (feature 0 set, with noise in feature 2), one of group 1 (feature 1
// set) and ten of neither (noise only), the states numbered from 0.
func groupSamples(states int) []OrderSample {
	d := len(OrderFeatures)
	var out []OrderSample
	for st := range states {
		for k := range 12 {
			x := make([]float64, d)
			x[2] = float64((st*7+k*3)%5) / 4
			s := OrderSample{X: x, State: st}
			switch k {
			case 3:
				x[0], s.Y, s.Needs = 1, true, []int{0}
			case 8:
				x[1], s.Y, s.Needs = 1, true, []int{1}
			}
			out = append(out, s)
		}
	}
	return out
}

// TestFitOrderGroups: fitted on sets, every state's first two samples
// are one of each group; the loss falls from the zero model's; the same
// samples give the same model; no group overlapped gives the zero model.
func TestFitOrderGroups(t *testing.T) {
	samples := groupSamples(6)
	m := FitOrderGroups(samples, 300)
	for st := range 6 {
		ss := samples[12*st : 12*st+12]
		idx := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
		sort.SliceStable(idx, func(a, b int) bool { return m.score(ss[idx[a]].X) > m.score(ss[idx[b]].X) })
		if got := []int{min(idx[0], idx[1]), max(idx[0], idx[1])}; got[0] != 3 || got[1] != 8 {
			t.Errorf("state %d: first two samples %v, want [3 8]", st, got)
		}
	}
	zero := make([]float64, len(OrderFeatures))
	if before, after := GroupLoss(samples, zero), GroupLoss(samples, m.Weights); !(after < before/2) {
		t.Errorf("loss %v fitted, %v at zero: want under half", after, before)
	}
	if diff := cmp.Diff(m, FitOrderGroups(samples, 300)); diff != "" {
		t.Errorf("fitting again differs:\n%s", diff)
	}
	none := groupSamples(2)
	for i := range none {
		none[i].Needs = nil
	}
	if z := FitOrderGroups(none, 10); !cmp.Equal(z.Weights, zero) || z.Bias != 0 {
		t.Errorf("no group overlapped: %+v", z)
	}
}

// TestGroupLossGradient: the gradient the fit steps along is the loss's,
// against central differences, at a point away from zero, with a sample
// in two groups at once.
func TestGroupLossGradient(t *testing.T) {
	samples := groupSamples(3)
	samples[5].Needs = []int{0, 1}
	samples[5].X[1] = 0.5
	w := make([]float64, len(OrderFeatures))
	for i := range w {
		w[i] = 0.3 - 0.05*float64(i%7)
	}
	grad := make([]float64, len(w))
	groupLoss(samples, groupStates(samples), w, grad)
	const h = 1e-6
	for i := range w {
		up, down := slices.Clone(w), slices.Clone(w)
		up[i] += h
		down[i] -= h
		num := (GroupLoss(samples, up) - GroupLoss(samples, down)) / (2 * h)
		if math.Abs(num-grad[i]) > 1e-6 {
			t.Errorf("weight %d (%s): gradient %v, by differences %v", i, OrderFeatures[i], grad[i], num)
		}
	}
}

// TestOrderNamed: a name the state writes as code marks the candidates
// that define it, the more so the fewer define it; a plain word and an
// unnamed candidate mark none. A named file (or a frame's file, or a tail
// of its path at a directory boundary) marks its units.
func TestOrderNamed(t *testing.T) {
	cands := orderCands()
	cands[0].Unit.Defines = []string{"Guide"}
	cands[1].Unit.Defines = []string{"test_parse_args"}
	cands[2].Unit.Defines = []string{"parse_args"}
	cands[3].Unit.Defines = []string{"parse_args", "helper"}
	named, path := slices.Index(OrderFeatures, "named"), slices.Index(OrderFeatures, "path_named")
	feature := func(m *Mentions, k int) []float64 {
		var out []float64
		for _, x := range OrderInputs(cands, m) {
			out = append(out, x[k])
		}
		return out
	}
	m := ExtractText("`parse_args` drops flags; see the Guide and helper() in util.py")
	if diff := cmp.Diff([]float64{0, 0, 0.5, 1}, feature(m, named)); diff != "" {
		t.Errorf("named (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]float64{0, 0, 0, 1}, feature(m, path)); diff != "" {
		t.Errorf("path_named (-want +got):\n%s", diff)
	}
	frame := ExtractText("Traceback (most recent call last):\n  File \"/site-packages/tests/test_parse.py\", line 3, in test_x\n")
	if diff := cmp.Diff([]float64{0, 1, 0, 0}, feature(frame, path)); diff != "" {
		t.Errorf("path_named from a frame (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]float64{0, 0, 0, 0}, feature(nil, named)); diff != "" {
		t.Errorf("named without mentions (-want +got):\n%s", diff)
	}
	if other := ExtractText("see pkg/util.pyx and xutil.py"); slices.Contains(feature(other, path), 1) {
		t.Errorf("path_named %v for paths that only share a prefix or a partial name", feature(other, path))
	}
}

// TestDefaultOrder: the learned order is the default, the fused one with
// an embedding view (the model was fitted without it); a model named
// explicitly wins, and Fused keeps the fused order.
func TestDefaultOrder(t *testing.T) {
	if got := (Options{}).OrderModel(); got != LearnedOrder {
		t.Errorf("default order %p, want LearnedOrder", got)
	}
	if got := (Options{Embedder: byteEmbedder{}}).OrderModel(); got != Fused {
		t.Errorf("default order with an embedder %p, want Fused", got)
	}
	if got := (Options{Embedder: byteEmbedder{}, Order: LearnedOrder}).OrderModel(); got != LearnedOrder {
		t.Errorf("named order with an embedder %p, want LearnedOrder", got)
	}
	cands := orderCands()
	if diff := cmp.Diff(cands, Fused.Reorder(cands, ExtractText("`parse_args`"))); diff != "" {
		t.Errorf("Fused reorders:\n%s", diff)
	}
}

// TestOrderComment: the comment feature is the share of a unit that is
// comment, and the shipped order puts a unit of doc comment alone below
// code that matched the views alike.
func TestOrderComment(t *testing.T) {
	sig := map[string]float64{SignalPrior: 1, signalRRF + ViewLexical: 1 / (RRFK + 1), ViewLexical: 5}
	cands := []mss.Candidate{
		{Unit: mss.Unit{ID: "doc", Path: "A.java", Kind: "method", Language: "java", Tokens: 40,
			Content: " * Parses a date.\n * @param s the text\n */\n"}, Score: 1, Signals: sig},
		{Unit: mss.Unit{ID: "code", Path: "A.java", Kind: "method", Language: "java", Tokens: 40,
			Content: "Date parse(String s) {\n  return null; // none yet\n}\n"}, Score: 1, Signals: sig},
	}
	k := slices.Index(OrderFeatures, "comment")
	x := OrderInputs(cands, nil)
	if x[0][k] != 1 || x[1][k] <= 0 || x[1][k] >= 0.5 {
		t.Fatalf("comment features %v, %v; want 1 and a small share", x[0][k], x[1][k])
	}
	if LearnedOrder.Weights[k] >= 0 {
		t.Fatalf("comment weight %v; want negative", LearnedOrder.Weights[k])
	}
	if got := LearnedOrder.Reorder(cands, nil); got[0].Unit.ID != "code" {
		t.Errorf("order %s, %s; want the code first", got[0].Unit.ID, got[1].Unit.ID)
	}
}

// xorSamples: a sample holds what is needed exactly when one of features
// 0 and 1 is set and not both, an interaction no linear model orders
// (feature 1 set in a quarter of them, so that a greedy split gains);
// feature 2 is noise.
func xorSamples() []OrderSample {
	d := len(OrderFeatures)
	var out []OrderSample
	for k := range 4000 {
		x := make([]float64, d)
		a, b := k%2, 0
		if (k/2)%4 == 0 {
			b = 1
		}
		x[0], x[1], x[2] = float64(a), float64(b), float64(k%7)/6
		out = append(out, OrderSample{X: x, Y: a != b})
	}
	return out
}

// separation gives the lowest score m gives a needed sample and the
// highest it gives another: the first above the second orders every
// needed sample first.
func separation(m *OrderModel, samples []OrderSample) (worstPos, bestNeg float64) {
	worstPos, bestNeg = math.Inf(1), math.Inf(-1)
	for _, s := range samples {
		if z := m.score(s.X); s.Y {
			worstPos = min(worstPos, z)
		} else {
			bestNeg = max(bestNeg, z)
		}
	}
	return worstPos, bestNeg
}

// TestFitOrderTrees: the trees order an interaction the linear model
// cannot (every needed sample above every other), the same samples give
// the same model, no trees asked for gives FitOrder's model, and a state
// of one kind of sample gives the zero model.
func TestFitOrderTrees(t *testing.T) {
	samples := xorSamples()
	lin := FitOrder(samples, 300)
	m := FitOrderTrees(samples, 300, 20, 2, 0.3)
	if len(m.Trees) != 20 || !cmp.Equal(m.Weights, lin.Weights) || m.Bias != lin.Bias {
		t.Fatalf("%d trees on weights %v, want 20 on FitOrder's %v", len(m.Trees), m.Weights, lin.Weights)
	}
	if worstPos, bestNeg := separation(m, samples); !(worstPos > bestNeg) {
		t.Errorf("needed samples from %v, others up to %v: want every needed one first", worstPos, bestNeg)
	}
	if linWorst, linBest := separation(lin, samples); linWorst > linBest {
		t.Errorf("the linear model orders the interaction (%v > %v): the fixture tests nothing", linWorst, linBest)
	}
	checkRefit(t, FitOrderTrees, samples, m, lin)
	for i := range samples {
		samples[i].Y = false
	}
	if z := FitOrderTrees(samples, 10, 5, 2, 0.3); len(z.Trees) != 0 || z.Bias != 0 {
		t.Errorf("no sample needed: %+v", z)
	}
}

// TestFitOrderGroupsTrees: boosted on the loss over groups, the trees
// put every state's needed samples above its others where the linear
// model over groups cannot (xorSamples, eight to a state, each needed
// sample a group of its own); the same samples give the same model, no
// trees gives FitOrderGroups' model, and no group overlapped gives the
// zero model.
func TestFitOrderGroupsTrees(t *testing.T) {
	samples := xorSamples()
	for k := range samples {
		samples[k].State = k / 8
		if samples[k].Y {
			samples[k].Needs = []int{k % 8}
		}
	}
	ordered := func(m *OrderModel) bool {
		for from := 0; from < len(samples); from += 8 {
			if worstPos, bestNeg := separation(m, samples[from:from+8]); !(worstPos > bestNeg) {
				return false
			}
		}
		return true
	}
	lin := FitOrderGroups(samples, 300)
	m := FitOrderGroupsTrees(samples, 300, 20, 2, 0.3)
	if len(m.Trees) != 20 || !cmp.Equal(m.Weights, lin.Weights) || m.Bias != lin.Bias {
		t.Fatalf("%d trees on weights %v, want 20 on FitOrderGroups' %v", len(m.Trees), m.Weights, lin.Weights)
	}
	if !ordered(m) {
		t.Errorf("with trees, a state's needed samples are not all first")
	}
	if ordered(lin) {
		t.Errorf("the linear model orders the interaction: the fixture tests nothing")
	}
	checkRefit(t, FitOrderGroupsTrees, samples, m, lin)
	for i := range samples {
		samples[i].Needs = nil
	}
	if z := FitOrderGroupsTrees(samples, 10, 5, 2, 0.3); len(z.Trees) != 0 || z.Bias != 0 || slices.ContainsFunc(z.Weights, func(w float64) bool { return w != 0 }) {
		t.Errorf("no group overlapped: %+v", z)
	}
}

// checkRefit: fit (20 trees of depth 2, rate 0.3, on 300 steps) gives m
// again on the same samples, and with no trees the linear model lin.
func checkRefit(t *testing.T, fit func([]OrderSample, int, int, int, float64) *OrderModel, samples []OrderSample, m, lin *OrderModel) {
	t.Helper()
	if diff := cmp.Diff(m, fit(samples, 300, 20, 2, 0.3)); diff != "" {
		t.Errorf("fitting again differs:\n%s", diff)
	}
	if diff := cmp.Diff(lin, fit(samples, 300, 0, 2, 0.3)); diff != "" {
		t.Errorf("no trees differs from the linear model:\n%s", diff)
	}
}
