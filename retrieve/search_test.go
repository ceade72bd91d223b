package retrieve

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/index"
)

func symbolsOf(us []mss.Unit) []string {
	out := make([]string, len(us))
	for i, u := range us {
		out[i] = u.Symbol
	}
	return out
}

// TestSearch: terms are code-aware, a symbol's terms count most, each
// distinct term counts once, results come with their content, and an
// empty query or limit finds nothing.
func TestSearch(t *testing.T) {
	units := []mss.Unit{
		{ID: "a", Path: "pkg/lookup.py", StartLine: 1, EndLine: 3, Symbol: "lookup_single", Kind: "function", Content: "def lookup_single(key):\n    return table[key]\n"},
		{ID: "b", Path: "pkg/server.go", StartLine: 1, EndLine: 3, Symbol: "handleRequest", Kind: "function", Content: "func handleRequest(w Writer) {\n\trenderPage(w)\n}\n"},
		{ID: "c", Path: "pkg/server.go", StartLine: 5, EndLine: 7, Symbol: "renderPage", Kind: "function", Content: "func renderPage(w Writer) {\n\tw.Write(page)\n}\n"},
		{ID: "d", Path: "docs/notes.md", StartLine: 1, EndLine: 1, Kind: "window", Content: "The page is rendered after each request.\n"},
	}
	e := NewEngine(units, nil, Options{})
	ctx := context.Background()
	for _, tc := range []struct{ query, want string }{
		{"lookupSingle", "lookup_single"},
		{"handle request", "handleRequest"},
		{"render page", "renderPage"},
		{"renderPage renderPage renderPage", "renderPage"},
	} {
		got, err := e.Search(ctx, tc.query, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 || got[0].Symbol != tc.want || got[0].Content == "" {
			t.Errorf("Search(%q) = %v, want %q first, with its content", tc.query, symbolsOf(got), tc.want)
		}
	}
	if got, _ := e.Search(ctx, "page", 10); len(got) != 3 {
		t.Errorf("Search(page) = %v, want the 3 units that hold the term", symbolsOf(got))
	}
	if got, _ := e.Search(ctx, "page", 1); len(got) != 1 {
		t.Errorf("limit 1: %v", symbolsOf(got))
	}
	for _, q := range []string{"   ", "x", "nothing_here"} {
		if got, err := e.Search(ctx, q, 5); err != nil || len(got) != 0 {
			t.Errorf("Search(%q) = %v, %v; want nothing", q, symbolsOf(got), err)
		}
	}
	if got, err := e.Search(ctx, "page", 0); err != nil || len(got) != 0 {
		t.Errorf("limit 0: %v, %v", symbolsOf(got), err)
	}
}

// TestSearchStoredAndOverlaid: a stored engine and an overlay after
// edits answer a search with exactly the units, content included, that
// an engine built from the index's units does; a removed file's units
// are never found and an added one's are.
func TestSearchStoredAndOverlaid(t *testing.T) {
	ctx := context.Background()
	repo := storedRepo(t)
	db := filepath.Join(t.TempDir(), "ix.db")
	if _, err := index.Build(ctx, index.Options{Repo: repo, DB: db, Derive: Deriver}); err != nil {
		t.Fatal(err)
	}
	stored := openEngine(t, db)
	ix, err := index.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	queries := []string{"lookup single", "palette", "HueMapping norm", "lookup table mapping", "PairGrid axes"}
	same := func(name string, got, want *Engine, queries []string) {
		t.Helper()
		for _, q := range queries {
			g, err := got.Search(ctx, q, 4)
			if err != nil {
				t.Fatal(err)
			}
			w, err := want.Search(ctx, q, 4)
			if err != nil {
				t.Fatal(err)
			}
			if len(w) == 0 {
				t.Errorf("%s: Search(%q) finds nothing in the reference", name, q)
			}
			if diff := cmp.Diff(w, g); diff != "" {
				t.Errorf("%s: Search(%q) (-built +%s):\n%s", name, q, name, diff)
			}
		}
	}
	same("stored", stored, memEngine(t, ix, Options{Disable: []string{ViewHistory}}), queries)

	base, ix2, _, _ := overlayFixture(t)
	ov, err := Overlay(ctx, base, ix2, Options{Disable: []string{ViewHistory}})
	if err != nil {
		t.Fatal(err)
	}
	same("overlay", ov, memEngine(t, ix2, Options{Disable: []string{ViewHistory}}), append(queries, "darken all", "saturate", "keys normalised"))
	got, err := ov.Search(ctx, "darken all colors", 1)
	if err != nil || len(got) != 1 || got[0].Symbol != "darken_all" {
		t.Errorf("the added function: %v, %v", symbolsOf(got), err)
	}
	if got, err := ov.Search(ctx, "hue keys raises KeyError", 10); err != nil {
		t.Error(err)
	} else {
		for _, u := range got {
			if u.Path == "docs/mapping.md" {
				t.Errorf("the removed file's unit is found: %s", u.ID)
			}
		}
	}
}
