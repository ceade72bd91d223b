package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/internal/cliargs"
	"github.com/missingcomplement/mss/internal/repobench"
	"github.com/missingcomplement/mss/internal/safefile"
	"github.com/missingcomplement/mss/pipeline"
	"github.com/missingcomplement/mss/retrieve"
	"github.com/spf13/cobra"
)

func init() {
	benchCmd.AddCommand(newBenchTuneCmd())
}

// defaultTuneParams are the parameters mss bench tune fits and the grid of
// each: the complement policy's weights, then the fusion's view weights
// and rank constant.
var defaultTuneParams = []repobench.Param{
	{Setting: "coverage_weight", Grid: []float64{0, 0.25, 0.5, 1, 2}},
	{Setting: "companion_weight", Grid: []float64{0, 0.25, 0.5, 1, 2}},
	{Setting: "observed_companion", Grid: []float64{0, 0.5, 1, 2}},
	{Setting: "stop_relevance", Grid: []float64{0, 0.2, 0.35, 0.5, 0.7}},
	{Setting: "order_temperature", Grid: []float64{0, 1, 2, 4}},
	{Setting: "order_stop_relevance", Grid: []float64{0, 0.05, 0.1, 0.2, 0.35}},
	{Setting: "same_file_factor", Grid: []float64{0.6, 0.8, 1, 1.2}},
	{Setting: "pair_weight", Grid: []float64{0, 0.25, 0.5, 1}},
	{Setting: "twin_weight", Grid: []float64{0, 0.5, 1}},
	{Setting: "reach_weight", Grid: []float64{0, 0.5, 1, 2}},
	{Setting: "reach_share", Grid: []float64{0.025, 0.05, 0.1, 0.2, 0.4}},
	{Setting: "grow_rank", Grid: []float64{0, 20, 40, 80}, Shared: true},
	{Setting: "grow_class", Grid: []float64{0, 300, 600, 1000, 1500}, Shared: true},
	{View: "lexical", Grid: []float64{0.5, 1, 1.5, 2}},
	{View: "entity", Grid: []float64{0.7, 1, 1.4, 2, 3}},
	{View: "structural", Grid: []float64{0, 0.4, 0.8, 1.2}},
	{View: "recency", Grid: []float64{0, 0.3, 0.6, 1}},
	{View: "history", Grid: []float64{0, 0.4, 0.8}},
	{View: "semantic", Grid: []float64{0, 0.3, 0.6, 1}},
	{View: "k", Grid: []float64{10, 20, 40}},
}

// defaultTuneStart is where the fit starts: the shipped defaults.
var defaultTuneStart = repobench.Point{
	"coverage_weight": 0.5, "companion_weight": 0.5, "observed_companion": 1, "stop_relevance": 0.35, "same_file_factor": 1,
	"order_temperature": 2, "order_stop_relevance": 0.05,
	"pair_weight": 0.5, "twin_weight": 1, "reach_weight": 1, "reach_share": 0.05, "grow_rank": 0, "grow_class": 1500,
	"fusion.lexical": 1, "fusion.entity": 1.4, "fusion.structural": 0.8, "fusion.recency": 0.6,
	"fusion.history": 0.4, "fusion.semantic": 0.6, "fusion.k": 20,
}

// tuneParams gives the parameters of defaultTuneParams that names lists,
// in their fitting order (all of them for none).
func tuneParams(names []string) ([]repobench.Param, error) {
	if len(names) == 0 {
		return defaultTuneParams, nil
	}
	var out []repobench.Param
	known := make([]string, len(defaultTuneParams))
	for i, p := range defaultTuneParams {
		known[i] = p.Name()
		if slices.Contains(names, p.Name()) {
			out = append(out, p)
		}
	}
	for _, n := range names {
		if !slices.Contains(known, n) {
			return nil, fmt.Errorf("--params %q: not a parameter --fit fits (known: %s)", n, strings.Join(known, ", "))
		}
	}
	return out, nil
}

// variant is a method run under a label with its own settings, and the
// fusion its cached candidates are re-fused with (zero: as cached).
type variant struct {
	label, method string
	settings      map[string]string
	fusion        repobench.Fusion
}

