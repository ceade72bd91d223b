package main

// Shared wiring for methods that take settings, model-calling ones in
// particular: the persistent --set key=value flag (repeatable), the
// --cache-only shortcut, and methodOptions, which every command that
// builds a method by name calls.

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/internal/cliargs"
	"github.com/missingcomplement/mss/llm"
	"github.com/missingcomplement/mss/semantic" // registers mss-complement, ssr, ...
	"github.com/spf13/cobra"
)

var (
	setFlags      []string
	cacheOnlyFlag bool
)

func init() {
	pf := rootCmd.PersistentFlags()
	pf.StringArrayVar(&setFlags, "set", nil,
		"method setting key=value (repeatable), e.g. --set propose.model=gpt-4.1 --set cache_dir=.mss-cache; API keys only from the environment")
	pf.BoolVar(&cacheOnlyFlag, "cache-only", false,
		"answer model calls from the response cache only (same as --set cache_only=true); a miss is an error")

	llmCmd := &cobra.Command{
		Use:   "llm",
		Short: "Model endpoints of the semantic methods",
	}
	llmCmd.AddCommand(&cobra.Command{
		Use:   "check",
		Short: "Send each stage's exact structured request to its endpoint and report what worked (keys are never printed)",
		Long: `Print what each stage of mss-complement will call (endpoint with any
userinfo masked, model, request settings, where its key comes from; never
the key), then send each stage the exact structured-output request it
sends in a run (its prompt and its JSON Schema with an enum of ids) over a
tiny candidate list, and report per stage: the response_format and request
shape that worked (token field, dropped fields), the refusals on the way,
the latency, and whether the reply validates against the schema. Exits
non-zero when a stage cannot produce a valid answer. A cache-only
configuration is checked without calls (the cache directory must exist).`,
		Args: cliargs.None,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts, err := methodOptions()
			if err != nil {
				return err
			}
			return runLLMCheck(cmd.Context(), cmd.OutOrStdout(), opts)
		},
	})
	addCommand(llmCmd)
}

// runLLMCheck is "mss llm check".
func runLLMCheck(ctx context.Context, w io.Writer, opts mss.MethodOptions) error {
	cfg, err := semantic.ParseConfig(opts)
	if err != nil {
		return err
	}
	fmt.Fprint(w, cfg.Summary())
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	if cfg.CacheOnly {
		if err := semantic.Preflight(ctx, opts); err != nil {
			return err
		}
		fmt.Fprintln(w, "cache-only: endpoints not called; the cache directory is there")
		return nil
	}
	checks, err := semantic.Check(ctx, opts)
	if err != nil {
		return err
	}
	fmt.Fprint(w, semantic.CheckReport(checks))
	var failed []string
	for _, c := range checks {
		if !c.Valid {
			failed = append(failed, c.Stage)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("llm check: no valid answer from stage %s", strings.Join(failed, ", "))
	}
	fmt.Fprintln(w, "ok")
	return nil
}

// methodOptions returns the method options given by --set and
// --cache-only. A malformed pair is an error, and so is a key given twice
// (by two --set, or by --set cache_only and --cache-only).
// Prices (price.<model>=in,out) are the runners' business, not a
// method's, and are left out.
func methodOptions() (mss.MethodOptions, error) {
	o, err := parseSettings(setFlags, cacheOnlyFlag)
	if err != nil {
		return o, err
	}
	for k := range o.Settings {
		if strings.HasPrefix(k, "price.") {
			delete(o.Settings, k)
		}
	}
	if len(o.Settings) == 0 {
		o.Settings = nil
	}
	return o, nil
}

func parseSettings(pairs []string, cacheOnly bool) (mss.MethodOptions, error) {
	s := map[string]string{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return mss.MethodOptions{}, fmt.Errorf("--set %q: want key=value", p)
		}
		if k == "api_key" || strings.HasSuffix(k, ".api_key") {
			// Do not echo the value: it is probably a key.
			return mss.MethodOptions{}, fmt.Errorf("--set %s=...: API keys are read from the environment only (MSS_LLM_API_KEY)", k)
		}
		if _, dup := s[k]; dup {
			// The values are not echoed: one may be a key.
			return mss.MethodOptions{}, fmt.Errorf("--set %s: given twice; give each setting once", k)
		}
		s[k] = v
	}
	if cacheOnly {
		if _, dup := s["cache_only"]; dup {
			return mss.MethodOptions{}, fmt.Errorf("--set cache_only: given with --cache-only, which sets it too; give it once")
		}
		s["cache_only"] = "true"
	}
	if len(s) == 0 {
		return mss.MethodOptions{}, nil
	}
	return mss.MethodOptions{Settings: s}, nil
}

