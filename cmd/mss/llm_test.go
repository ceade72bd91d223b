package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/llm/llmtest"
	"github.com/missingcomplement/mss/retrieve"
	"github.com/missingcomplement/mss/server"
)

func TestParseSettings(t *testing.T) {
	tests := []struct {
		pairs     []string
		cacheOnly bool
		want      map[string]string
		err       string
	}{
		{nil, false, nil, ""},
		{[]string{"propose.model=gpt-4.1", "fast.model=mini"}, false, map[string]string{"propose.model": "gpt-4.1", "fast.model": "mini"}, ""},
		{[]string{"propose.model=gpt-4.1", "fast.model=mini", "propose.model=o3"}, false, nil, "--set propose.model: given twice"},
		{[]string{"temperature=0", " temperature=0"}, false, nil, "--set temperature: given twice"},
		{[]string{"cache_only=false"}, true, nil, "--set cache_only: given with --cache-only"},
		{[]string{"base_url=sk-secret", "base_url=sk-secret"}, false, nil, "--set base_url: given twice"},
		{[]string{"base_url=http://h:1/v1?x=a=b"}, true, map[string]string{"base_url": "http://h:1/v1?x=a=b", "cache_only": "true"}, ""},
		{[]string{"novalue"}, false, nil, "want key=value"},
		{[]string{"=v"}, false, nil, "want key=value"},
		{[]string{"api_key=sk-secret"}, false, nil, "environment only"},
		{[]string{"finalize.api_key=sk-secret"}, false, nil, "environment only"},
	}
	for _, tc := range tests {
		got, err := parseSettings(tc.pairs, tc.cacheOnly)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "sk-secret") {
				t.Errorf("parseSettings(%q) err = %v, want %q without the value", tc.pairs, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tc.want, got.Settings); d != "" {
			t.Errorf("parseSettings(%q) (-want +got):\n%s", tc.pairs, d)
		}
	}
}

// TestRecordedSettings: the settings recorded with predictions show a
// URL's userinfo and credential query values masked, whichever setting
// holds it, leave every other value as given, and leave out the
// operational settings.
func TestRecordedSettings(t *testing.T) {
	got := recordedSettings(map[string]string{
		"base_url":         "http://127.0.0.1:18803/echo/v1?api-key=AZURESECRETVALUE123",
		"propose.base_url": "https://user:SECRETPASSWORD99@h/v1",
		"fast.base_url":    "https://h/openai/deployments/d?api-version=2024-10-21&sig=SECRETSIG99",
		"propose.model":    "claude-sonnet@20250514",
		"temperature":      "0",
		"cache_dir":        "/tmp/cache",
		"price.gpt-5":      "1,2",
	})
	want := map[string]string{
		"base_url":         "http://127.0.0.1:18803/echo/v1?api-key=[redacted]",
		"propose.base_url": "https://[redacted]@h/v1",
		"fast.base_url":    "https://h/openai/deployments/d?api-version=2024-10-21&sig=[redacted]",
		"propose.model":    "claude-sonnet@20250514",
		"temperature":      "0",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("recordedSettings (-want +got):\n%s", d)
	}
}