// parseVariant reads "method", or "label=method:key=value;key=value".
func parseVariant(s string, global map[string]string) (variant, error) {
	v := variant{label: s, method: s, settings: map[string]string{}}
	for k, val := range global {
		v.settings[k] = val
	}
	if label, rest, ok := strings.Cut(s, "="); ok {
		method, sets, _ := strings.Cut(rest, ":")
		v.label, v.method = label, method
		v.settings = map[string]string{}
		for _, kv := range strings.Split(sets, ";") {
			if kv == "" {
				continue
			}
			k, val, ok := strings.Cut(kv, "=")
			if !ok {
				return v, fmt.Errorf("--replay %q: setting %q: want key=value", s, kv)
			}
			if _, dup := v.settings[k]; dup {
				return v, fmt.Errorf("--replay %q: setting %q given twice; give each setting once", s, k)
			}
			v.settings[k] = val
		}
	}
	fusion, err := repobench.FusionSettings(v.settings)
	if err != nil {
		return v, fmt.Errorf("--replay %q: %w", s, err)
	}
	v.fusion = fusion
	if _, err := mss.NewMethod(v.method, mss.MethodOptions{Settings: v.settings}); err != nil {
		return v, fmt.Errorf("--replay %q: %w", s, err)
	}
	return v, nil
}

// parseVariants reads the --replay specs. A label may name one of them
// only: two would print rows of the same name, and the second's
// predictions would replace the first's --output.
func parseVariants(specs []string, global map[string]string) ([]variant, error) {
	var out []variant
	seen := map[string]string{}
	for _, s := range specs {
		v, err := parseVariant(s, global)
		if err != nil {
			return nil, err
		}
		if prev, dup := seen[v.label]; dup {
			return nil, fmt.Errorf("--replay: label %q given twice (%q, %q); give each replayed method a label of its own (label=method:key=value;...)", v.label, prev, s)
		}
		seen[v.label] = s
		out = append(out, v)
	}
	return out, nil
}

