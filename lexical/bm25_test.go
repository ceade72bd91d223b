package lexical

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/missingcomplement/mss/tokenize"
)

func TestSearchRanksExactSymbolFirst(t *testing.T) {
	b := NewBuilder(Field{"content", 1}, Field{"symbol", 2})
	b.Add("def lookup_single(self, key): return self.table[key]", "HueMapping._lookup_single")
	b.Add("def map(self, func): self._map_bivariate(func)", "PairGrid.map")
	b.Add("unrelated text about colors", "palette")
	ix := b.Build()
	hits := ix.Search(QueryTerms("KeyError in _lookup_single"), 0)
	if len(hits) == 0 || hits[0].Doc != 0 {
		t.Fatalf("got hits %v, want doc 0 first", hits)
	}
	for _, h := range hits {
		if h.Doc == 2 {
			t.Errorf("doc 2 matched no term but scored %v", h.Score)
		}
	}
}

func TestScoreByHand(t *testing.T) {
	b := NewBuilder(Field{"content", 1})
	b.Add("alpha beta")
	b.Add("beta gamma gamma")
	ix := b.Build()
	// "gamma": df=1, N=2, idf = ln(1 + (2-1+0.5)/(1+0.5)) = ln 2.
	// doc 1: tf=2, dl=3, avg=2.5.
	want := math.Log(2) * 2 * (K1 + 1) / (2 + K1*(1-B+B*3/2.5))
	got := ix.Scores(map[string]int{"gamma": 1})[1]
	if math.Abs(got-want) > 1e-12 {
		t.Errorf("score = %v, want %v", got, want)
	}
}

func TestDeterministicTies(t *testing.T) {
	b := NewBuilder(Field{"content", 1})
	for i := 0; i < 10; i++ {
		b.Add("same words here")
	}
	ix := b.Build()
	hits := ix.Search(QueryTerms("words"), 3)
	for i, h := range hits {
		if h.Doc != i {
			t.Fatalf("hit %d is doc %d, want %d", i, h.Doc, i)
		}
	}
}

// An overlay scores every live document exactly as an index built from
// the live documents alone, whether its base is in memory or stored.
func TestOverlayScoresAsRebuilt(t *testing.T) {
	fields := []Field{{"content", 1}, {"symbol", 2}}
	docs := [][2]string{
		{"parse the config file and return settings", "load_config"},
		{"settings are cached between calls", "Cache.get"},
		{"write settings back to the config file", "save_config"},
		{"open a socket and send the request", "send"},
	}
	added := [][2]string{
		{"parse the config file strictly, rejecting unknown keys", "load_config"},
		{"settings file watcher reloads the config", "watch"},
	}
	build := func(ds [][2]string) *Index {
		b := NewBuilder(fields...)
		for _, d := range ds {
			b.Add(d[0], d[1])
		}
		return b.Build()
	}
	base := build(docs)
	head, terms := base.Export()
	stored, err := Stored(fields, head, func(f int, t string) ([]byte, bool) { b, ok := terms[f][t]; return b, ok })
	if err != nil {
		t.Fatal(err)
	}
	dead := []bool{true, false, false, true} // doc 0 was edited, doc 3 removed
	// The same documents, built afresh: overlay doc k is rebuilt doc want[k].
	rebuilt := build([][2]string{docs[1], docs[2], added[0], added[1]})
	want := map[int32]int32{1: 0, 2: 1, 4: 2, 5: 3}
	q := QueryTerms("config file settings parse socket")
	rv, _ := rebuilt.Lookup(sortedTerms(q))
	rs := rv.Scores(q)
	for name, b := range map[string]*Index{"in memory": base, "stored": stored} {
		ov, err := Overlay(b, dead, build(added))
		if err != nil {
			t.Fatal(err)
		}
		if ov.Len() != 4 {
			t.Errorf("%s: Len = %d, want 4 live documents", name, ov.Len())
		}
		v, err := ov.Lookup(sortedTerms(q))
		if err != nil {
			t.Fatal(err)
		}
		got := v.Scores(q)
		if len(got) != len(rs) {
			t.Errorf("%s: %d documents scored, rebuilt %d: %v", name, len(got), len(rs), got)
		}
		for d, s := range got {
			r, ok := want[d]
			if !ok {
				t.Errorf("%s: dead document %d scored %v", name, d, s)
				continue
			}
			if s != rs[r] {
				t.Errorf("%s: document %d scores %v, rebuilt %v", name, d, s, rs[r])
			}
		}
		if df, rdf := v.DocFreq("content", "settings"), rv.DocFreq("content", "settings"); df != rdf {
			t.Errorf("%s: df(settings) = %d, rebuilt %d", name, df, rdf)
		}
		if _, err := Overlay(ov, make([]bool, ov.Len()), build(added)); err == nil {
			t.Errorf("%s: an overlay over an overlay was accepted", name)
		}
	}
}

