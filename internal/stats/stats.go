// Package stats holds the resampling statistics benchmark reports use to
// say whether one method beats another: a paired bootstrap that resamples
// whole clusters (repositories), because states of one repository are not
// independent of each other.
package stats

import (
	"math"
	"math/rand/v2"
	"sort"
)

// Pair is one unit of comparison (a state): the scores of method A (the
// baseline) and method B on it, and the cluster (repository) it belongs to.
type Pair struct {
	Cluster string
	A, B    float64
}

// Comparison summarizes B against A over paired units.
type Comparison struct {
	N      int     `json:"n"`
	MeanA  float64 `json:"mean_a"`
	MeanB  float64 `json:"mean_b"`
	Diff   float64 `json:"diff"` // mean of B-A
	Lo     float64 `json:"lo"`   // 95% percentile interval of Diff
	Hi     float64 `json:"hi"`
	Wins   int     `json:"wins"` // units with B > A
	Ties   int     `json:"ties"`
	Losses int     `json:"losses"`
	Draws  int     `json:"draws"`
	Seed   int64   `json:"seed"`
}

// PairedBootstrap compares B with A over pairs. Diff is the mean of B-A
// over all pairs; Lo and Hi bound its 95% percentile interval, from draws
// resamples that each pick as many clusters as there are, uniformly with
// replacement, and take the mean of B-A over every pair of the picked
// clusters (a cluster picked twice counts twice). The 2.5th and 97.5th
// percentiles of the resampled means are read with linear interpolation
// between order statistics (position q*(draws-1), as numpy's default).
//
// The result is a function of the pairs' multiset per cluster, the number
// of draws and the seed: clusters are ordered by name and pairs within a
// cluster by input order, and the generator is PCG seeded from seed. With
// no pairs the result is all zero; with draws <= 0 no resampling is done
// and Lo = Hi = Diff.
func PairedBootstrap(pairs []Pair, draws int, seed int64) Comparison {
	c := Comparison{N: len(pairs), Draws: max(draws, 0), Seed: seed}
	if len(pairs) == 0 {
		return c
	}
	var sumA, sumB, sumD float64
	byCluster := map[string][2]float64{} // cluster -> (sum of B-A, count)
	for _, p := range pairs {
		sumA += p.A
		sumB += p.B
		d := p.B - p.A
		sumD += d
		switch {
		case p.B > p.A:
			c.Wins++
		case p.B < p.A:
			c.Losses++
		default:
			c.Ties++
		}
		s := byCluster[p.Cluster]
		s[0] += d
		s[1]++
		byCluster[p.Cluster] = s
	}
	n := float64(len(pairs))
	c.MeanA, c.MeanB, c.Diff = sumA/n, sumB/n, sumD/n
	if draws <= 0 {
		c.Lo, c.Hi = c.Diff, c.Diff
		return c
	}

	means := resample(byCluster, draws, seed)
	sort.Float64s(means)
	c.Lo = Percentile(means, 0.025)
	c.Hi = Percentile(means, 0.975)
	return c
}

// resample returns draws cluster-bootstrap means of B-A, from the per
// cluster sums and counts of B-A.
func resample(byCluster map[string][2]float64, draws int, seed int64) []float64 {
	names := make([]string, 0, len(byCluster))
	for name := range byCluster {
		names = append(names, name)
	}
	sort.Strings(names)
	sums := make([]float64, len(names))
	counts := make([]float64, len(names))
	for i, name := range names {
		sums[i], counts[i] = byCluster[name][0], byCluster[name][1]
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
	means := make([]float64, draws)
	k := uint64(len(names))
	for d := range means {
		var s, m float64
		for range names {
			j := bounded(rng, k)
			s += sums[j]
			m += counts[j]
		}
		means[d] = s / m
	}
	return means
}

// bounded returns a uniform integer in [0, n) by rejection, so the draw
// sequence depends only on the generator's output.
func bounded(rng *rand.Rand, n uint64) uint64 {
	if n&(n-1) == 0 {
		return rng.Uint64() & (n - 1)
	}
	limit := math.MaxUint64 - math.MaxUint64%n
	for {
		v := rng.Uint64()
		if v < limit {
			return v % n
		}
	}
}

// Percentile returns the q-quantile (0 <= q <= 1) of sorted values by
// linear interpolation between the order statistics around q*(len-1).
func Percentile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	if lo >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	if lo < 0 {
		return sorted[0]
	}
	frac := pos - float64(lo)
	return sorted[lo] + frac*(sorted[lo+1]-sorted[lo])
}