func newBenchTuneCmd() *cobra.Command {
	var (
		f                      trackFiles
		cache, indexDir        string
		replay                 []string
		output                 string
		fit, fitOrder          bool
		folds, workers, rounds int
		candidates, maxUnits   int
		method, control        string
		concurrency            int
		order                  string
		variant                string
		orderLoss              string
		orderTrees             int
		orderOut               string
		params                 []string
		fitBudgets             []int
	)
	cmd := &cobra.Command{
		Use:   "tune",
		Short: "Cache candidates once, replay selection from the cache, fit weights with repository-level cross-validation",
		Long: `Retrieve every state's candidates once into --cache (candidates with their
per-view ranks, raw view scores and prior, and the units of their files);
a state already in the cache is not retrieved again. Then, from the cache
alone:

--replay m1,m2 answers every state with each method exactly as a benchmark
run would from the same candidates, writes the predictions to --output
(with {method}), scores them as score.py does and prints where the misses
come from: pool recall (the share of states whose first 20/80/200
candidates hold every required group) and the share of states lost to
retrieval versus to selection. "label=method:key=value;key=value" runs a
method under a label with its own settings; fusion.<view>=w and fusion.k=k
among them re-fuse the cached candidates with those weights, as --fit
does (the values --fit prints replay as they were measured).

--fit fits the policy's and the fusion's weights by coordinate ascent
(deterministic: a fixed order of parameters, a fixed grid, ties keep the
earlier value) on mean complete@5 (+0.1 x complete@8), with
repository-level cross-validation: each fold leaves whole repositories out,
is fitted on the others and measured on itself against the control at the
same fusion. Then it fits on every state and prints the values. --params
fits only the parameters it names, the others held at the shipped values;
--fit-budgets takes the objective over the answers cut to each budget it
names, as score.py --budget cuts them, rather than at --budget alone.`,
		Args: cliargs.None,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			out := cmd.OutOrStdout()
			if f.labels == "" && (fit || len(replay) > 0) {
				return fmt.Errorf("--labels is required with --fit and --replay")
			}
			if len(params) > 0 && !fit {
				return fmt.Errorf("--params goes with --fit")
			}
			if len(fitBudgets) > 0 && !fit {
				return fmt.Errorf("--fit-budgets goes with --fit")
			}
			for _, b := range fitBudgets {
				if b <= 0 || b > f.budget {
					return fmt.Errorf("--fit-budgets %d: want a budget from 1 to --budget (%d)", b, f.budget)
				}
			}
			tp, err := tuneParams(params)
			if err != nil {
				return err
			}
			if !slices.Contains(repobench.OrderLosses, orderLoss) {
				return fmt.Errorf("--order-loss %q: want one of %s", orderLoss, strings.Join(repobench.OrderLosses, ", "))
			}
			if cmd.Flags().Changed("order-loss") && !fitOrder {
				return fmt.Errorf("--order-loss goes with --fit-order")
			}
			if cmd.Flags().Changed("order-trees") {
				switch {
				case !fitOrder:
					return fmt.Errorf("--order-trees goes with --fit-order")
				case orderTrees < 0:
					return fmt.Errorf("--order-trees %d: want 0 or more", orderTrees)
				}
			}
			if orderOut != "" {
				if !fitOrder {
					return fmt.Errorf("--order-out goes with --fit-order")
				}
				if !strings.HasSuffix(orderOut, ".json") {
					return fmt.Errorf("--order-out %s: want a FILE.json (what --order reads)", orderOut)
				}
				if err := safefile.Writable(orderOut, orderFileCheck); err != nil {
					return fmt.Errorf("--order-out: %w", err)
				}
			}
			if variant != "" && !fitOrder {
				return fmt.Errorf("--variant goes with --fit-order")
			}
			if output != "" && fitOrder && !strings.Contains(output, "{method}") {
				return fmt.Errorf("--output %s: with --fit-order it must contain {method} (a file per method and order)", output)
			}
			if output != "" && len(replay) == 0 && !fitOrder {
				return fmt.Errorf("--output goes with --replay or --fit-order")
			}
			if output != "" && len(replay) > 1 && !strings.Contains(output, "{method}") {
				return fmt.Errorf("--output %s: with several methods it must contain {method}", output)
			}
			mopts, err := methodOptions()
			if err != nil {
				return err
			}
			variants, err := parseVariants(replay, mopts.Settings)
			if err != nil {
				return err
			}
			// Refuse an --output it may not replace before the work, not
			// after.
			if output != "" {
				var labels []string
				for _, v := range variants {
					labels = append(labels, v.label)
				}
				if fitOrder {
					for _, m := range slices.Compact([]string{method, control}) {
						labels = append(labels, m+"-learned", m+"-fused")
					}
				}
				seen := map[string]bool{}
				for _, label := range labels {
					// A replayed label named as a fitted order's file
					// would have its predictions replaced by the fit's.
					if seen[label] {
						return fmt.Errorf("--output %s: --replay and --fit-order both write %s; give the replayed method another label", output, strings.ReplaceAll(output, "{method}", label))
					}
					seen[label] = true
					if err := safefile.Writable(strings.ReplaceAll(output, "{method}", label), repobench.ReplayedCheck(label)); err != nil {
						return fmt.Errorf("--output: %w", err)
					}
				}
			}
			for _, c := range []struct {
				flag     string
				val, min int
				want     string
			}{
				{"--max-units", maxUnits, 1, "a positive number"}, {"--candidates", candidates, 0, "0 (the default) or more"},
				{"--concurrency", concurrency, 1, "a positive number"}, {"--folds", folds, 2, "2 or more (each fold is measured after fitting on the others)"},
				{"--workers", workers, 1, "a positive number"}, {"--rounds", rounds, 1, "a positive number"},
			} {
				if c.val < c.min {
					return fmt.Errorf("%s %d: want %s", c.flag, c.val, c.want)
				}
			}
			l, err := f.load()
			if err != nil {
				return err
			}
			defer l.Source.Close()
			// Each fold holds whole repositories: more folds than
			// repositories would fit a fold on no states.
			var fs [][]*mss.State
			if fit || fitOrder {
				fs = repobench.Folds(l.States, folds)
				switch {
				case len(fs) < 2:
					return fmt.Errorf("--folds %d: the states hold %d repository; folds are whole repositories, so cross-validation needs 2 or more", folds, len(fs))
				case len(fs) < folds:
					return fmt.Errorf("--folds %d: the states hold %d repositories, and each fold needs one of its own; use --folds %d or fewer", folds, len(fs), len(fs))
				}
			}
			om, label, err := orderFlag(order)
			if err != nil {
				return err
			}
			if err := buildCache(ctx, cmd.ErrOrStderr(), &f, l, cache, indexDir, candidates, maxUnits, concurrency); err != nil {
				return err
			}
			c, err := repobench.LoadCache(cache)
			if err != nil {
				return err
			}
			rp := &repobench.Replay{Cache: c, Budget: f.budget, MaxUnits: maxUnits, Order: om, Files: l.Source,
				Settings: repobench.RunConfig(f.budget, maxUnits, candidates, label)}
			sc := f.scorer(l.Source)
			if len(variants) > 0 {
				if err := runReplay(ctx, out, l, rp, sc, variants, output); err != nil {
					return err
				}
			}
			if !fit && !fitOrder {
				return nil
			}
			t := &repobench.Tuner{Method: method, Base: mopts.Settings, Params: tp, Replay: rp,
				Scorer: &repobench.Scorer{Source: l.Source, Ks: []int{5, 8}, Budget: f.budget}, Labels: l.Labels,
				Workers: workers, MaxRounds: rounds, OrderLoss: orderLoss, OrderTrees: orderTrees, Cuts: fitBudgets,
				Log: func(s string) { fmt.Fprintln(cmd.ErrOrStderr(), s) }}
			if fitOrder {
				return fitOrderCmd(ctx, out, t, l.States, fs, []string{method, control}, variant, output, orderOut)
			}
			res, err := t.CrossValidate(ctx, fs, defaultTuneStart, control)
			if err != nil {
				return err
			}
			writeFolds(out, res, method, control)
			all, obj, err := t.Fit(ctx, l.States, defaultTuneStart)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "fitted on all %d states (objective %.4f): %s\n", len(l.States), obj, all)
			return nil
		},
	}
	f.register(cmd, false)
	fl := cmd.Flags()
	fl.StringVar(&cache, "cache", "", "candidate cache file (JSONL); built or completed first")
	fl.StringVar(&indexDir, "index-dir", "", "directory for the per-repository index databases while building the cache (default: a temporary directory, removed)")
	fl.IntVar(&candidates, "candidates", 0, "candidates cached per state (0: the engine's default)")
	fl.IntVar(&concurrency, "concurrency", 1, "repositories retrieved at once while building the cache")
	fl.IntVar(&maxUnits, "max-units", mss.DefaultMaxUnits, "most units per answer")
	fl.StringSliceVar(&replay, "replay", nil, "methods to answer from the cache and score (label=method:key=value;... for variants)")
	fl.StringVar(&output, "output", "", "with --replay: predictions file per method, containing {method}; with --fit-order: the held-out answers of the folds, {method} becoming <method>-learned and <method>-fused")
	fl.BoolVar(&fit, "fit", false, "fit weights with repository-level cross-validation")
	fl.BoolVar(&fitOrder, "fit-order", false, "fit the learned candidate order with repository-level cross-validation")
	fl.IntVar(&orderTrees, "order-trees", len(retrieve.LearnedOrder.Trees), "with --fit-order: regression trees boosted on the linear order, on the same loss (depth 3, each shrunk by 0.1; 0: the linear order alone)")
	fl.StringVar(&orderOut, "order-out", "", "with --fit-order: also write the model fitted on every state to this FILE.json, which --order FILE.json reads (in bench repo, bench tune, recover and serve)")
	fl.StringVar(&orderLoss, "order-loss", repobench.OrderLossGroups, "with --fit-order: the loss the order is fitted on, groups (each required group of a state ranked near its top, as the shipped order was fitted) or samples (each candidate's logistic loss)")
	fl.StringVar(&variant, "variant", "", "with --fit-order: states whose ids end in this are a second version of the others (the same instance, other text); also fit on each version apart and measure on each")
	fl.StringVar(&order, "order", "", "with --replay and --fit: candidate order, learned (the default), fused or an order model's file (FILE.json; see --fit-order)")
	fl.StringVar(&method, "method", "complement", "method whose settings are fitted")
	fl.StringVar(&control, "control", "rrf-grow", "control measured on each held-out fold at the fitted fusion")
	fl.IntVar(&folds, "folds", 5, "cross-validation folds (whole repositories each)")
	fl.IntVar(&workers, "workers", 1, "states answered at once while fitting")
	fl.IntVar(&rounds, "rounds", 2, "most rounds of coordinate ascent")
	fl.IntSliceVar(&fitBudgets, "fit-budgets", nil, "with --fit: take the objective as the mean over the answers cut to each of these budgets (e.g. 2048,4096,6144; default: --budget alone)")
	fl.StringSliceVar(&params, "params", nil, "with --fit: the parameters fitted, comma-separated (default: all; those not named stay at the shipped values)")
	cmd.MarkFlagRequired("cache")
	return cmd
}

