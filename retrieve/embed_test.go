package retrieve

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/missingcomplement/mss"
)

// embedCallVars are the environment variables of the embedder's calls
// and the chat ones they fall back to.
var embedCallVars = []string{
	"MSS_EMBED_TIMEOUT", "MSS_EMBED_RETRIES", "MSS_EMBED_BACKOFF", "MSS_EMBED_BACKOFF_MAX",
	"MSS_LLM_TIMEOUT", "MSS_LLM_RETRIES", "MSS_LLM_BACKOFF", "MSS_LLM_BACKOFF_MAX",
}

// hangingEndpoint never answers; it counts the requests it got.
func hangingEndpoint(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	t.Cleanup(func() { close(stop); srv.Close() })
	return srv, &calls
}

// embedWithin runs Embed and fails the test when it has not returned
// within limit.
func embedWithin(t *testing.T, emb Embedder, limit time.Duration) (time.Duration, error) {
	t.Helper()
	if emb == nil {
		t.Fatal("no embedder from the environment")
	}
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := emb.Embed(context.Background(), []string{"a"})
		done <- err
	}()
	select {
	case err := <-done:
		return time.Since(start), err
	case <-time.After(limit):
		t.Fatalf("Embed has not returned after %v", limit)
		return 0, nil
	}
}

// TestEmbedTimeoutFromEnv: an embedding endpoint that never answers is
// given up after MSS_EMBED_TIMEOUT (else MSS_LLM_TIMEOUT) per attempt, with
// MSS_EMBED_RETRIES (else MSS_LLM_RETRIES) retries MSS_EMBED_BACKOFF apart.
func TestEmbedTimeoutFromEnv(t *testing.T) {
	for _, tc := range []struct {
		name     string
		env      map[string]string
		attempts int64
	}{
		{"embed timeout", map[string]string{"MSS_EMBED_TIMEOUT": "200ms", "MSS_EMBED_RETRIES": "0"}, 1},
		{"bare seconds", map[string]string{"MSS_EMBED_TIMEOUT": "0.2", "MSS_EMBED_RETRIES": "0"}, 1},
		{"embed beats llm", map[string]string{"MSS_EMBED_TIMEOUT": "200ms", "MSS_LLM_TIMEOUT": "1h", "MSS_EMBED_RETRIES": "0", "MSS_LLM_RETRIES": "5"}, 1},
		{"llm fallback", map[string]string{"MSS_LLM_TIMEOUT": "200ms", "MSS_LLM_RETRIES": "1", "MSS_LLM_BACKOFF": "10ms"}, 2},
		{"retries and backoff", map[string]string{"MSS_EMBED_TIMEOUT": "100ms", "MSS_EMBED_RETRIES": "2", "MSS_EMBED_BACKOFF": "10ms", "MSS_EMBED_BACKOFF_MAX": "20ms"}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, calls := hangingEndpoint(t)
			for _, v := range embedCallVars {
				t.Setenv(v, tc.env[v])
			}
			t.Setenv(EnvEmbedBaseURL, srv.URL)
			t.Setenv(EnvEmbedModel, "m")
			t.Setenv(EnvEmbedAPIKey, "sk-embed-secret")
			took, err := embedWithin(t, NewEmbedderFromEnv(), 10*time.Second)
			want := fmt.Sprintf("after %d attempt(s): context deadline exceeded", tc.attempts)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("Embed of a hung endpoint: %v, want %q", err, want)
			}
			if strings.Contains(err.Error(), "sk-embed-secret") {
				t.Errorf("error shows the key: %v", err)
			}
			if n := calls.Load(); n != tc.attempts {
				t.Errorf("%d attempts, want %d", n, tc.attempts)
			}
			if took > 5*time.Second {
				t.Errorf("gave up after %v", took)
			}
		})
	}
}

