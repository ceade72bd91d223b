package retrieve

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
)

// unit builds a unit whose content is lines of text.
func unit(path string, start int, symbol, content string, defines, refs []string) mss.Unit {
	if !strings.HasSuffix(content, "\n") {
		content += "\n"
	}
	n := strings.Count(content, "\n")
	return mss.Unit{
		ID: fmt.Sprintf("%s:%d", path, start), Path: path, StartLine: start, EndLine: start + n - 1,
		Symbol: symbol, Content: content, Tokens: mss.TokenCost(content), Defines: defines, References: refs,
	}
}

// corpus is a small repository: a mapping module, its grid caller, a test
// that mentions everything, and docs.
func corpus() []mss.Unit {
	return []mss.Unit{
		unit("pkg/mapping.py", 10, "HueMapping._lookup_single", "def _lookup_single(self, key):\n    value = self.lookup_table[key]\n    normed = self.norm(key)\n    return self.cmap(normed)", []string{"_lookup_single"}, []string{"norm", "cmap"}),
		unit("pkg/mapping.py", 20, "HueMapping.norm", "def norm(self, key):\n    return key / 2", []string{"norm"}, nil),
		unit("pkg/mapping.py", 30, "HueMapping._lookup_many", "def _lookup_many(self, keys):\n    return [self._lookup_single(k) for k in keys]", []string{"_lookup_many"}, []string{"_lookup_single"}),
		unit("pkg/grid.py", 5, "PairGrid.map", "def map(self, func, **kwargs):\n    self._map_bivariate(func, **kwargs)", []string{"map"}, []string{"_map_bivariate"}),
		unit("pkg/grid.py", 15, "PairGrid._map_bivariate", "def _map_bivariate(self, func, **kwargs):\n    for ax in self.axes:\n        func(hue=kwargs['hue'])", []string{"_map_bivariate"}, nil),
		unit("pkg/colors.py", 1, "palette", "def palette(n):\n    return ['red'] * n", []string{"palette"}, nil),
		unit("tests/test_mapping.py", 1, "test_lookup_single", "def test_lookup_single():\n    m = HueMapping()\n    m._lookup_single('setosa')  # KeyError lookup_table norm", []string{"test_lookup_single"}, []string{"_lookup_single"}),
		unit("docs/mapping.md", 1, "", "The lookup table maps hue keys; _lookup_single raises KeyError.", nil, nil),
	}
}

func ids(cs []mss.Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Unit.ID)
	}
	return out
}

func TestCandidatesEntityAndPrior(t *testing.T) {
	e := NewEngine(corpus(), nil, Options{})
	st := &mss.State{StateID: "s", Issue: "KeyError in `_lookup_single` when a hue is passed to map",
		InformationNeed: "Find the code that must change to resolve this issue."}
	cands, err := e.Candidates(context.Background(), st, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) == 0 || cands[0].Unit.ID != "pkg/mapping.py:10" {
		t.Fatalf("first candidate = %v, want pkg/mapping.py:10", ids(cands))
	}
	rank := map[string]int{}
	for i, c := range cands {
		rank[c.Unit.ID] = i
	}
	if r, ok := rank["tests/test_mapping.py:1"]; ok && r < rank["pkg/grid.py:5"] {
		t.Errorf("test unit ranks %d, above the source unit PairGrid.map at %d", r, rank["pkg/grid.py:5"])
	}
	if _, ok := cands[0].Views[ViewEntity]; !ok {
		t.Errorf("first candidate has no entity rank: %v", cands[0].Views)
	}
	if got := cands[0].Signals[SignalPrior]; got != 1 {
		t.Errorf("source prior = %v, want 1", got)
	}
}

func TestCandidatesDeterministic(t *testing.T) {
	units := corpus()
	st := &mss.State{Issue: "lookup_single norm PairGrid map hue palette"}
	a, _ := NewEngine(units, nil, Options{}).Candidates(context.Background(), st, 0)
	// Same units in reverse order: same answer.
	rev := make([]mss.Unit, len(units))
	for i, u := range units {
		rev[len(units)-1-i] = u
	}
	b, _ := NewEngine(rev, nil, Options{}).Candidates(context.Background(), st, 0)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("candidates depend on unit order (-a +b):\n%s", diff)
	}
}

