package main

import (
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/repobench"
	"github.com/spf13/cobra"
)

// benchCmd groups the benchmark harnesses; each track adds a subcommand.
var benchCmd = &cobra.Command{
	Use:   "bench",
	Short: "Run, score and compare methods on the benchmarks",
}

func init() {
	benchCmd.AddCommand(newBenchScoreCmd())
	addCommand(benchCmd)
}

// trackFiles are the flags every repository-track command shares.
type trackFiles struct {
	states, labels, mirrorRoot string
	ks                         []int
	budget                     int
}

func (f *trackFiles) register(cmd *cobra.Command, labelsRequired bool) {
	fl := cmd.Flags()
	fl.StringVar(&f.states, "states", "", "states file (JSONL, repository-track state cards)")
	fl.StringVar(&f.labels, "labels", "", "labels file (JSONL certificates of the states)")
	fl.StringVar(&f.mirrorRoot, "mirror-root", "", "directory holding git directories as <owner>+<name>/repo or <owner>+<name>.git")
	fl.IntSliceVar(&f.ks, "k", repobench.DefaultKs, "answer sizes to score")
	fl.IntVar(&f.budget, "budget", mss.DefaultBudget, "source-token budget of an answer")
	cmd.MarkFlagRequired("states")
	cmd.MarkFlagRequired("mirror-root")
	if labelsRequired {
		cmd.MarkFlagRequired("labels")
	}
}

// loaded is a states file with its labels and a reader of its repositories.
type loaded struct {
	states []*mss.State
	labels map[string]*repobench.Label
	known  map[string]bool
	src    *repobench.Source
}

func (f *trackFiles) load() (*loaded, error) {
	if fi, err := os.Stat(f.mirrorRoot); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("--mirror-root %s: not a directory", f.mirrorRoot)
	}
	states, err := repobench.LoadStates(f.states)
	if err != nil {
		return nil, err
	}
	l := &loaded{states: states, known: map[string]bool{}, src: repobench.NewSource(f.mirrorRoot)}
	for _, s := range states {
		l.known[s.StateID] = true
	}
	if f.labels != "" {
		if l.labels, err = repobench.LoadLabels(f.labels); err != nil {
			return nil, err
		}
		for _, s := range states {
			if l.labels[s.StateID] == nil {
				return nil, fmt.Errorf("%s: no label for state %s of %s", f.labels, s.StateID, f.states)
			}
		}
	}
	return l, nil
}

func (f *trackFiles) scorer(src *repobench.Source) *repobench.Scorer {
	return &repobench.Scorer{Source: src, Ks: f.ks, Budget: f.budget}
}

// loadPredictions reads predictions files and reports lines for states the
// states file does not hold (they are ignored, as score.py ignores them).
func loadPredictions(w io.Writer, paths []string, l *loaded) (*repobench.PredictionSet, error) {
	ps, err := repobench.LoadPredictions(paths, l.known)
	if err != nil {
		return nil, err
	}
	var files []string
	for f := range ps.Unknown {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		fmt.Fprintf(w, "%s: ignored %d predictions for states not in the states file (first: %s)\n", f, ps.Unknown[f], ps.UnknownExample[f])
	}
	if len(ps.ByMethod) == 0 {
		return nil, fmt.Errorf("no predictions for any state of the states file in %v", paths)
	}
	return ps, nil
}

func newBenchScoreCmd() *cobra.Command {
	var (
		f      trackFiles
		preds  []string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "score",
		Short: "Score repository-track predictions files as score.py does",
		Long: `Score predictions files against a states file and its labels with the
repository track's rule: a unit costs ceil(bytes/4) of its lines at the
base commit, the answer at k is the longest prefix of at most k units within
the budget, and a group is covered when a unit on its path overlaps one of
its changed line ranges. The output is score.py's, figure for figure.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := f.load()
			if err != nil {
				return err
			}
			defer l.src.Close()
			ps, err := loadPredictions(cmd.ErrOrStderr(), preds, l)
			if err != nil {
				return err
			}
			scores, err := f.scorer(l.src).Score(l.states, l.labels, ps)
			if err != nil {
				return err
			}
			if asJSON {
				return repobench.WriteJSON(cmd.OutOrStdout(), scores)
			}
			return repobench.WriteText(cmd.OutOrStdout(), scores)
		},
	}
	f.register(cmd, true)
	cmd.Flags().StringSliceVar(&preds, "predictions", nil, "predictions files (JSONL); repeat or separate with commas")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print score.py's --json output")
	cmd.MarkFlagRequired("predictions")
	return cmd
}
