package retrieve

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/index"
	"github.com/missingcomplement/mss/internal/gittest"
)

// overlayFixture builds storedRepo's index with its stored structures,
// opens that engine (the base), then edits the tree and updates the index
// without deriving: one file's body changes (its symbols stay), one loses
// a function and gains another, one is removed and one is added.
func overlayFixture(t *testing.T) (base *Engine, ix *index.Index, repo, db string) {
	t.Helper()
	repo = storedRepo(t)
	gittest.WriteTree(t, repo, map[string]string{"pkg/shades.py": gittest.Filler(80)})
	db = filepath.Join(t.TempDir(), "ix.db")
	ctx := context.Background()
	if _, err := index.Build(ctx, index.Options{Repo: repo, DB: db, Derive: Deriver}); err != nil {
		t.Fatal(err)
	}
	base = openEngine(t, db)
	if !base.Stored() {
		t.Fatal("the base is not a stored engine")
	}
	mapping, err := os.ReadFile(filepath.Join(repo, "pkg/mapping.py"))
	if err != nil {
		t.Fatal(err)
	}
	gittest.WriteTree(t, repo, map[string]string{
		"pkg/mapping.py": strings.Replace(string(mapping), "        return key / 2\n", "        # keys are normalised once, here\n        return key / 2\n", 1),
		"pkg/colors.py":  "def palette(n):\n    return ['red'] * n\n\n\ndef saturate(c):\n    return palette(3)\n",
		"pkg/extra.py":   "from .colors import palette\n\n\ndef darken_all(colors):\n    return [palette(1) for c in colors]\n",
	})
	if err := os.Remove(filepath.Join(repo, "docs/mapping.md")); err != nil {
		t.Fatal(err)
	}
	if _, err := index.Build(ctx, index.Options{Repo: repo, DB: db}); err != nil {
		t.Fatal(err)
	}
	if ix, err = index.Open(db); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return base, ix, repo, db
}