// recordedSettings returns the settings that define a method's answers,
// each value as llm.RedactURL prints it: a URL's userinfo and credential
// query values masked, any other value as given.
func recordedSettings(s map[string]string) map[string]string {
	var out map[string]string
	for k, v := range s {
		if mss.OperationalSetting(k) {
			continue
		}
		v = llm.RedactURL(v)
		if out == nil {
			out = map[string]string{}
		}
		out[k] = v
	}
	return out
}

// prepareMethod builds the named method from the --set options and, for a
// method that calls models, checks its endpoints once before any work
// starts (unless the response cache alone will serve the run).
func prepareMethod(ctx context.Context, method string) (mss.Controller, mss.MethodOptions, error) {
	opts, err := methodOptions()
	if err != nil {
		return nil, opts, err
	}
	ctrl, err := mss.NewMethod(method, opts)
	if err != nil {
		return nil, opts, err
	}
	if semantic.UsesModel(method) {
		if err := semantic.Preflight(ctx, opts); err != nil {
			return nil, opts, err
		}
	}
	return ctrl, opts, nil
}

// warnFallback prints one line on stderr when the answer is a fallback's:
// the model method did not answer, and a reader of the output must know.
func warnFallback(w io.Writer, res *mss.Result) {
	if res == nil || res.Fallback == nil {
		return
	}
	fmt.Fprintf(w, "mss: warning: %s did not answer with its model: stage %s failed (%s); the units are the fallback's\n", res.Method, res.Fallback.Stage, res.Fallback.Reason)
}

// fallbackHeader is the first line of text output of a fallback answer.
func fallbackHeader(res *mss.Result) string {
	return fmt.Sprintf("── FALLBACK: %s stage %s failed; units from the fallback policy (%s)", res.Method, res.Fallback.Stage, res.Fallback.Reason)
}

// usageReport collects the model usage of a run's answers and prints the
// summary (calls, prompt, completion and reasoning tokens per stage,
// fallbacks) when any answer used a model, with estimated costs when
// prices are set (--set price.<model>=in,out). Safe for concurrent use.
type usageReport struct {
	mu        sync.Mutex
	usages    []*mss.Usage
	fallbacks int
	prices    map[string]semantic.Price
}

func (r *usageReport) add(res *mss.Result) {
	if res == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.usages = append(r.usages, res.Usage)
	if res.Fallback != nil {
		r.fallbacks++
	}
}

func (r *usageReport) print(w io.Writer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := semantic.SummarizeUsage(r.usages)
	if s.ModelStates == 0 {
		return
	}
	fmt.Fprint(w, s.String())
	fmt.Fprint(w, s.CostLines(r.prices))
}

// methodUsage is a usageReport per method of a run.
type methodUsage struct {
	order []string
	by    map[string]*usageReport
}

// flagPrices reads the price.<model>=in,out settings of the --set flags.
func flagPrices() (map[string]semantic.Price, error) {
	o, err := parseSettings(setFlags, false)
	if err != nil {
		return nil, err
	}
	return semantic.ParsePrices(o.Settings)
}

// newMethodUsage reads the prices from the --set flags.
func newMethodUsage(methods []string) (*methodUsage, error) {
	prices, err := flagPrices()
	if err != nil {
		return nil, err
	}
	m := &methodUsage{order: methods, by: map[string]*usageReport{}}
	for _, name := range methods {
		m.by[name] = &usageReport{prices: prices}
	}
	return m, nil
}

func (m *methodUsage) add(method string, res *mss.Result) {
	if r := m.by[method]; r != nil {
		r.add(res)
	}
}

// print writes, for every method that called a model, its fallback count
// and usage summary.
func (m *methodUsage) print(w io.Writer) {
	for _, name := range m.order {
		r := m.by[name]
		r.mu.Lock()
		n, fb := len(r.usages), r.fallbacks
		model := false
		for _, u := range r.usages {
			model = model || u != nil
		}
		r.mu.Unlock()
		if !model {
			continue
		}
		fmt.Fprintf(w, "== %s: %d answers, %d fallbacks\n", name, n, fb)
		r.print(w)
	}
}