func TestCandidatesObservedAndStructure(t *testing.T) {
	e := NewEngine(corpus(), nil, Options{})
	st := &mss.State{
		Issue:           "KeyError in _lookup_single",
		InformationNeed: "HueMapping._lookup_single in pkg/mapping.py has been read. Find the other code that must change together with it.",
		ObservedSpans:   []mss.Span{{Path: "pkg/mapping.py", StartLine: 10, EndLine: 13}},
	}
	cands, err := e.Candidates(context.Background(), st, 0)
	if err != nil {
		t.Fatal(err)
	}
	var obs []string
	structural := map[string]int{}
	for _, c := range cands {
		if c.Observed {
			obs = append(obs, c.Unit.ID)
		}
		if r, ok := c.Views[ViewStructural]; ok {
			structural[c.Unit.ID] = r
		}
	}
	if diff := cmp.Diff([]string{"pkg/mapping.py:10"}, obs); diff != "" {
		t.Errorf("observed (-want +got):\n%s", diff)
	}
	// The callee (norm) and the caller (_lookup_many) are structural neighbours.
	for _, id := range []string{"pkg/mapping.py:20", "pkg/mapping.py:30"} {
		if _, ok := structural[id]; !ok {
			t.Errorf("%s has no structural rank; structural view: %v", id, structural)
		}
	}
}

// A unit read in part comes back as its unread rest, with its evidence,
// right after it in the learned order; a unit read mostly, or whole, does
// not.
func TestCandidatesRemainder(t *testing.T) {
	e := NewEngine(corpus(), nil, Options{})
	rank := func(spans ...mss.Span) []mss.Candidate {
		t.Helper()
		st := &mss.State{Issue: "KeyError in _lookup_single: norm and cmap of the lookup_table", ObservedSpans: spans}
		cands, err := e.Candidates(context.Background(), st, 0)
		if err != nil {
			t.Fatal(err)
		}
		return cands
	}
	// The signature and the first line of _lookup_single (10-13) were read.
	cands := rank(mss.Span{Path: "pkg/mapping.py", StartLine: 10, EndLine: 11})
	at := slices.IndexFunc(cands, func(c mss.Candidate) bool { return c.Unit.ID == "pkg/mapping.py:10" })
	next := slices.IndexFunc(cands, func(c mss.Candidate) bool { return c.Unit.StartLine == 12 })
	if at < 0 || next != at+1 || !cands[at].Observed {
		t.Fatalf("the unit read in part, flagged read, is not followed by its rest: %v", ids(cands))
	}
	rest := cands[next]
	want := "    normed = self.norm(key)\n    return self.cmap(normed)\n"
	if rest.Observed || rest.Unit.Path != "pkg/mapping.py" || rest.Unit.StartLine != 12 || rest.Unit.EndLine != 13 ||
		rest.Unit.Content != want || rest.Unit.Symbol != "HueMapping._lookup_single" || rest.Unit.Tokens != mss.TokenCost(want) {
		t.Errorf("after the unit read in part: %+v, want its lines 12-13 unread", rest.Unit)
	}
	if rest.Unit.ID == cands[at].Unit.ID || !maps.Equal(rest.Views, cands[at].Views) {
		t.Errorf("the rest has id %s and views %v; the unit read has %s and %v", rest.Unit.ID, rest.Views, cands[at].Unit.ID, cands[at].Views)
	}
	// Three of its four lines read: the rest is not offered.
	for _, read := range []mss.Span{{Path: "pkg/mapping.py", StartLine: 10, EndLine: 12}, {Path: "pkg/mapping.py", StartLine: 10, EndLine: 13}} {
		for _, c := range rank(read) {
			if c.Unit.Path == "pkg/mapping.py" && c.Unit.StartLine >= 10 && c.Unit.EndLine <= 13 && !c.Observed {
				t.Errorf("lines %d-%d read: candidate %s:%d-%d offered", read.StartLine, read.EndLine, c.Unit.Path, c.Unit.StartLine, c.Unit.EndLine)
			}
		}
	}
}