// TestOverlayAnswersFromTheIndexNow: an overlay holds exactly the units
// the index holds now (the engine built from them is the reference), its
// lexical and entity views score every unit as that engine does, a
// changed file's unit keeps its old unit's edges, and what the edits
// added is found.
func TestOverlayAnswersFromTheIndexNow(t *testing.T) {
	base, ix, _, _ := overlayFixture(t)
	ctx := context.Background()
	emb := &countingEmbedder{}
	opts := Options{Disable: []string{ViewHistory}, Embedder: emb}
	ov, err := Overlay(ctx, base, ix, opts)
	if err != nil {
		t.Fatal(err)
	}
	// The reference: an engine built from every unit the index holds.
	mem := memEngine(t, ix, Options{Disable: []string{ViewHistory}})
	// The build kept the structures it replaced: OverlayIndex overlays
	// them as Overlay does the engine opened before; FromIndex builds the
	// engine from the units.
	if m := ix.Meta(); m.Derived != "" || m.Base != storedVersion {
		t.Fatalf("after the edit the index records derived %q, base %q", m.Derived, m.Base)
	}
	oi, err := OverlayIndex(ctx, ix, opts)
	if err != nil || !oi.Overlaid() || oi.Len() != mem.Len() {
		t.Fatalf("OverlayIndex: %v, overlaid %v", err, oi != nil && oi.Overlaid())
	}
	if fi, err := FromIndex(ix, opts); err != nil || fi.Overlaid() || fi.Stored() {
		t.Fatalf("FromIndex after the edit: %v, overlaid %v", err, fi != nil && fi.Overlaid())
	}
	if !ov.Overlaid() || ov.Stored() || mem.Stored() || mem.Overlaid() {
		t.Fatalf("overlay: overlaid %v stored %v; reference: overlaid %v stored %v", ov.Overlaid(), ov.Stored(), mem.Overlaid(), mem.Stored())
	}
	if ov.Len() != mem.Len() {
		t.Errorf("Len = %d, the index holds %d units", ov.Len(), mem.Len())
	}
	if d := cmp.Diff(mem.Paths(), ov.Paths()); d != "" {
		t.Errorf("Paths (-index now +overlay):\n%s", d)
	}
	for _, p := range []string{"pkg/mapping.py", "pkg/colors.py", "pkg/extra.py", "pkg/grid.py", "docs/mapping.md", "nope.py"} {
		if d := cmp.Diff(mem.FileUnits(p), ov.FileUnits(p)); d != "" {
			t.Errorf("FileUnits(%s) (-index now +overlay):\n%s", p, d)
		}
		if ov.hasPath(p) != mem.hasPath(p) {
			t.Errorf("hasPath(%s) = %v, want %v", p, ov.hasPath(p), mem.hasPath(p))
		}
	}
	for _, b := range []string{"mapping.py", "mapping.md", "extra.py", "colors.py"} {
		if d := cmp.Diff(mem.basePaths(b), ov.basePaths(b)); d != "" {
			t.Errorf("basePaths(%s) (-index now +overlay):\n%s", b, d)
		}
	}
	live := map[string]bool{}
	for i := range mem.n {
		live[mem.unitAt(i).ID] = true
		id := mem.unitAt(i).ID
		if j, ok := ov.idIndex(id); !ok || ov.unitAt(j).ID != id {
			t.Errorf("unit %s is not found by id", id)
		}
	}
	for _, name := range []string{"blend", "saturate", "darken_all", "norm", "palette", "lookup_table"} {
		if got, want := unitIDs(ov, ov.defsOf(name)), unitIDs(mem, mem.defsOf(name)); !cmp.Equal(got, want) {
			t.Errorf("defsOf(%s) = %v, want %v", name, got, want)
		}
		if got, want := unitIDs(ov, ov.refsOf(name)), unitIDs(mem, mem.refsOf(name)); !cmp.Equal(got, want) {
			t.Errorf("refsOf(%s) = %v, want %v", name, got, want)
		}
	}
	states := append(storedStates(),
		&mss.State{StateID: "d", Issue: "`saturate` is too strong, and `darken_all` darkens nothing"},
		&mss.State{StateID: "e", Issue: "`blend` should mix palette colors; see docs/mapping.md and pkg/colors.py"})
	for _, st := range states {
		for _, view := range []string{ViewLexical, ViewEntity} {
			got, want := viewScores(t, ov, st, view), viewScores(t, mem, st, view)
			if len(want) == 0 && view == ViewLexical {
				t.Fatalf("state %s: the %s view found nothing", st.StateID, view)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("state %s, %s view (-index now +overlay):\n%s", st.StateID, view, d)
			}
			// In the same order: equal scores break as the engine built
			// from the units breaks them, though the added units are
			// numbered last.
			if d := cmp.Diff(viewOrder(t, mem, st, view), viewOrder(t, ov, st, view)); d != "" {
				t.Errorf("state %s, %s view's order (-index now +overlay):\n%s", st.StateID, view, d)
			}
		}
		cands, err := ov.Candidates(ctx, st, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(cands) == 0 {
			t.Fatalf("state %s: no candidates", st.StateID)
		}
		for _, c := range cands {
			if !live[c.Unit.ID] || c.Unit.Content == "" {
				t.Errorf("state %s: candidate %s is not a unit the index holds now", st.StateID, c.Unit.ID)
			}
		}
	}
	// The embedding view embeds and ranks the units the index holds, not
	// the base's units of changed files.
	q, err := ov.prepare(states[3], mss.ObservedOf(states[3]))
	if err != nil {
		t.Fatal(err)
	}
	hs, err := ov.embeddingView(ctx, q)
	if err != nil || len(hs) == 0 {
		t.Fatalf("embedding view: %v, %v", hs, err)
	}
	for _, h := range hs {
		if !ov.live(h.idx) {
			t.Errorf("the embedding view ranks unit %d, of the base's old %s", h.idx, ov.unitAt(h.idx).Path)
		}
	}
	if emb.texts != ov.Len() {
		t.Errorf("%d unit texts embedded, want the %d units the index holds", emb.texts, ov.Len())
	}
	d, err := ov.Candidates(ctx, states[3], 2)
	if err != nil {
		t.Fatal(err)
	}
	if syms := []string{d[0].Unit.Symbol, d[1].Unit.Symbol}; !cmp.Equal(sorted(syms), []string{"darken_all", "saturate"}) {
		t.Errorf("the first candidates for the added functions are %v", syms)
	}
	// Overlaying the index's kept structures answers as overlaying the
	// engine opened before.
	for _, st := range states {
		want, _ := ov.Candidates(ctx, st, 0)
		got, err := oi.Candidates(ctx, st, 0)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("state %s: OverlayIndex answers differently from Overlay (-Overlay +OverlayIndex):\n%s", st.StateID, d)
		}
	}
	// The edited file's units keep their edges; so do their callers'.
	for _, p := range []string{"pkg/mapping.py", "tests/test_mapping.py"} {
		for _, i := range mem.unitsOf(p) {
			id := mem.unitAt(i).ID
			j, _ := ov.idIndex(id)
			if got, want := edgeIDs(ov, ov.edges(edgesOut, j)), edgeIDs(mem, mem.edges(edgesOut, i)); !cmp.Equal(got, want) {
				t.Errorf("edges out of %s = %v, want %v", id, got, want)
			}
			if got, want := edgeIDs(ov, ov.edges(edgesIn, j)), edgeIDs(mem, mem.edges(edgesIn, i)); !cmp.Equal(got, want) {
				t.Errorf("edges into %s = %v, want %v", id, got, want)
			}
		}
	}
}

