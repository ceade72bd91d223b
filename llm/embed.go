package llm

import (
	"context"
	"encoding/json"
	"fmt"
)

// Embed returns one vector per text from the endpoint's /embeddings, in
// order, with the client's retries, auth and limiter. Embeddings are not
// cached: they are computed once per index load.
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	u, err := endpointURL(c.cfg.BaseURL, "embeddings", c.cfg.APIVersion)
	if err != nil {
		return nil, fmt.Errorf("llm: base URL %s: %s", RedactURL(c.cfg.BaseURL), redact(err.Error()))
	}
	body, err := CanonicalJSON(map[string]any{"model": c.cfg.Model, "input": texts})
	if err != nil {
		return nil, fmt.Errorf("llm: encode request: %w", err)
	}
	raw, attempts, err := c.callURL(ctx, u, body)
	if err != nil {
		return nil, fmt.Errorf("llm: embeddings %s after %d attempt(s): %s", c.cfg.Model, attempts, redact(err.Error()))
	}
	var res struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("llm: embeddings %s: decode: %s", c.cfg.Model, redact(err.Error()))
	}
	if len(res.Data) != len(texts) {
		return nil, fmt.Errorf("llm: embeddings %s: got %d vectors for %d inputs", c.cfg.Model, len(res.Data), len(texts))
	}
	out := make([][]float32, len(texts))
	seen := make([]bool, len(texts))
	for _, d := range res.Data {
		switch {
		case d.Index < 0 || d.Index >= len(texts):
			return nil, fmt.Errorf("llm: embeddings %s: vector index %d out of range [0,%d)", c.cfg.Model, d.Index, len(texts))
		case seen[d.Index]:
			return nil, fmt.Errorf("llm: embeddings %s: vector index %d repeated", c.cfg.Model, d.Index)
		case len(d.Embedding) == 0:
			return nil, fmt.Errorf("llm: embeddings %s: vector index %d is null or empty", c.cfg.Model, d.Index)
		}
		seen[d.Index] = true
		out[d.Index] = d.Embedding
	}
	return out, nil
}
