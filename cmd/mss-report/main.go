// Command mss-report writes the repository track's HTML report: predictions
// files scored as score.py scores them, drawn as PNG figures beside an HTML
// page and summarized in summary.json.
//
// It is a binary of its own so that the plotting library and its fonts stay
// out of mss: install it with go install ./cmd/mss-report when you want
// figures. Scoring and comparison without figures are in mss bench.
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/internal/cliargs"
	"github.com/missingcomplement/mss/internal/repobench"
	"github.com/missingcomplement/mss/internal/report"
	"github.com/spf13/cobra"
)

func main() {
	cmd := newReportCmd()
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	if err := cmd.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "mss-report:", err)
		os.Exit(1)
	}
}

// reportFlags are the command's flags.
type reportFlags struct {
	states, labels, mirrorRoot string
	ks                         []int
	budget                     int
	preds                      []string
	out, title                 string
	baseline, metric           string
	draws                      int
	seed                       int64
}

func newReportCmd() *cobra.Command {
	var f reportFlags
	cmd := &cobra.Command{
		Use:   "mss-report",
		Short: "Write an HTML report with figures comparing methods' repository-track predictions",
		Long: `Score predictions files and write, into --out, an HTML page (index.html)
with PNG figures beside it: complete@k curves per method, the headline metric
per stratum (state type, one group or several), and, with --baseline, each
method's paired difference from the baseline with a repository-clustered
bootstrap interval. summary.json holds the same figures.

The scoring is mss bench score's (score.py's rule); the flags --states,
--labels, --mirror-root, --k and --budget mean what they mean there.`,
		Args: cliargs.None,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmd.OutOrStdout(), cmd.ErrOrStderr(), &f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.states, "states", "", "states file (JSONL, repository-track state cards)")
	fl.StringVar(&f.labels, "labels", "", "labels file (JSONL certificates of the states)")
	fl.StringVar(&f.mirrorRoot, "mirror-root", "", "directory holding git directories as <owner>+<name>/repo or <owner>+<name>.git")
	fl.IntSliceVar(&f.ks, "k", repobench.DefaultKs, "answer sizes to score")
	fl.IntVar(&f.budget, "budget", mss.DefaultBudget, "source-token budget of an answer")
	fl.StringSliceVar(&f.preds, "predictions", nil, "predictions files (JSONL); repeat or separate with commas")
	fl.StringVar(&f.out, "out", "", "output directory")
	fl.StringVar(&f.title, "title", "", "page title (default: the states file)")
	fl.StringVar(&f.baseline, "baseline", "", "method every other method is compared with (paired bootstrap)")
	fl.StringVar(&f.metric, "metric", "complete@5", "metric of the strata and paired figures")
	fl.IntVar(&f.draws, "draws", 20000, "bootstrap draws")
	fl.Int64Var(&f.seed, "seed", 1, "bootstrap seed")
	for _, name := range []string{"states", "labels", "mirror-root", "predictions", "out"} {
		cmd.MarkFlagRequired(name)
	}
	return cmd
}

func run(stdout, stderr io.Writer, f *reportFlags) error {
	for _, k := range f.ks {
		if k < 1 {
			return fmt.Errorf("--k %d: want a positive number of units", k)
		}
	}
	if f.budget < 1 {
		return fmt.Errorf("--budget %d: want a positive number of tokens", f.budget)
	}
	if f.draws < 1 {
		return fmt.Errorf("--draws %d: want a positive number", f.draws)
	}
	if err := checkMetric(f.metric, f.ks); err != nil {
		return err
	}
	ps, scores, err := score(stderr, f)
	if err != nil {
		return err
	}
	title := f.title
	if title == "" {
		title = "Repository track: " + f.states
	}
	in := &report.Input{Title: title, StatesFile: f.states, Predictions: f.preds, Metric: f.metric,
		Scores: scores, Latency: latencies(ps), Baseline: f.baseline}
	if f.baseline != "" {
		if in.Paired, err = pairedAgainst(scores, f.baseline, f.metric, f.draws, f.seed); err != nil {
			return err
		}
	}
	if err := report.Write(f.out, in); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(f.out, report.HTMLFile))
	return nil
}

// score loads the states, their labels and the predictions files, and
// scores every method in them.
func score(stderr io.Writer, f *reportFlags) (*repobench.PredictionSet, []*repobench.MethodScore, error) {
	t, err := repobench.LoadTrack(f.states, f.labels, f.mirrorRoot)
	if err != nil {
		return nil, nil, err
	}
	defer t.Source.Close()
	ps, err := repobench.LoadPredictionsFor(stderr, f.preds, t.Known)
	if err != nil {
		return nil, nil, err
	}
	scores, err := (&repobench.Scorer{Source: t.Source, Ks: f.ks, Budget: f.budget}).Score(t.States, t.Labels, ps)
	return ps, scores, err
}

// checkMetric rejects a metric the scorer will not produce.
func checkMetric(metric string, ks []int) error {
	for _, m := range repobench.MetricNames {
		for _, k := range ks {
			if metric == repobench.Key(m, k) {
				return nil
			}
		}
	}
	return fmt.Errorf("--metric %q: want one of %v at k in %v, e.g. complete@5", metric, repobench.MetricNames, ks)
}

// latencies gathers per-method retrieval+selection times recorded in
// predictions files (methods without timings are left out).
func latencies(ps *repobench.PredictionSet) map[string]report.Latency {
	out := map[string]report.Latency{}
	for _, m := range ps.Methods() {
		var xs []float64
		for _, p := range ps.ByMethod[m] {
			if p.LatencyMS() > 0 {
				xs = append(xs, p.LatencyMS())
			}
		}
		if len(xs) > 0 {
			out[m] = report.Latency{N: len(xs), P50: repobench.Percentile(xs, 50), P95: repobench.Percentile(xs, 95)}
		}
	}
	return out
}

// pairedAgainst compares every scored method with the baseline.
func pairedAgainst(scores []*repobench.MethodScore, baseline, metric string, draws int, seed int64) ([]repobench.Paired, error) {
	var base *repobench.MethodScore
	var names []string
	for _, ms := range scores {
		names = append(names, ms.Method)
		if ms.Method == baseline {
			base = ms
		}
	}
	if base == nil {
		return nil, fmt.Errorf("--baseline %s: no predictions of that method (methods: %s)", baseline, strings.Join(names, ", "))
	}
	var out []repobench.Paired
	for _, ms := range scores {
		if ms == base {
			continue
		}
		ps, err := repobench.Compare(base, ms, metric, draws, seed)
		if err != nil {
			return nil, err
		}
		out = append(out, ps...)
	}
	return out, nil
}
