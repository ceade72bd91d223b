package retrieve

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/index"
	"github.com/missingcomplement/mss/internal/gittest"
)

const gridPy = `from .mapping import HueMapping


class PairGrid:
    def map(self, func, **kwargs):
        self._map_bivariate(func, **kwargs)

    def _map_bivariate(self, func, **kwargs):
        mapping = HueMapping(kwargs)
        for ax in self.axes:
            func(hue=mapping._lookup_single(kwargs["hue"]))
`

// storedRepo writes a small Python package into a new git repository.
func storedRepo(t *testing.T) string {
	dir := t.TempDir()
	gittest.WriteTree(t, dir, map[string]string{
		"pkg/__init__.py": "from .mapping import HueMapping\nfrom .grid import PairGrid\n",
		"pkg/mapping.py": `class HueMapping:
    def __init__(self, table):
        self.lookup_table = table

    def _lookup_single(self, key):
        value = self.lookup_table[key]
        normed = self.norm(key)
        return self.cmap(normed)

    def norm(self, key):
        return key / 2

    def _lookup_many(self, keys):
        return [self._lookup_single(k) for k in keys]
`,
		"pkg/grid.py":   gridPy,
		"pkg/colors.py": "def palette(n):\n    return ['red'] * n\n\n\ndef blend(a, b):\n    return palette(2)\n",
		"tests/test_mapping.py": `from pkg.mapping import HueMapping


def test_lookup_single():
    m = HueMapping({})
    m._lookup_single("setosa")  # KeyError lookup_table norm
`,
		"docs/mapping.md": "# Mapping\n\nThe lookup table maps hue keys; `_lookup_single` raises KeyError.\n",
	})
	gittest.Run(t, dir, "init", "-q")
	gittest.Run(t, dir, "add", ".")
	gittest.Run(t, dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "init")
	gittest.WriteTree(t, dir, map[string]string{
		"pkg/colors.py": "def palette(n):\n    return ['red'] * n\n\n\ndef blend(a, b):\n    return palette(2)\n\n\ndef lighten(c):\n    return c\n",
		"pkg/grid.py":   strings.Replace(gridPy, "self.axes", "self.axes_flat", 1),
	})
	gittest.Run(t, dir, "add", ".")
	gittest.Run(t, dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "Fix palette lookup in PairGrid when blending colors")
	return dir
}

func storedStates() []*mss.State {
	return []*mss.State{
		{StateID: "a", Issue: "KeyError in `_lookup_single` when a hue is passed to PairGrid.map",
			InformationNeed: "Find the code that must change to resolve this issue."},
		{StateID: "b", Issue: "palette() gives the wrong colors when blended",
			ObservedSpans: []mss.Span{{Path: "pkg/colors.py", StartLine: 1, EndLine: 2}}},
		{StateID: "c", Issue: "the lookup table normalises keys twice", CurrentObservation: "pkg/mapping.py:10 in norm",
			OpenedFiles: []string{"pkg/grid.py"}, ObservedEvidenceIDs: []string{"tests/test_mapping.py:4-6"}},
	}
}

