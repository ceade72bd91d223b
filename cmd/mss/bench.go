package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/missingcomplement/mss"
	_ "github.com/missingcomplement/mss/controller" // registers complement, bm25, rrf, mmr, similarity
	"github.com/missingcomplement/mss/internal/cliargs"
	"github.com/missingcomplement/mss/internal/repobench"
	"github.com/missingcomplement/mss/pipeline"
	"github.com/missingcomplement/mss/render"
	"github.com/missingcomplement/mss/retrieve"
	"github.com/missingcomplement/mss/semantic"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// benchCmd groups the benchmark harnesses; each track adds a subcommand.
var benchCmd = &cobra.Command{
	Use:   "bench",
	Short: "Run, score and compare methods on the benchmarks",
}

func init() {
	benchCmd.AddCommand(newBenchRepoCmd(), newBenchScoreCmd(), newBenchCompareCmd(), newBenchBuildCmd())
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

// load checks the flags, then reads the states, the labels and the mirrors.
func (f *trackFiles) load() (*repobench.Track, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	return repobench.LoadTrack(f.states, f.labels, f.mirrorRoot)
}

// check refuses answer sizes and a budget that score nothing.
func (f *trackFiles) check() error {
	for _, k := range f.ks {
		if k < 1 {
			return fmt.Errorf("--k %d: want a positive number of units", k)
		}
	}
	if f.budget < 1 {
		return fmt.Errorf("--budget %d: want a positive number of tokens", f.budget)
	}
	return nil
}

func (f *trackFiles) scorer(src *repobench.Source) *repobench.Scorer {
	return &repobench.Scorer{Source: src, Ks: f.ks, Budget: f.budget}
}

// scoreFiles loads the track files and the predictions files and scores
// every method in them.
func (f *trackFiles) scoreFiles(stderr io.Writer, preds []string) (*repobench.PredictionSet, []*repobench.MethodScore, error) {
	l, err := f.load()
	if err != nil {
		return nil, nil, err
	}
	defer l.Source.Close()
	ps, err := loadPredictions(stderr, preds, l)
	if err != nil {
		return nil, nil, err
	}
	scores, err := f.scorer(l.Source).Score(l.States, l.Labels, ps)
	return ps, scores, err
}

// loadPredictions reads predictions files for the states l holds
// (repobench.LoadPredictionsFor).
func loadPredictions(w io.Writer, paths []string, l *repobench.Track) (*repobench.PredictionSet, error) {
	return repobench.LoadPredictionsFor(w, paths, l.Known)
}

func newBenchScoreCmd() *cobra.Command {
	var (
		f       trackFiles
		preds   []string
		asJSON  bool
		budgets []int
	)
	cmd := &cobra.Command{
		Use:   "score",
		Short: "Score repository-track predictions files as score.py does",
		Long: `Score predictions files against a states file and its labels with the
repository track's rule: a unit costs ceil(bytes/4) of its lines at the
base commit, the answer at k is the longest prefix of at most k units within
the budget, and a group is covered when a unit on its path overlaps one of
its changed line ranges. The output is score.py's, figure for figure.`,
		Args: cliargs.None,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkBudgets(budgets); err != nil {
				return err
			}
			_, scores, err := f.scoreFiles(cmd.ErrOrStderr(), preds)
			if err != nil {
				return err
			}
			if asJSON {
				return repobench.WriteJSON(cmd.OutOrStdout(), scores)
			}
			if err := repobench.WriteText(cmd.OutOrStdout(), scores); err != nil {
				return err
			}
			if len(budgets) > 0 {
				return budgetCurve(cmd.ErrOrStderr(), cmd.OutOrStdout(), &f, preds, budgets)
			}
			return nil
		},
	}
	f.register(cmd, true)
	cmd.Flags().IntSliceVar(&budgets, "budgets", nil, "after the table, C@5 of every method at each of these budgets (e.g. 2048,4096,6144), as score.py --budget B gives it")
	cmd.Flags().StringSliceVar(&preds, "predictions", nil, "predictions files (JSONL); repeat or separate with commas")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print score.py's --json output")
	cmd.MarkFlagRequired("predictions")
	return cmd
}

