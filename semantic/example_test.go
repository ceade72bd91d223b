package semantic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/missingcomplement/mss"
	_ "github.com/missingcomplement/mss/controller" // the "complement" fallback
	"github.com/missingcomplement/mss/internal/serbench"
	"github.com/missingcomplement/mss/llm/llmtest"
	"github.com/missingcomplement/mss/retrieve"
	"github.com/missingcomplement/mss/semantic"
)

// scripted answers every stage from its schema: the first offered ids, as
// a model that trusts the fused order would. Token counts are the server's
// ceil(bytes/4) of what was sent and returned.
func scripted(c *llmtest.Call) llmtest.Reply {
	first := func(path string, n int, field, note string) string {
		var parts []string
		for i, id := range c.Enums()[path] {
			if i == n {
				break
			}
			if field == "score" {
				parts = append(parts, fmt.Sprintf(`{"id":%q,"score":%d}`, id, 10-i%10))
			} else {
				parts = append(parts, fmt.Sprintf(`{"id":%q,%q:%q}`, id, field, note))
			}
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	switch c.SchemaName {
	case "propose":
		return llmtest.Reply{Content: `{"selected":` + first("selected[].id", 8, "covers", "the code path the issue names") + `,"missing":["the caller that passes the value"]}`}
	case "expand":
		return llmtest.Reply{Content: `{"additions":` + first("additions[].id", 2, "supports", "the caller") + `}`}
	case "finalize":
		return llmtest.Reply{Content: `{"units":` + first("units[].id", 6, "reason", "needed for the edit") + `}`}
	case "ssr":
		return llmtest.Reply{Content: `{"units":` + first("units[].id", 6, "reason", "needed") + `}`}
	case "relevance":
		return llmtest.Reply{Content: `{"scores":` + first("scores[].id", 1000, "score", "") + `}`}
	}
	return llmtest.Reply{Status: 400}
}

// TestSERBenchExample runs every semantic method over the SERBench example
// pools against the scripted server, then replays the run from the cache
// with the server gone, and compares the answers byte for byte. With -v it
// prints the usage summary of each method.
func TestSERBenchExample(t *testing.T) {
	items := filepath.Join("..", "..", "shared", "serbench", "example", "items.jsonl")
	if _, err := os.Stat(items); err != nil {
		t.Skipf("SERBench example not present: %v", err)
	}
	its, err := serbench.LoadItems(items)
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(scripted)
	defer srv.Close()
	t.Setenv("MSS_LLM_API_KEY", "test-key")
	cache := t.TempDir()
	settings := map[string]string{
		"base_url": srv.BaseURL(), "propose.model": "strong-model", "fast.model": "fast-model",
		"cache_dir": cache, "retries": "0",
	}
	var reqs []*mss.Request
	for _, it := range its.Items {
		st := it.State
		reqs = append(reqs, &mss.Request{State: &st, Candidates: retrieve.Pool(&st, it.Units())})
	}
	run := func(method string, s map[string]string) ([]byte, []*mss.Usage) {
		ctl, err := mss.NewMethod(method, mss.MethodOptions{Settings: s})
		if err != nil {
			t.Fatal(err)
		}
		var out []byte
		var us []*mss.Usage
		for _, req := range reqs {
			res, err := ctl.Select(context.Background(), req)
			if err != nil {
				t.Fatalf("%s %s: %v", method, req.State.StateID, err)
			}
			for _, u := range res.Units {
				for _, c := range req.Candidates {
					if c.Unit.ID == u.ID && c.Observed {
						t.Errorf("%s delivered observed %s", method, u.ID)
					}
				}
			}
			if res.Usage.Fallbacks != 0 {
				t.Errorf("%s %s fell back: %+v", method, req.State.StateID, res.Trace)
			}
			b, _ := json.Marshal(res)
			out = append(append(out, b...), '\n')
			us = append(us, res.Usage)
		}
		return out, us
	}
	methods := []string{semantic.NameComplement, semantic.NameSSR, semantic.NameProposeOnly, semantic.NameSimilarity3}
	online := map[string][]byte{}
	for _, m := range methods {
		b, us := run(m, settings)
		online[m] = b
		t.Logf("%s over %d example states:\n%s", m, len(reqs), semantic.SummarizeUsage(us))
	}
	if e := srv.ShapeErrors(); len(e) > 0 {
		t.Errorf("shape errors: %v", e)
	}
	calls := len(srv.Calls())
	srv.Close()

	offline := map[string]string{"cache_only": "true"}
	for k, v := range settings {
		offline[k] = v
	}
	t.Setenv("MSS_LLM_API_KEY", "")
	for _, m := range methods {
		if b, _ := run(m, offline); string(b) != string(online[m]) {
			t.Errorf("%s: cache-only replay differs from the online run", m)
		}
	}
	t.Logf("%d calls online; replay made none and matched byte for byte", calls)
}
