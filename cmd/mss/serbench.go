package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/missingcomplement/mss"
	_ "github.com/missingcomplement/mss/controller" // registers the embedded methods
	"github.com/missingcomplement/mss/internal/cliargs"
	"github.com/missingcomplement/mss/internal/safefile"
	"github.com/missingcomplement/mss/internal/serbench"
	"github.com/missingcomplement/mss/pipeline"
	"github.com/spf13/cobra"
)

func init() { addCommand(newSerbenchCmd()) }

// newSerbenchCmd builds the serbench command tree; tests build a fresh one
// per run so flag values never leak between runs.
func newSerbenchCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serbench",
		Short: "SERBench pool track: validate, score, compare and run predictions",
		Long: `The SERBench pool track: each state comes with a supplied candidate pool and
a certificate of the evidence its next decision still needs. These commands
check prediction files against the release contract, score them exactly as
the release's reference scorer does, compare two methods with a paired
repository-clustered bootstrap, and run an mss method over every state.
Files are JSON Lines, optionally gzip-compressed (.jsonl.gz).`,
	}
	cmd.AddCommand(newSerbenchValidateCmd(), newSerbenchScoreCmd(), newSerbenchCompareCmd(), newSerbenchRunCmd())
	return cmd
}

// serbenchInputs are the files the subcommands read.
type serbenchInputs struct {
	items, labels, predictions string
	partial                    bool
}

// load reads the named files and checks them against each other. Every
// problem is printed to w, one per line; the error only counts them.
func (in *serbenchInputs) load(w io.Writer) (*serbench.Items, *serbench.Labels, *serbench.Predictions, error) {
	var (
		items    *serbench.Items
		labels   *serbench.Labels
		preds    *serbench.Predictions
		problems serbench.Errors
	)
	collect := func(err error) error {
		var list serbench.Errors
		if errors.As(err, &list) {
			problems = append(problems, list...)
			return nil
		}
		return err
	}
	if in.items != "" {
		var err error
		if items, err = serbench.LoadItems(in.items); collect(err) != nil {
			return nil, nil, nil, err
		}
	}
	if in.labels != "" {
		var err error
		if labels, err = serbench.LoadLabels(in.labels); collect(err) != nil {
			return nil, nil, nil, err
		}
	}
	if in.predictions != "" {
		var err error
		if preds, err = serbench.LoadPredictions(in.predictions); collect(err) != nil {
			return nil, nil, nil, err
		}
	}
	problems = append(problems, serbench.Validate(items, labels, preds, serbench.Options{Partial: in.partial})...)
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(w, p)
		}
		return nil, nil, nil, fmt.Errorf("%d problem(s) found", len(problems))
	}
	return items, labels, preds, nil
}