// buildCache retrieves the candidates of every state the cache lacks.
func buildCache(ctx context.Context, stderr io.Writer, f *trackFiles, l *repobench.Track, cache, indexDir string, candidates, maxUnits, conc int) error {
	cw, err := repobench.CreateCache(cache)
	if err != nil {
		return err
	}
	var todo []*mss.State
	for _, s := range l.States {
		if !cw.Done(s.StateID) {
			todo = append(todo, s)
		}
	}
	if len(todo) == 0 {
		return cw.Close()
	}
	fmt.Fprintf(stderr, "%s: retrieving candidates of %d states\n", cache, len(todo))
	if indexDir == "" {
		if indexDir, err = os.MkdirTemp("", "mss-bench-index-"); err != nil {
			cw.Close()
			return err
		}
		defer os.RemoveAll(indexDir)
	} else if err := os.MkdirAll(indexDir, 0o755); err != nil {
		cw.Close()
		return err
	}
	// One run per repository, so a repository that cannot be indexed
	// leaves its states out of the cache (they score as missing) and the
	// others are still cached. The run's own predictions (the fused order)
	// go beside the cache.
	preds := cache + ".rrf.jsonl"
	byRepo := map[string][]*mss.State{}
	var repos []string
	for _, s := range todo {
		k := strings.ToLower(s.Repo)
		if byRepo[k] == nil {
			repos = append(repos, k)
		}
		byRepo[k] = append(byRepo[k], s)
	}
	var (
		failed []string
		mu     sync.Mutex
		wg     sync.WaitGroup
	)
	if candidates <= 0 {
		candidates = retrieve.DefaultCandidates
	}
	lim := pipeline.Limits{Budget: f.budget, MaxUnits: maxUnits, MinUnits: min(mss.DefaultMinUnits, maxUnits), Candidates: candidates}
	queue := make(chan string)
	for range max(conc, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range queue {
				out := preds + "." + strings.ReplaceAll(r, "/", "+")
				os.Remove(out)
				counts := &retrieve.TermCounts{}
				_, err := repobench.Run(ctx, repobench.RunOptions{
					States: byRepo[r], Source: l.Source, Limits: lim,
					Methods: []repobench.MethodRun{{Name: "rrf", Output: out,
						New: func() (mss.Controller, error) { return mss.NewMethod("rrf", mss.MethodOptions{}) }}},
					Open: func(ctx context.Context, repo, gitDir, commit string) (*repobench.Opened, error) {
						op, err := openSnapshot(ctx, filepath.Join(indexDir, strings.ReplaceAll(repo, "/", "+")+".db"), gitDir, commit, nil, counts)
						if err != nil {
							return nil, err
						}
						op.Snapshot = &repobench.CachingSnapshot{Snapshot: op.Snapshot, Cache: cw}
						return op, nil
					},
					Notice: func(s string) { fmt.Fprintln(stderr, s) },
				})
				os.Remove(out)
				if err != nil {
					mu.Lock()
					failed = append(failed, r)
					fmt.Fprintf(stderr, "%s: not cached: %v\n", r, err)
					mu.Unlock()
				}
			}
		}()
	}
	// Repositories with the most states first, so workers finish together.
	sort.SliceStable(repos, func(a, b int) bool { return len(byRepo[repos[a]]) > len(byRepo[repos[b]]) })
	for _, r := range repos {
		queue <- r
	}
	close(queue)
	wg.Wait()
	if ctx.Err() != nil {
		cw.Close()
		return ctx.Err()
	}
	sort.Strings(failed)
	if err := cw.Close(); err != nil {
		return err
	}
	if len(failed) > 0 {
		fmt.Fprintf(stderr, "%s: %d repositories could not be cached (%s); their uncached states score as missing\n", cache, len(failed), strings.Join(failed, ", "))
	}
	return nil
}

