package retrieve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/llm/llmtest"
)

// gitRepo makes a repository with a commit history in which a.py and b.py
// always change together and c.py changes alone; it returns the git dir
// and the head commit.
func gitRepo(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	run := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("init", "-q")
	write := func(p, s string) {
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i, msg := range []string{"add codec", "fix codec padding", "codec: handle empty input"} {
		write("a.py", strings.Repeat("x = 1\n", i+1))
		write("b.py", strings.Repeat("y = 1\n", i+1))
		run("add", ".")
		run("commit", "-qm", msg)
		write("c.py", strings.Repeat("z = 1\n", i+1))
		run("add", ".")
		run("commit", "-qm", "tidy logging")
	}
	return filepath.Join(dir, ".git"), run("rev-parse", "HEAD")
}

func TestHistoryView(t *testing.T) {
	gitDir, head := gitRepo(t)
	units := []mss.Unit{
		unit("a.py", 1, "encode", "def encode(s): return s", []string{"encode"}, nil),
		unit("b.py", 1, "decode", "def decode(s): return s", []string{"decode"}, nil),
		unit("c.py", 1, "log", "def log(s): print(s)", []string{"log"}, nil),
	}
	e := NewEngine(units, nil, Options{GitDir: gitDir, Commit: head})
	if len(e.Warnings()) > 0 {
		t.Fatalf("warnings: %v", e.Warnings())
	}
	st := &mss.State{Issue: "something about padding", ObservedSpans: []mss.Span{{Path: "a.py", StartLine: 1, EndLine: 1}}}
	cands, err := e.Candidates(context.Background(), st, 0)
	if err != nil {
		t.Fatal(err)
	}
	hist := map[string]int{}
	for _, c := range cands {
		if r, ok := c.Views[ViewHistory]; ok {
			hist[c.Unit.Path] = r
		}
	}
	if hist["b.py"] != 1 {
		t.Errorf("history ranks %v; want b.py (co-changed with the observed a.py) first", hist)
	}
	if _, ok := hist["a.py"]; ok {
		t.Errorf("history ranks the observed a.py: %v", hist)
	}
	// A bad git dir leaves the view off with a warning, not an error.
	e = NewEngine(units, nil, Options{GitDir: t.TempDir(), Commit: head})
	if len(e.Warnings()) != 1 {
		t.Errorf("warnings = %v, want one about the history view", e.Warnings())
	}
}

func TestSemanticViewRelatesCoOccurringTerms(t *testing.T) {
	// "tz" never appears with "offset" in the query's unit, but co-occurs
	// with it elsewhere; the semantic view should rank the tz unit above an
	// unrelated one for a query about offsets.
	var units []mss.Unit
	for i := 0; i < 6; i++ {
		units = append(units, unit("lib/zone.py", 1+10*i, "", "utc offset tz zone", nil, nil))
		units = append(units, unit("lib/io.py", 1+10*i, "", "file read write buffer", nil, nil))
	}
	units = append(units, unit("lib/target.py", 1, "", "tz zone", nil, nil))
	units = append(units, unit("lib/other.py", 1, "", "buffer write", nil, nil))
	e := NewEngine(units, nil, Options{})
	st := &mss.State{Issue: "wrong utc offset"}
	q, err := e.prepare(st, mss.ObservedOf(st))
	if err != nil {
		t.Fatal(err)
	}
	hs := e.semanticView(q)
	rank := map[string]int{}
	for r, h := range hs {
		rank[e.units[h.idx].ID] = r + 1
	}
	tr, ok := rank["lib/target.py:1"]
	if !ok {
		t.Fatalf("semantic view does not rank the tz unit: %v", rank)
	}
	if or, ok := rank["lib/other.py:1"]; ok && or < tr {
		t.Errorf("unrelated unit ranks %d above the related one at %d", or, tr)
	}
}

func TestEmbeddingView(t *testing.T) {
	// A fake endpoint: vectors by keyword, so "alpha" texts point one way.
	srv := llmtest.NewEmbeddings("m", "k", "alpha", "beta")
	defer srv.Close()
	t.Setenv(EnvEmbedBaseURL, srv.URL)
	t.Setenv(EnvEmbedModel, "m")
	t.Setenv(EnvEmbedAPIKey, "k")
	emb := NewEmbedderFromEnv()
	if emb == nil {
		t.Fatal("embedder from env is nil")
	}
	units := []mss.Unit{
		unit("x.py", 1, "f", "beta beta", nil, nil),
		unit("y.py", 1, "g", "alpha things", nil, nil),
	}
	e := NewEngine(units, nil, Options{Embedder: emb})
	cands, err := e.Candidates(context.Background(), &mss.State{Issue: "alpha"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	ranks := map[string]int{}
	for _, c := range cands {
		if r, ok := c.Views[ViewEmbedding]; ok {
			ranks[c.Unit.Path] = r
		}
	}
	if ranks["y.py"] != 1 || ranks["x.py"] != 2 {
		t.Errorf("embedding ranks %v, want y.py 1, x.py 2", ranks)
	}
	// Unset: no embedder.
	t.Setenv(EnvEmbedModel, "")
	if NewEmbedderFromEnv() != nil {
		t.Error("embedder built without a model")
	}
	// A failing endpoint is an error, not a silent fallback; it names the
	// endpoint and model and, made from the environment, how to do without.
	bad := NewOpenAIEmbedder(srv.URL, "other-model", "k")
	_, err = NewEngine(units, nil, Options{Embedder: bad}).Candidates(context.Background(), &mss.State{Issue: "alpha"}, 0)
	if err == nil || !strings.Contains(err.Error(), "endpoint "+srv.URL+", model other-model: ") || strings.Contains(err.Error(), EnvEmbedBaseURL) {
		t.Errorf("failing endpoint: %v", err)
	}
	t.Setenv(EnvEmbedModel, "other-model")
	_, err = NewEngine(units, nil, Options{Embedder: NewEmbedderFromEnv()}).Candidates(context.Background(), &mss.State{Issue: "alpha"}, 0)
	if err == nil || !strings.Contains(err.Error(), "(unset "+EnvEmbedBaseURL+" to answer without the embedding view)") {
		t.Errorf("failing endpoint from the environment: %v", err)
	}
}

// TestEmbedCutsWholeCharacters: a text longer than the endpoint takes is
// cut before a character, never inside one (the request would carry
// U+FFFD for its first byte).
func TestEmbedCutsWholeCharacters(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		got = append(got, req.Input...)
		data := make([]map[string]any, len(req.Input))
		for i := range data {
			data[i] = map[string]any{"object": "embedding", "index": i, "embedding": []float64{1, 0}}
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": "m"})
	}))
	defer srv.Close()
	text := strings.Repeat("a", embedMaxChars-1) + "é and more"
	if _, err := NewOpenAIEmbedder(srv.URL, "m", "k").Embed(context.Background(), []string{text}); err != nil {
		t.Fatal(err)
	}
	if want := strings.Repeat("a", embedMaxChars-1); len(got) != 1 || got[0] != want {
		t.Errorf("sent %d texts; the first ends %q, want %d a's", len(got), got[0][max(0, len(got[0])-5):], embedMaxChars-1)
	}
}

// TestSemanticUnitVectors: a unit's semantic vector is exactly the one
// vector gives its terms (a symbol's counting twice), term vectors are
// unit-normalized, and only terms in at least semMinDF units have one.
func TestSemanticUnitVectors(t *testing.T) {
	var units []mss.Unit
	for k := range 40 {
		units = append(units, mss.Unit{Path: fmt.Sprintf("pkg/m%d.py", k%7), StartLine: k + 1, EndLine: k + 1,
			Symbol:  fmt.Sprintf("parse_%d", k%5),
			Content: fmt.Sprintf("def parse_%d(line):\n    key, value = line.split(%q)\n    return normalise(key) + cache_%d(value)\n", k%5, ":", k%3)})
	}
	e := NewEngine(units, nil, Options{})
	content, symbol := tokenizeUnits(e.units, nil)
	for i := range e.units {
		want := e.sem.vector(semTerms(content[i], symbol[i]))
		if d := cmp.Diff(want, e.sem.docVec[i]); d != "" {
			t.Fatalf("unit %d: vector differs (-vector +built):\n%s", i, d)
		}
	}
	if len(e.sem.termVec) == 0 {
		t.Fatal("no term vectors")
	}
	for term, v := range e.sem.termVec {
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if math.Abs(n-1) > 1e-5 {
			t.Errorf("term %q: norm² %v", term, n)
		}
		if e.sem.idf[term] <= 0 {
			t.Errorf("term %q: idf %v", term, e.sem.idf[term])
		}
	}
	if _, ok := e.sem.termVec["normalise"]; ok {
		t.Error("a term in every unit has a vector")
	}
}

// TestSemanticSameOnAnyCores: the semantic structure is the same, bit for
// bit, whether its terms are numbered in one run of units or in several,
// and its terms are in sorted order.
func TestSemanticSameOnAnyCores(t *testing.T) {
	var units []mss.Unit
	for k := range 1500 {
		units = append(units, mss.Unit{Path: fmt.Sprintf("pkg/m%03d.py", k%97), StartLine: k + 1, EndLine: k + 1,
			Symbol: fmt.Sprintf("handler_%d", k%41),
			Content: fmt.Sprintf("def handler_%d(req):\n    return route_%d(req.path_%d, cache_%d) + w%d\n",
				k%41, k%13, k%29, k%7, k*7919%1201)})
	}
	build := func(procs int) *semantic {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		return NewEngine(units, nil, Options{}).sem
	}
	one, many := build(1), build(4)
	if !slices.Equal(one.terms, many.terms) {
		t.Fatalf("terms differ: %d and %d", len(one.terms), len(many.terms))
	}
	if len(one.terms) < 100 {
		t.Fatalf("only %d terms: the test needs a larger vocabulary", len(one.terms))
	}
	if !slices.IsSorted(one.terms) {
		t.Fatal("terms are not in sorted order")
	}
	for _, term := range one.terms {
		a, b := one.termVec[term], many.termVec[term]
		for k := range a {
			if math.Float32bits(a[k]) != math.Float32bits(b[k]) || one.idf[term] != many.idf[term] {
				t.Fatalf("term %q differs at %d: %v and %v", term, k, a[k], b[k])
			}
		}
	}
	if !bytes.Equal(one.docBlob, many.docBlob) {
		t.Fatal("unit vectors differ")
	}
}

// TestAddScaled: addScaled and addScaledGo give, bit for bit, what adding
// one rounded product at a time gives, for any length, and leave what
// follows x's length alone.
func TestAddScaled(t *testing.T) {
	checkAddScaled(t, "addScaled", addScaled)
	checkAddScaled(t, "addScaledGo", addScaledGo)
}

func checkAddScaled(t *testing.T, name string, add func(v []float32, w float32, x []float32)) {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 300 {
		for _, w := range []float32{0.3, hardFloat(r), -1.7, 0} {
			x, got, want := make([]float32, n), make([]float32, n+1), make([]float32, n+1)
			for k := range x {
				x[k] = hardFloat(r)
				got[k] = hardFloat(r)
				want[k] = got[k]
			}
			got[n], want[n] = 42, 42
			add(got, w, x)
			for k := range x {
				want[k] += float32(w * x[k]) // rounded before it is added
			}
			for k := range got {
				if math.Float32bits(got[k]) != math.Float32bits(want[k]) {
					t.Fatalf("%s, length %d, w %v: element %d is %v, want %v", name, n, w, k, got[k], want[k])
				}
			}
		}
	}
}

// hardFloat is a float32 for checking vector arithmetic: often zero,
// subnormal or huge.
func hardFloat(r *rand.Rand) float32 {
	switch r.IntN(8) {
	case 0:
		return 0
	case 1:
		return float32(r.NormFloat64()) * 1e-40 // subnormal
	case 2:
		return float32(r.NormFloat64()) * 1e30
	}
	return float32(r.NormFloat64())
}