// onlyMethod scores the one method of a predictions file.
func onlyMethod(w io.Writer, f *trackFiles, l *repobench.Track, path string) (*repobench.MethodScore, error) {
	ps, err := loadPredictions(w, []string{path}, l)
	if err != nil {
		return nil, err
	}
	if ms := ps.Methods(); len(ms) != 1 {
		return nil, fmt.Errorf("%s: holds predictions of %d methods (%s); compare takes one method a file", path, len(ms), strings.Join(ms, ", "))
	}
	m := ps.Methods()[0]
	// Compare pairs the two answers of each state: a state the file has
	// no answer for would score zero and count as a win or a loss.
	n, first := 0, ""
	for _, st := range l.States {
		if ps.ByMethod[m][st.StateID] == nil {
			if n == 0 {
				first = st.StateID
			}
			n++
		}
	}
	if n > 0 {
		return nil, fmt.Errorf("%s: no prediction for %d of the %d states of %s (first: %s); a paired comparison needs both answers", path, n, len(l.States), f.states, first)
	}
	return f.scorer(l.Source).ScoreMethod(m, l.States, l.Labels, ps.ByMethod[m])
}

func newBenchCompareCmd() *cobra.Command {
	var (
		f                    trackFiles
		basePath, methodPath string
		metric               string
		draws                int
		seed                 int64
		asJSON               bool
	)
	cmd := &cobra.Command{
		Use:   "compare",
		Short: "Paired comparison of two predictions files with a repository-clustered bootstrap",
		Long: `Score two predictions files (one method each) on the same states and
compare them state by state: the mean difference (method minus baseline), a
95% interval from a bootstrap that resamples whole repositories (states of
one repository are not independent), and how many states the method wins,
ties and loses; overall and per stratum (state type, one group or several).`,
		Args: cliargs.None,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if draws < 1 {
				return fmt.Errorf("--draws %d: want a positive number", draws)
			}
			if err := f.checkMetric(metric); err != nil {
				return err
			}
			l, err := f.load()
			if err != nil {
				return err
			}
			defer l.Source.Close()
			base, err := onlyMethod(cmd.ErrOrStderr(), &f, l, basePath)
			if err != nil {
				return err
			}
			method, err := onlyMethod(cmd.ErrOrStderr(), &f, l, methodPath)
			if err != nil {
				return err
			}
			if base.Method == method.Method {
				method.Method += " (" + filepath.Base(methodPath) + ")"
			}
			ps, err := repobench.Compare(base, method, metric, draws, seed)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(w)
				enc.SetIndent("", " ")
				return enc.Encode(ps)
			}
			return writePaired(w, f.states, ps)
		},
	}
	f.register(cmd, true)
	fl := cmd.Flags()
	fl.StringVar(&basePath, "baseline", "", "predictions file of the baseline method")
	fl.StringVar(&methodPath, "method", "", "predictions file of the method compared with it")
	fl.StringVar(&metric, "metric", "complete@5", "per-state metric compared, e.g. complete@5, group_recall@8, tokens@8")
	fl.IntVar(&draws, "draws", 20000, "bootstrap draws")
	fl.Int64Var(&seed, "seed", 1, "bootstrap seed")
	fl.BoolVar(&asJSON, "json", false, "print the comparisons as JSON")
	cmd.MarkFlagRequired("baseline")
	cmd.MarkFlagRequired("method")
	return cmd
}

// checkMetric rejects a metric the scorer will not produce.
func (f *trackFiles) checkMetric(metric string) error {
	if err := f.check(); err != nil {
		return err
	}
	for _, m := range repobench.MetricNames {
		for _, k := range f.ks {
			if metric == repobench.Key(m, k) {
				return nil
			}
		}
	}
	return fmt.Errorf("--metric %q: want one of %v at k in %v, e.g. complete@5", metric, repobench.MetricNames, f.ks)
}

// writePaired prints comparisons as a table.
func writePaired(w io.Writer, statesFile string, ps []repobench.Paired) error {
	if len(ps) == 0 {
		return nil
	}
	p0 := ps[0]
	sc, unit := 100.0, " (percentage points)"
	if repobench.IsCount(p0.Metric) {
		sc, unit = 1, ""
	}
	fmt.Fprintf(w, "%s minus %s on %s%s, %s; 95%% interval from %d draws resampling repositories, seed %d\n",
		p0.Method, p0.Baseline, p0.Metric, unit, statesFile, p0.Draws, p0.Seed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "stratum\tn\t%s\t%s\tdiff\t95%% interval\twin/tie/loss\n", p0.Baseline, p0.Method)
	for _, p := range ps {
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%+.1f\t[%+.1f, %+.1f]\t%d/%d/%d\n",
			p.Stratum, p.N, sc*p.MeanA, sc*p.MeanB, sc*p.Diff, sc*p.Lo, sc*p.Hi, p.Wins, p.Ties, p.Losses)
	}
	return tw.Flush()
}

