package retrieve

import (
	"math"
	"slices"
)

// OrderTree is one regression tree of a boosted order: its nodes in an
// array, node 0 the root. An inner node sends x to Left when
// x[Feature] <= Threshold, else to Right; a leaf (Left < 0) adds Value to
// the model's log-odds.
type OrderTree struct {
	Nodes []OrderNode `json:"nodes"`
}

// OrderNode is a node of an OrderTree.
type OrderNode struct {
	Feature   int     `json:"feature"`
	Threshold float64 `json:"threshold"`
	Left      int     `json:"left"`
	Right     int     `json:"right"`
	Value     float64 `json:"value"`
}

// eval is the tree's value for features x.
func (t *OrderTree) eval(x []float64) float64 {
	n := 0
	for {
		nd := &t.Nodes[n]
		if nd.Left < 0 {
			return nd.Value
		}
		if x[nd.Feature] <= nd.Threshold {
			n = nd.Left
		} else {
			n = nd.Right
		}
	}
}

// The boosted order's settings: what `mss bench tune --fit-order
// --order-trees N` fits with.
const (
	// OrderTreeDepth is the depth of each tree: 3, eight leaves.
	OrderTreeDepth = 3
	// OrderTreeRate shrinks each tree's values.
	OrderTreeRate = 0.1

	// treeBins bounds the thresholds tried per feature (quantiles).
	treeBins = 32
	// treeMinHess is the least summed Hessian a leaf may hold (as
	// XGBoost's min_child_weight), the samples' weights summing to their
	// number: at least 160 samples.
	treeMinHess = 40.0
	// treeLambda is the L2 penalty on a leaf's value.
	treeLambda = 1.0
)

// FitOrderTrees fits the linear model as FitOrder does, then adds trees
// regression trees of the given depth by Newton boosting on the same
// weighted logistic loss, each shrunk by rate: what the linear model
// cannot say of its features' interactions (a feature that matters only
// with another). Deterministic for the same samples in the same order.
func FitOrderTrees(samples []OrderSample, iters, trees, depth int, rate float64) *OrderModel {
	m := FitOrder(samples, iters)
	n := len(samples)
	pos := 0
	for _, s := range samples {
		if s.Y {
			pos++
		}
	}
	if pos == 0 || pos == n {
		return m
	}
	// Weights sum to n, positives and negatives half each.
	wPos, wNeg := 0.5*float64(n)/float64(pos), 0.5*float64(n)/float64(n-pos)
	boostOrder(m, samples, trees, depth, rate, func(z, g, h []float64) {
		for i, s := range samples {
			p := 1 / (1 + math.Exp(-max(-30, min(30, z[i]))))
			w, y := wNeg, 0.0
			if s.Y {
				w, y = wPos, 1
			}
			g[i], h[i] = w*(p-y), w*max(p*(1-p), 1e-6)
		}
	})
	return m
}

// FitOrderGroupsTrees fits the linear model as FitOrderGroups does, then
// boosts trees on the same loss over sets, as FitOrderTrees boosts on the
// loss over samples. A state's softmax ties its candidates' gradients
// together; each candidate's Hessian is taken as its share p of the
// softmax times 1 − p, times its state's groups (a bound on the loss's
// curvature in its score, so that steps err on the short side), and each
// state weighs as much as another, the states' weights summing to the
// number of samples, as FitOrderTrees' do. Samples of a state without a
// group overlapped weigh nothing. Deterministic for the same samples in
// the same order.
func FitOrderGroupsTrees(samples []OrderSample, iters, trees, depth int, rate float64) *OrderModel {
	m := FitOrderGroups(samples, iters)
	gs := groupStates(samples)
	if len(gs) == 0 {
		return m
	}
	share := float64(len(samples)) / float64(len(gs))
	zg := map[int]float64{}
	var e []float64
	// Samples of a state without a group are never written: their
	// gradients and Hessians stay 0.
	boostOrder(m, samples, trees, depth, rate, func(z, g, h []float64) {
		for _, st := range gs {
			var sum float64
			e, sum = stateSoftmax(samples, st, func(k int) float64 { return z[k] }, e, zg)
			per, groups := share/float64(st.groups), float64(st.groups)
			for j, v := range e {
				k, p := st.from+j, v/sum
				gk := groups * p
				for _, grp := range samples[k].Needs {
					gk -= v / zg[grp]
				}
				g[k], h[k] = per*gk, per*groups*max(p*(1-p), 1e-6)
			}
		}
	})
	return m
}

// boostOrder adds trees regression trees to m by Newton boosting: grads
// leaves in g and h each sample's gradient and Hessian of the loss at
// the model's scores z (both start at 0, and keep between trees what
// grads does not write), and each tree, shrunk by rate, is grown on them.
func boostOrder(m *OrderModel, samples []OrderSample, trees, depth int, rate float64, grads func(z, g, h []float64)) {
	if trees <= 0 {
		return
	}
	n := len(samples)
	tb := binSamples(samples)
	z := make([]float64, n)
	for i, s := range samples {
		z[i] = m.score(s.X)
	}
	g := make([]float64, n)
	h := make([]float64, n)
	for range trees {
		grads(z, g, h)
		t := tb.grow(g, h, depth, rate)
		for i, s := range samples {
			z[i] += t.eval(s.X)
		}
		m.Trees = append(m.Trees, t)
	}
}