// TestSignalsAreKnown: every view and signal the engine records is one
// ViewWeight and IsSignal know, as a candidate cache's reader checks them.
func TestSignalsAreKnown(t *testing.T) {
	e := NewEngine(corpus(), nil, Options{})
	st := &mss.State{Issue: "KeyError in _lookup_single: norm and cmap of the lookup_table\nin pkg/mapping.py",
		ObservedSpans: []mss.Span{{Path: "pkg/mapping.py", StartLine: 10, EndLine: 11}}}
	cands, err := e.Candidates(context.Background(), st, 0)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range cands {
		for v, rank := range c.Views {
			if ViewWeight(v) == 0 || rank < 1 {
				t.Errorf("%s: view %s at rank %d", c.Unit.ID, v, rank)
			}
		}
		for k := range c.Signals {
			seen[k] = true
			if !IsSignal(k) {
				t.Errorf("%s: signal %q is not IsSignal's", c.Unit.ID, k)
			}
		}
	}
	for _, k := range []string{SignalPrior, SignalFused, SignalFusedRank, SignalOrder, SignalRest, "rrf:" + ViewLexical, ViewLexical} {
		if !seen[k] {
			t.Errorf("no candidate has signal %q; the test no longer covers it", k)
		}
	}
	for _, k := range []string{"", "rrf:", "rrf:lexcal", "lexcal", "priors", "raw:lexical"} {
		if IsSignal(k) {
			t.Errorf("IsSignal(%q) = true", k)
		}
	}
}

func TestPoolReturnsEveryUnit(t *testing.T) {
	pool := corpus()
	st := &mss.State{Issue: "palette colors", ObservedEvidenceIDs: []string{"pkg/colors.py:1"}}
	cands := Pool(st, pool)
	if len(cands) != len(pool) {
		t.Fatalf("Pool returned %d candidates, want %d", len(cands), len(pool))
	}
	seen := map[string]bool{}
	for _, c := range cands {
		if seen[c.Unit.ID] {
			t.Errorf("duplicate %s", c.Unit.ID)
		}
		seen[c.Unit.ID] = true
		if want := c.Unit.ID == "pkg/colors.py:1"; c.Observed != want {
			t.Errorf("%s Observed = %v, want %v", c.Unit.ID, c.Observed, want)
		}
	}
	if cands[0].Unit.ID != "pkg/colors.py:1" {
		t.Errorf("first = %s, want the palette unit", cands[0].Unit.ID)
	}
}

func TestCandidatesEmptyAndNil(t *testing.T) {
	e := NewEngine(nil, nil, Options{})
	cands, err := e.Candidates(context.Background(), &mss.State{Issue: "anything"}, 0)
	if err != nil || len(cands) != 0 {
		t.Errorf("empty engine: got %v, %v; want no candidates, no error", cands, err)
	}
	if _, err := e.Candidates(context.Background(), nil, 0); err == nil {
		t.Error("nil state: want an error")
	}
}

func TestResolvePath(t *testing.T) {
	e := NewEngine([]mss.Unit{
		unit("src/_pytest/mark/structures.py", 1, "f", "x", nil, nil),
		unit("src/_pytest/python.py", 1, "g", "y", nil, nil),
	}, nil, Options{})
	tests := []struct {
		mention string
		want    map[string]float64
	}{
		{"/usr/lib/site-packages/_pytest/mark/structures.py", map[string]float64{"src/_pytest/mark/structures.py": 1}},
		{"lib/mark/structures.py", map[string]float64{"src/_pytest/mark/structures.py": 2.0 / 3}},
		{"_pytest/python.py", map[string]float64{"src/_pytest/python.py": 1}},
		{"other.py", map[string]float64{}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, e.resolvePath(normPath(tc.mention))); diff != "" {
			t.Errorf("resolvePath(%q) (-want +got):\n%s", tc.mention, diff)
		}
	}
	if got := e.resolveModule("_pytest.mark.structures.Mark"); got["src/_pytest/mark/structures.py"] == 0 {
		t.Errorf("resolveModule: %v lacks structures.py", got)
	}
}

// TestEntityViewSkipsProse: a plain word of the state is not taken for
// the code name it spells, even where the repository defines it; written
// as code (backticks, call syntax) it is.
func TestEntityViewSkipsProse(t *testing.T) {
	e := NewEngine(corpus(), nil, Options{})
	entity := func(text string) map[string]bool {
		q, err := e.prepare(&mss.State{Issue: text}, mss.ObservedOf(&mss.State{}))
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, h := range e.entityView(q) {
			out[e.units[h.idx].ID] = true
		}
		return out
	}
	if got := entity("the colors look wrong in the palette"); got["pkg/colors.py:1"] {
		t.Errorf("prose word palette reached the entity view: %v", got)
	}
	for _, text := range []string{"the colors look wrong in `palette`", "calling palette(3) gives the wrong colors"} {
		if got := entity(text); !got["pkg/colors.py:1"] {
			t.Errorf("%q: palette written as code missed the entity view: %v", text, got)
		}
	}
}