func newBenchRepoCmd() *cobra.Command {
	var (
		f                    trackFiles
		methods              []string
		output, indexDir     string
		maxUnits, candidates int
		concurrency          int
		cache, order         string
		allowFallback        bool
	)
	cmd := &cobra.Command{
		Use:   "repo",
		Short: "Run methods on repository-track states and write predictions",
		Long: `Answer every state of a repository-track states file and append one
prediction line per state to --output. States are grouped by repository and
base commit; each repository's index is built once and moved from commit to
commit in time order, so the index changes as little as possible.

Several methods (--method a,b,c) share one pass: candidates are retrieved
once per state and each method selects from them; --output then names a
file per method with the placeholder {method}.

A rerun skips states already in --output (a torn last line left by a
killed run is dropped, with a notice). With --labels the finished files
are scored as score.py scores them.`,
		Args: cliargs.None,
		RunE: func(cmd *cobra.Command, _ []string) error {
			om, label, err := orderFlag(order)
			if err != nil {
				return err
			}
			return runBenchRepo(cmd, &f, benchRepoFlags{methods, output, indexDir, maxUnits, candidates, concurrency, cache, allowFallback, om, label})
		},
	}
	f.register(cmd, false)
	fl := cmd.Flags()
	fl.StringSliceVar(&methods, "method", []string{"complement"}, "methods to run, comma-separated (see mss methods)")
	fl.BoolVar(&allowFallback, "allow-fallback", false, "record answers a model method gave with its fallback policy (rows flagged \"fallback\") instead of stopping at the first")
	fl.StringVar(&output, "output", "", "predictions file to append to (JSONL); with several methods it must contain {method}")
	fl.StringVar(&indexDir, "index-dir", "", "directory for the per-repository index databases, kept between runs (default: a temporary directory, removed)")
	fl.IntVar(&maxUnits, "max-units", mss.DefaultMaxUnits, "most units per answer")
	fl.IntVar(&candidates, "candidates", retrieve.DefaultCandidates, "candidates retrieval offers the methods")
	fl.IntVar(&concurrency, "concurrency", 1, "repositories processed at once")
	fl.StringVar(&cache, "cache", "", "also record every state's candidates into this candidate cache (see bench tune; a state it holds already keeps its record); with --labels, print pool recall and where each method's misses come from")
	fl.StringVar(&order, "order", "", orderHelp)
	cmd.MarkFlagRequired("output")
	return cmd
}

type benchRepoFlags struct {
	methods                    []string
	output, indexDir           string
	maxUnits, candidates, conc int
	cache                      string
	allowFallback              bool
	order                      *retrieve.OrderModel
	orderLabel                 string // the order as a prediction's config records it
}

