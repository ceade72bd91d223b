package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/missingcomplement/mss/llm/llmtest"
)

// firstIDs answers every stage with the first offered ids, the way a
// constrained decoder that always picks the top candidates would.
func firstIDs(c *llmtest.Call) llmtest.Reply {
	enums := c.Enums()
	pick := func(path string, n int) []string {
		ids := enums[path]
		if len(ids) > n {
			ids = ids[:n]
		}
		return ids
	}
	var v any
	switch c.SchemaName {
	case "propose":
		var sel []map[string]string
		for _, id := range pick("selected[].id", 3) {
			sel = append(sel, map[string]string{"id": id, "covers": "the failing lookup"})
		}
		v = map[string]any{"selected": sel, "missing": []string{"the caller"}}
	case "expand":
		var add []map[string]string
		for _, id := range pick("additions[].id", 1) {
			add = append(add, map[string]string{"id": id, "supports": "the caller"})
		}
		v = map[string]any{"additions": add}
	case "finalize":
		var units []map[string]string
		for _, id := range pick("units[].id", 4) {
			units = append(units, map[string]string{"id": id, "reason": "needed"})
		}
		v = map[string]any{"units": units}
	default:
		return llmtest.Reply{Status: 400}
	}
	data, _ := json.Marshal(v)
	return llmtest.Reply{Content: string(data), PromptTokens: 100, CompletionTokens: 10}
}

// TestBenchRepoSemanticReplay runs mss-complement over the repository
// track against a scripted endpoint, then replays the run from the
// response cache with the endpoint gone: same predictions, byte for byte.
func TestBenchRepoSemanticReplay(t *testing.T) {
	fx := newBenchFixture(t)
	srv := llmtest.New(firstIDs, func(s *llmtest.Server) { s.Key, s.Models = "sk-test-key", []string{"strong-1", "fast-1"} })
	t.Setenv("MSS_LLM_API_KEY", "sk-test-key")
	cache := filepath.Join(fx.dir, "cache")
	setFlags = []string{"base_url=" + srv.BaseURL(), "propose.model=strong-1", "fast.model=fast-1", "cache_dir=" + cache, "retries=0"}
	defer func() { setFlags, cacheOnlyFlag = nil, false }()

	run := func(out string) []byte {
		t.Helper()
		stdout, stderr, err := runBench(t, newBenchRepoCmd, "--states", fx.states, "--labels", fx.labels, "--mirror-root", fx.root,
			"--method", "mss-complement", "--output", out, "--index-dir", filepath.Join(fx.dir, "idx"))
		if err != nil {
			t.Fatalf("bench repo: %v\n%s\n%s", err, stdout, stderr)
		}
		if !strings.Contains(stdout, "mss-complement: states=2 missing=0") {
			t.Errorf("output lacks the score line:\n%s", stdout)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	online := run(filepath.Join(fx.dir, "online.jsonl"))
	if n := len(srv.Calls()); n != 6 {
		t.Errorf("%d model calls for 2 states, want 6 (three stages each)", n)
	}
	if e := srv.ShapeErrors(); len(e) > 0 {
		t.Errorf("request shape errors: %v", e)
	}
	if bytes.Contains(online, []byte("sk-test-key")) {
		t.Error("the API key reached the predictions file")
	}
	srv.Close()
	cacheOnlyFlag = true
	offline := run(filepath.Join(fx.dir, "offline.jsonl"))
	if !bytes.Equal(stripLatency(t, online), stripLatency(t, offline)) {
		t.Errorf("replay differs:\nonline:\n%s\noffline:\n%s", online, offline)
	}
}

// stripLatency drops the per-state timing fields, the only part of a
// prediction line that may differ between two runs.
func stripLatency(t *testing.T, data []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatal(err)
		}
		for k := range m {
			if strings.Contains(k, "ms") || strings.Contains(k, "latency") {
				delete(m, k)
			}
		}
		b, _ := json.Marshal(m)
		fmt.Fprintf(&out, "%s\n", b)
	}
	return out.Bytes()
}