func newSerbenchValidateCmd() *cobra.Command {
	var in serbenchInputs
	cmd := &cobra.Command{
		Use:   "validate --items F --predictions P [--labels L] [--partial]",
		Short: "Check predictions (and labels) against the items and the release contract",
		Long: `Check a predictions file, and optionally a labels file, against the items
file under every rule of the SERBench release contract: known states only;
evidence ids from that state's pool only; no id twice in a ranking; no
state/method pair twice; every method predicts every state (unless
--partial); labels well formed, for known states, naming pool units, with
observed ids equal to the item's and no required id already observed.
Every problem is printed as file:line: field: message; the exit status is
non-zero if there is any.`,
		Args: cliargs.None,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if in.predictions == "" && in.labels == "" {
				return fmt.Errorf("nothing to validate: give --predictions and/or --labels")
			}
			items, labels, preds, err := in.load(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			pool := 0
			for _, it := range items.Items {
				pool += len(it.Pool)
			}
			fmt.Fprintf(out, "ok: %d states, %d candidates", len(items.Items), pool)
			if labels != nil {
				fmt.Fprintf(out, ", %d labels", len(labels.Labels))
			}
			if preds != nil {
				counts := map[string]int{}
				for _, p := range preds.Predictions {
					counts[p.Method]++
				}
				var parts []string
				for _, m := range preds.Methods() {
					parts = append(parts, fmt.Sprintf("%s %d", m, counts[m]))
				}
				fmt.Fprintf(out, ", %d predictions (%s)", len(preds.Predictions), strings.Join(parts, ", "))
			}
			if in.partial {
				fmt.Fprint(out, ", partial coverage allowed")
			}
			fmt.Fprintln(out)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&in.items, "items", "", "items file (JSONL or JSONL.gz with candidate_evidence pools)")
	fl.StringVar(&in.predictions, "predictions", "", "predictions file (state_id, method, ranked_evidence_ids)")
	fl.StringVar(&in.labels, "labels", "", "labels file to check as well (flat or graded_labels rows)")
	fl.BoolVar(&in.partial, "partial", false, "allow a method to leave states without a prediction")
	cmd.MarkFlagRequired("items")
	return cmd
}

func newSerbenchScoreCmd() *cobra.Command {
	var (
		in       serbenchInputs
		ks       []int
		perState string
		asJSON   bool
	)
	cmd := &cobra.Command{
		Use:   "score --labels L --predictions P [--k 1,3,5,8] [--items F] [--per-state FILE] [--json]",
		Short: "Score predictions with the release's metrics, macro-averaged per method",
		Long: `Score every prediction against its certificate at each k and print, per
method, the mean over states of mss_complete, group_recall,
necessity_weighted_recall, role_coverage, group_ndcg and required_novelty,
with the reference scorer's semantics: the first k ids are taken as
returned (observed ids keep their slots; nothing is backfilled), distinct
acceptable ids count toward minimum_required, an alternative minimal set
completes a state, and group_ndcg divides by the certificate-aware ideal.
Inputs are validated first; with --items, pool membership is checked too.`,
		Args: cliargs.None,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, labels, preds, err := in.load(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			rows, summary, err := serbench.ScoreAll(labels, preds, ks)
			if err != nil {
				return err
			}
			if perState != "" {
				inputs := []serbenchInput{{"items", in.items}, {"labels", in.labels}, {"predictions", in.predictions}}
				if err := serbenchWriteAtomic(perState, inputs, serbenchStateScoresCheck, func(w io.Writer) error { return serbenchWriteStateScores(w, rows) }); err != nil {
					return err
				}
			}
			out := cmd.OutOrStdout()
			if asJSON {
				b, err := json.MarshalIndent(summary, "", "  ")
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(out, "%s\n", b)
				return err
			}
			return serbenchPrintSummary(out, summary, preds.Methods(), ks)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&in.labels, "labels", "", "labels file (certificates)")
	fl.StringVar(&in.predictions, "predictions", "", "predictions file")
	fl.StringVar(&in.items, "items", "", "items file; when given, predictions and labels are checked against the pools")
	fl.BoolVar(&in.partial, "partial", false, "allow a method to leave states without a prediction")
	fl.IntSliceVar(&ks, "k", []int{1, 3, 5, 8}, "cutoffs to score")
	fl.StringVar(&perState, "per-state", "", "write every state's scores to this JSONL file")
	fl.BoolVar(&asJSON, "json", false, `print {method: {metric@k: value, "states": n}} as JSON`)
	cmd.MarkFlagRequired("labels")
	cmd.MarkFlagRequired("predictions")
	return cmd
}

// serbenchPrintSummary prints one table per method: metrics down, cutoffs across.
func serbenchPrintSummary(w io.Writer, summary serbench.Summary, methods []string, ks []int) error {
	ks = append([]int(nil), ks...)
	sort.Ints(ks)
	for i, m := range methods {
		s := summary[m]
		if s == nil {
			continue
		}
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s (%d states)\n", m, int(s["states"]))
		fmt.Fprintf(w, "%-26s", "metric")
		var shown []int
		for j, k := range ks {
			if j > 0 && k == ks[j-1] || k <= 0 {
				continue
			}
			shown = append(shown, k)
			fmt.Fprintf(w, " %8s", fmt.Sprintf("@%d", k))
		}
		fmt.Fprintln(w)
		for _, name := range serbench.MetricNames {
			fmt.Fprintf(w, "%-26s", name)
			for _, k := range shown {
				fmt.Fprintf(w, " %8.4f", s[fmt.Sprintf("%s@%d", name, k)])
			}
			fmt.Fprintln(w)
		}
	}
	return nil
}

// serbenchWriteStateScores writes one JSON object per prediction, keys sorted, as
// the reference's per_state_scores.jsonl.
func serbenchWriteStateScores(w io.Writer, rows []serbench.StateScore) error {
	for _, r := range rows {
		obj := map[string]any{"state_id": r.StateID, "method": r.Method}
		for k, v := range r.Values {
			obj[k] = v
		}
		b, err := json.Marshal(obj)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "%s\n", b); err != nil {
			return err
		}
	}
	return nil
}

func newSerbenchCompareCmd() *cobra.Command {
	var (
		in     serbenchInputs
		opt    serbench.CompareOptions
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "compare --items F --labels L --predictions P --baseline M1 --method M2 [--k 5] [--metric mss_complete]",
		Short: "Paired, repository-clustered bootstrap of one method against another",
		Long: `Compare --method against --baseline on one metric at one k, state by
state: the mean difference (method minus baseline) with a 95% percentile
interval from a bootstrap that resamples repositories with replacement,
and the number of states won, tied and lost. Strata: all states; by number
of required groups (1, 2, >=3); by state_type; by whether the state's
observed evidence overlaps its pool (with/without). The same seed gives the
same intervals.`,
		Args: cliargs.None,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opt.Draws < 1 {
				return fmt.Errorf("--draws %d: want a positive number", opt.Draws)
			}
			items, labels, preds, err := in.load(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			strata, err := serbench.Compare(items, labels, preds, opt)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			metric := fmt.Sprintf("%s@%d", opt.Metric, opt.K)
			if asJSON {
				b, err := json.MarshalIndent(map[string]any{
					"baseline": opt.Baseline, "method": opt.Method, "metric": metric, "strata": strata,
				}, "", "  ")
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(out, "%s\n", b)
				return err
			}
			fmt.Fprintf(out, "%s: %s vs %s (baseline), %d draws over repositories, seed %d\n",
				metric, opt.Method, opt.Baseline, opt.Draws, opt.Seed)
			fmt.Fprintf(out, "%-34s %5s %9s %9s %9s  %-21s %s\n", "stratum", "n", "baseline", "method", "diff", "95% interval", "win/tie/loss")
			for _, s := range strata {
				if s.N == 0 {
					fmt.Fprintf(out, "%-34s %5d %9s %9s %9s  %-21s %s\n", s.Name, 0, "-", "-", "-", "-", "-")
					continue
				}
				fmt.Fprintf(out, "%-34s %5d %9.4f %9.4f %+9.4f  [%+.4f, %+.4f]  %d/%d/%d\n",
					s.Name, s.N, s.MeanA, s.MeanB, s.Diff, s.Lo, s.Hi, s.Wins, s.Ties, s.Losses)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&in.items, "items", "", "items file (repository and state_type of each state)")
	fl.StringVar(&in.labels, "labels", "", "labels file (certificates)")
	fl.StringVar(&in.predictions, "predictions", "", "predictions file holding both methods")
	fl.BoolVar(&in.partial, "partial", false, "allow states without a prediction (they are left out of the pairs)")
	fl.StringVar(&opt.Baseline, "baseline", "", "method A, the reference")
	fl.StringVar(&opt.Method, "method", "", "method B, compared against A")
	fl.StringVar(&opt.Metric, "metric", serbench.MSSComplete, "metric: "+strings.Join(serbench.MetricNames, ", "))
	fl.IntVar(&opt.K, "k", 5, "cutoff")
	fl.IntVar(&opt.Draws, "draws", 20000, "bootstrap resamples")
	fl.Int64Var(&opt.Seed, "seed", 1, "bootstrap seed")
	fl.BoolVar(&asJSON, "json", false, "print the strata as JSON")
	for _, f := range []string{"items", "labels", "predictions", "baseline", "method"} {
		cmd.MarkFlagRequired(f)
	}
	return cmd
}

func newSerbenchRunCmd() *cobra.Command {
	var (
		itemsFile, method, name, output string
		k, budget                       int
		skipObserved, allowFallback     bool
	)
	cmd := &cobra.Command{
		Use:   "run --items F --method NAME --output P [--k 8] [--budget 6144]",
		Short: "Run an mss method over every state's pool and write predictions",
		Long: `For every state of the items file, rank its candidate pool with the
embedded retrieval views (pipeline.PoolCandidates), ask the named method (see
"mss methods") for its answer of at most --k units within --budget source
tokens, and write one prediction row per state: the ids it returned, in
its order, with the method's configuration in "config". Method settings
come from the global --set key=value flags. Whether observed
units may be returned is the method's policy (complement skips them; the
bm25 and similarity baselines, like the release's, do not); with
--skip-observed they are withheld from every method.`,
		Args: cliargs.None,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// A name the rows could not carry is refused before any work.
			if name != "" {
				if err := serbench.CheckMethodName(name); err != nil {
					return fmt.Errorf("--name: %w", err)
				}
			}
			items, err := serbench.LoadItems(itemsFile)
			if err != nil {
				var list serbench.Errors
				if errors.As(err, &list) {
					for _, p := range list {
						fmt.Fprintln(cmd.ErrOrStderr(), p)
					}
					return fmt.Errorf("%d problem(s) in %s", len(list), itemsFile)
				}
				return err
			}
			ctrl, opts, err := prepareMethod(cmd.Context(), method)
			if err != nil {
				return err
			}
			// Refuse a path it may not replace before the run, not after.
			written := name
			if written == "" {
				written = ctrl.Name()
			}
			inputs := []serbenchInput{{"items", itemsFile}}
			check := serbenchPredictionsCheck(written)
			if err := serbenchCheckOutput(output, inputs, check); err != nil {
				return err
			}
			usage, err := newMethodUsage([]string{method})
			if err != nil {
				return err
			}
			preds, err := serbench.Run(cmd.Context(), items, ctrl, pipeline.PoolCandidates, serbench.RunOptions{
				Name: name, K: k, Budget: budget, Settings: recordedSettings(opts.Settings), SkipObserved: skipObserved,
				OnResult: func(res *mss.Result) { usage.add(method, res) },
			})
			if err != nil {
				return err
			}
			if n := usage.by[method].fallbacks; n > 0 && !allowFallback {
				usage.print(cmd.ErrOrStderr())
				return fmt.Errorf("%s fell back to its deterministic policy on %d of %d states; %s not written: check the endpoint (mss llm check), or pass --allow-fallback to write them, flagged in config.fallback", method, n, len(preds), output)
			}
			if err := serbenchWriteAtomic(output, inputs, check, func(w io.Writer) error { return serbench.WritePredictions(w, preds) }); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %d predictions of %s to %s\n", len(preds), preds[0].Method, output)
			usage.print(cmd.ErrOrStderr())
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&itemsFile, "items", "", "items file (JSONL or JSONL.gz)")
	fl.StringVar(&method, "method", "", "method to run (see mss methods)")
	fl.StringVar(&name, "name", "", "method name written to the predictions (default: the method's)")
	fl.StringVar(&output, "output", "", "predictions file to write")
	fl.IntVar(&k, "k", mss.DefaultMaxUnits, "most units per answer")
	fl.IntVar(&budget, "budget", mss.DefaultBudget, "source-token budget per answer")
	fl.BoolVar(&skipObserved, "skip-observed", false, "withhold candidates the state has observed, whatever the method's policy")
	fl.BoolVar(&allowFallback, "allow-fallback", false, "write predictions even when the model method fell back on some states (rows flagged in config.fallback)")
	for _, f := range []string{"items", "method", "output"} {
		cmd.MarkFlagRequired(f)
	}
	return cmd
}

// serbenchInput is a file a command reads, by its flag.
type serbenchInput struct{ flag, path string }

// serbenchWriteAtomic writes name through a temporary file in the same
// directory and renames it into place, so a failed run leaves no partial
// file; see serbenchCheckOutput for what it refuses to replace.
func serbenchWriteAtomic(name string, inputs []serbenchInput, check safefile.Check, write func(io.Writer) error) error {
	if err := serbenchCheckOutput(name, inputs, nil); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return safefile.Replace(name, b.Bytes(), check)
}

// serbenchCheckOutput returns nil when name may be written: it is none of
// inputs, the files the command reads (compared as files, so a link or
// another spelling of the path is caught), and it does not exist or check
// accepts it as an earlier output of the same kind (nil check: skipped).
func serbenchCheckOutput(name string, inputs []serbenchInput, check safefile.Check) error {
	if out, err := os.Stat(name); err == nil {
		for _, in := range inputs {
			if in.path == "" {
				continue
			}
			if fi, err := os.Stat(in.path); err == nil && os.SameFile(out, fi) {
				also := ""
				if in.path != name {
					also = " " + in.path
				}
				return fmt.Errorf("%s: the --%s file%s, which this command reads; refusing to replace it (choose another path)", name, in.flag, also)
			}
		}
	}
	if check == nil {
		return nil
	}
	return safefile.Writable(name, check)
}

// serbenchPredictionsCheck accepts an earlier "serbench run --output" of
// method: prediction records, every one of that method.
func serbenchPredictionsCheck(method string) safefile.Check {
	return func(data []byte) error {
		if err := safefile.JSONLines("state_id", "method", "ranked_evidence_ids")(data); err != nil {
			return err
		}
		for i, line := range bytes.Split(data, []byte("\n")) {
			var rec struct{ Method json.RawMessage }
			if json.Unmarshal(line, &rec) != nil {
				continue // a blank line: JSONLines checked the others
			}
			var m string
			if json.Unmarshal(rec.Method, &m) != nil || m != method {
				return fmt.Errorf("line %d: method %s, but this run writes %q; use another --output", i+1, rec.Method, method)
			}
		}
		return nil
	}
}

// serbenchStateScoresCheck accepts an earlier "serbench score --per-state"
// output: records of state_id, method and metric@k scores, nothing else.
func serbenchStateScoresCheck(data []byte) error {
	if err := safefile.JSONLines("state_id", "method")(data); err != nil {
		return err
	}
	for i, line := range bytes.Split(data, []byte("\n")) {
		var rec map[string]json.RawMessage
		if json.Unmarshal(line, &rec) != nil {
			continue // a blank line: JSONLines checked the others
		}
		keys := make([]string, 0, len(rec))
		for key := range rec {
			if key != "state_id" && key != "method" {
				keys = append(keys, key)
			}
		}
		if len(keys) == 0 {
			return fmt.Errorf("line %d holds no metric@k score, so not a file of per-state scores", i+1)
		}
		sort.Strings(keys)
		for _, key := range keys {
			metric, k, _ := strings.Cut(key, "@")
			if n, err := strconv.Atoi(k); err != nil || n <= 0 || !slices.Contains(serbench.MetricNames, metric) {
				return fmt.Errorf("line %d: %q is not a metric@k score, so not a file of per-state scores", i+1, key)
			}
		}
	}
	return nil
}