func runBenchRepo(cmd *cobra.Command, f *trackFiles, bf benchRepoFlags) error {
	defer batchGC()()
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	stderr := cmd.ErrOrStderr()
	mopts, err := methodOptions()
	if err != nil {
		return err
	}
	if len(bf.methods) == 0 {
		return fmt.Errorf("--method: name at least one method")
	}
	if bf.conc < 1 {
		return fmt.Errorf("--concurrency %d: want a positive number", bf.conc)
	}
	if len(bf.methods) > 1 && !strings.Contains(bf.output, "{method}") {
		return fmt.Errorf("--output %s: with several methods it must contain {method}", bf.output)
	}
	var runs []repobench.MethodRun
	var outputs []string
	for _, name := range bf.methods {
		name := name
		if _, err := mss.NewMethod(name, mopts); err != nil {
			return err
		}
		if semantic.UsesModel(name) {
			if err := semantic.Preflight(ctx, mopts); err != nil {
				return err
			}
		}
		out := strings.ReplaceAll(bf.output, "{method}", name)
		outputs = append(outputs, out)
		runs = append(runs, repobench.MethodRun{Name: name, Output: out,
			New: func() (mss.Controller, error) { return mss.NewMethod(name, mopts) }})
	}
	l, err := f.load()
	if err != nil {
		return err
	}
	defer l.Source.Close()
	indexDir := bf.indexDir
	if indexDir == "" {
		if indexDir, err = os.MkdirTemp("", "mss-bench-index-"); err != nil {
			return err
		}
		defer os.RemoveAll(indexDir)
	} else if err := os.MkdirAll(indexDir, 0o755); err != nil {
		return err
	}
	var cw *repobench.CacheWriter
	if bf.cache != "" {
		// The cache would be held when the output is opened, and the run
		// refused as if another run were writing it.
		for _, out := range outputs {
			if sameFile(bf.cache, out) {
				return fmt.Errorf("--cache %s and --output %s name one file; give the cache a file of its own", bf.cache, out)
			}
		}
		if cw, err = repobench.CreateCache(bf.cache); err != nil {
			return err
		}
		defer cw.Close()
	}
	var bar *progressbar.ProgressBar
	tty := false
	if fl, ok := stderr.(*os.File); ok && term.IsTerminal(int(fl.Fd())) {
		tty = true
	}
	usage, err := newMethodUsage(bf.methods)
	if err != nil {
		return err
	}
	counts := newRepoCounts(bf.conc)
	opts := repobench.RunOptions{
		OnResult: usage.add, AllowFallback: bf.allowFallback,
		States: l.States, Source: l.Source, Methods: runs,
		Limits:      pipeline.Limits{Budget: f.budget, MaxUnits: bf.maxUnits, MinUnits: min(mss.DefaultMinUnits, bf.maxUnits), Candidates: bf.candidates},
		Concurrency: bf.conc,
		Settings:    repobench.RunConfig(f.budget, bf.maxUnits, bf.candidates, bf.orderLabel),
		Open: func(ctx context.Context, repo, gitDir, commit string) (*repobench.Opened, error) {
			op, err := openSnapshot(ctx, filepath.Join(indexDir, strings.ReplaceAll(repo, "/", "+")+".db"), gitDir, commit, bf.order, counts.of(repo))
			if err == nil && cw != nil {
				op.Snapshot = &repobench.CachingSnapshot{Snapshot: op.Snapshot, Cache: cw}
			}
			return op, err
		},
		Notice: func(s string) {
			if bar != nil {
				bar.Clear()
			}
			fmt.Fprintln(stderr, s)
		},
	}
	if tty {
		opts.Start = func(pending int) {
			bar = progressbar.NewOptions(pending,
				progressbar.OptionSetWriter(stderr),
				progressbar.OptionSetDescription(strings.Join(bf.methods, ",")),
				progressbar.OptionShowCount(),
				progressbar.OptionSetPredictTime(true),
				progressbar.OptionThrottle(200*time.Millisecond),
				progressbar.OptionClearOnFinish())
		}
		opts.Progress = func(string) { bar.Add(1) }
	}
	stats, err := repobench.Run(ctx, opts)
	if bar != nil {
		bar.Finish()
	}
	if stats != nil {
		printRunStats(cmd.OutOrStdout(), runs, stats)
	}
	if cw != nil && cw.Kept() > 0 {
		fmt.Fprintf(stderr, "%s: held %d of the states retrieved already, and keeps the candidates it recorded for them (a cache records each state once)\n", bf.cache, cw.Kept())
	}
	usage.print(cmd.OutOrStdout())
	if err != nil {
		return err
	}
	if l.Labels == nil {
		return nil
	}
	ps, err := loadPredictions(stderr, outputs, l)
	if err != nil {
		return err
	}
	sc := f.scorer(l.Source)
	scores, err := sc.Score(l.States, l.Labels, ps)
	if err != nil {
		return err
	}
	if err := repobench.WriteText(cmd.OutOrStdout(), scores); err != nil {
		return err
	}
	if cw == nil {
		return nil
	}
	if err := cw.Close(); err != nil {
		return err
	}
	c, err := repobench.LoadCache(bf.cache)
	if err != nil {
		return err
	}
	diag := map[string]repobench.Diagnosis{}
	for _, ms := range scores {
		if diag[ms.Method], err = diagnose(sc, l, ms, ps.ByMethod[ms.Method], c); err != nil {
			return err
		}
	}
	writeDiagnosis(cmd.OutOrStdout(), scores, diag)
	return nil
}

// sameFile reports whether paths a and b name one file: the same file
// when both exist, else the same path once made absolute and clean.
func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(sa, sb)
	}
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	return errA == nil && errB == nil && absA == absB
}