// TestEntityViewOneLetterName: a one-letter name is no term of the
// lexical view, but written alone as code (`h`, `h()`, `h(tag)`) and
// defined by the repository it reaches the entity view; inside longer
// code, or as a plain word, it does not.
func TestEntityViewOneLetterName(t *testing.T) {
	units := append(corpus(), unit("pkg/render.py", 1, "h", "def h(tag, props):\n    return (tag, props)", []string{"h"}, nil))
	e := NewEngine(units, nil, Options{})
	entity := func(text string) bool {
		q, err := e.prepare(&mss.State{Issue: text}, mss.ObservedOf(&mss.State{}))
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range e.entityView(q) {
			if e.units[h.idx].ID == "pkg/render.py:1" {
				return true
			}
		}
		return false
	}
	for _, text := range []string{"`h` drops the props", "`h()` drops the props", "calling `h(tag, props)` drops the props"} {
		if !entity(text) {
			t.Errorf("%q: the one-letter name written as code missed the entity view", text)
		}
	}
	for _, text := range []string{"h drops the props", "`x = h` drops the props"} {
		if entity(text) {
			t.Errorf("%q: reached the entity view", text)
		}
	}
}

// TestSortHitsKeepsBest: the heap path keeps exactly what a full sort
// would, ties by unit index.
func TestSortHitsKeepsBest(t *testing.T) {
	for _, n := range []int{0, 5, ViewDepth, 2*ViewDepth + 1, 5000} {
		var hs []hit
		for i := range n {
			hs = append(hs, hit{idx: (i * 7919) % max(n, 1), score: float64((i * 31) % 97)})
		}
		want := append([]hit(nil), hs...)
		sort.Slice(want, func(i, j int) bool {
			if want[i].score != want[j].score {
				return want[i].score > want[j].score
			}
			return want[i].idx < want[j].idx
		})
		if len(want) > ViewDepth {
			want = want[:ViewDepth]
		}
		got := (&Engine{}).sortHits(hs)
		if len(got) != len(want) {
			t.Fatalf("n=%d: %d hits, want %d", n, len(got), len(want))
		}
		for k := range want {
			if got[k] != want[k] {
				t.Fatalf("n=%d: hit %d = %+v, want %+v", n, k, got[k], want[k])
			}
		}
	}
}

// TestTermCounts: an engine built with term counts kept from an earlier
// build ranks exactly as one built afresh, though units kept their ids and
// hashes while their text changed, and a unit's text moved to another.
func TestTermCounts(t *testing.T) {
	before := corpus()
	for i := range before {
		before[i].Hash = fmt.Sprintf("h%d", i)
	}
	after := append([]mss.Unit(nil), before...)
	// Same id and hash, new text: a count kept by either would be stale.
	after[5].Content = "def palette(n):\n    return frobnicate_hues(n)\n"
	// The grid caller's text now belongs to another unit, and a unit is new.
	after[3].Content, after[4].Content = after[4].Content, after[3].Content
	after = append(after, unit("pkg/hues.py", 1, "frobnicate_hues", "def frobnicate_hues(n):\n    return ['blue'] * n", []string{"frobnicate_hues"}, nil))

	tc := &TermCounts{}
	NewEngine(before, nil, Options{Counts: tc})
	kept := NewEngine(after, nil, Options{Counts: tc})
	fresh := NewEngine(after, nil, Options{})
	for _, issue := range []string{
		"`palette` should call frobnicate_hues",
		"KeyError in `_lookup_single` when a hue is passed to map",
		"PairGrid._map_bivariate drops kwargs",
	} {
		st := &mss.State{StateID: "s", Issue: issue}
		want, err := fresh.Candidates(context.Background(), st, 0)
		if err != nil {
			t.Fatal(err)
		}
		got, err := kept.Candidates(context.Background(), st, 0)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%q: candidates differ (-fresh +kept):\n%s", issue, d)
		}
	}
	// The counts kept are the last build's: the old palette text is gone.
	if _, ok := tc.content[before[5].Content]; ok {
		t.Error("counts of a text the last build did not have are kept")
	}
	if len(tc.content) != len(after) {
		t.Errorf("%d counts kept, want %d", len(tc.content), len(after))
	}
}

