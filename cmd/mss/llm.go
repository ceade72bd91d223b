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
	"time"

	"github.com/missingcomplement/mss"
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
		Short: "Print each stage's endpoint and model and check that it answers (keys are never printed)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts, err := methodOptions()
			if err != nil {
				return err
			}
			cfg, err := semantic.ParseConfig(opts)
			if err != nil {
				return err
			}
			fmt.Fprint(cmd.OutOrStdout(), cfg.Summary())
			ctx, cancel := context.WithTimeout(cmd.Context(), time.Minute)
			defer cancel()
			if err := semantic.Preflight(ctx, opts); err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), "ok")
			return nil
		},
	})
	addCommand(llmCmd)
}

// methodOptions returns the method options given by --set and
// --cache-only. Later --set of a key wins; a malformed pair is an error.
func methodOptions() (mss.MethodOptions, error) {
	return parseSettings(setFlags, cacheOnlyFlag)
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
		s[k] = v
	}
	if cacheOnly {
		s["cache_only"] = "true"
	}
	if len(s) == 0 {
		return mss.MethodOptions{}, nil
	}
	return mss.MethodOptions{Settings: s}, nil
}

// operationalSettings change how a run is carried out (where responses are
// cached, whether the network may be used, how many calls run at once) but
// not what any method answers, so they are left out of the configuration
// recorded with predictions: a replay from the cache then writes the same
// bytes as the run that filled it.
var operationalSettings = map[string]bool{"cache_dir": true, "cache_only": true, "concurrency": true}

// recordedSettings returns the settings that define a method's answers.
func recordedSettings(s map[string]string) map[string]string {
	var out map[string]string
	for k, v := range s {
		if operationalSettings[k] {
			continue
		}
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

// usageReport collects the model usage of a run's answers and prints the
// summary (calls, tokens per stage, fallbacks) when any answer used a model.
type usageReport struct{ usages []*mss.Usage }

func (r *usageReport) add(res *mss.Result) {
	if res != nil {
		r.usages = append(r.usages, res.Usage)
	}
}

func (r *usageReport) print(w io.Writer) {
	s := semantic.SummarizeUsage(r.usages)
	if s.ModelStates == 0 {
		return
	}
	fmt.Fprint(w, s.String())
}
