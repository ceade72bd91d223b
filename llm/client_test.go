package llm

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss/llm/llmtest"
)

const testKey = "sk-test-SECRET-4242"

func schema() *Schema {
	return &Schema{Name: "pick", Schema: map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"required":             []any{"id"},
		"properties":           map[string]any{"id": map[string]any{"type": "string", "enum": []any{"a", "b"}}},
	}}
}

func request() *Request {
	return &Request{Schema: schema(), Messages: []Message{{Role: "system", Content: "pick one"}, {Role: "user", Content: "a or b"}}}
}

// newClient returns a client of srv whose retries do not sleep; the waits
// asked for are appended to *waits.
func newClient(t *testing.T, srv *llmtest.Server, cache *Cache, waits *[]time.Duration) *Client {
	t.Helper()
	c, err := New(Config{BaseURL: srv.BaseURL(), APIKey: testKey, Model: "m1", Retries: 3, Backoff: time.Second, BackoffMax: 5 * time.Second, Timeout: 300 * time.Millisecond}, cache, NewLimiter(2))
	if err != nil {
		t.Fatal(err)
	}
	c.Sleep = func(_ context.Context, d time.Duration) error {
		if waits != nil {
			*waits = append(*waits, d)
		}
		return nil
	}
	return c
}

func TestCompleteSchemaAndUsage(t *testing.T) {
	srv := llmtest.New(func(c *llmtest.Call) llmtest.Reply {
		return llmtest.Reply{Content: `{"id":"a"}`, PromptTokens: 11, CompletionTokens: 3}
	}, func(s *llmtest.Server) { s.Key, s.Models = testKey, []string{"m1"} })
	defer srv.Close()
	r, err := newClient(t, srv, nil, nil).Complete(context.Background(), request())
	if err != nil {
		t.Fatal(err)
	}
	got := []any{r.Content, r.PromptTokens, r.CompletionTokens, r.UsageReported, r.Mode, r.Attempts, r.Cached}
	want := []any{`{"id":"a"}`, 11, 3, true, ModeJSONSchema, 1, false}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("response (-want +got):\n%s", d)
	}
	if e := srv.ShapeErrors(); len(e) > 0 {
		t.Errorf("shape errors: %v", e)
	}
	calls := srv.Calls()
	if len(calls) != 1 {
		t.Fatalf("%d calls, want 1", len(calls))
	}
	if d := cmp.Diff(map[string][]string{"id": {"a", "b"}}, calls[0].Enums()); d != "" {
		t.Errorf("enums (-want +got):\n%s", d)
	}
	if !calls[0].Strict || calls[0].Format != "json_schema" {
		t.Errorf("format %q strict %v, want strict json_schema", calls[0].Format, calls[0].Strict)
	}
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name      string
		script    []llmtest.Reply
		wantErr   string
		wantCalls int
		wantWaits []time.Duration
	}{
		{"429 then ok", []llmtest.Reply{{Status: 429}, {Content: `{"id":"b"}`}}, "", 2, []time.Duration{time.Second}},
		{"retry-after honoured", []llmtest.Reply{{Status: 429, RetryAfter: "3"}, {Content: `{"id":"b"}`}}, "", 2, []time.Duration{3 * time.Second}},
		{"500s back off exponentially, capped", []llmtest.Reply{{Status: 500}, {Status: 502}, {Status: 503}, {Content: `{"id":"b"}`}}, "", 4, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}},
		{"500s exhaust retries", []llmtest.Reply{{Status: 500}, {Status: 500}, {Status: 500}, {Status: 500}}, "after 4 attempt(s)", 4, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}},
		{"timeout then ok", []llmtest.Reply{{Delay: time.Second}, {Content: `{"id":"b"}`}}, "", 2, []time.Duration{time.Second}},
		{"404 is not retried", []llmtest.Reply{{Status: 404}}, "404", 1, nil},
		{"401 is not retried", []llmtest.Reply{{Status: 401}}, "401", 1, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int32
			srv := llmtest.New(func(c *llmtest.Call) llmtest.Reply {
				i := int(n.Add(1)) - 1
				return tc.script[i]
			})
			defer srv.Close()
			var waits []time.Duration
			r, err := newClient(t, srv, nil, &waits).Complete(context.Background(), request())
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), testKey) {
					t.Errorf("error leaks the key: %v", err)
				}
			} else if err != nil {
				t.Fatal(err)
			} else if r.Attempts != tc.wantCalls {
				t.Errorf("attempts = %d, want %d", r.Attempts, tc.wantCalls)
			}
			if got := len(srv.Calls()); got != tc.wantCalls {
				t.Errorf("calls = %d, want %d", got, tc.wantCalls)
			}
			if d := cmp.Diff(tc.wantWaits, waits); d != "" {
				t.Errorf("waits (-want +got):\n%s", d)
			}
		})
	}
}