// TestStoredEngineSameAnswers: the engine opened from an index's stored
// structures ranks exactly as one built in memory from the same units and
// the same git history (which it holds too), and gives grown units the
// same surroundings.
func TestStoredEngineSameAnswers(t *testing.T) {
	repo := storedRepo(t)
	db := filepath.Join(t.TempDir(), "ix.db")
	if _, err := index.Build(context.Background(), index.Options{Repo: repo, DB: db, Derive: Deriver}); err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if ix.Meta().Derived != storedVersion {
		t.Fatalf("derived = %q, want %q", ix.Meta().Derived, storedVersion)
	}
	gitDir := filepath.Join(repo, ".git")
	mem := memEngine(t, ix, Options{GitDir: gitDir, Commit: ix.Meta().Commit, Embedder: byteEmbedder{}})
	edges, err := ix.Edges()
	if err != nil {
		t.Fatal(err)
	}
	if mem.hist == nil {
		t.Fatalf("no history view in memory: %v", mem.Warnings())
	}
	// The stored log is what the stored engine reads: none is cached,
	// and its git directory is named where there is none, so git cannot
	// be what answers.
	historyLogs.clear()
	stored, err := FromIndex(ix, Options{GitDir: filepath.Join(t.TempDir(), "no-such.git"), Embedder: byteEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	if stored.src == nil || stored.hist == nil {
		t.Fatalf("FromIndex: stored %v, history %v, warnings %v; want the stored engine with history", stored.src != nil, stored.hist != nil, stored.Warnings())
	}
	if len(edges) == 0 {
		t.Fatal("fixture has no edges")
	}
	sawHistory, sawEmbedding := false, false
	for _, st := range storedStates() {
		want, wm, err := mem.Rank(context.Background(), st, mss.ObservedOf(st), 0)
		if err != nil {
			t.Fatal(err)
		}
		got, gm, err := stored.Rank(context.Background(), st, mss.ObservedOf(st), 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) < 5 {
			t.Fatalf("state %s: %d candidates", st.StateID, len(want))
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("state %s: stored engine ranks differently (-memory +stored):\n%s", st.StateID, d)
		}
		if d := cmp.Diff(wm, gm); d != "" {
			t.Errorf("state %s: mentions differ:\n%s", st.StateID, d)
		}
		for _, c := range got {
			if _, ok := c.Views[ViewHistory]; ok {
				sawHistory = true
			}
			if _, ok := c.Views[ViewEmbedding]; ok {
				sawEmbedding = true
			}
		}
	}
	if !sawHistory || !sawEmbedding {
		t.Errorf("history view used %v, embedding view %v; want both", sawHistory, sawEmbedding)
	}
	for _, p := range []string{"pkg/mapping.py", "pkg/grid.py", "docs/mapping.md", "nope.py"} {
		if d := cmp.Diff(mem.FileUnits(p), stored.FileUnits(p)); d != "" {
			t.Errorf("FileUnits(%s) differ (-memory +stored):\n%s", p, d)
		}
	}
	if d := cmp.Diff(mem.Paths(), stored.Paths()); d != "" {
		t.Errorf("Paths differ:\n%s", d)
	}
	// Every unit's facts read back as they were made, selections too.
	sels := 0
	for i := range mem.n {
		want, got := mem.factsAt(i), stored.factsAt(i)
		sels += len(want.sel)
		if d := cmp.Diff(want, got, cmp.AllowUnexported(unitInfo{}, selection{}), cmpopts.EquateEmpty()); d != "" {
			t.Errorf("unit %d facts differ (-memory +stored):\n%s", i, d)
		}
	}
	if sels == 0 {
		t.Error("fixture has no selections")
	}
}

// TestStoredEngineFollowsEdits: an edit re-derives the stored structures
// in the same build; the previous derived file is removed, and a build
// that changes nothing keeps the current one.
func TestStoredEngineFollowsEdits(t *testing.T) {
	repo := storedRepo(t)
	db := filepath.Join(t.TempDir(), "ix.db")
	build := func() {
		t.Helper()
		if _, err := index.Build(context.Background(), index.Options{Repo: repo, DB: db, Derive: Deriver}); err != nil {
			t.Fatal(err)
		}
	}
	sidecars := func() []string {
		m, _ := filepath.Glob(db + ".*.derived")
		return m
	}
	build()
	first := sidecars()
	if len(first) != 1 {
		t.Fatalf("derived files after a build: %v", first)
	}
	build()
	if d := cmp.Diff(first, sidecars()); d != "" {
		t.Fatalf("a build that changed nothing replaced the derived file:\n%s", d)
	}
	// An engine opened before the edit keeps answering after the build
	// (a server swaps engines right after it), from what the index holds
	// now: units the build replaced are dropped.
	old := openEngine(t, db)
	if old.src == nil {
		t.Fatal("not the stored engine")
	}
	if err := os.WriteFile(filepath.Join(repo, "pkg/colors.py"), []byte("def palette(n):\n    return ['red'] * n\n\n\ndef saturate(c):\n    return palette(3)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	build()
	stale, err := old.Candidates(context.Background(), &mss.State{StateID: "s", Issue: "`blend` calls palette()"}, 0)
	if err != nil {
		t.Fatalf("engine opened before the build: %v", err)
	}
	for _, c := range stale {
		if c.Unit.Symbol == "blend" {
			t.Errorf("a unit the build removed was served: %+v", c.Unit)
		}
	}
	if len(stale) == 0 {
		t.Error("the engine opened before the build answered nothing")
	}
	now := sidecars()
	if len(now) != 1 || now[0] == first[0] {
		t.Fatalf("derived files after an edit: %v (before %v)", now, first)
	}
	e := openEngine(t, db)
	st := &mss.State{StateID: "s", Issue: "`saturate` is too strong"}
	cands, err := e.Candidates(context.Background(), st, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) == 0 || cands[0].Unit.Symbol != "saturate" || !strings.Contains(cands[0].Unit.Content, "palette(3)") {
		t.Fatalf("after the edit the first candidate is %+v, want saturate with its new content", cands)
	}
}

// TestStoredEngineMissingFile: an index whose derived file is gone still
// answers, built in memory from its units, and says so.
func TestStoredEngineMissingFile(t *testing.T) {
	repo := storedRepo(t)
	db := filepath.Join(t.TempDir(), "ix.db")
	if _, err := index.Build(context.Background(), index.Options{Repo: repo, DB: db, Derive: Deriver}); err != nil {
		t.Fatal(err)
	}
	m, _ := filepath.Glob(db + ".*.derived")
	for _, p := range m {
		os.Remove(p)
	}
	e := openEngine(t, db)
	if e.src != nil || len(e.Warnings()) == 0 || !strings.Contains(strings.Join(e.Warnings(), "\n"), "mss index") {
		t.Fatalf("src %v, warnings %q: want an engine built in memory and a warning naming the repair", e.src, e.Warnings())
	}
	cands, err := e.Candidates(context.Background(), storedStates()[0], 3)
	if err != nil || len(cands) == 0 {
		t.Fatalf("candidates %v, %v", cands, err)
	}
}

// byteEmbedder embeds a text as its byte counts modulo 16: deterministic,
// and it sees unit content, which a stored engine reads from the index.
type byteEmbedder struct{}

func (byteEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 16)
		for k := 0; k < len(t); k++ {
			v[t[k]%16]++
		}
		out[i] = v
	}
	return out, nil
}

// memEngine builds an engine in memory from every unit and edge ix holds.
func memEngine(t testing.TB, ix *index.Index, opts Options) *Engine {
	t.Helper()
	units, err := ix.Units()
	if err != nil {
		t.Fatal(err)
	}
	edges, err := ix.Edges()
	if err != nil {
		t.Fatal(err)
	}
	return NewEngine(units, edges, opts)
}

// openEngine opens the engine of the index db, without history, until
// the test ends.
func openEngine(t *testing.T, db string) *Engine {
	t.Helper()
	ix, err := index.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	e, err := FromIndex(ix, Options{Disable: []string{ViewHistory}})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestStoredEngineOtherVersion: structures derived by another version are
// never read; the engine is built from the units, with a warning.
func TestStoredEngineOtherVersion(t *testing.T) {
	repo := storedRepo(t)
	db := filepath.Join(t.TempDir(), "ix.db")
	old := &index.Deriver{Version: "engine-0", Func: derive}
	if _, err := index.Build(context.Background(), index.Options{Repo: repo, DB: db, Derive: old}); err != nil {
		t.Fatal(err)
	}
	e := openEngine(t, db)
	if e.Stored() || !strings.Contains(strings.Join(e.Warnings(), "\n"), "another version (engine-0") {
		t.Fatalf("stored %v, warnings %q", e.Stored(), e.Warnings())
	}
}

// TestSemanticLayout: the semantic vectors, laid out in place as the
// stored structure holds them, are the bytes the portable encodings give
// (those a big-endian machine writes).
func TestSemanticLayout(t *testing.T) {
	e := NewEngine(corpus(), nil, Options{})
	s := e.sem
	if s == nil || len(s.terms) == 0 {
		t.Fatal("no semantic structure")
	}
	want := make([]byte, 0, len(s.docBlob))
	for _, v := range s.docVec {
		b := byte(0)
		if v != nil {
			b = 1
		}
		want = append(want, b)
	}
	for len(want)%4 != 0 {
		want = append(want, 0)
	}
	for _, v := range s.docVec {
		if v != nil {
			want = append(want, make([]byte, 4*semDim)...)
			putFloatsEach(want[len(want)-4*semDim:], v)
		}
	}
	if nativeLittle && !bytes.Equal(s.docBlob, want) {
		t.Error("semdoc laid out in place differs from its portable encoding")
	}
	if got := encodeSemDocs(s.docVec); !bytes.Equal(got, want) {
		t.Error("encodeSemDocs differs from the portable encoding")
	}
	for k, term := range s.terms {
		if k > 0 && s.terms[k-1] >= term {
			t.Fatalf("terms %q, %q out of order", s.terms[k-1], term)
		}
		b := make([]byte, semTermSize)
		putSemTerm(b, s.idf[term], s.termVec[term])
		v, idf, err := decodeSemTerm(b)
		if err != nil || idf != s.idf[term] || !cmp.Equal(v, s.termVec[term]) {
			t.Fatalf("term %q: decoded %v, %v, %v", term, v[:4], idf, err)
		}
		each := make([]byte, 4*semDim)
		putFloatsEach(each, s.termVec[term])
		if !bytes.Equal(b[8:], each) {
			t.Fatalf("term %q: vector bytes differ from the portable encoding", term)
		}
	}
	if len(s.terms) != len(s.termVec) {
		t.Errorf("%d sorted terms, %d vectors", len(s.terms), len(s.termVec))
	}
}

// TestLogCount: the table gives the weight the logarithm gives.
func TestLogCount(t *testing.T) {
	for c := int32(1); c < 200; c++ {
		if got, want := logCount(c), 1+math.Log(float64(c)); got != want {
			t.Errorf("logCount(%d) = %v, want %v", c, got, want)
		}
	}
}
