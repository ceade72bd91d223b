package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/missingcomplement/mss"
)

func TestFitSkipsOversizeKeepsOrder(t *testing.T) {
	units := []mss.Unit{
		{ID: "a", Tokens: 50},
		{ID: "b", Tokens: 80}, // would exceed 100
		{ID: "c", Tokens: 30},
		{ID: "a", Tokens: 50}, // duplicate
		{ID: "d", Tokens: 20}, // fills the budget exactly
		{ID: "e", Tokens: 20}, // would exceed
	}
	got, trace := Fit(units, 100, 8)
	var ids string
	for _, u := range got {
		ids += u.ID
	}
	if ids != "acd" {
		t.Errorf("Fit kept %q, want %q", ids, "acd")
	}
	if len(trace) != 3 {
		t.Errorf("trace has %d steps, want 3: %v", len(trace), trace)
	}
	if Tokens(got) > 100 {
		t.Errorf("delivered %d tokens over budget 100", Tokens(got))
	}
}

func TestFitMaxUnits(t *testing.T) {
	units := []mss.Unit{{ID: "a", Tokens: 1}, {ID: "b", Tokens: 1}, {ID: "c", Tokens: 1}}
	got, _ := Fit(units, 100, 2)
	if len(got) != 2 {
		t.Errorf("got %d units, want 2", len(got))
	}
}

func TestText(t *testing.T) {
	var buf bytes.Buffer
	err := Text(&buf, []mss.Unit{{Path: "a.py", StartLine: 3, EndLine: 4, Symbol: "f", Tokens: 5, Content: "def f():\n    pass\n"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "── [1] a.py:3-4 f (5 tokens)\n     3  def f():\n     4      pass\n"
	if buf.String() != want {
		t.Errorf("Text =\n%q\nwant\n%q", buf.String(), want)
	}
}

// TestTextContext: a later part of a split definition is read under its
// definition's signature, numbered from its line, with a fold mark when
// lines lie between; a Context without its line is not shown.
func TestTextContext(t *testing.T) {
	var buf bytes.Buffer
	err := Text(&buf, []mss.Unit{
		{Path: "a.py", StartLine: 9, EndLine: 9, Symbol: "long", Tokens: 3, Content: "    return x\n", Context: "def long(a,\n         b):\n", ContextLine: 3},
		{Path: "a.py", StartLine: 5, EndLine: 5, Symbol: "next", Tokens: 2, Content: "    y = 1\n", Context: "def next():\n", ContextLine: 4},
		{Path: "b.py", StartLine: 5, EndLine: 5, Symbol: "unchecked", Tokens: 2, Content: "    z = 1\n", Context: "def unchecked():\n"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "── [1] a.py:9-9 long (3 tokens)\n     3  def long(a,\n     4           b):\n     ⋮\n     9      return x\n" +
		"── [2] a.py:5-5 next (2 tokens)\n     4  def next():\n     5      y = 1\n" +
		"── [3] b.py:5-5 unchecked (2 tokens)\n     5      z = 1\n"
	if buf.String() != want {
		t.Errorf("Text =\n%s\nwant\n%s", buf.String(), want)
	}
}

func TestTextQuotesUnsafeNames(t *testing.T) {
	var buf bytes.Buffer
	units := []mss.Unit{
		{Path: "a\x1b[31m.py", StartLine: 1, EndLine: 1, Symbol: "f\nx", Tokens: 1, Content: "x\n"},
		{Path: "b\xff.py", StartLine: 1, EndLine: 1, Tokens: 1, Content: "y\n"},
		{Path: "ok/été.py", StartLine: 1, EndLine: 1, Tokens: 1, Content: "z\n"},
	}
	if err := Text(&buf, units); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	want := "── [1] \"a\\x1b[31m.py\":1-1 \"f\\nx\" (1 tokens)\n     1  x\n" +
		"── [2] \"b\\xff.py\":1-1 (1 tokens)\n     1  y\n" +
		"── [3] ok/été.py:1-1 (1 tokens)\n     1  z\n"
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

func TestTextListsEverySymbol(t *testing.T) {
	var buf bytes.Buffer
	u := mss.Unit{Path: "a.py", StartLine: 1, EndLine: 3, Symbol: "A.f", Symbols: []string{"A", "A.f", "A.g"}, Tokens: 6,
		Content: "class A:\n    def f(self): pass\n    def g(self): pass\n"}
	if err := Text(&buf, []mss.Unit{u}); err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(buf.String(), "\n"); first != "── [1] a.py:1-3 A, A.f, A.g (6 tokens)" {
		t.Errorf("header %q does not list every symbol", first)
	}
	out, _ := Fit([]mss.Unit{{Path: "b.py", StartLine: 1, EndLine: 1, Symbol: "h", Content: "x\n"},
		{Path: "c.py", StartLine: 1, EndLine: 1, Defines: []string{"X", "Y"}, Content: "X = Y = 1\n"}}, 100, 0)
	if len(out) != 2 || strings.Join(out[0].Symbols, ",") != "h" || strings.Join(out[1].Symbols, ",") != "X,Y" {
		t.Errorf("delivered units' symbols: %v", out)
	}
}

// TestSymbolsOfATypeGroup: a unit of several type declarations, named
// for the first, lists every type it holds.
func TestSymbolsOfATypeGroup(t *testing.T) {
	u := mss.Unit{Path: "g.go", StartLine: 1, EndLine: 4, Symbol: "Unum", Kind: "type", Defines: []string{"Unum", "Vstr"},
		Content: "type (\n\tUnum int\n\tVstr string\n)\n"}
	out, _ := Fit([]mss.Unit{u}, 100, 0)
	if len(out) != 1 || strings.Join(out[0].Symbols, ",") != "Unum,Vstr" {
		t.Errorf("symbols %v, want Unum, Vstr", out)
	}
	class := mss.Unit{Path: "a.py", StartLine: 1, EndLine: 2, Symbol: "A", Kind: "class", Defines: []string{"A", "size"},
		Content: "class A:\n    size = 1\n"}
	if got := Symbols([]mss.Unit{class}); strings.Join(got, ",") != "A" {
		t.Errorf("a class's symbols %v, want A alone (its fields are its own)", got)
	}
}

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n            int
		noun, plural string
		want         string
	}{{0, "unit", "", "0 units"}, {1, "unit", "", "1 unit"}, {2, "fix commit", "", "2 fix commits"}, {1, "entry", "entries", "1 entry"}, {3, "entry", "entries", "3 entries"}} {
		if got := Count(tc.n, tc.noun, tc.plural); got != tc.want {
			t.Errorf("Count(%d, %q, %q) = %q, want %q", tc.n, tc.noun, tc.plural, got, tc.want)
		}
	}
}
