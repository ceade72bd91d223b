package expand

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
)

func TestTiesWhy(t *testing.T) {
	chosen := mss.Unit{ID: "m", Path: "a.py", Symbol: "Parser.parse", References: []string{"helper", "os.path.join", "self.config"}, Defines: []string{"parse"}}
	ties := &Ties{Required: map[string]string{"req": "entity:Widget"}}
	tests := []struct {
		name string
		n    mss.Unit
		want string
	}{
		{"header of the method", mss.Unit{ID: "h", Symbol: "Parser"}, "header of Parser.parse"},
		{"defines a name it uses", mss.Unit{ID: "d", Symbol: "helper"}, "defines helper, used by Parser.parse"},
		{"imports a name it uses", mss.Unit{ID: "i", Imports: []string{"os.path.join"}}, "imports join, used by Parser.parse"},
		{"a caller", mss.Unit{ID: "c", Symbol: "Parser.run", References: []string{"self.parse"}}, "uses parse, defined by Parser.parse"},
		{"covers a requirement", mss.Unit{ID: "req", Symbol: "Widget"}, "covers entity:Widget"},
		{"a sibling by position only", mss.Unit{ID: "s", Symbol: "Parser.close", References: []string{"stream"}}, ""},
		{"another class's header", mss.Unit{ID: "o", Symbol: "Lexer"}, ""},
		{"a class its field is named for", mss.Unit{ID: "k", Symbol: "Config", Kind: "class"}, "defines Config, used as config by Parser.parse"},
		// Another case ties a class or type only: a method Config is
		// not what self.config holds, nor is self.Parse the method parse.
		{"a method in another case", mss.Unit{ID: "km", Symbol: "Settings.Config", Kind: "method"}, ""},
		{"a caller in another case", mss.Unit{ID: "x", Symbol: "run", References: []string{"self.Parse"}}, ""},
	}
	for _, tt := range tests {
		if got := ties.Why(&chosen, &tt.n); got != tt.want {
			t.Errorf("%s: Why = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// A use in another case ties a chosen class or type (a value of it), not
// a chosen method or function.
func TestTiesWhyOtherCase(t *testing.T) {
	user := mss.Unit{ID: "u", Path: "a.go", Symbol: "run", Kind: "function", References: []string{"context", "ctx"}}
	for _, tt := range []struct {
		chosen mss.Unit
		want   string
	}{
		{mss.Unit{ID: "t", Path: "a.go", Symbol: "Context", Kind: "type"}, "uses context, defined as Context by Context"},
		{mss.Unit{ID: "m", Path: "a.go", Symbol: "Command.Context", Kind: "method"}, ""},
	} {
		if got := (&Ties{}).Why(&tt.chosen, &user); got != tt.want {
			t.Errorf("%s: Why = %q, want %q", tt.chosen.Symbol, got, tt.want)
		}
	}
}

// A name the chosen unit selects from a value names a member of it: a
// function of that name elsewhere is not tied by it, a method is.
func TestTiesWhySelections(t *testing.T) {
	chosen := mss.Unit{ID: "c", Path: "items/items.go", Symbol: "parseItem", Kind: "function", Language: "go",
		Content:    "func parseItem(r row) (st State) {\n\tst.Split = r.str(\"split\")\n\treturn st\n}\n",
		References: []string{"Split", "State", "row", "str"}}
	var ties Ties
	for _, tt := range []struct {
		name string
		n    mss.Unit
		want string
	}{
		{"a function of another file", mss.Unit{ID: "f", Path: "tokenize/tokenize.go", Symbol: "Split", Kind: "function"}, ""},
		{"a method", mss.Unit{ID: "m", Path: "items/row.go", Symbol: "row.str", Kind: "method"}, "defines str, used by parseItem"},
		{"a type", mss.Unit{ID: "t", Path: "items/state.go", Symbol: "State", Kind: "type"}, "defines State, used by parseItem"},
		{"a caller selecting it from a value", mss.Unit{ID: "u", Path: "x/x.go", Symbol: "load", Kind: "function", Language: "go",
			Content: "func load() { p.parseItem(r) }", References: []string{"parseItem"}}, ""},
		{"a caller selecting it from its package", mss.Unit{ID: "k", Path: "x/x.go", Symbol: "load", Kind: "function", Language: "go",
			Content: "func load() { items.parseItem(r) }", References: []string{"parseItem"}}, "uses parseItem, defined by parseItem"},
	} {
		if got := ties.Why(&chosen, &tt.n); got != tt.want {
			t.Errorf("%s: Why = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestGrowTiedOnly(t *testing.T) {
	// a.py: header A, A.f (chosen, calls g), A.g, A.h: the header and the
	// callee go in; A.h is tied to nothing and stays out, budget unspent.
	a := []mss.Unit{unit("a.py", 1, 10, "A"), unit("a.py", 12, 10, "A.f"), unit("a.py", 23, 10, "A.g"), unit("a.py", 34, 10, "A.h")}
	a[1].References = []string{"self.ggg"}
	a[2].Symbol = "A.ggg"
	got, trace := Grow([]mss.Unit{a[1]}, fileSource{"a.py": a}, nil, 1000, nil, Options{Tie: (&Ties{}).Why})
	if diff := cmp.Diff([]string{"a.py:1-32"}, ranges(got)); diff != "" {
		t.Errorf("Grow mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"A", "A.f", "A.ggg"}, got[0].Symbols); diff != "" {
		t.Errorf("symbols of the grown unit (-want +got):\n%s", diff)
	}
	if len(trace) != 2 || !strings.Contains(trace[0].Reason+trace[1].Reason, "header of A.f") || !strings.Contains(trace[0].Reason+trace[1].Reason, "defines ggg") {
		t.Errorf("trace does not say why each piece is there: %v", trace)
	}
	// Untied growth takes A.h too.
	got, _ = Grow([]mss.Unit{a[1]}, fileSource{"a.py": a}, nil, 1000, nil, Options{})
	if diff := cmp.Diff([]string{"a.py:1-43"}, ranges(got)); diff != "" {
		t.Errorf("untied Grow mismatch (-want +got):\n%s", diff)
	}
}

func TestTiesRanked(t *testing.T) {
	chosen := mss.Unit{ID: "m", Symbol: "f"}
	ties := &Ties{Ranked: map[string]int{"near": 3, "far": 90}, MaxRank: 80}
	if got := ties.Why(&chosen, &mss.Unit{ID: "near", Symbol: "g"}); got != "ranked #3 for the state" {
		t.Errorf("ranked neighbour: %q", got)
	}
	if got := ties.Why(&chosen, &mss.Unit{ID: "far", Symbol: "h"}); got != "" {
		t.Errorf("neighbour ranked past MaxRank tied: %q", got)
	}
}
