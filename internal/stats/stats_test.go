package stats

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPairedBootstrap(t *testing.T) {
	tests := []struct {
		name  string
		pairs []Pair
		draws int
		want  Comparison
	}{
		{
			name:  "no pairs",
			draws: 100, want: Comparison{Draws: 100, Seed: 7},
		},
		{
			// One cluster: every resample is the sample itself.
			name: "single cluster",
			pairs: []Pair{
				{"r", 0, 1}, {"r", 1, 1}, {"r", 1, 0}, {"r", 0.5, 1},
			},
			draws: 1000,
			// diffs 1, 0, -1, 0.5
			want: Comparison{N: 4, MeanA: 0.625, MeanB: 0.75, Diff: 0.125, Lo: 0.125, Hi: 0.125,
				Wins: 2, Ties: 1, Losses: 1, Draws: 1000, Seed: 7},
		},
		{
			// Clusters x (diff 0) and y (diff 1), equally sized: resampled
			// means are 0, 0.5, 1 with chances 1/4, 1/2, 1/4, so the 2.5th
			// and 97.5th percentiles are 0 and 1.
			name:  "two clusters",
			pairs: []Pair{{"x", 1, 1}, {"y", 0, 1}, {"x", 0, 0}, {"y", 0, 1}},
			draws: 20000,
			want: Comparison{N: 4, MeanA: 0.25, MeanB: 0.75, Diff: 0.5, Lo: 0, Hi: 1,
				Wins: 2, Ties: 2, Draws: 20000, Seed: 7},
		},
		{
			// Unequal clusters: p has one pair (diff 1), q three (diff 0).
			// A resample of {p, q} has mean 1/4 (pairs weigh, not
			// clusters); {p, p} 1 and {q, q} 0, each with chance 1/4.
			name:  "pairs weigh equally",
			pairs: []Pair{{"p", 0, 1}, {"q", 1, 1}, {"q", 1, 1}, {"q", 0, 0}},
			draws: 20000,
			want: Comparison{N: 4, MeanA: 0.5, MeanB: 0.75, Diff: 0.25, Lo: 0, Hi: 1,
				Wins: 1, Ties: 3, Draws: 20000, Seed: 7},
		},
		{
			name:  "no draws",
			pairs: []Pair{{"a", 0, 1}, {"b", 1, 0}, {"b", 1, 1}},
			draws: 0,
			want: Comparison{N: 3, MeanA: 2.0 / 3, MeanB: 2.0 / 3, Diff: 0, Lo: 0, Hi: 0,
				Wins: 1, Ties: 1, Losses: 1, Seed: 7},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := PairedBootstrap(tc.pairs, tc.draws, 7)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("PairedBootstrap mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestResampleWeighsPairs(t *testing.T) {
	// p (diff 1, one pair) and q (diff 0, three pairs): a resample of one
	// p and one q has mean 1/4, not the 1/2 a mean of cluster means would
	// give; such resamples are about half of all.
	means := resample(map[string][2]float64{"p": {1, 1}, "q": {0, 3}}, 20000, 3)
	counts := map[float64]int{}
	for _, m := range means {
		counts[m]++
	}
	if len(counts) != 3 || counts[0]+counts[0.25]+counts[1] != len(means) {
		t.Fatalf("resampled means take values %v, want only 0, 0.25, 1", counts)
	}
	if f := float64(counts[0.25]) / float64(len(means)); math.Abs(f-0.5) > 0.02 {
		t.Errorf("share of mixed resamples = %v, want about 0.5", f)
	}
}

func TestPairedBootstrapDeterministic(t *testing.T) {
	var pairs []Pair
	for i := 0; i < 60; i++ {
		pairs = append(pairs, Pair{Cluster: string(rune('a' + i%7)), A: float64(i%3) / 2, B: float64(i%5) / 4})
	}
	a := PairedBootstrap(pairs, 5000, 42)
	b := PairedBootstrap(pairs, 5000, 42)
	if a != b {
		t.Errorf("same seed, different results: %+v vs %+v", a, b)
	}
	// Input order does not matter.
	rev := make([]Pair, len(pairs))
	for i, p := range pairs {
		rev[len(pairs)-1-i] = p
	}
	if r := PairedBootstrap(rev, 5000, 42); math.Abs(r.Lo-a.Lo) > 1e-12 || math.Abs(r.Hi-a.Hi) > 1e-12 {
		t.Errorf("reordered input changed the interval: %+v vs %+v", r, a)
	}
	if c := PairedBootstrap(pairs, 5000, 43); c.Lo == a.Lo && c.Hi == a.Hi {
		t.Errorf("a different seed gave the same interval [%v, %v]", a.Lo, a.Hi)
	}
	if a.Lo > a.Diff || a.Diff > a.Hi {
		t.Errorf("interval [%v, %v] does not contain %v", a.Lo, a.Hi, a.Diff)
	}
}

func TestPercentile(t *testing.T) {
	xs := []float64{1, 2, 3, 4}
	for _, tc := range []struct{ q, want float64 }{{0, 1}, {1, 4}, {0.5, 2.5}, {0.25, 1.75}, {0.975, 3.925}} {
		if got := Percentile(xs, tc.q); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("Percentile(%v, %v) = %v, want %v", xs, tc.q, got, tc.want)
		}
	}
	if got := Percentile(nil, 0.5); !math.IsNaN(got) {
		t.Errorf("Percentile(nil) = %v, want NaN", got)
	}
}
