package retrieve

import (
	"context"
	"fmt"
	"math"
	"os"
	"sync"

	"github.com/missingcomplement/mss/internal/textcut"
	"github.com/missingcomplement/mss/llm"
)

// Embedder turns texts into vectors, one per text, in order.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Environment variables of the optional embedding view.
const (
	EnvEmbedBaseURL = "MSS_EMBED_BASE_URL"
	EnvEmbedModel   = "MSS_EMBED_MODEL"
	EnvEmbedAPIKey  = "MSS_EMBED_API_KEY"
)

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
	c, err := llm.New(llm.Config{BaseURL: baseURL, APIKey: apiKey, Model: model, Retries: 2}, nil, nil)
	return &OpenAIEmbedder{client: c, err: err, model: model, base: baseURL}
}

// NewEmbedderFromEnv returns the embedder named by MSS_EMBED_BASE_URL and
// MSS_EMBED_MODEL (key from MSS_EMBED_API_KEY), or nil when either is unset.
func NewEmbedderFromEnv() Embedder {
	base, model := os.Getenv(EnvEmbedBaseURL), os.Getenv(EnvEmbedModel)
	if base == "" || model == "" {
		return nil
	}
	o := NewOpenAIEmbedder(base, model, os.Getenv(EnvEmbedAPIKey))
	o.env = true
	return o
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
