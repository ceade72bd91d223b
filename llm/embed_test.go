package llm

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestEmbedRefusesBadVectors: a null or empty embedding, or an index given
// twice whatever its first vector held, is an error naming the index; the
// endpoint's answer is never repaired.
func TestEmbedRefusesBadVectors(t *testing.T) {
	for _, tc := range []struct {
		name, data, want string
	}{
		{"null", `[{"index":0,"embedding":[1,0]},{"index":1,"embedding":null}]`, "vector index 1 is null or empty"},
		{"missing", `[{"index":0,"embedding":[1,0]},{"index":1}]`, "vector index 1 is null or empty"},
		{"empty", `[{"index":0,"embedding":[]},{"index":1,"embedding":[1,0]}]`, "vector index 0 is null or empty"},
		{"null then repeated", `[{"index":0,"embedding":null},{"index":0,"embedding":[1,0]}]`, "vector index 0 is null or empty"},
		{"repeated", `[{"index":1,"embedding":[1,0]},{"index":1,"embedding":[0,1]}]`, "vector index 1 repeated"},
		{"out of range", `[{"index":0,"embedding":[1,0]},{"index":2,"embedding":[0,1]}]`, "vector index 2 out of range"},
		{"negative", `[{"index":-1,"embedding":[1,0]},{"index":1,"embedding":[0,1]}]`, "vector index -1 out of range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				fmt.Fprintf(w, `{"object":"list","model":"m","data":%s}`, tc.data)
			}))
			defer srv.Close()
			c, err := New(Config{BaseURL: srv.URL, APIKey: "sk-embed-secret", Model: "m", Retries: -1}, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			vecs, err := c.Embed(context.Background(), []string{"a", "b"})
			if err == nil || !strings.Contains(err.Error(), "llm: embeddings m: "+tc.want) {
				t.Fatalf("got %v, %v; want an error containing %q", vecs, err, tc.want)
			}
			if strings.Contains(err.Error(), "sk-embed-secret") {
				t.Errorf("error shows the key: %v", err)
			}
		})
	}
}

// TestEmbedOrder: vectors come back in input order whatever order the
// endpoint lists them in.
func TestEmbedOrder(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"data":[{"index":1,"embedding":[0,1]},{"index":0,"embedding":[1,0]}]}`)
	}))
	defer srv.Close()
	c, err := New(Config{BaseURL: srv.URL, Model: "m", Retries: -1}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	vecs, err := c.Embed(context.Background(), []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 2 || vecs[0][0] != 1 || vecs[1][1] != 1 {
		t.Errorf("vectors %v, want [[1 0] [0 1]]", vecs)
	}
}