// TestEmbedEnvRefusesBadValues: a bad timeout, retry count or backoff is
// an error naming the variable and its value, before any call; never a
// silent default.
func TestEmbedEnvRefusesBadValues(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		http.Error(w, "not here", http.StatusNotFound)
	}))
	defer srv.Close()
	for _, tc := range []struct{ name, val string }{
		{"MSS_EMBED_TIMEOUT", "NaN"},
		{"MSS_EMBED_TIMEOUT", "inf"},
		{"MSS_EMBED_TIMEOUT", "-Inf"},
		{"MSS_EMBED_TIMEOUT", "-1"},
		{"MSS_EMBED_TIMEOUT", "-1s"},
		{"MSS_EMBED_TIMEOUT", "1e300"},
		{"MSS_EMBED_TIMEOUT", "soon"},
		{"MSS_LLM_TIMEOUT", "NaN"},
		{"MSS_EMBED_RETRIES", "-1"},
		{"MSS_EMBED_RETRIES", "two"},
		{"MSS_LLM_RETRIES", "1.5"},
		{"MSS_EMBED_BACKOFF", "inf"},
		{"MSS_EMBED_BACKOFF_MAX", "-2"},
		{"MSS_EMBED_TIMEOUT", "0"},
		{"MSS_LLM_BACKOFF", "x"},
	} {
		t.Run(tc.name+"="+tc.val, func(t *testing.T) {
			for _, v := range embedCallVars {
				t.Setenv(v, "")
			}
			t.Setenv(tc.name, tc.val)
			err := embedOnceFromEnv(t, srv.URL)
			if err == nil || !strings.Contains(err.Error(), "environment variable "+tc.name+": \""+tc.val+"\"") {
				t.Errorf("got %v, want an error naming %s=%q", err, tc.name, tc.val)
			}
			if err != nil && strings.Contains(err.Error(), "sk-embed-secret") {
				t.Errorf("error shows the key: %v", err)
			}
			if n := calls.Load(); n != 0 {
				t.Errorf("%d calls made with a bad configuration", n)
			}
		})
	}
}

// TestEmbedBadBaseURL: an embedding base URL that does not parse is
// reported without its password or credential query value.
func TestEmbedBadBaseURL(t *testing.T) {
	for _, base := range []string{
		"http://user:SECRETPASSWORD99@127.0.0.1:badport/v1",
		"http://127.0.0.1:badport/v1?api-key=SECRETPASSWORD99",
	} {
		err := embedOnceFromEnv(t, base)
		if err == nil || strings.Contains(err.Error(), "SECRETPASSWORD99") || !strings.Contains(err.Error(), "[redacted]") {
			t.Errorf("%s: got %v, want an error naming the base URL redacted", base, err)
		}
	}
}

// embedOnceFromEnv embeds one text with the embedder the environment
// configures, at base with key sk-embed-secret, and returns the error.
func embedOnceFromEnv(t *testing.T, base string) error {
	t.Helper()
	t.Setenv(EnvEmbedBaseURL, base)
	t.Setenv(EnvEmbedModel, "m")
	t.Setenv(EnvEmbedAPIKey, "sk-embed-secret")
	emb := NewEmbedderFromEnv()
	if emb == nil {
		t.Fatal("no embedder from the environment")
	}
	_, err := emb.Embed(context.Background(), []string{"a"})
	return err
}

// nilVectors is an Embedder that answers a nil vector for the text at
// index hole.
type nilVectors struct{ hole int }

func (n nilVectors) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		if i != n.hole {
			out[i] = []float32{1, 0}
		}
	}
	return out, nil
}

// TestEmbeddingViewRefusesEmptyVector: a unit without a vector is an
// error naming it, not a unit left out of the ranking.
func TestEmbeddingViewRefusesEmptyVector(t *testing.T) {
	units := []mss.Unit{
		unit("x.py", 1, "f", "alpha", nil, nil),
		unit("y.py", 1, "g", "beta", nil, nil),
	}
	_, err := NewEngine(units, nil, Options{Embedder: nilVectors{hole: 1}}).Candidates(context.Background(), &mss.State{Issue: "alpha"}, 0)
	if err == nil || !strings.Contains(err.Error(), "y.py:1") {
		t.Errorf("got %v, want an error naming unit y.py:1", err)
	}
}