// runReplay answers, writes, scores and diagnoses each replayed method.
func runReplay(ctx context.Context, out io.Writer, l *repobench.Track, rp *repobench.Replay, sc *repobench.Scorer, variants []variant, output string) error {
	var scores []*repobench.MethodScore
	diag := map[string]repobench.Diagnosis{}
	for _, v := range variants {
		ctl, err := mss.NewMethod(v.method, mss.MethodOptions{Settings: v.settings})
		if err != nil {
			return err
		}
		vrp := *rp
		vrp.Fusion = v.fusion
		preds, err := vrp.Answer(ctx, l.States, v.label, ctl)
		if err != nil {
			return err
		}
		if output != "" {
			path := strings.ReplaceAll(output, "{method}", v.label)
			if err := writePredictions(path, v.label, l.States, preds); err != nil {
				return err
			}
		}
		ms, err := sc.ScoreMethod(v.label, l.States, l.Labels, preds)
		if err != nil {
			return err
		}
		scores = append(scores, ms)
		if diag[v.label], err = diagnose(sc, l, ms, preds, rp.Cache); err != nil {
			return err
		}
	}
	if err := repobench.WriteText(out, scores); err != nil {
		return err
	}
	writeDiagnosis(out, scores, diag)
	return nil
}

// jsonLine is a record as one JSON line.
func jsonLine(v any) (string, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return string(data) + "\n", nil
}

