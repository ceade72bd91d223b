package retrieve

import (
	"sort"
	"strings"

	"github.com/missingcomplement/mss"
)

// Fusion: a unit's fused score is its path-class prior times the weighted
// sum over views of 1/(RRFK + rank). Reciprocal ranks make views with
// incomparable raw scores commensurable; the constant RRFK sets how fast a
// view's opinion fades with rank.
const (
	RRFK = 20.0

	WeightLexical    = 1.0
	WeightEntity     = 1.4
	WeightStructural = 0.8
	WeightRecency    = 0.6
	WeightHistory    = 0.4
	WeightSemantic   = 0.6
	WeightEmbedding  = 1.0
)

// ViewWeight is the fusion weight of a view.
func ViewWeight(view string) float64 {
	switch view {
	case ViewLexical:
		return WeightLexical
	case ViewEntity:
		return WeightEntity
	case ViewStructural:
		return WeightStructural
	case ViewRecency:
		return WeightRecency
	case ViewHistory:
		return WeightHistory
	case ViewSemantic:
		return WeightSemantic
	case ViewEmbedding:
		return WeightEmbedding
	}
	return 0
}

// Signal keys besides view names: the prior applied, the per-view
// contributions to the fused score ("rrf:<view>") and the title's score.
const (
	SignalPrior = "prior"
	signalRRF   = "rrf:"
	// SignalTitle is a candidate's BM25 score for the words of the issue's
	// title (its first line), absent when it holds none; the learned order
	// reads it, fusion does not.
	SignalTitle = "title"
)

// IsSignal reports whether name is a key retrieval writes into
// Candidate.Signals: a view's raw score, its contribution to the fused
// score ("rrf:<view>"), the prior, the title's score, and what the order
// keeps (SignalFused, SignalFusedRank, SignalOrder, SignalRest).
func IsSignal(name string) bool {
	switch name {
	case SignalPrior, SignalTitle, SignalFused, SignalFusedRank, SignalOrder, SignalRest:
		return true
	}
	return ViewWeight(strings.TrimPrefix(name, signalRRF)) > 0
}

// fuse combines view rankings into candidates, best first.
func (e *Engine) fuse(q *query, views map[string][]hit, limit int) []mss.Candidate {
	type acc struct {
		score   float64
		views   map[string]int
		signals map[string]float64
	}
	accs := map[int]*acc{}
	k := RRFK
	if e.opts.RRFK > 0 {
		k = e.opts.RRFK
	}
	for _, name := range sortedKeys(views) {
		w := ViewWeight(name)
		if o, ok := e.opts.Weights[name]; ok {
			w = o
		}
		for r, h := range views[name] {
			a := accs[h.idx]
			if a == nil {
				a = &acc{views: map[string]int{}, signals: map[string]float64{}}
				accs[h.idx] = a
			}
			c := w / (k + float64(r+1))
			a.score += c
			a.views[name] = r + 1
			a.signals[name] = h.score
			a.signals[signalRRF+name] = c
		}
	}
	idx := make([]int, 0, len(accs))
	for i, a := range accs {
		p := e.classAt(i).Prior()
		a.score *= p
		a.signals[SignalPrior] = p
		if t := q.title[i]; t > 0 {
			a.signals[SignalTitle] = t
		}
		idx = append(idx, i)
	}
	sort.Slice(idx, func(x, y int) bool {
		a, b := accs[idx[x]], accs[idx[y]]
		if a.score != b.score {
			return a.score > b.score
		}
		return e.before(idx[x], idx[y])
	})
	if len(idx) > limit {
		idx = idx[:limit]
	}
	out := make([]mss.Candidate, len(idx))
	for k, i := range idx {
		a := accs[i]
		out[k] = mss.Candidate{
			Unit:     *e.unitAt(i),
			Score:    a.score,
			Views:    a.views,
			Signals:  a.signals,
			Observed: q.observed[i],
		}
	}
	return out
}

// Refuse recomputes the fused score of candidates from their per-view
// ranks and prior with other view weights (missing views keep their
// ViewWeight) and rank constant k (0 means RRFK), and returns them best
// first, ties in their fused order. It is how fusion weights are tuned on
// cached candidates: the views' ranks do not depend on the weights.
func Refuse(cands []mss.Candidate, weights map[string]float64, k float64) []mss.Candidate {
	if k <= 0 {
		k = RRFK
	}
	// From the fused order, so that no candidate keeps the fused score of
	// an earlier order (SignalFused).
	out := FusedOrder(cands)
	for i := range out {
		c := &out[i]
		s := 0.0
		for _, v := range sortedKeys(c.Views) {
			w, ok := weights[v]
			if !ok {
				w = ViewWeight(v)
			}
			s += w / (k + float64(c.Views[v]))
		}
		if p, ok := c.Signals[SignalPrior]; ok {
			s *= p
		}
		c.Score = s
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Score > out[b].Score })
	return out
}
