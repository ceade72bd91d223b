package semantic

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/missingcomplement/mss"
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
			return fmt.Errorf("stage %s: no API key for %s: set MSS_LLM_API_KEY (or MSS_%s_API_KEY) in the environment; for a local server without keys set it to any value", name, sc.BaseURL, upper(name))
		}
		k := sc.BaseURL + "\x00" + sc.keyVar
		if checked[k] {
			continue
		}
		checked[k] = true
		if err := probe(ctx, sc); err != nil {
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
func probe(ctx context.Context, sc *StageConfig) error {
	ctx, cancel := context.WithTimeout(ctx, PreflightTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, sc.BaseURL+"/models", nil)
	if err != nil {
		return fmt.Errorf("endpoint %s: %v", sc.BaseURL, err)
	}
	req.Header.Set("Authorization", "Bearer "+sc.apiKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		var ue interface{ Unwrap() error }
		if errors.As(err, &ue) {
			err = ue.Unwrap() // drop the URL the client repeats
		}
		return fmt.Errorf("endpoint %s unreachable: %v", sc.BaseURL, err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		return fmt.Errorf("endpoint %s refused the key from %s (HTTP %d)", sc.BaseURL, sc.keyVar, resp.StatusCode)
	}
	return nil
}
