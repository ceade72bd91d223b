package semantic

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/llm/llmtest"
)

// personalitySettings starts a server of personality p that answers every
// stage with llmtest.Answer and returns settings pointing at it.
func personalitySettings(t *testing.T, p llmtest.Personality) (*llmtest.Server, map[string]string) {
	t.Helper()
	srv := llmtest.NewPersonality(p, func(s *llmtest.Server) { s.Key = secret })
	t.Cleanup(srv.Close)
	t.Setenv("MSS_LLM_API_KEY", secret)
	settings := map[string]string{
		"base_url": srv.BaseURL(), "propose.model": "strong-1", "fast.model": "fast-1",
		"backoff": "1ms", "backoff_max": "2ms", "retries": "2", "timeout": "5s", "fallback": "test-first",
		"cache_dir": t.TempDir(),
	}
	if p == llmtest.PersonalityAzure {
		settings["auth"] = "api-key"
	}
	return srv, settings
}

// TestPersonalities runs mss-complement and the stage check against each
// kind of endpoint: every one that can answer does, through its three
// stage calls, with no fallback; llm check reports each stage's shape and
// fails exactly where the endpoint cannot give a schema-valid answer.
func TestPersonalities(t *testing.T) {
	tests := []struct {
		p            llmtest.Personality
		fallback     bool
		checkValid   bool
		format       string // response_format the stages end up with
		adjusted     string // an adjustment the run must make, if any
		extraSetting map[string]string
	}{
		{p: llmtest.PersonalityReasoning, checkValid: true, format: "json_schema"},
		{p: llmtest.PersonalityReasoning, checkValid: true, format: "json_schema", adjusted: "max_tokens refused: sent max_completion_tokens",
			extraSetting: map[string]string{"max_tokens_field": "max_tokens", "temperature": "0"}},
		{p: llmtest.PersonalityNoJSONSchema, checkValid: true, format: "json_object", adjusted: "response_format json_schema refused: sent json_object"},
		{p: llmtest.PersonalityNoResponseFormat, checkValid: true, format: "text", adjusted: "response_format json_object refused: sent no response_format"},
		{p: llmtest.PersonalityAzure, checkValid: true, format: "json_schema"},
		{p: llmtest.PersonalityRateLimited, checkValid: true, format: "json_schema"},
		{p: llmtest.PersonalityInventsIDs, checkValid: false, format: "json_schema"},
		{p: llmtest.PersonalityEcho, checkValid: true, format: "json_schema"},
		{p: llmtest.PersonalityDown, fallback: true, checkValid: false, format: "json_schema"},
	}
	for _, tc := range tests {
		name := string(tc.p)
		if tc.adjusted != "" {
			name += "/adjusted"
		}
		t.Run(name, func(t *testing.T) {
			srv, settings := personalitySettings(t, tc.p)
			for k, v := range tc.extraSetting {
				settings[k] = v
			}
			res := selectWith(t, NameComplement, settings, request(12))
			if got := res.Fallback != nil; got != tc.fallback {
				t.Fatalf("fallback = %+v, want fallback %v", res.Fallback, tc.fallback)
			}
			if !tc.fallback {
				if n := res.Usage.Calls; n != 3 {
					t.Errorf("%d stage calls, want 3", n)
				}
				if n := len(res.Units); n < 4 || n > 8 {
					t.Errorf("%d units, want 4 to 8", n)
				}
				if e := srv.ShapeErrors(); len(e) > 0 {
					t.Errorf("shape errors: %v", e)
				}
				if tc.adjusted != "" && !traceHas(res, StagePropose, tc.adjusted) {
					t.Errorf("trace lacks %q", tc.adjusted)
				}
			}
			if tc.p == llmtest.PersonalityInventsIDs && res.Usage.RejectedIDs != 3 {
				t.Errorf("rejected ids = %d, want one per stage", res.Usage.RejectedIDs)
			}
			if tc.p == llmtest.PersonalityReasoning && res.Usage.StageUsage[0].ReasoningTokens == 0 {
				t.Errorf("no reasoning tokens counted: %+v", res.Usage.StageUsage)
			}
			for _, c := range srv.Calls() {
				if tc.p == llmtest.PersonalityAzure && (c.APIKey != secret || c.Auth != "" || !strings.Contains(c.Query, "api-version=")) {
					t.Errorf("azure call %d: api-key %v, authorization %q, query %q", c.N, c.APIKey == secret, c.Auth, c.Query)
				}
			}
			if tc.p == llmtest.PersonalityEcho && !traceHas(res, StagePropose+".raw", "Bearer [redacted]") {
				t.Errorf("the echoed key is not in the raw reply, redacted: %+v", res.Trace)
			}
			noSecret(t, res, settings["cache_dir"])

			// The stage check, on a fresh server of the same kind.
			srv2, settings2 := personalitySettings(t, tc.p)
			for k, v := range tc.extraSetting {
				settings2[k] = v
			}
			checks, err := Check(context.Background(), mss.MethodOptions{Settings: settings2})
			if err != nil {
				t.Fatal(err)
			}
			report := CheckReport(checks)
			if len(checks) != 3 {
				t.Fatalf("%d stage checks, want 3:\n%s", len(checks), report)
			}
			for _, c := range checks {
				if c.Valid != tc.checkValid {
					t.Errorf("stage %s valid = %v, want %v:\n%s", c.Stage, c.Valid, tc.checkValid, report)
				}
				if c.Attempts == 0 {
					t.Errorf("stage %s: its call counts no attempts (problem %q)", c.Stage, c.Problem)
				}
				if tc.checkValid && string(c.Shape.Mode) != tc.format {
					t.Errorf("stage %s format %s, want %s", c.Stage, c.Shape.Mode, tc.format)
				}
			}
			if strings.Contains(report, secret) {
				t.Errorf("check report holds the key:\n%s", report)
			}
			if e := srv2.ShapeErrors(); len(e) > 0 && tc.p != llmtest.PersonalityDown {
				t.Errorf("check shape errors: %v", e)
			}
		})
	}
}