// diagnose says where a method's misses come from, over the candidates
// of the cache and the method's answers at C@5.
func diagnose(sc *repobench.Scorer, l *repobench.Track, ms *repobench.MethodScore, preds map[string]*repobench.Prediction, c *repobench.Cache) (repobench.Diagnosis, error) {
	byID := map[string]*mss.State{}
	for _, st := range l.States {
		byID[st.StateID] = st
	}
	var aerr error
	d := repobench.Diagnose(ms.States, l.Labels, func(id string) []mss.Candidate {
		if cs := c.States[id]; cs != nil {
			return cs.Candidates
		}
		return nil
	}, func(id string) []repobench.PredUnit {
		p := preds[id]
		if p == nil || aerr != nil {
			return nil
		}
		ans, err := sc.Answer(byID[id], p.Units, 5)
		if err != nil {
			aerr = fmt.Errorf("method %s: state %s: %w", ms.Method, id, err)
		}
		return ans
	})
	return d, aerr
}

// printRunStats reports what a run did, its per-state latency and what
// opening snapshots cost.
func printRunStats(w io.Writer, runs []repobench.MethodRun, s *repobench.RunStats) {
	fmt.Fprintf(w, "%d states, %d pending at start, wall %.1fs\n", s.Total, s.Pending, s.Wall.Seconds())
	for _, r := range runs {
		ms := s.Methods[r.Name]
		if ms == nil {
			continue
		}
		fmt.Fprintf(w, "%s -> %s: %d answered now, %d resumed", r.Name, r.Output, ms.Done, ms.Resumed)
		if ms.Fallbacks > 0 {
			fmt.Fprintf(w, ", %d fallbacks (rows flagged)", ms.Fallbacks)
		}
		if len(ms.LatencyMS) > 0 {
			fmt.Fprintf(w, "; latency per state (retrieval+selection) p50 %.1f ms, p95 %.1f ms",
				repobench.Percentile(ms.LatencyMS, 50), repobench.Percentile(ms.LatencyMS, 95))
		}
		fmt.Fprintln(w)
	}
	for _, f := range s.Failed {
		fmt.Fprintf(w, "FAILED %s (%d states pending at the start of the run): %s\n", f.Repo, f.States, f.Err)
	}
	if len(s.Builds) == 0 {
		return
	}
	// Per repository: first snapshot (a full build unless --index-dir held
	// one) and the moves after it, with the median move, by phase.
	type agg struct {
		n            int
		first, moves float64
		move         []float64
		phases       map[string]float64
	}
	byRepo := map[string]*agg{}
	var repos []string
	var total float64
	for _, b := range s.Builds {
		a := byRepo[b.Repo]
		if a == nil {
			a = &agg{phases: map[string]float64{}}
			byRepo[b.Repo] = a
			repos = append(repos, b.Repo)
		}
		a.n++
		total += b.Seconds
		if b.First {
			a.first += b.Seconds
		} else {
			a.moves += b.Seconds
			a.move = append(a.move, b.Seconds)
		}
		for k, v := range b.Phases {
			a.phases[k] += v
		}
	}
	sort.Strings(repos)
	fmt.Fprintf(w, "snapshots: %d in %.1fs\n", len(s.Builds), total)
	for _, r := range repos {
		a := byRepo[r]
		var ph []string
		for _, k := range sortedKeys(a.phases) {
			ph = append(ph, fmt.Sprintf("%s %.1fs", k, a.phases[k]))
		}
		median := ""
		if len(a.move) > 0 {
			median = fmt.Sprintf(", median %.2fs", repobench.Percentile(a.move, 50))
		}
		fmt.Fprintf(w, "  %s: %s, first %.1fs, %s %.1fs%s (%s)\n", r, render.Count(a.n, "commit", ""), a.first, render.Count(a.n-1, "move", ""), a.moves, median, strings.Join(ph, ", "))
	}
}