// TestCandidatesTitle: the candidate holding the words of the issue's
// first line that is not blank (its title) carries their BM25 score as a
// signal and weighs 1 in the learned order's feature as the title's best
// match; candidates matching only the rest of the text have neither, and
// no candidate has the signal with the lexical view off.
func TestCandidatesTitle(t *testing.T) {
	st := &mss.State{StateID: "s", Issue: "\n  \npalette gives red everywhere\nThe lookup table norm and _lookup_single are fine.",
		InformationNeed: "Find the code that must change to resolve this issue."}
	cands, err := NewEngine(corpus(), nil, Options{}).Candidates(context.Background(), st, 0)
	if err != nil {
		t.Fatal(err)
	}
	cands = FusedOrder(cands)
	title := slices.Index(OrderFeatures, "raw:title")
	xs := OrderInputs(cands, nil)
	got := map[string]float64{}
	for i, c := range cands {
		if s, ok := c.Signals[SignalTitle]; ok || xs[i][title] != 0 {
			got[c.Unit.ID] = xs[i][title]
			if s <= 0 {
				t.Errorf("%s: title signal %v, want above 0 when present", c.Unit.ID, s)
			}
		}
	}
	if diff := cmp.Diff(map[string]float64{"pkg/colors.py:1": 1}, got); diff != "" {
		t.Errorf("raw:title of the candidates with a title signal (-want +got):\n%s", diff)
	}
	if len(cands) < 4 {
		t.Errorf("%d candidates: want the body's matches among them too", len(cands))
	}
	off, err := NewEngine(corpus(), nil, Options{Disable: []string{ViewLexical}}).Candidates(context.Background(), st, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range off {
		if _, ok := c.Signals[SignalTitle]; ok {
			t.Errorf("%s: title signal with the lexical view off", c.Unit.ID)
		}
	}
}

// TestStructuralResolvesSelections: a unit that only selects a name from
// a value (st.Split) is no caller of a function of that name in another
// file, and an anchor that does so has no such callee; selected from the
// function's package (tokenize.Split), it is one.
func TestStructuralResolvesSelections(t *testing.T) {
	goUnit := func(path string, start int, symbol, content string, defines, refs []string) mss.Unit {
		u := unit(path, start, symbol, content, defines, refs)
		u.Language = "go"
		return u
	}
	units := []mss.Unit{
		goUnit("tokenize/tokenize.go", 3, "Split", "func Split(s string) []string {\n\treturn fields(s)\n}", []string{"Split"}, []string{"fields"}),
		goUnit("tokenize/tokenize.go", 7, "fields", "func fields(s string) []string {\n\treturn nil\n}", []string{"fields"}, nil),
		goUnit("bench/items.go", 5, "parse", "func parse(st item) string {\n\treturn st.Split\n}", []string{"parse"}, []string{"Split"}),
		goUnit("bench/terms.go", 5, "terms", "func terms(text string) []string {\n\treturn tokenize.Split(text)\n}", []string{"terms"}, []string{"Split"}),
	}
	structural := func(read mss.Span) map[string]bool {
		t.Helper()
		st := &mss.State{Issue: "terms are split wrong", ObservedSpans: []mss.Span{read}}
		cands, err := NewEngine(units, nil, Options{}).Candidates(context.Background(), st, 0)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, c := range cands {
			if _, ok := c.Views[ViewStructural]; ok {
				out[c.Unit.Symbol] = true
			}
		}
		return out
	}
	got := structural(mss.Span{Path: "tokenize/tokenize.go", StartLine: 3, EndLine: 5})
	if !got["terms"] || got["parse"] {
		t.Errorf("Split read: structural %v, want terms (tokenize.Split) and not parse (st.Split)", got)
	}
	if got := structural(mss.Span{Path: "bench/items.go", StartLine: 5, EndLine: 7}); got["Split"] {
		t.Errorf("parse read: structural %v, want no Split (st.Split selects a field)", got)
	}
	if got := structural(mss.Span{Path: "bench/terms.go", StartLine: 5, EndLine: 7}); !got["Split"] {
		t.Errorf("terms read: structural %v, want Split (tokenize.Split)", got)
	}
}