// TestBenchRepoFallback: a run whose model endpoint is down does not
// write the fallback's answers as mss-complement's unless told to, and
// then flags the rows; usage and cost lines are printed per stage.
func TestBenchRepoFallback(t *testing.T) {
	fx := newBenchFixture(t)
	srv := llmtest.NewPersonality(llmtest.PersonalityDown)
	defer srv.Close()
	t.Setenv("MSS_LLM_API_KEY", "sk-test-key")
	setFlags = []string{"base_url=" + srv.BaseURL(), "propose.model=strong-1", "fast.model=fast-1", "retries=0", "price.strong-1=2,8"}
	defer func() { setFlags, cacheOnlyFlag = nil, false }()
	out := filepath.Join(fx.dir, "fb.jsonl")
	args := []string{"--states", fx.states, "--labels", fx.labels, "--mirror-root", fx.root,
		"--method", "mss-complement", "--output", out, "--index-dir", filepath.Join(fx.dir, "idx")}
	_, _, err := runBench(t, newBenchRepoCmd, args...)
	if err == nil || !strings.Contains(err.Error(), "did not answer with its model") || !strings.Contains(err.Error(), "--allow-fallback") {
		t.Fatalf("err = %v, want a refusal naming --allow-fallback", err)
	}
	if data, _ := os.ReadFile(out); len(bytes.TrimSpace(data)) != 0 {
		t.Errorf("fallback rows written without --allow-fallback:\n%s", data)
	}
	stdout, stderr, err := runBench(t, newBenchRepoCmd, append(args, "--allow-fallback")...)
	if err != nil {
		t.Fatalf("bench repo --allow-fallback: %v\n%s\n%s", err, stdout, stderr)
	}
	data, _ := os.ReadFile(out)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	for _, l := range lines {
		if !strings.Contains(l, `"fallback":{"stage":"propose"`) {
			t.Errorf("row not flagged: %s", l)
		}
	}
	for _, want := range []string{"2 fallbacks (rows flagged)", "== mss-complement: 2 answers, 2 fallbacks", "calls 0 (failed 2), fallbacks 2"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
}

// TestBenchRepoUsageAndCost: per-stage calls, prompt, completion and
// reasoning tokens, and the estimated cost with --set price.<model>.
func TestBenchRepoUsageAndCost(t *testing.T) {
	fx := newBenchFixture(t)
	srv := llmtest.NewPersonality(llmtest.PersonalityReasoning)
	defer srv.Close()
	t.Setenv("MSS_LLM_API_KEY", "sk-test-key")
	setFlags = []string{"base_url=" + srv.BaseURL(), "propose.model=strong-1", "fast.model=fast-1", "retries=0", "price.strong-1=2,8", "price.fast-1=0.5,2"}
	defer func() { setFlags, cacheOnlyFlag = nil, false }()
	stdout, stderr, err := runBench(t, newBenchRepoCmd, "--states", fx.states, "--labels", fx.labels, "--mirror-root", fx.root,
		"--method", "mss-complement", "--output", filepath.Join(fx.dir, "p.jsonl"), "--index-dir", filepath.Join(fx.dir, "idx"))
	if err != nil {
		t.Fatalf("bench repo: %v\n%s\n%s", err, stdout, stderr)
	}
	t.Logf("bench repo output:\n%s", stdout)
	for _, want := range []string{"== mss-complement: 2 answers, 0 fallbacks", "reasoning", "propose    strong-1", "estimated cost: $", "per state", "strong-1", "fast-1"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "no price for") {
		t.Errorf("a priced model reported unpriced:\n%s", stdout)
	}
}

// TestSerbenchRunFallback: serbench run writes nothing when the model
// method fell back, unless --allow-fallback; then rows are flagged in
// config.fallback and still validate.
func TestSerbenchRunFallback(t *testing.T) {
	dir := serbenchFixture(t, "")
	srv := llmtest.NewPersonality(llmtest.PersonalityDown)
	defer srv.Close()
	t.Setenv("MSS_LLM_API_KEY", "sk-test-key")
	setFlags = []string{"base_url=" + srv.BaseURL(), "propose.model=strong-1", "retries=0"}
	defer func() { setFlags, cacheOnlyFlag = nil, false }()
	args := []string{"run", "--items", "items.jsonl", "--method", "mss-complement", "--k", "3", "--output", "m.jsonl"}
	_, stderr, err := runSerbench(t, dir, args...)
	if err == nil || !strings.Contains(err.Error(), "--allow-fallback") {
		t.Fatalf("err = %v, want a refusal naming --allow-fallback\n%s", err, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "m.jsonl")); err == nil {
		t.Error("predictions written without --allow-fallback")
	}
	if _, stderr, err = runSerbench(t, dir, append(args, "--allow-fallback")...); err != nil {
		t.Fatalf("run --allow-fallback: %v\n%s", err, stderr)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "m.jsonl"))
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if !strings.Contains(l, `"fallback":{"stage":"propose"`) {
			t.Errorf("row not flagged: %s", l)
		}
	}
	if _, stderr, err := runSerbench(t, dir, "validate", "--items", "items.jsonl", "--labels", "labels.jsonl", "--predictions", "m.jsonl"); err != nil {
		t.Fatalf("flagged rows do not validate: %v\n%s", err, stderr)
	}
}