func sortedKeys(m map[string]float64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// orderModel is the candidate order a --order flag names: "" (nil: the
// default, retrieve.Options.Order), "fused" or "learned".
func orderModel(name string) (*retrieve.OrderModel, error) {
	m, _, err := orderFlag(name)
	return m, err
}

// orderFlag is the candidate order a --order flag names, and that order as
// a prediction's config records it: "default", "fused", "learned", or an
// order model's file by the digest of its bytes (its name may be another
// file's tomorrow), read once.
func orderFlag(name string) (*retrieve.OrderModel, string, error) {
	switch name {
	case "":
		return nil, "default", nil
	case "fused":
		return retrieve.Fused, name, nil
	case "learned":
		return retrieve.LearnedOrder, name, nil
	}
	if !strings.HasSuffix(name, ".json") {
		return nil, "", fmt.Errorf("--order %q: want fused, learned or an order model's file (FILE.json, as mss bench tune --fit-order --order-out writes)", name)
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, "", fmt.Errorf("--order: %w", err)
	}
	m, err := retrieve.ParseOrderModel(data)
	if err != nil {
		return nil, "", fmt.Errorf("--order %s: %w", name, err)
	}
	sum := sha256.Sum256(data)
	return m, "file:" + hex.EncodeToString(sum[:6]), nil
}

// orderHelp is the --order flag's help.
const orderHelp = "candidate order: learned, fused or an order model's file (FILE.json, from mss bench tune --fit-order --order-out) (default learned; fused when the embedding view is on; docs/measurements.md, the learned order)"

// repoCounts keeps the term counts of the repositories opened last, one
// for each worker, so that a repository's next commit counts only the
// units whose text changed; a repository no worker is on any more gives
// its counts up.
type repoCounts struct {
	mu   sync.Mutex
	keep int
	last []string // most recent last
	m    map[string]*retrieve.TermCounts
}

func newRepoCounts(keep int) *repoCounts {
	return &repoCounts{keep: max(keep, 1), m: map[string]*retrieve.TermCounts{}}
}

func (c *repoCounts) of(repo string) *retrieve.TermCounts {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.last = slices.DeleteFunc(c.last, func(r string) bool { return r == repo })
	c.last = append(c.last, repo)
	if c.m[repo] == nil {
		c.m[repo] = &retrieve.TermCounts{}
	}
	for len(c.last) > c.keep {
		delete(c.m, c.last[0])
		c.last = c.last[1:]
	}
	return c.m[repo]
}

// openSnapshot builds or moves the repository's index to commit and opens
// the pipeline over it; answers are checked against the commit's blobs.
// A commit's snapshot answers a few states and is left for the next
// commit, so its engine is built in memory: deriving and storing the
// retrieval structures (which opens answer the same from) would cost more.
func openSnapshot(ctx context.Context, db, gitDir, commit string, order *retrieve.OrderModel, counts *retrieve.TermCounts) (*repobench.Opened, error) {
	p, err := pipeline.Open(ctx, pipeline.Options{Repo: gitDir, Rev: commit, DB: db, NoDerive: true,
		Engine: retrieve.Options{GitDir: gitDir, Commit: commit, Order: order, Counts: counts}})
	if err != nil {
		return nil, err
	}
	ph := p.Phases()
	return &repobench.Opened{Snapshot: p, Phases: map[string]float64{"index": ph.Index, "engine": ph.Engine}}, nil
}

// batchGCPercent is the garbage collector's target in `bench repo`, which
// builds an engine at every commit and keeps little of it: collecting
// half as often made a run over dev-multilang about 12% faster, in wall
// and CPU time, for 30–50% more peak memory (docs/bench.md).
const batchGCPercent = 200

// indexGCPercent is the target in `mss index`, which keeps little of what
// it allocates either: a full index of xarray or tokio 10–15% faster at
// 200 than at 100, and of sqlalchemy or dubbo 3–8% faster again at 400,
// for 8–9% more peak memory (docs/index.md). indexMemoryLimit bounds the
// heap the higher target lets grow: near it the collector runs as often
// as it must.
const (
	indexGCPercent   = 400
	indexMemoryLimit = 768 << 20
)

// batchGC sets batchGCPercent unless GOGC is set, and returns what puts
// the setting back.
func batchGC() func() { return setGC(batchGCPercent, -1) }

// indexGC sets indexGCPercent and indexMemoryLimit, each unless GOGC or
// GOMEMLIMIT is set, and returns what puts them back.
func indexGC() func() { return setGC(indexGCPercent, indexMemoryLimit) }

// setGC sets the collector's target percent unless GOGC is set, and its
// memory limit (limit ≥ 0) unless GOMEMLIMIT is, and returns what puts
// them back.
func setGC(percent int, limit int64) func() {
	restore := func() {}
	if os.Getenv("GOGC") == "" {
		old := debug.SetGCPercent(percent)
		restore = func() { debug.SetGCPercent(old) }
	}
	if limit >= 0 && os.Getenv("GOMEMLIMIT") == "" {
		old := debug.SetMemoryLimit(limit)
		percentBack := restore
		restore = func() { debug.SetMemoryLimit(old); percentBack() }
	}
	return restore
}