func TestDowngradeAndReplay(t *testing.T) {
	srv := llmtest.New(func(c *llmtest.Call) llmtest.Reply {
		return llmtest.Reply{Content: "Sure! ```json\n{\"id\":\"a\"}\n```"}
	}, func(s *llmtest.Server) { s.RejectJSONSchema = true })
	defer srv.Close()
	dir := t.TempDir()
	cache, err := OpenCache(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, srv, cache, nil)
	r, err := c.Complete(context.Background(), request())
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"response_format json_schema refused: sent json_object"}; r.Mode != ModeJSONObject || !cmp.Equal(r.Adjustments, want) {
		t.Errorf("mode %s adjustments %q, want json_object after %q", r.Mode, r.Adjustments, want)
	}
	obj, err := ExtractJSON(r.Content)
	if err != nil || string(obj) != `{"id":"a"}` {
		t.Errorf("ExtractJSON = %s, %v", obj, err)
	}
	// The client remembers: the next request starts at json_object, and
	// its reply tells the same refusal as the one that learned it.
	rn, err := c.Complete(context.Background(), &Request{Schema: schema(), Messages: []Message{{Role: "system", Content: "x"}, {Role: "user", Content: "y"}}})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(r.Adjustments, rn.Adjustments); d != "" {
		t.Errorf("adjustments of a call starting from the learned shape (-first +next):\n%s", d)
	}
	calls := srv.Calls()
	if len(calls) != 3 || calls[2].Format != "json_object" {
		t.Fatalf("calls %d, last format %q; want 3, json_object", len(calls), calls[len(calls)-1].Format)
	}

	// Offline replay: a fresh cache-only client with no key and an
	// unreachable endpoint address gives the same bytes.
	srv.Close()
	only, err := OpenCache(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := New(Config{BaseURL: srv.BaseURL(), Model: "m1"}, only, nil)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := rc.Complete(context.Background(), request())
	if err != nil {
		t.Fatal(err)
	}
	if r2.Content != r.Content || r2.LatencyMS != r.LatencyMS || r2.PromptTokens != r.PromptTokens || !r2.Cached {
		t.Errorf("replay = %+v, want content/latency/tokens of %+v", r2, r)
	}
	if d := cmp.Diff(r.Adjustments, r2.Adjustments); d != "" {
		t.Errorf("replay adjustments (-run +replay):\n%s", d)
	}
	// A miss in cache-only mode is a clear error, not a call.
	_, err = rc.Complete(context.Background(), &Request{Schema: schema(), Messages: []Message{{Role: "system", Content: "new"}}})
	if !errors.Is(err, ErrCacheMiss) || !strings.Contains(err.Error(), "cache-only") {
		t.Errorf("miss err = %v, want ErrCacheMiss", err)
	}

	// The key is in no cache file.
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), testKey) {
			t.Errorf("%s contains the API key", p)
		}
		if strings.HasSuffix(p, ".tmp") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}

func TestCacheKeyIgnoresAPIKey(t *testing.T) {
	body := []byte(`{"model":"m"}`)
	a := CacheKey("http://x/v1", "m", body)
	if b := CacheKey("http://x/v1", "m", body); a != b {
		t.Errorf("key not stable: %s %s", a, b)
	}
	for _, other := range []string{CacheKey("http://y/v1", "m", body), CacheKey("http://x/v1", "n", body), CacheKey("http://x/v1", "m", []byte(`{"model":"n"}`))} {
		if other == a {
			t.Errorf("distinct requests share key %s", a)
		}
	}
}

func TestCacheDamage(t *testing.T) {
	dir := t.TempDir()
	c, _ := OpenCache(dir, false)
	key := strings.Repeat("ab", 32)
	os.MkdirAll(filepath.Join(dir, "ab"), 0o755)
	os.WriteFile(filepath.Join(dir, "ab", key+".json"), []byte(`{"format":1,"key":"other"}`), 0o644)
	_, err := c.Get(key)
	if err == nil || !strings.Contains(err.Error(), "field key") || !strings.Contains(err.Error(), key+".json") {
		t.Errorf("err = %v, want one naming the file and field", err)
	}
	if _, err := OpenCache(filepath.Join(dir, "absent"), true); err == nil {
		t.Error("cache-only open of a missing directory succeeded")
	}
}

