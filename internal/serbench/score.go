package serbench

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"sort"

	"github.com/missingcomplement/mss"
)

// The six metrics of the release's reference scorer, by output name; a
// score is reported as name@k.
const (
	MSSComplete             = "mss_complete"
	GroupRecall             = "group_recall"
	NecessityWeightedRecall = "necessity_weighted_recall"
	RoleCoverage            = "role_coverage"
	GroupNDCG               = "group_ndcg"
	RequiredNovelty         = "required_novelty"
)

// MetricNames lists the metrics in the order tables print them.
var MetricNames = []string{MSSComplete, GroupRecall, NecessityWeightedRecall, RoleCoverage, GroupNDCG, RequiredNovelty}

// Metrics are one ranking's scores at one cutoff k.
type Metrics struct {
	// MSSComplete is 1 when every required group reaches its
	// minimum_required within the top k, or some alternative minimal set
	// lies entirely within the top k; else 0.
	MSSComplete float64
	// GroupRecall is the fraction of required groups completed.
	GroupRecall float64
	// NecessityWeightedRecall weighs completed groups by necessity_weight.
	NecessityWeightedRecall float64
	// RoleCoverage is the fraction of distinct group roles with at least
	// one completed group.
	RoleCoverage float64
	// GroupNDCG credits each completed group's weight at the rank where it
	// completed, divided by the best such sum any ranking of the gold
	// units could reach (see IdealGroupDCG), capped at 1.
	GroupNDCG float64
	// RequiredNovelty is the fraction of the required ids in the top k that
	// the agent had not observed; 0 when no required id is in the top k.
	RequiredNovelty float64
}

// Get returns a metric by name.
func (m Metrics) Get(name string) (float64, bool) {
	switch name {
	case MSSComplete:
		return m.MSSComplete, true
	case GroupRecall:
		return m.GroupRecall, true
	case NecessityWeightedRecall:
		return m.NecessityWeightedRecall, true
	case RoleCoverage:
		return m.RoleCoverage, true
	case GroupNDCG:
		return m.GroupNDCG, true
	case RequiredNovelty:
		return m.RequiredNovelty, true
	}
	return 0, false
}