// writePredictions writes the predictions of method (a replay's label) in
// states-file order, to a new file or over an earlier replay's output of
// that method (repobench.ReplayedCheck), never over another file.
func writePredictions(path, method string, states []*mss.State, preds map[string]*repobench.Prediction) error {
	var b strings.Builder
	for _, s := range states {
		p := preds[s.StateID]
		if p == nil {
			continue
		}
		line, err := jsonLine(p)
		if err != nil {
			return err
		}
		b.WriteString(line)
	}
	return safefile.Replace(path, []byte(b.String()), repobench.ReplayedCheck(method))
}

// writeDiagnosis prints pool recall and where each method's misses come from.
func writeDiagnosis(w io.Writer, scores []*repobench.MethodScore, diag map[string]repobench.Diagnosis) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	var head []string
	for _, d := range repobench.PoolDepths {
		head = append(head, "pool@"+strconv.Itoa(d))
	}
	fmt.Fprintf(tw, "method\t%s\tC@5\tlost to retrieval\tlost to what was read\tlost to selection\n", strings.Join(head, "\t"))
	for _, ms := range scores {
		d := diag[ms.Method]
		var cols []string
		for _, depth := range repobench.PoolDepths {
			cols = append(cols, fmt.Sprintf("%.1f", 100*d.PoolRecall[depth]))
		}
		fmt.Fprintf(tw, "%s\t%s\t%.1f\t%.1f\t%.1f\t%.1f\n", ms.Method, strings.Join(cols, "\t"), 100*d.Complete, 100*d.LostRetrieval, 100*d.LostRead, 100*d.LostSelection)
	}
	tw.Flush()
	// The groups the missed states leave uncovered, and what their
	// answers' units hold, as shares of them.
	writeShares(w, "groups missed at C@5, by how near the method came (% of the groups missed):",
		[]string{"groups missed", "offered, file shown", "offered, file not shown", "offered only as read", "not offered, file shown", "not offered, file offered", "file not offered"},
		scores, func(d repobench.Diagnosis) (int, []int) {
			m := d.Missed
			return m.Groups, []int{m.OfferedShown, m.OfferedElsewhere, m.Read, m.FileShown, m.FileOffered, m.FileAbsent}
		}, diag)
	writeShares(w, "units of the missed answers at C@5, by what each adds to the units before it (% of the units):",
		[]string{"units", "a group not yet covered", "only groups covered before", "no group"},
		scores, func(d repobench.Diagnosis) (int, []int) {
			s := d.Slots
			return s.Units, []int{s.New, s.Repeat, s.None}
		}, diag)
}

