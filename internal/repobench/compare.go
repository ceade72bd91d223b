package repobench

import (
	"fmt"
	"strings"

	"github.com/missingcomplement/mss/internal/stats"
)

// Paired is a paired comparison of a method with a baseline on one metric
// over the states of one stratum ("all" for every state), with a
// repository-clustered bootstrap interval of the mean difference.
type Paired struct {
	Baseline string  `json:"baseline"`
	Method   string  `json:"method"`
	Metric   string  `json:"metric"`
	Stratum  string  `json:"stratum"`
	N        int     `json:"n"`
	MeanA    float64 `json:"mean_baseline"`
	MeanB    float64 `json:"mean_method"`
	Diff     float64 `json:"diff"` // MeanB - MeanA
	Lo       float64 `json:"lo"`   // 95% interval of Diff
	Hi       float64 `json:"hi"`
	// Wins counts the states where the method does better than the
	// baseline: a higher figure, or a lower one for a count (IsCount).
	Wins   int   `json:"wins"`
	Ties   int   `json:"ties"`
	Losses int   `json:"losses"`
	Draws  int   `json:"draws"`
	Seed   int64 `json:"seed"`
}

// AllStates names the stratum of every state.
const AllStates = "all"

// PairedRow is one state's figure under the baseline (A) and the method (B),
// clustered by repository.
type PairedRow struct {
	Cluster string
	A, B    float64
}

// PairRows lines up two methods' per-state figures for metric, overall and
// per stratum (in sorted stratum order after "all"). Both scores must cover
// the same states file, each with a prediction for every state.
func PairRows(base, method *MethodScore, metric string) (strata []string, rows map[string][]PairedRow, err error) {
	if len(base.States) != len(method.States) {
		return nil, nil, fmt.Errorf("%s and %s were scored on different states", base.Method, method.Method)
	}
	// A state without a prediction scores zero, which is no answer to
	// pair: it would count as a win or a loss.
	for _, ms := range []*MethodScore{base, method} {
		n, first := 0, ""
		for i := range ms.States {
			if ms.States[i].Missing {
				if n == 0 {
					first = ms.States[i].StateID
				}
				n++
			}
		}
		if n > 0 {
			return nil, nil, fmt.Errorf("%s has no prediction for %d of %d states (first: %s); a paired comparison needs both answers", ms.Method, n, len(ms.States), first)
		}
	}
	rows = map[string][]PairedRow{}
	for i := range base.States {
		a, b := &base.States[i], &method.States[i]
		if a.StateID != b.StateID {
			return nil, nil, fmt.Errorf("%s and %s were scored on different states (%s vs %s)", base.Method, method.Method, a.StateID, b.StateID)
		}
		va, ok := a.Metrics[metric]
		if !ok {
			return nil, nil, fmt.Errorf("metric %q not scored (scored: complete@k, group_recall@k, necessity@k, tokens@k, observed_units@k for k in %v)", metric, base.Ks)
		}
		// One repository is one cluster however a state spells its name,
		// as it is one index and one fold.
		r := PairedRow{Cluster: strings.ToLower(a.Repo), A: va, B: b.Metrics[metric]}
		rows[AllStates] = append(rows[AllStates], r)
		for _, s := range a.Strata() {
			rows[s] = append(rows[s], r)
		}
	}
	strata = append([]string{AllStates}, base.StratumNames()...)
	return strata, rows, nil
}

// Compare pairs method with base state by state on metric and bootstraps
// the mean difference by resampling repositories, overall and per stratum.
func Compare(base, method *MethodScore, metric string, draws int, seed int64) ([]Paired, error) {
	strata, rows, err := PairRows(base, method, metric)
	if err != nil {
		return nil, err
	}
	var out []Paired
	for _, s := range strata {
		pairs := make([]stats.Pair, len(rows[s]))
		for i, r := range rows[s] {
			pairs[i] = stats.Pair{Cluster: r.Cluster, A: r.A, B: r.B}
		}
		c := stats.PairedBootstrap(pairs, draws, seed)
		if IsCount(metric) {
			c.Wins, c.Losses = c.Losses, c.Wins
		}
		out = append(out, Paired{Baseline: base.Method, Method: method.Method, Metric: metric, Stratum: s,
			N: c.N, MeanA: c.MeanA, MeanB: c.MeanB, Diff: c.Diff, Lo: c.Lo, Hi: c.Hi,
			Wins: c.Wins, Ties: c.Ties, Losses: c.Losses, Draws: c.Draws, Seed: c.Seed})
	}
	return out, nil
}
