package semantic

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/llm"
)

// PreflightTimeout bounds each endpoint check.
var PreflightTimeout = 15 * time.Second

// Preflight checks, before any work starts, that the model-calling
// methods can run with opts: every stage has a model and an API key, and
// every distinct endpoint answers (GET <base_url>/models, with the key). A
// cache-only run needs neither key nor network, only an existing cache
// directory. It returns one error naming what to set or which endpoint
// failed; the error never contains a key.
func Preflight(ctx context.Context, opts mss.MethodOptions) error {
	cfg, err := ParseConfig(opts)
	if err != nil {
		return err
	}
	if err := cfg.needModels(stageNames...); err != nil {
		return err
	}
	if cfg.CacheOnly {
		st, err := os.Stat(cfg.CacheDir)
		if err != nil {
			return fmt.Errorf("cache-only run: %w", err)
		}
		if !st.IsDir() {
			return fmt.Errorf("cache-only run: %s is not a directory", cfg.CacheDir)
		}
		return nil
	}
	checked := map[string]bool{}
	for _, name := range stageNames {
		sc := cfg.Stage(name)
		if sc.apiKey == "" {
			return fmt.Errorf("stage %s: no API key for %s: set MSS_LLM_API_KEY (or MSS_%s_API_KEY) in the environment; for a local server without keys set it to any value", name, llm.RedactURL(sc.BaseURL), upper(name))
		}
		k := sc.BaseURL + "\x00" + sc.keyVar
		if checked[k] {
			continue
		}
		checked[k] = true
		if err := probe(ctx, cfg, sc); err != nil {
			return fmt.Errorf("stage %s: %w", name, err)
		}
	}
	return nil
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 32
		}
	}
	return string(b)
}

// probe asks the endpoint for its model list. Any HTTP answer but 401/403
// means reachable (some servers have no /models); 401/403 means the key
// was refused.
func probe(ctx context.Context, cfg *Config, sc *StageConfig) error {
	ctx, cancel := context.WithTimeout(ctx, PreflightTimeout)
	defer cancel()
	lc := cfg.llmConfig(sc)
	lc.Timeout = PreflightTimeout
	cl, err := llm.New(lc, nil, nil)
	if err != nil {
		return fmt.Errorf("endpoint %s: %v", llm.RedactURL(sc.BaseURL), err)
	}
	status, err := cl.Probe(ctx)
	if err != nil {
		return fmt.Errorf("endpoint %s unreachable: %v", llm.RedactURL(sc.BaseURL), err)
	}
	if status == http.StatusUnauthorized || status == http.StatusForbidden {
		return fmt.Errorf("endpoint %s refused the key from %s (HTTP %d)", llm.RedactURL(sc.BaseURL), sc.keyVar, status)
	}
	return nil
}