// modelRepo writes a small Python package with a dozen functions, enough
// candidates for a 4-8 unit answer.
func modelRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for i, name := range []string{"config", "server", "routes", "auth", "store", "cache"} {
		var b strings.Builder
		for j := 0; j < 3; j++ {
			fmt.Fprintf(&b, "def %s_step_%d(value):\n    \"\"\"Handle the port setting, part %d of %s.\"\"\"\n    port = int(value) + %d\n    return port\n\n\n", name, j, j, name, i*10+j)
		}
		p := filepath.Join(dir, "app", name+".py")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// modelServer starts an llmtest server of personality p and points the
// model settings and the key at it.
func modelServer(t *testing.T, p llmtest.Personality, extra ...string) *llmtest.Server {
	t.Helper()
	srv := llmtest.NewPersonality(p, func(s *llmtest.Server) { s.Key = "sk-cmd-SECRET-0001" })
	t.Cleanup(srv.Close)
	t.Setenv("MSS_LLM_API_KEY", srv.Key)
	setFlags = append([]string{"base_url=" + srv.BaseURL(), "propose.model=gpt-5", "fast.model=gpt-5-mini", "backoff_max=10ms", "cache_dir=" + t.TempDir()}, extra...)
	if p == llmtest.PersonalityAzure {
		setFlags = append(setFlags, "auth=api-key")
	}
	t.Cleanup(func() { setFlags, cacheOnlyFlag = nil, false })
	return srv
}

// TestRecoverModelPath is issue 14's done-when: against an endpoint that
// behaves like a current reasoning model, recover --method mss-complement
// makes its three stage calls and returns 4 to 8 units with no fallback;
// against an endpoint that always fails, the answer carries fallback (and
// still answers, grown units included) and the CLI warns.
func TestRecoverModelPath(t *testing.T) {
	repo := modelRepo(t)
	state := `{"issue": "the server ignores the port setting", "information_need": "where the port value is parsed"}`

	srv := modelServer(t, llmtest.PersonalityReasoning)
	out, stderr, err := runRecover(t, state, "--repo", repo, "--state", "-", "--method", "mss-complement", "--json")
	if err != nil {
		t.Fatalf("recover: %v\n%s", err, stderr)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	units, _ := got["units"].([]any)
	if n := len(srv.Calls()); n != 3 {
		t.Errorf("%d calls, want 3", n)
	}
	if len(units) < 4 || len(units) > 8 {
		t.Errorf("%d units, want 4 to 8:\n%s", len(units), out)
	}
	if _, ok := got["fallback"]; ok || strings.Contains(stderr, "warning") {
		t.Errorf("model answer marked as fallback:\n%s\n%s", out, stderr)
	}

	modelServer(t, llmtest.PersonalityDown, "retries=1")
	out, stderr, err = runRecover(t, state, "--repo", repo, "--state", "-", "--method", "mss-complement", "--json")
	if err != nil {
		t.Fatalf("recover: %v\n%s", err, stderr)
	}
	var fb struct {
		Units    []map[string]any `json:"units"`
		Fallback *mss.Fallback    `json:"fallback"`
	}
	if err := json.Unmarshal([]byte(out), &fb); err != nil {
		t.Fatal(err)
	}
	if fb.Fallback == nil || fb.Fallback.Stage != "propose" || !strings.Contains(fb.Fallback.Reason, "503") {
		t.Errorf("fallback = %+v, want stage propose, the 503", fb.Fallback)
	}
	if len(fb.Units) == 0 {
		t.Errorf("the fallback answered no units")
	}
	if !strings.Contains(stderr, "mss: warning: mss-complement did not answer with its model: stage propose failed") {
		t.Errorf("stderr lacks the warning:\n%s", stderr)
	}
	out, _, err = runRecover(t, state, "--repo", repo, "--state", "-", "--method", "mss-complement")
	if err != nil || !strings.HasPrefix(out, "── FALLBACK: mss-complement stage propose failed") {
		t.Errorf("text output does not open with the fallback header (err %v):\n%s", err, out)
	}
}

// TestLLMCheckPersonalities runs "mss llm check" against every endpoint
// personality; with -v it prints each report.
func TestLLMCheckPersonalities(t *testing.T) {
	type tc struct {
		p     llmtest.Personality
		extra []string
	}
	var cases []tc
	for _, p := range llmtest.Personalities {
		cases = append(cases, tc{p: p})
	}
	// Settings for an older server, against a reasoning model: the check
	// shows the refusals it worked around.
	cases = append(cases, tc{llmtest.PersonalityReasoning, []string{"max_tokens_field=max_tokens", "temperature=0"}})
	for _, c := range cases {
		p := c.p
		t.Run(string(p), func(t *testing.T) {
			srv := modelServer(t, p, c.extra...)
			opts, err := methodOptions()
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			err = runLLMCheck(context.Background(), &out, opts)
			t.Logf("mss llm check against the %s personality:\n%s%v", p, out.String(), err)
			wantFail := p == llmtest.PersonalityInventsIDs || p == llmtest.PersonalityDown
			if (err != nil) != wantFail {
				t.Errorf("err = %v, want failure %v", err, wantFail)
			}
			if strings.Contains(out.String(), srv.Key) || (err != nil && strings.Contains(err.Error(), srv.Key)) {
				t.Errorf("the key was printed")
			}
			if n := len(srv.Calls()); n < 3 {
				t.Errorf("%d calls, want at least one per stage", n)
			}
		})
	}
}

// TestRecoverKeyEcho: an endpoint that echoes the credentials it gets, in
// error bodies, message content and headers, with the key also in the
// base URL's userinfo, gets neither into recover's --json or --explain
// output, its stderr, nor the response cache.
func TestRecoverKeyEcho(t *testing.T) {
	repo := modelRepo(t)
	state := `{"issue": "the server ignores the port setting", "information_need": "where the port value is parsed"}`
	srv := modelServer(t, llmtest.PersonalityEcho, "retries=2")
	cache := t.TempDir()
	setFlags = slices.DeleteFunc(setFlags, func(kv string) bool {
		return strings.HasPrefix(kv, "cache_dir=") || strings.HasPrefix(kv, "base_url=")
	})
	setFlags = append(setFlags, "cache_dir="+cache, "base_url="+strings.Replace(srv.BaseURL(), "http://", "http://mss:"+srv.Key+"@", 1))
	for _, mode := range []string{"--json", "--explain"} {
		out, stderr, err := runRecover(t, state, "--repo", repo, "--state", "-", "--method", "mss-complement", mode)
		if err != nil {
			t.Fatalf("recover %s: %v\n%s", mode, err, stderr)
		}
		if strings.Contains(out+stderr, srv.Key) {
			t.Errorf("recover %s printed the key:\n%s\n%s", mode, out, stderr)
		}
		if !strings.Contains(out, "[redacted]") {
			t.Errorf("recover %s: the echoed header is not in the trace, redacted:\n%s", mode, out)
		}
	}
	if len(srv.Calls()) == 0 {
		t.Fatal("no calls")
	}
	filepath.Walk(cache, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		if b, _ := os.ReadFile(p); strings.Contains(string(b), srv.Key) {
			t.Errorf("%s holds the key", p)
		}
		return nil
	})
}

// TestRecoverEveryKeyScrubbed: an endpoint that echoes every key mss
// holds (the main key, the fast stages' own, the embedder's) into every
// stage's reply gets none of them into recover's --json or --explain
// output, the response cache, or the server's answer with its trace,
// whichever stage's client the reply came through.
func TestRecoverEveryKeyScrubbed(t *testing.T) {
	keys := []string{"sk-main-7Hq2LmXw9Rt4", "sk-fast-Pz8Kd3Vn6Yc1", "sk-embed-Wb5Jf0Gs2Ne7"}
	echo := strings.NewReplacer(`"covers":"`, `"covers":"keys seen: `+strings.Join(keys, ", ")+"; ",
		`"supports":"`, `"supports":"keys seen: `+strings.Join(keys, ", ")+"; ",
		`"reason":"`, `"reason":"keys seen: `+strings.Join(keys, ", ")+"; ")
	srv := llmtest.New(func(c *llmtest.Call) llmtest.Reply {
		r := llmtest.Answer(c)
		r.Content = echo.Replace(r.Content)
		return r
	})
	t.Cleanup(srv.Close)
	emb := llmtest.NewEmbeddings("e", keys[2], "port", "value")
	t.Cleanup(emb.Close)
	t.Setenv("MSS_LLM_API_KEY", keys[0])
	t.Setenv("MSS_FAST_API_KEY", keys[1])
	t.Setenv(retrieve.EnvEmbedBaseURL, emb.URL)
	t.Setenv(retrieve.EnvEmbedModel, "e")
	t.Setenv(retrieve.EnvEmbedAPIKey, keys[2])
	cache := t.TempDir()
	setFlags = []string{"base_url=" + srv.BaseURL(), "propose.model=gpt-5", "fast.model=gpt-5-mini", "backoff_max=10ms", "cache_dir=" + cache}
	t.Cleanup(func() { setFlags = nil })
	repo := modelRepo(t)
	state := `{"issue": "the server ignores the port setting", "information_need": "where the port value is parsed"}`
	leaks := func(what, s string) {
		t.Helper()
		for _, k := range keys {
			if strings.Contains(s, k) {
				t.Errorf("%s holds %s:\n%s", what, k, s)
			}
		}
		if !strings.Contains(s, "keys seen: [redacted], [redacted], [redacted]") {
			t.Errorf("%s: the echo is not there, redacted:\n%s", what, s)
		}
	}
	for _, method := range []string{"mss-complement", "ssr"} {
		for _, mode := range []string{"--json", "--explain"} {
			out, stderr, err := runRecover(t, state, "--repo", repo, "--state", "-", "--method", method, mode)
			if err != nil {
				t.Fatalf("recover --method %s %s: %v\n%s", method, mode, err, stderr)
			}
			leaks("recover --method "+method+" "+mode, out+stderr)
		}
		opts, err := methodOptions()
		if err != nil {
			t.Fatal(err)
		}
		svc, err := server.New(context.Background(), server.Config{Repo: repo, Loader: &server.IndexLoader{Repo: repo},
			Ignore: []string{filepath.Join(repo, ".mss")}, Method: method, MethodOptions: opts})
		if err != nil {
			t.Fatal(err)
		}
		st, err := mss.DecodeState("card", strings.NewReader(state))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := svc.Recover(context.Background(), &server.RecoverRequest{State: *st, Trace: true})
		svc.Close()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(resp)
		leaks("the server's answer of "+method, string(b))
	}
	if emb.Calls() == 0 {
		t.Error("the embedding endpoint was never asked")
	}
	filepath.Walk(cache, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		for _, k := range keys {
			if strings.Contains(string(b), k) {
				t.Errorf("%s holds %s", p, k)
			}
		}
		return nil
	})
}