// noSecret fails if the key is in the answer or any cache file.
func noSecret(t *testing.T, res *mss.Result, cacheDir string) {
	t.Helper()
	b, _ := json.Marshal(res)
	if strings.Contains(string(b), secret) {
		t.Errorf("the answer holds the key")
	}
	filepath.Walk(cacheDir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		data, _ := os.ReadFile(p)
		if strings.Contains(string(data), secret) {
			t.Errorf("%s holds the key", p)
		}
		return nil
	})
}

// TestEchoedKeyInErrors: an endpoint that echoes the key in its error
// bodies (and the key in the base URL's userinfo) reaches no error,
// fallback reason, trace, check report or cache file.
func TestEchoedKeyInErrors(t *testing.T) {
	srv, settings := personalitySettings(t, llmtest.PersonalityEcho)
	settings["retries"] = "0" // the echoing 500 is the answer
	userinfo := "mssuser:pw-USERINFO-SECRET-77"
	settings["base_url"] = strings.Replace(srv.BaseURL(), "http://", "http://"+userinfo+"@", 1)
	res := selectWith(t, NameComplement, settings, request(12))
	if res.Fallback == nil || !strings.Contains(res.Fallback.Reason, "Bearer [redacted]") {
		t.Errorf("fallback = %+v, want the echoed header redacted", res.Fallback)
	}
	b, _ := json.Marshal(res)
	for _, s := range []string{secret, "pw-USERINFO-SECRET-77"} {
		if strings.Contains(string(b), s) {
			t.Errorf("answer holds %s", s)
		}
	}
	noSecret(t, res, settings["cache_dir"])
	settings["fallback"] = "none"
	ctl, err := mss.NewMethod(NameComplement, mss.MethodOptions{Settings: settings})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ctl.Select(context.Background(), request(12))
	if err == nil || strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "pw-USERINFO") {
		t.Errorf("error = %v, want one without the key", err)
	}
	cfg, err := ParseConfig(mss.MethodOptions{Settings: settings})
	if err != nil {
		t.Fatal(err)
	}
	checks, err := Check(context.Background(), mss.MethodOptions{Settings: settings})
	if err != nil {
		t.Fatal(err)
	}
	out := cfg.Summary() + CheckReport(checks)
	if strings.Contains(out, secret) || strings.Contains(out, "pw-USERINFO") || strings.Contains(out, "mssuser") {
		t.Errorf("llm check output holds a credential:\n%s", out)
	}
	if !strings.Contains(out, "http://[redacted]@127.0.0.1") {
		t.Errorf("llm check output does not show the masked URL:\n%s", out)
	}
}

// TestCheckCountsAnsweredAttempts: a stage whose call was answered with
// no completion (a refusal, no choices, a body that is no completion)
// counts the attempt it made.
func TestCheckCountsAnsweredAttempts(t *testing.T) {
	for name, body := range map[string]string{
		"refusal":    `{"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":null,"refusal":"no"}}]}`,
		"no choices": `{"choices":[]}`,
		"not JSON":   `<html>busy</html>`,
	} {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.New(func(c *llmtest.Call) llmtest.Reply { return llmtest.Reply{Body: body} })
			defer srv.Close()
			t.Setenv("MSS_LLM_API_KEY", secret)
			checks, err := Check(context.Background(), mss.MethodOptions{Settings: map[string]string{
				"base_url": srv.BaseURL(), "propose.model": "strong-1", "fast.model": "fast-1", "retries": "0",
			}})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range checks {
				if c.Valid || c.Attempts != 1 {
					t.Errorf("stage %s: valid %v, attempts %d; want a failure after 1 attempt (%q)", c.Stage, c.Valid, c.Attempts, c.Problem)
				}
			}
		})
	}
}

// TestRefusalTracedAlike: against an endpoint that refuses json_schema,
// the run that meets the refusal and a later run that starts from what it
// learned (the answer from the cache) give the same units and the same
// trace, refusal and all.
func TestRefusalTracedAlike(t *testing.T) {
	_, settings := personalitySettings(t, llmtest.PersonalityNoJSONSchema)
	first := selectWith(t, NameComplement, settings, request(12))
	again := selectWith(t, NameComplement, settings, request(12))
	if !traceHas(first, "propose", "json_schema refused") {
		t.Fatalf("the first run traces no refusal: %+v", first.Trace)
	}
	if d := cmp.Diff(unitIDs(first.Units), unitIDs(again.Units)); d != "" {
		t.Errorf("units (-first +again):\n%s", d)
	}
	if d := cmp.Diff(first.Trace, again.Trace); d != "" {
		t.Errorf("trace (-first +again):\n%s", d)
	}
}