// TestDamagedEntryIsNoAnswer: a damaged cache entry holds no answer:
// cache-only, it is a miss (ErrCacheMiss, so no fallback answers in its
// place); otherwise the endpoint is asked again and the entry written
// anew.
func TestDamagedEntryIsNoAnswer(t *testing.T) {
	srv := llmtest.New(func(c *llmtest.Call) llmtest.Reply { return llmtest.Reply{Content: `{"id":"a"}`} })
	defer srv.Close()
	dir := t.TempDir()
	cache, err := OpenCache(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	first, err := newClient(t, srv, cache, nil).Complete(context.Background(), request())
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	if len(entries) != 1 {
		t.Fatalf("cache entries %v, want 1", entries)
	}
	for _, damage := range []string{"", `{"format":1`, `null`, `{"format":1,"key":"other","response":"x"}`} {
		if err := os.WriteFile(entries[0], []byte(damage), 0o644); err != nil {
			t.Fatal(err)
		}
		only, err := OpenCache(dir, true)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := newClient(t, srv, only, nil).Complete(context.Background(), request()); !errors.Is(err, ErrCacheMiss) || !strings.Contains(err.Error(), "damaged") {
			t.Errorf("cache-only over %q: err = %v, want a miss naming the damage", damage, err)
		}
		calls := len(srv.Calls())
		r, err := newClient(t, srv, cache, nil).Complete(context.Background(), request())
		if err != nil || r.Cached || len(srv.Calls()) != calls+1 || r.Content != first.Content {
			t.Fatalf("over %q: err %v, cached %v, calls %d→%d; want the endpoint asked again", damage, err, r != nil && r.Cached, calls, len(srv.Calls()))
		}
		if r, err := newClient(t, srv, only, nil).Complete(context.Background(), request()); err != nil || !r.Cached {
			t.Errorf("over %q: the entry was not written anew: %v", damage, err)
		}
	}
}

func TestNoUsageIsEstimated(t *testing.T) {
	srv := llmtest.New(func(c *llmtest.Call) llmtest.Reply { return llmtest.Reply{Content: `{"id":"a"}`, NoUsage: true} })
	defer srv.Close()
	r, err := newClient(t, srv, nil, nil).Complete(context.Background(), request())
	if err != nil {
		t.Fatal(err)
	}
	// "pick one" (8 bytes) -> 2, "a or b" (6) -> 2; reply 10 bytes -> 3.
	if r.UsageReported || r.PromptTokens != 4 || r.CompletionTokens != 3 {
		t.Errorf("usage = %v %d/%d, want estimated 4/3", r.UsageReported, r.PromptTokens, r.CompletionTokens)
	}
}

func TestNoKey(t *testing.T) {
	srv := llmtest.New(func(c *llmtest.Call) llmtest.Reply { return llmtest.Reply{Content: "{}"} })
	defer srv.Close()
	c, err := New(Config{BaseURL: srv.BaseURL(), Model: "m1"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Complete(context.Background(), request()); !errors.Is(err, ErrNoKey) {
		t.Errorf("err = %v, want ErrNoKey", err)
	}
	if n := len(srv.Calls()); n != 0 {
		t.Errorf("%d calls made without a key", n)
	}
}

func TestRequestFields(t *testing.T) {
	zero := 0.0
	tests := []struct {
		name string
		cfg  Config
		want map[string]any // top-level body fields; nil value means absent
	}{
		{"defaults", Config{}, map[string]any{"max_tokens": nil, "max_completion_tokens": float64(DefaultMaxTokens), "temperature": nil, "seed": nil, "reasoning_effort": nil}},
		{"older server, temperature set", Config{Temperature: &zero, MaxTokens: 500, MaxTokensField: "max_tokens"}, map[string]any{"max_tokens": 500.0, "max_completion_tokens": nil, "temperature": 0.0}},
		{"reasoning effort", Config{ReasoningEffort: "low"}, map[string]any{"reasoning_effort": "low", "temperature": nil}},
		{"no cap, seed", Config{MaxTokens: -1, Seed: new(int64)}, map[string]any{"max_tokens": nil, "max_completion_tokens": nil, "seed": 0.0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(func(c *llmtest.Call) llmtest.Reply { return llmtest.Reply{Content: `{"id":"a"}`} })
			defer srv.Close()
			cfg := tc.cfg
			cfg.BaseURL, cfg.APIKey, cfg.Model = srv.BaseURL(), testKey, "m1"
			c, err := New(cfg, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Complete(context.Background(), request()); err != nil {
				t.Fatal(err)
			}
			var body map[string]any
			if err := json.Unmarshal(srv.Calls()[0].Body, &body); err != nil {
				t.Fatal(err)
			}
			for k, want := range tc.want {
				if got := body[k]; !cmp.Equal(got, want) {
					t.Errorf("body[%s] = %v, want %v", k, got, want)
				}
			}
		})
	}
	if _, err := New(Config{BaseURL: "http://x/v1", Model: "m", MaxTokensField: "max"}, nil, nil); err == nil {
		t.Error("bad MaxTokensField accepted")
	}
}

func TestLimiterBoundsConcurrency(t *testing.T) {
	var inFlight, peak atomic.Int32
	srv := llmtest.New(func(c *llmtest.Call) llmtest.Reply {
		n := inFlight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
		inFlight.Add(-1)
		return llmtest.Reply{Content: `{"id":"a"}`}
	})
	defer srv.Close()
	lim := NewLimiter(2)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		c, err := New(Config{BaseURL: srv.BaseURL(), APIKey: testKey, Model: "m1"}, nil, lim)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			req := request()
			req.Messages[1].Content = fmt.Sprint(i)
			if _, err := c.Complete(context.Background(), req); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	if p := peak.Load(); p > 2 || p < 1 {
		t.Errorf("peak concurrency %d, want at most 2", p)
	}
	if NewLimiter(0) != nil || NewLimiter(0).Cap() != 0 {
		t.Error("NewLimiter(0) should not limit")
	}
}

// TestRetryAfterBounded: the wait an endpoint asks for is read as a
// duration that is never negative and never wraps, whatever it sends.
func TestRetryAfterBounded(t *testing.T) {
	for _, tc := range []struct {
		key, val string
		want     time.Duration
	}{
		{"Retry-After", "2", 2 * time.Second},
		{"Retry-After-Ms", "250", 250 * time.Millisecond},
		{"Retry-After", "-3", 0},
		{"Retry-After", "NaN", 0},
		{"Retry-After", "1e300", math.MaxInt64},
		{"Retry-After", "+Inf", math.MaxInt64},
		{"Retry-After-Ms", "1e30", math.MaxInt64},
		{"Retry-After", "soon", 0},
	} {
		h := http.Header{}
		h.Set(tc.key, tc.val)
		if got := retryAfter(h); got != tc.want {
			t.Errorf("%s: %s gives %v, want %v", tc.key, tc.val, got, tc.want)
		}
	}
}

// TestRedirectNotFollowed: an endpoint that redirects elsewhere is an
// error naming where it points; the request (and an api-key header, which
// Go keeps across hosts) never reaches the other host.
func TestRedirectNotFollowed(t *testing.T) {
	var reached atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"choices":[{"message":{"content":"{\"id\":\"a\"}"}}]}`)
	}))
	defer other.Close()
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer first.Close()
	for _, auth := range []string{AuthBearer, AuthAPIKey} {
		c, err := New(Config{BaseURL: first.URL + "/v1", APIKey: testKey, Model: "m1", Auth: auth, Retries: 2}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Complete(context.Background(), request())
		if err == nil || !strings.Contains(err.Error(), "redirected to "+other.URL) || strings.Contains(err.Error(), testKey) {
			t.Errorf("auth %s: %v, want an error naming the redirect", auth, err)
		}
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("the other host was reached %d times", n)
	}
}

// TestEveryKeyScrubbed: an endpoint that echoes every key it has been
// sent, and one of the environment's it never was, into every reply and
// error gets none of them through any client: each client scrubs every
// key the process holds, not only its own.
func TestEveryKeyScrubbed(t *testing.T) {
	const envOnly = "sk-finalize-Qa4Ux1Tm8Zo3"
	t.Setenv("MSS_FINALIZE_API_KEY", envOnly)
	keys := []string{"sk-main-7Hq2LmXw9Rt4", "sk-fast-Pz8Kd3Vn6Yc1", "sk-embed-Wb5Jf0Gs2Ne7"}
	var mu sync.Mutex
	seen := []string{envOnly}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if k := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "); !slices.Contains(seen, k) {
			seen = append(seen, k)
		}
		echo := "keys seen: " + strings.Join(seen, ", ")
		mu.Unlock()
		if strings.HasSuffix(r.URL.Path, "/embeddings") {
			http.Error(w, echo, http.StatusBadRequest)
			return
		}
		content, _ := json.Marshal(`{"id":"a"} ` + echo)
		fmt.Fprintf(w, `{"choices":[{"message":{"content":%s}}]}`, content)
	}))
	defer srv.Close()
	cache, err := OpenCache(t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	var clients []*Client
	for i, k := range keys {
		c, err := New(Config{BaseURL: srv.URL + "/v1", APIKey: k, Model: fmt.Sprint("m", i), Retries: -1}, cache, nil)
		if err != nil {
			t.Fatal(err)
		}
		clients = append(clients, c)
	}
	var out []string
	for range 2 {
		for _, c := range clients[:2] {
			r, err := c.Complete(context.Background(), &Request{Messages: []Message{{Role: "user", Content: fmt.Sprint(len(out))}}})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, r.Content)
		}
		_, err := clients[2].Embed(context.Background(), []string{"a"})
		if err == nil {
			t.Fatal("the embeddings call did not fail")
		}
		out = append(out, err.Error())
	}
	filepath.Walk(cache.Dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, _ := os.ReadFile(p)
			out = append(out, string(b))
		}
		return err
	})
	for _, s := range out {
		for _, k := range append(keys, envOnly) {
			if strings.Contains(s, k) {
				t.Errorf("%s got through: %s", k, s)
			}
		}
	}
	if !strings.Contains(out[3], "keys seen: [redacted], [redacted], [redacted], [redacted]") {
		t.Errorf("the echo is not there, redacted: %s", out[3])
	}
}

// TestEchoedKeyInBase64: an endpoint whose error message holds the
// Authorization header it got in base64, wrapped at 76 columns as MIME
// writes it, and the key's base64 URL-encoded, gets neither into the
// error.
func TestEchoedKeyInBase64(t *testing.T) {
	const key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY?EXAMPLE~KEY0123456"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var mime strings.Builder
		for s := base64.StdEncoding.EncodeToString([]byte("Authorization: " + r.Header.Get("Authorization"))); s != ""; {
			n := min(len(s), 76)
			mime.WriteString(s[:n] + "\n")
			s = s[n:]
		}
		bearer := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		msg, _ := json.Marshal("auth header was " + mime.String() + " ; token=" + url.QueryEscape(base64.StdEncoding.EncodeToString([]byte(bearer))))
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, `{"error":{"message":%s}}`, msg)
	}))
	defer srv.Close()
	c, err := New(Config{BaseURL: srv.URL + "/v1", APIKey: key, Model: "m1", Retries: -1}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Complete(context.Background(), request())
	if err == nil || !strings.Contains(err.Error(), "auth header was QXV0aG9yaXphdGlvbjogQmVhcmVy") {
		t.Fatalf("err = %v, want the echo", err)
	}
	if left := base64Left(err.Error(), key); left != "" {
		t.Errorf("%v: %s of the key's base64 left", err, left)
	}
}

// TestCachedEchoScrubbed: a cache entry that holds a key the process did
// not hold when it was written (an endpoint knew it, or an earlier run
// kept it) is served with the key scrubbed once the process holds it.
func TestCachedEchoScrubbed(t *testing.T) {
	const later = "sk-later-Jt6Rw2Xe9Lc5"
	srv := llmtest.New(func(c *llmtest.Call) llmtest.Reply {
		return llmtest.Reply{Content: `{"id":"a"} echo ` + later}
	})
	defer srv.Close()
	cache, err := OpenCache(t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(Config{BaseURL: srv.BaseURL(), APIKey: testKey, Model: "m1"}, cache, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Complete(context.Background(), request()); err != nil {
		t.Fatal(err)
	}
	if _, err := New(Config{BaseURL: srv.BaseURL(), APIKey: later, Model: "m2"}, nil, nil); err != nil {
		t.Fatal(err)
	}
	r, err := c.Complete(context.Background(), request())
	if err != nil {
		t.Fatal(err)
	}
	if !r.Cached || r.Content != `{"id":"a"} echo `+Redacted {
		t.Errorf("cached reply %q (cached %v), want the key scrubbed", r.Content, r.Cached)
	}
}
