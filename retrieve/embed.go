package retrieve

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/missingcomplement/mss/internal/textcut"
	"github.com/missingcomplement/mss/llm"
)

// Embedder turns texts into vectors, one per text, in order.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Environment variables of the optional embedding view. The call settings
// (timeout, retries, backoff) fall back to the chat stages' MSS_LLM_TIMEOUT,
// MSS_LLM_RETRIES, MSS_LLM_BACKOFF and MSS_LLM_BACKOFF_MAX.
const (
	EnvEmbedBaseURL    = "MSS_EMBED_BASE_URL"
	EnvEmbedModel      = "MSS_EMBED_MODEL"
	EnvEmbedAPIKey     = "MSS_EMBED_API_KEY"
	EnvEmbedTimeout    = "MSS_EMBED_TIMEOUT"
	EnvEmbedRetries    = "MSS_EMBED_RETRIES"
	EnvEmbedBackoff    = "MSS_EMBED_BACKOFF"
	EnvEmbedBackoffMax = "MSS_EMBED_BACKOFF_MAX"
)

// embedRetries is the embedder's default number of extra attempts.
const embedRetries = 2

// Embedding limits: texts are cut to embedMaxChars (units are embedded
// for ranking only, never delivered cut) and sent embedBatch at a time.
const (
	embedMaxChars = 6000
	embedBatch    = 64
)

// OpenAIEmbedder calls an OpenAI-compatible /embeddings endpoint through
// the one model-endpoint client (package llm: retries, auth, redaction).
type OpenAIEmbedder struct {
	client *llm.Client
	err    error // a bad base URL, reported by the first Embed
	model  string
	base   string // as given; printed redacted
	env    bool   // made from the environment (NewEmbedderFromEnv)
}

// NewOpenAIEmbedder builds an embedder for baseURL and model; apiKey may be
// empty for local servers that do not check it.
func NewOpenAIEmbedder(baseURL, model, apiKey string) *OpenAIEmbedder {
	return newOpenAIEmbedder(llm.Config{BaseURL: baseURL, APIKey: apiKey, Model: model, Retries: embedRetries})
}

func newOpenAIEmbedder(cfg llm.Config) *OpenAIEmbedder {
	c, err := llm.New(cfg, nil, nil)
	return &OpenAIEmbedder{client: c, err: err, model: cfg.Model, base: cfg.BaseURL}
}

// NewEmbedderFromEnv returns the embedder named by MSS_EMBED_BASE_URL and
// MSS_EMBED_MODEL (key from MSS_EMBED_API_KEY), or nil when either is unset.
// Its per-attempt timeout, retries and backoff come from MSS_EMBED_TIMEOUT,
// MSS_EMBED_RETRIES, MSS_EMBED_BACKOFF and MSS_EMBED_BACKOFF_MAX, each
// falling back to its MSS_LLM_* counterpart; a bad value is reported by the
// first Embed, before any call.
func NewEmbedderFromEnv() Embedder {
	base, model := os.Getenv(EnvEmbedBaseURL), os.Getenv(EnvEmbedModel)
	if base == "" || model == "" {
		return nil
	}
	cfg := llm.Config{BaseURL: base, APIKey: os.Getenv(EnvEmbedAPIKey), Model: model, Retries: embedRetries}
	var o *OpenAIEmbedder
	if err := embedCallsFromEnv(&cfg); err != nil {
		o = &OpenAIEmbedder{err: err, model: model, base: base}
	} else {
		o = newOpenAIEmbedder(cfg)
	}
	o.env = true
	return o
}

