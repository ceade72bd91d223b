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
	Nodes []OrderNode
}

// OrderNode is a node of an OrderTree.
type OrderNode struct {
	Feature     int
	Threshold   float64
	Left, Right int
	Value       float64
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
	if pos == 0 || pos == n || trees <= 0 {
		return m
	}
	d := len(OrderFeatures)
	// Weights sum to n, positives and negatives half each.
	wPos, wNeg := 0.5*float64(n)/float64(pos), 0.5*float64(n)/float64(n-pos)
	// Candidate thresholds per feature: quantiles of its values.
	cuts := make([][]float64, d)
	bins := make([][]uint8, d) // bins[f][i]: the bin of sample i
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
		cuts[f] = c
		bf := make([]uint8, n)
		for i, v := range vals {
			k, _ := slices.BinarySearch(c, v) // first cut >= v: v <= c[k]
			bf[i] = uint8(k)
		}
		bins[f] = bf
	}
	z := make([]float64, n)
	for i, s := range samples {
		z[i] = m.score(s.X)
	}
	g := make([]float64, n)
	h := make([]float64, n)
	node := make([]int32, n)
	type stat struct{ g, h float64 }
	for range trees {
		for i, s := range samples {
			p := 1 / (1 + math.Exp(-max(-30, min(30, z[i]))))
			w := wNeg
			y := 0.0
			if s.Y {
				w, y = wPos, 1
			}
			g[i], h[i] = w*(p-y), w*max(p*(1-p), 1e-6)
			node[i] = 0
		}
		t := OrderTree{Nodes: []OrderNode{{Left: -1, Right: -1}}}
		splitBin := map[int]int{} // an inner node's threshold, as a bin
		frontier := []int{0}
		for level := 0; level < depth && len(frontier) > 0; level++ {
			slot := map[int]int{}
			for k, nd := range frontier {
				slot[nd] = k
			}
			nb := treeBins + 1
			hist := make([]stat, len(frontier)*d*nb)
			tot := make([]stat, len(frontier))
			for i := range samples {
				k, ok := slot[int(node[i])]
				if !ok {
					continue
				}
				tot[k].g += g[i]
				tot[k].h += h[i]
				base := k * d * nb
				for f := range d {
					st := &hist[base+f*nb+int(bins[f][i])]
					st.g += g[i]
					st.h += h[i]
				}
			}
			var next []int
			for k, nd := range frontier {
				T := tot[k]
				bestGain, bestF, bestB := 0.0, -1, -1
				parent := T.g * T.g / (T.h + treeLambda)
				for f := range d {
					var L stat
					for b := 0; b < len(cuts[f]); b++ {
						st := hist[k*d*nb+f*nb+b]
						L.g += st.g
						L.h += st.h
						R := stat{T.g - L.g, T.h - L.h}
						if L.h < treeMinHess || R.h < treeMinHess {
							continue
						}
						gain := L.g*L.g/(L.h+treeLambda) + R.g*R.g/(R.h+treeLambda) - parent
						if gain > bestGain+1e-12 {
							bestGain, bestF, bestB = gain, f, b
						}
					}
				}
				if bestF < 0 {
					t.Nodes[nd].Value = -rate * T.g / (T.h + treeLambda)
					continue
				}
				l, r := len(t.Nodes), len(t.Nodes)+1
				t.Nodes = append(t.Nodes, OrderNode{Left: -1, Right: -1}, OrderNode{Left: -1, Right: -1})
				t.Nodes[nd].Feature, t.Nodes[nd].Threshold = bestF, cuts[bestF][bestB]
				t.Nodes[nd].Left, t.Nodes[nd].Right = l, r
				splitBin[nd] = bestB
				next = append(next, l, r)
			}
			for i := range samples {
				nd := int(node[i])
				if _, ok := slot[nd]; !ok || t.Nodes[nd].Left < 0 {
					continue
				}
				// Bin b holds the values in (cuts[b-1], cuts[b]].
				if int(bins[t.Nodes[nd].Feature][i]) <= splitBin[nd] {
					node[i] = int32(t.Nodes[nd].Left)
				} else {
					node[i] = int32(t.Nodes[nd].Right)
				}
			}
			frontier = next
		}
		// Leaves of the last level get their values.
		if len(frontier) > 0 {
			slot := map[int]int{}
			for k, nd := range frontier {
				slot[nd] = k
			}
			tot := make([]stat, len(frontier))
			for i := range samples {
				if k, ok := slot[int(node[i])]; ok {
					tot[k].g += g[i]
					tot[k].h += h[i]
				}
			}
			for k, nd := range frontier {
				t.Nodes[nd].Value = -rate * tot[k].g / (tot[k].h + treeLambda)
			}
		}
		for i, s := range samples {
			z[i] += t.eval(s.X)
		}
		m.Trees = append(m.Trees, t)
	}
	return m
}
