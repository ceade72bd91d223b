package main

// Shared wiring for methods that take settings, model-calling ones in
// particular: the persistent --set key=value flag (repeatable), the
// --cache-only shortcut, and methodOptions, which every command that
// builds a method by name calls.

import (
	"context"
	"fmt"
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