// embedCallsFromEnv sets cfg's timeout, retries and backoff from the
// environment, read and checked as the chat stages' (semantic.ParseConfig).
func embedCallsFromEnv(cfg *llm.Config) error {
	get := func(name, fallback string) (val, from string) {
		for _, n := range []string{name, fallback} {
			if v := os.Getenv(n); v != "" {
				return v, n
			}
		}
		return "", ""
	}
	for _, d := range []struct {
		dst            *time.Duration
		name, fallback string
	}{
		{&cfg.Timeout, EnvEmbedTimeout, "MSS_LLM_TIMEOUT"},
		{&cfg.Backoff, EnvEmbedBackoff, "MSS_LLM_BACKOFF"},
		{&cfg.BackoffMax, EnvEmbedBackoffMax, "MSS_LLM_BACKOFF_MAX"},
	} {
		if v, from := get(d.name, d.fallback); from != "" {
			t, err := llm.ParseDuration(v)
			if err != nil {
				return fmt.Errorf("environment variable %s: %w", from, err)
			}
			*d.dst = t
		}
	}
	if v, from := get(EnvEmbedRetries, "MSS_LLM_RETRIES"); from != "" {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 {
			return fmt.Errorf("environment variable %s: %q is not an integer >= 0", from, v)
		}
		cfg.Retries = n
		if n == 0 {
			cfg.Retries = -1 // explicitly none
		}
	}
	return nil
}

// fail is err as Embed reports it: the endpoint (redacted) and model it
// concerns and, for an embedder made from the environment, how to answer
// without it.
func (o *OpenAIEmbedder) fail(err error) error {
	err = fmt.Errorf("endpoint %s, model %s: %w", llm.RedactURL(o.base), o.model, err)
	if o.env {
		err = fmt.Errorf("%w (unset %s to answer without the embedding view)", err, EnvEmbedBaseURL)
	}
	return err
}

// Embed implements Embedder.
func (o *OpenAIEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if o.err != nil {
		return nil, o.fail(o.err)
	}
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += embedBatch {
		end := min(start+embedBatch, len(texts))
		batch := make([]string, end-start)
		for i, t := range texts[start:end] {
			t = textcut.Head(t, embedMaxChars)
			if t == "" {
				t = " "
			}
			batch[i] = t
		}
		vecs, err := o.client.Embed(ctx, batch)
		if err != nil {
			return nil, o.fail(err)
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// embedIndex holds unit vectors, computed on first use.
type embedIndex struct {
	emb  Embedder
	once sync.Once
	vecs [][]float32
	err  error
}

// embeddingView ranks units by cosine similarity of their embedding to the
// state's.
func (e *Engine) embeddingView(ctx context.Context, q *query) ([]hit, error) {
	ix := e.emb
	ix.once.Do(func() {
		texts, err := e.contents(ctx)
		if err != nil {
			ix.err = err
			return
		}
		var live []int
		var asked []string
		for i := range texts {
			if e.live(i) {
				u := e.unitAt(i)
				live = append(live, i)
				asked = append(asked, u.Path+" "+u.Symbol+"\n"+texts[i])
			}
		}
		vecs, err := ix.emb.Embed(ctx, asked)
		if err == nil && len(vecs) != len(asked) {
			err = fmt.Errorf("got %d vectors for %d units", len(vecs), len(asked))
		}
		if err != nil {
			ix.err = err
			return
		}
		for k, i := range live {
			if len(vecs[k]) == 0 {
				ix.err = fmt.Errorf("no vector for unit %s", e.unitAt(i).ID)
				return
			}
		}
		ix.vecs = make([][]float32, len(texts))
		for k, i := range live {
			normalize(vecs[k])
			ix.vecs[i] = vecs[k]
		}
	})
	if ix.err != nil {
		return nil, ix.err
	}
	qv, err := ix.emb.Embed(ctx, []string{q.text})
	if err != nil {
		return nil, err
	}
	if len(qv) != 1 {
		return nil, fmt.Errorf("got %d vectors for the state", len(qv))
	}
	normalize(qv[0])
	hs := make([]hit, 0, len(ix.vecs))
	for i, v := range ix.vecs {
		if v == nil {
			continue // not a unit the engine holds
		}
		if len(v) != len(qv[0]) {
			return nil, fmt.Errorf("vector sizes differ: unit %d, state %d", len(v), len(qv[0]))
		}
		if s := dot(v, qv[0]); s > 0 {
			hs = append(hs, hit{i, float64(s)})
		}
	}
	return e.sortHits(hs), nil
}

func normalize(v []float32) {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(n))
	for i := range v {
		v[i] *= inv
	}
}

func dot(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