// writeShares prints, under title, a table of each method's count and the
// parts of it as percentages ("-" for a count of 0); head names the count
// and the parts.
func writeShares(w io.Writer, title string, head []string, scores []*repobench.MethodScore, row func(repobench.Diagnosis) (int, []int), diag map[string]repobench.Diagnosis) {
	fmt.Fprintln(w, title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "method\t%s\n", strings.Join(head, "\t"))
	for _, ms := range scores {
		total, parts := row(diag[ms.Method])
		fmt.Fprintf(tw, "%s\t%d", ms.Method, total)
		for _, n := range parts {
			share := "-"
			if total > 0 {
				share = fmt.Sprintf("%.1f", 100*float64(n)/float64(total))
			}
			fmt.Fprintf(tw, "\t%s", share)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// fitOrderCmd cross-validates the order model by repository, replaying
// methods on each held-out fold in the fused and the fitted order, then
// fits it on every state and prints it as Go.
func fitOrderCmd(ctx context.Context, w io.Writer, t *repobench.Tuner, states []*mss.State, folds [][]*mss.State, methods []string, variant, output, orderOut string) error {
	res, err := t.CrossValidateOrder(ctx, folds, methods)
	if err != nil {
		return err
	}
	if output != "" {
		if err := writeHeldOut(output, states, res, methods); err != nil {
			return err
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "fold\tstates\trepositories")
	for _, m := range methods {
		fmt.Fprintf(tw, "\t%s fused\tlearned\tfused 2+\tlearned 2+", m)
	}
	fmt.Fprintln(tw)
	var mean foldMeans
	for _, r := range res {
		fmt.Fprintf(tw, "%d\t%d\t%s", r.Fold, r.States, strings.Join(r.Repos, " "))
		var v []float64
		for _, m := range methods {
			v = append(v, r.Fused[m], r.Learned[m], r.Fused2[m], r.Learned2[m])
		}
		mean.add(v)
		percentCells(tw, v)
		fmt.Fprintln(tw)
	}
	if len(res) > 0 {
		fmt.Fprint(tw, "mean\t\t")
		percentCells(tw, mean.means())
		fmt.Fprintln(tw)
	}
	tw.Flush()
	if variant != "" {
		if err := writeVariantFolds(ctx, w, t, folds, methods, variant); err != nil {
			return err
		}
	}
	m := t.FitOrder(t.OrderSamples(states))
	if orderOut != "" {
		data, err := m.MarshalOrder()
		if err != nil {
			return err
		}
		if err := safefile.Replace(orderOut, data, orderFileCheck); err != nil {
			return fmt.Errorf("--order-out: %w", err)
		}
	}
	fmt.Fprintf(w, "fitted on all %d states:\n", len(states))
	fmt.Fprintf(w, "var LearnedOrder = &OrderModel{Bias: %s, Weights: []float64{\n", strconv.FormatFloat(m.Bias, 'g', 6, 64))
	for i, name := range retrieve.OrderFeatures {
		fmt.Fprintf(w, "\t%s, // %s\n", strconv.FormatFloat(m.Weights[i], 'g', 6, 64), name)
	}
	if len(m.Trees) == 0 {
		fmt.Fprintln(w, "}}")
		return nil
	}
	fmt.Fprintln(w, "}, Trees: []OrderTree{")
	fmt.Fprintln(w, "\t// each node {Feature, Threshold, Left, Right, Value}; a leaf's Left is -1")
	for _, tr := range m.Trees {
		nodes := make([]string, len(tr.Nodes))
		for k, nd := range tr.Nodes {
			nodes[k] = fmt.Sprintf("{%d, %s, %d, %d, %s}", nd.Feature, strconv.FormatFloat(nd.Threshold, 'g', -1, 64),
				nd.Left, nd.Right, strconv.FormatFloat(nd.Value, 'g', 6, 64))
		}
		fmt.Fprintf(w, "\t{Nodes: []OrderNode{%s}},\n", strings.Join(nodes, ", "))
	}
	fmt.Fprintln(w, "}}")
	return nil
}

// writeHeldOut writes each method's held-out answers of the
// cross-validation to output, a file per method and order: the method
// named "<method>-learned" (in the order fitted without the state's
// repositories) and "<method>-fused", so that score.py scores the folds.
func writeHeldOut(output string, states []*mss.State, res []repobench.OrderFold, methods []string) error {
	for _, m := range slices.Compact(slices.Clone(methods)) {
		for _, order := range []string{"learned", "fused"} {
			label := m + "-" + order
			preds := map[string]*repobench.Prediction{}
			for _, r := range res {
				for _, p := range r.Predictions[m][order] {
					c := *p
					c.Method = label
					preds[c.StateID] = &c
				}
			}
			if err := writePredictions(strings.ReplaceAll(output, "{method}", label), label, states, preds); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeVariantFolds prints, per fold and on average, each method's
// held-out complete@5 on base and variant states in the orders fitted on
// the base states, the variant states and both.
func writeVariantFolds(ctx context.Context, w io.Writer, t *repobench.Tuner, folds [][]*mss.State, methods []string, suffix string) error {
	res, err := t.CrossValidateVariant(ctx, folds, methods, suffix)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "held-out C@5 by what the order was fitted on (variant: state ids ending in %q)\n", suffix)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "fold\tfitted on")
	for _, m := range methods {
		fmt.Fprintf(tw, "\t%s base\t%s variant", m, m)
	}
	fmt.Fprintln(tw)
	mean := map[string][]float64{}
	for _, sub := range repobench.VariantSubsets {
		mean[sub] = make([]float64, 2*len(methods))
	}
	for _, r := range res {
		for _, sub := range repobench.VariantSubsets {
			fmt.Fprintf(tw, "%d\t%s", r.Fold, sub)
			for k, m := range methods {
				b, v := r.Base[sub][m], r.Variant[sub][m]
				fmt.Fprintf(tw, "\t%.1f\t%.1f", 100*b, 100*v)
				mean[sub][2*k] += b / float64(len(res))
				mean[sub][2*k+1] += v / float64(len(res))
			}
			fmt.Fprintln(tw)
		}
	}
	for _, sub := range repobench.VariantSubsets {
		fmt.Fprintf(tw, "mean\t%s", sub)
		for _, x := range mean[sub] {
			fmt.Fprintf(tw, "\t%.1f", 100*x)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

func writeFolds(w io.Writer, res []repobench.FoldResult, method, control string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "fold\tstates\trepositories\t%s start C@5\tfitted C@5\t%s C@5\tstart C@5 2+\tfitted C@5 2+\t%s C@5 2+\n", method, control, control)
	var mean foldMeans
	row := func(head string, v []float64) {
		fmt.Fprint(tw, head)
		percentCells(tw, v)
		fmt.Fprintln(tw)
	}
	for _, r := range res {
		v := []float64{r.Start, r.Tuned, r.Control, r.Start2, r.Tuned2, r.Control2}
		mean.add(v)
		row(fmt.Sprintf("%d\t%d\t%s", r.Fold, r.States, strings.Join(r.Repos, " ")), v)
	}
	if len(res) > 0 {
		row("mean\t\t", mean.means())
	}
	tw.Flush()
	for _, r := range res {
		fmt.Fprintf(w, "fold %d fitted on the other folds (objective %.4f): %s\n", r.Fold, r.TrainObjective, r.Fitted)
	}
}

// foldMeans averages the folds' figures column by column, each over the
// folds that have it: a fold with no state of two or more groups has no
// figure for them (NaN), and counting it as 0 would pull the mean down.
type foldMeans struct {
	sum []float64
	n   []int
}

func (f *foldMeans) add(v []float64) {
	for len(f.sum) < len(v) {
		f.sum, f.n = append(f.sum, 0), append(f.n, 0)
	}
	for i, x := range v {
		if !math.IsNaN(x) {
			f.sum[i] += x
			f.n[i]++
		}
	}
}

// means are the columns' means, NaN for a column no fold has.
func (f *foldMeans) means() []float64 {
	out := make([]float64, len(f.sum))
	for i := range out {
		out[i] = math.NaN()
		if f.n[i] > 0 {
			out[i] = f.sum[i] / float64(f.n[i])
		}
	}
	return out
}

// orderFileCheck accepts an empty file or an order model's file (any
// features): what --order-out may replace.
func orderFileCheck(existing []byte) error {
	if len(bytes.TrimSpace(existing)) == 0 {
		return nil
	}
	var f struct {
		Format string `json:"format"`
	}
	if json.Unmarshal(existing, &f) != nil || f.Format != retrieve.OrderFormat {
		return fmt.Errorf("not an order model's file (no \"format\": %q), so not a file this command writes", retrieve.OrderFormat)
	}
	return nil
}