// sampleBins is the samples' features in bins: the thresholds a split may
// take, per feature, and each sample's bin.
type sampleBins struct {
	cuts [][]float64 // cuts[f]: feature f's thresholds, increasing
	bins [][]uint8   // bins[f][i]: sample i's bin of feature f; bin b holds (cuts[f][b-1], cuts[f][b]]
	node []int32     // the node each sample is at while a tree grows
}

// binSamples puts the samples' features in bins at quantiles of their
// values, treeBins at most per feature.
func binSamples(samples []OrderSample) *sampleBins {
	n, d := len(samples), len(OrderFeatures)
	sb := &sampleBins{cuts: make([][]float64, d), bins: make([][]uint8, d), node: make([]int32, n)}
	vals := make([]float64, n)
	for f := range d {
		for i, s := range samples {
			vals[i] = s.X[f]
		}
		sorted := slices.Clone(vals)
		slices.Sort(sorted)
		var c []float64
		for b := 1; b < treeBins; b++ {
			v := sorted[b*n/treeBins]
			if v < sorted[n-1] && (len(c) == 0 || v > c[len(c)-1]) {
				c = append(c, v)
			}
		}
		sb.cuts[f] = c
		bf := make([]uint8, n)
		for i, v := range vals {
			k, _ := slices.BinarySearch(c, v) // the first cut >= v
			bf[i] = uint8(k)
		}
		sb.bins[f] = bf
	}
	return sb
}

// gradStat sums the gradients and Hessians of a node's or a bin's samples.
type gradStat struct{ g, h float64 }

// value is the Newton step of a leaf of st, shrunk by rate.
func (st gradStat) value(rate float64) float64 { return -rate * st.g / (st.h + treeLambda) }

// grow grows one tree of at most depth levels on the samples' gradients
// g and Hessians h, level by level: each node of a level takes the split
// of the largest gain (leaving treeMinHess on either side), or becomes a
// leaf; the last level's nodes are leaves.
func (sb *sampleBins) grow(g, h []float64, depth int, rate float64) OrderTree {
	d := len(sb.cuts)
	const nb = treeBins + 1
	t := OrderTree{Nodes: []OrderNode{{Left: -1, Right: -1}}}
	clear(sb.node)
	frontier := []int{0}
	for level := 0; len(frontier) > 0; level++ {
		last := level == depth
		slot := make(map[int]int, len(frontier))
		for k, nd := range frontier {
			slot[nd] = k
		}
		tot := make([]gradStat, len(frontier))
		var hist []gradStat // hist[(k*d+f)*nb+b]: node k's samples in bin b of feature f
		if !last {
			hist = make([]gradStat, len(frontier)*d*nb)
		}
		for i := range g {
			k, ok := slot[int(sb.node[i])]
			if !ok {
				continue
			}
			tot[k].g += g[i]
			tot[k].h += h[i]
			if last {
				continue
			}
			for f := range d {
				st := &hist[(k*d+f)*nb+int(sb.bins[f][i])]
				st.g += g[i]
				st.h += h[i]
			}
		}
		if last {
			for k, nd := range frontier {
				t.Nodes[nd].Value = tot[k].value(rate)
			}
			break
		}
		var next []int
		splitBin := map[int]int{} // a node split here: its threshold's bin
		for k, nd := range frontier {
			f, b := sb.bestSplit(tot[k], hist[k*d*nb:(k+1)*d*nb])
			if f < 0 {
				t.Nodes[nd].Value = tot[k].value(rate)
				continue
			}
			l, r := len(t.Nodes), len(t.Nodes)+1
			t.Nodes = append(t.Nodes, OrderNode{Left: -1, Right: -1}, OrderNode{Left: -1, Right: -1})
			t.Nodes[nd].Feature, t.Nodes[nd].Threshold = f, sb.cuts[f][b]
			t.Nodes[nd].Left, t.Nodes[nd].Right = l, r
			splitBin[nd] = b
			next = append(next, l, r)
		}
		for i := range g {
			nd := int(sb.node[i])
			b, ok := splitBin[nd]
			if !ok {
				continue
			}
			if int(sb.bins[t.Nodes[nd].Feature][i]) <= b {
				sb.node[i] = int32(t.Nodes[nd].Left)
			} else {
				sb.node[i] = int32(t.Nodes[nd].Right)
			}
		}
		frontier = next
	}
	return t
}

// bestSplit gives the feature and bin of the split of the largest gain
// of a node whose samples sum to tot, with hist its bins' sums per
// feature; -1, -1 when no split gains or leaves treeMinHess on each side.
func (sb *sampleBins) bestSplit(tot gradStat, hist []gradStat) (feature, bin int) {
	const nb = treeBins + 1
	bestGain, feature, bin := 0.0, -1, -1
	parent := tot.g * tot.g / (tot.h + treeLambda)
	for f, cuts := range sb.cuts {
		var L gradStat
		for b := range cuts {
			st := hist[f*nb+b]
			L.g += st.g
			L.h += st.h
			R := gradStat{tot.g - L.g, tot.h - L.h}
			if L.h < treeMinHess || R.h < treeMinHess {
				continue
			}
			gain := L.g*L.g/(L.h+treeLambda) + R.g*R.g/(R.h+treeLambda) - parent
			if gain > bestGain+1e-12 {
				bestGain, feature, bin = gain, f, b
			}
		}
	}
	return feature, bin
}