// TestOverlayTooLarge: when most units changed, an overlay declines.
func TestOverlayTooLarge(t *testing.T) {
	base, _, repo, db := overlayFixture(t)
	files := map[string]string{}
	for k := range 60 {
		files[fmt.Sprintf("pkg/gen%d.py", k)] = fmt.Sprintf("def gen%d():\n    return %d\n", k, k)
	}
	gittest.WriteTree(t, repo, files)
	if _, err := index.Build(context.Background(), index.Options{Repo: repo, DB: db}); err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := Overlay(context.Background(), base, ix, Options{}); !errors.Is(err, ErrOverlayTooLarge) {
		t.Fatalf("Overlay after 60 new files: %v, want ErrOverlayTooLarge", err)
	}
	mem, _ := FromIndex(ix, Options{})
	if _, err := Overlay(context.Background(), mem, ix, Options{}); err == nil {
		t.Error("an overlay over an engine built in memory was made")
	}
}

// viewScores runs one view of e for st: unit id -> score.
func viewScores(t *testing.T, e *Engine, st *mss.State, view string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, h := range viewHits(t, e, st, view) {
		out[e.unitAt(h.idx).ID] = h.score
	}
	return out
}

// viewHits is the lexical or entity view's hits for st, best first.
func viewHits(t *testing.T, e *Engine, st *mss.State, view string) []hit {
	t.Helper()
	q, err := e.prepare(st, mss.ObservedOf(st))
	if err != nil {
		t.Fatal(err)
	}
	if view == ViewEntity {
		return e.entityView(q)
	}
	return e.lexicalView(q)
}

// viewOrder is the ids of a view's hits, best first.
func viewOrder(t *testing.T, e *Engine, st *mss.State, view string) []string {
	t.Helper()
	var out []string
	for _, h := range viewHits(t, e, st, view) {
		out = append(out, e.unitAt(h.idx).ID)
	}
	return out
}

func unitIDs(e *Engine, idx []int) []string {
	out := []string{}
	for _, i := range idx {
		out = append(out, e.unitAt(i).ID)
	}
	return sorted(out)
}

func edgeIDs(e *Engine, es []edgeTo) []string {
	out := []string{}
	for _, t := range es {
		out = append(out, fmt.Sprintf("%s %s", e.unitAt(t.unit).ID, edgeKinds[t.kind]))
	}
	return sorted(out)
}

func sorted(s []string) []string {
	s = append([]string(nil), s...)
	sort.Strings(s)
	return s
}

// countingEmbedder is byteEmbedder counting the unit texts it embeds (a
// single text is a state's).
type countingEmbedder struct{ texts int }

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) > 1 {
		c.texts += len(texts)
	}
	return byteEmbedder{}.Embed(ctx, texts)
}
