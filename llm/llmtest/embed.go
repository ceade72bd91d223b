package llmtest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
)

// Embeddings is a local OpenAI-compatible /embeddings endpoint for tests.
// A text's vector has one coordinate per keyword: 1 where the text
// contains the keyword, 0.1 elsewhere, so texts sharing a keyword point
// the same way. It refuses a request for another model, or without the
// key as a bearer token when it was given one.
type Embeddings struct {
	*httptest.Server
	calls atomic.Int64
}

// NewEmbeddings starts the endpoint for model (and key, "" for none);
// Close stops it.
func NewEmbeddings(model, key string, keywords ...string) *Embeddings {
	e := &Embeddings{}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/embeddings" {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		if got := r.Header.Get("Authorization"); key != "" && got != "Bearer "+key {
			http.Error(w, "bad key "+got, http.StatusUnauthorized)
			return
		}
		var req struct {
			Input []string `json:"input"`
			Model string   `json:"model"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != model {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		e.calls.Add(1)
		type item struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float64 `json:"embedding"`
		}
		data := make([]item, len(req.Input))
		for i, s := range req.Input {
			v := make([]float64, len(keywords))
			for k, word := range keywords {
				v[k] = 0.1
				if strings.Contains(s, word) {
					v[k] = 1
				}
			}
			data[i] = item{"embedding", i, v}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": model})
	}))
	return e
}

// Calls is how many requests it has answered.
func (e *Embeddings) Calls() int64 { return e.calls.Load() }