// groupCompletionRank is the 1-based rank within the top k at which the
// group's minimum_required distinct acceptable ids have appeared, or 0.
func groupCompletionRank(ranked []string, g *mss.Group, k int) int {
	acceptable := setOf(g.AcceptableIDs)
	required := g.MinimumRequired
	seen := map[string]bool{}
	hits := 0
	for i, id := range ranked {
		if i >= k {
			break
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		if acceptable[id] {
			hits++
			if hits >= required {
				return i + 1
			}
		}
	}
	return 0
}

// Score computes the six metrics of one ranking against one certificate at
// cutoff k, exactly as the release's reference scorer does: the first k
// positions are taken as returned (observed ids keep their slots), and a
// certificate without groups scores 1 on every metric.
func Score(ranked []string, c *mss.Certificate, k int) Metrics {
	return score(ranked, c, k, func() float64 { return IdealGroupDCG(c.Groups, k) })
}

// score is Score with the ideal DCG supplied on demand, so callers scoring
// many rankings against one certificate compute it once.
func score(ranked []string, c *mss.Certificate, k int, ideal func() float64) Metrics {
	groups := c.Groups
	if len(groups) == 0 {
		return Metrics{1, 1, 1, 1, 1, 1}
	}
	ranks := make([]int, len(groups))
	completed := 0
	weights := make([]float64, len(groups))
	var weightTotal float64
	for i := range groups {
		ranks[i] = groupCompletionRank(ranked, &groups[i], k)
		if ranks[i] > 0 {
			completed++
		}
		weights[i] = groups[i].NecessityWeight
		weightTotal += weights[i]
	}
	var m Metrics
	m.GroupRecall = float64(completed) / float64(len(groups))
	if weightTotal != 0 {
		var hit float64
		for i, w := range weights {
			if ranks[i] > 0 {
				hit += w
			}
		}
		m.NecessityWeightedRecall = hit / weightTotal
	}

	roles, covered := map[string]bool{}, map[string]bool{}
	for i := range groups {
		roles[groups[i].Role] = true
		if ranks[i] > 0 {
			covered[groups[i].Role] = true
		}
	}
	m.RoleCoverage = float64(len(covered)) / float64(len(roles))

	var dcg float64
	for i, w := range weights {
		if ranks[i] > 0 {
			dcg += w / log2Int(ranks[i]+1)
		}
	}
	if ideal := ideal(); ideal != 0 {
		m.GroupNDCG = math.Min(1, dcg/ideal)
	}

	top := setOf(ranked[:min(k, len(ranked))])
	complete := completed == len(groups)
	for _, set := range c.AlternativeSets {
		if complete {
			break
		}
		all := true
		for _, id := range set {
			if !top[id] {
				all = false
				break
			}
		}
		complete = all
	}
	if complete {
		m.MSSComplete = 1
	}

	observed := setOf(c.ObservedIDs)
	retrieved := map[string]bool{}
	for i := range groups {
		for _, id := range groups[i].AcceptableIDs {
			if top[id] {
				retrieved[id] = true
			}
		}
	}
	if len(retrieved) > 0 {
		novel := 0
		for id := range retrieved {
			if !observed[id] {
				novel++
			}
		}
		m.RequiredNovelty = float64(novel) / float64(len(retrieved))
	}
	return m
}

// maxIdealUniverse is the largest gold universe for which the ideal DCG is
// searched exactly; SERBench's largest has 14 ids. Above it the reference
// falls back to the sum of the weights, an upper bound.
const maxIdealUniverse = 20

// IdealGroupDCG is the largest group DCG any ranking of k ids could reach
// for the certificate: the exact optimum over orders of the gold universe
// (the union of the groups' acceptable ids), found by dynamic programming
// over subsets. A unit may complete several groups at once, and a group
// needing two ids completes only at the second, so the ideal is not simply
// the weights sorted; dividing by it keeps group_ndcg at most 1 and equal
// to 1 for a best-possible ranking.
//
// The search visits subsets in the reference's order and keeps the first
// best score of each subset, so its floating-point result is the
// reference's to the last bit.
func IdealGroupDCG(groups []mss.Group, k int) float64 {
	index := map[string]int{}
	var universe []string
	for _, g := range groups {
		for _, id := range g.AcceptableIDs {
			if _, ok := index[id]; !ok {
				index[id] = 0
				universe = append(universe, id)
			}
		}
	}
	if len(universe) == 0 || k <= 0 {
		return 0
	}
	weights := make([]float64, len(groups))
	for i, g := range groups {
		weights[i] = g.NecessityWeight
	}
	if len(universe) > maxIdealUniverse {
		var sum float64
		for _, w := range weights {
			sum += w
		}
		return sum
	}
	sort.Strings(universe)
	for i, id := range universe {
		index[id] = i
	}
	masks := make([]uint32, len(groups))
	required := make([]int, len(groups))
	for i, g := range groups {
		for _, id := range g.AcceptableIDs {
			masks[i] |= 1 << index[id]
		}
		required[i] = g.MinimumRequired
	}
	done := func(mask uint32, gi int) bool {
		return bits.OnesCount32(mask&masks[gi]) >= required[gi]
	}

	// Layer r holds every subset of size r with its best score, in the
	// order the reference's dict first inserted them.
	type entry struct {
		mask  uint32
		score float64
	}
	current := []entry{{0, 0}}
	var best float64
	// pos[mask] is mask's index in its layer plus one, 0 when absent; a
	// mask belongs to exactly one layer (its popcount), so pos needs no
	// clearing between layers.
	pos := make([]int32, 1<<len(universe))
	for rank := 1; rank <= min(k, len(universe)); rank++ {
		discount := log2Int(rank + 1)
		var next []entry
		for _, prev := range current {
			for ci := range universe {
				bit := uint32(1) << ci
				if prev.mask&bit != 0 {
					continue
				}
				nm := prev.mask | bit
				var gain float64
				for gi, w := range weights {
					if !done(prev.mask, gi) && done(nm, gi) {
						gain += w / discount
					}
				}
				score := prev.score + gain
				if j := pos[nm]; j > 0 {
					if score > next[j-1].score {
						next[j-1].score = score
					}
				} else if score > -1 {
					next = append(next, entry{nm, score})
					pos[nm] = int32(len(next))
				}
			}
		}
		current = next
		for _, e := range current {
			best = math.Max(best, e.score)
		}
	}
	return best
}

// StateScore is one prediction's scores: Values maps metric@k to value.
type StateScore struct {
	StateID string
	Method  string
	Values  map[string]float64
}

// Summary maps method -> metric@k -> macro mean over the method's states,
// plus "states" -> number of states, as the reference summary does.
type Summary map[string]map[string]float64

// ScoreAll scores every prediction against its label at every k and
// averages per method. Inputs must have passed validation: a prediction
// without a label is an error.
func ScoreAll(labels *Labels, preds *Predictions, ks []int) ([]StateScore, Summary, error) {
	for _, k := range ks {
		if k <= 0 {
			return nil, nil, fmt.Errorf("cutoff k must be positive, not %d", k)
		}
	}
	ks = normalizeKs(ks)
	if len(ks) == 0 {
		return nil, nil, fmt.Errorf("no cutoff k given")
	}
	var rows []StateScore
	sums := map[string]map[string]*big.Rat{}
	counts := map[string]int{}
	type idealKey struct {
		l *Label
		k int
	}
	ideals := map[idealKey]float64{}
	for _, p := range preds.Predictions {
		l := labels.Get(p.StateID)
		if l == nil {
			return nil, nil, fmt.Errorf("%s:%d: state_id: %q has no label in %s", preds.File, p.Line, p.StateID, labels.File)
		}
		row := StateScore{StateID: p.StateID, Method: p.Method, Values: map[string]float64{}}
		if sums[p.Method] == nil {
			sums[p.Method] = map[string]*big.Rat{}
		}
		counts[p.Method]++
		for _, k := range ks {
			ik := idealKey{l, k}
			m := score(p.RankedIDs, &l.Cert, k, func() float64 {
				v, ok := ideals[ik]
				if !ok {
					v = IdealGroupDCG(l.Cert.Groups, k)
					ideals[ik] = v
				}
				return v
			})
			for _, name := range MetricNames {
				key := fmt.Sprintf("%s@%d", name, k)
				v, _ := m.Get(name)
				if err := finiteScore(labels, l, key, v); err != nil {
					return nil, nil, err
				}
				row.Values[key] = v
				s := sums[p.Method][key]
				if s == nil {
					s = new(big.Rat)
					sums[p.Method][key] = s
				}
				s.Add(s, new(big.Rat).SetFloat64(v))
			}
		}
		rows = append(rows, row)
	}
	sum := Summary{}
	for method, byKey := range sums {
		n := counts[method]
		out := map[string]float64{"states": float64(n)}
		for key, s := range byKey {
			// The mean of the exact sum, rounded once (as statistics.mean).
			mean, _ := new(big.Rat).Quo(s, new(big.Rat).SetInt64(int64(n))).Float64()
			out[key] = mean
		}
		sum[method] = out
	}
	return rows, sum, nil
}

// finiteScore returns an error naming the label when v, the score key of
// its state, is not finite: only a certificate the loader refuses (weights
// summing past the float range) can give one.
func finiteScore(labels *Labels, l *Label, key string, v float64) error {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return fmt.Errorf("%s:%d: %srequired_evidence_groups: %s of state %q is %v, not finite: the necessity_weights must have a finite total",
			labels.File, l.Line, l.prefix, key, l.Cert.StateID, v)
	}
	return nil
}

// normalizeKs sorts and deduplicates the positive cutoffs.
func normalizeKs(ks []int) []int {
	var out []int
	for _, k := range ks {
		if k > 0 {
			out = append(out, k)
		}
	}
	sort.Ints(out)
	return compactInts(out)
}

func compactInts(s []int) []int {
	if len(s) == 0 {
		return s
	}
	out := s[:1]
	for _, v := range s[1:] {
		if v != out[len(out)-1] {
			out = append(out, v)
		}
	}
	return out
}

// Mean returns the exactly rounded mean of xs (0 for none), or NaN or an
// infinity when some x is not finite.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := new(big.Rat)
	for _, x := range xs {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			// big.Rat holds no infinity; the float sum gives the answer.
			var sum float64
			for _, y := range xs {
				sum += y
			}
			return sum / float64(len(xs))
		}
		s.Add(s, new(big.Rat).SetFloat64(x))
	}
	m, _ := s.Quo(s, new(big.Rat).SetInt64(int64(len(xs)))).Float64()
	return m
}