func sortedTerms(q map[string]int) []string {
	var out []string
	for t := range q {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// TestBuildColumns: an index built from columns of tokenized fields is
// the one a Builder gives, and its sorted export encodes what Export does.
func TestBuildColumns(t *testing.T) {
	fields := []Field{{"content", 1}, {"symbol", 2}, {"path", 0.5}}
	docs := [][]string{
		{"def lookup_single(self, key): return self.table[key]", "HueMapping._lookup_single", "pkg/mapping.py"},
		{"", "", "pkg/mapping.py"},
		{"lookup lookup lookup the table, table", "table", "pkg/table.py"},
		{"def map(self, func): self._map_bivariate(func)", "PairGrid.map", "pkg/grid.py"},
	}
	b := NewBuilder(fields...)
	cols := make([][]Counted, 2) // no path column: the field is empty
	for _, d := range docs {
		b.Add(d[0], d[1])
		for f := range cols {
			cols[f] = append(cols[f], Count(d[f]))
		}
	}
	want := b.Build()
	got := BuildColumns(fields, cols...)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("built from columns:\n%+v\nwant\n%+v", got, want)
	}
	cols = append(cols, nil)
	for _, d := range docs {
		cols[2] = append(cols[2], Count(d[2]))
	}
	ix := BuildColumns(fields, cols...)
	head, terms := ix.Export()
	h, fes := ix.ExportFields()
	if !bytes.Equal(h, head) || len(fes) != len(fields) {
		t.Fatalf("head %x, %d fields; want %x, %d", h, len(fes), head, len(fields))
	}
	for f, fe := range fes {
		if !sort.StringsAreSorted(fe.Terms) || len(fe.Terms) != len(terms[f]) {
			t.Errorf("field %d: terms %q", f, fe.Terms)
		}
		for i, term := range fe.Terms {
			b := make([]byte, fe.Size(i))
			fe.Put(i, b)
			if !bytes.Equal(b, terms[f][term]) {
				t.Errorf("field %d term %q: %x, want %x", f, term, b, terms[f][term])
			}
		}
	}
}

// TestCount: a text's distinct terms, in the order the text first has
// them, with their counts and the text's length in terms, also after a
// text of many terms.
func TestCount(t *testing.T) {
	// Texts of 4,500 and 200 distinct terms grow the table a counter
	// is lent, and the texts after them must not find their terms.
	var long, mid strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&long, "term%d ", i%4500)
	}
	for i := range 400 {
		fmt.Fprintf(&mid, "Word%d ", i%200)
	}
	for _, text := range []string{"", "x", "lookupSingle lookup_single LookupSingle", long.String(), "b a b  c a b", "ä ÄÖ über",
		mid.String(), "word1 word2 word1", mid.String(), "term7 c"} {
		terms := tokenize.Terms(text)
		want := Counted{Terms: []TermCount{}, Len: int32(len(terms))}
		at := map[string]int{}
		for _, term := range terms {
			k, ok := at[term]
			if !ok {
				k = len(want.Terms)
				at[term] = k
				want.Terms = append(want.Terms, TermCount{Term: term})
			}
			want.Terms[k].Count++
		}
		if got := Count(text); !reflect.DeepEqual(got, want) {
			t.Errorf("Count(%.40q) = %v, want %v", text, got, want)
		}
	}
}
