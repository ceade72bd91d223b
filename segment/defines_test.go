package segment

import (
	"slices"
	"testing"
)

// TestGoGroupedDeclarationsDefineEveryName: a grouped type declaration
// defines every type it lists, not only the first, which names its unit;
// var a, b = 1, 2 defines both names.
func TestGoGroupedDeclarationsDefineEveryName(t *testing.T) {
	src := []byte(`package g

var first, second = 1, 2

type (
	// Unum is a number.
	Unum int
	Vstr string
)
`)
	r := Segment("g.go", src)
	checkTiling(t, "g.go", src, r.Units)
	want := map[string][]string{
		"":     {"first", "second"},
		"Unum": {"Unum", "Vstr"},
	}
	for _, u := range r.Units {
		w, ok := want[u.Symbol]
		if !ok {
			t.Errorf("unexpected unit %d-%d %q", u.StartLine, u.EndLine, u.Symbol)
			continue
		}
		if !slices.Equal(u.Defines, w) {
			t.Errorf("unit %d-%d %q defines %v, want %v", u.StartLine, u.EndLine, u.Symbol, u.Defines, w)
		}
		delete(want, u.Symbol)
	}
	for sym := range want {
		t.Errorf("no unit %q", sym)
	}
}

// TestPythonDefinesUnderConditionals: a chained assignment defines every
// name it assigns, and the definitions and assignments in the blocks of
// a module's if, try, with and for are the module's.
func TestPythonDefinesUnderConditionals(t *testing.T) {
	src := []byte(`import sys
FIRST = SECOND = 1

try:
    from functools import cache
except ImportError:
    def cache(fn):
        return fn

if sys.platform == "win32":
    SEP = "\\"
else:
    SEP = "/"

    class Posix:
        def run(self):
            return 1
`)
	r := Segment("m.py", src)
	checkTiling(t, "m.py", src, r.Units)
	var got []string
	for _, u := range r.Units {
		got = append(got, u.Defines...)
	}
	slices.Sort(got)
	want := []string{"FIRST", "Posix", "SECOND", "SEP", "cache"}
	if !slices.Equal(got, want) {
		t.Errorf("defines %v, want %v", got, want)
	}
}

// TestJavaScriptPatternsAndFieldsDefine: a destructuring declaration
// defines every name its pattern binds (not the properties it reads),
// and a class's fields are the class's names, static or not.
func TestJavaScriptPatternsAndFieldsDefine(t *testing.T) {
	src := []byte("export class Store {\n  static count = 2\n  items = []\n\n  add(x) {\n    this.items.push(x)\n  }\n}\n\n" +
		"let [first, , ...others] = pair()\nconst { alpha, beta: renamed, gamma = 3, ...restOf } = obj\n")
	for _, path := range []string{"s.js", "s.ts"} {
		r := Segment(path, src)
		checkTiling(t, path, src, r.Units)
		var got []string
		for _, u := range r.Units {
			got = append(got, u.Defines...)
		}
		slices.Sort(got)
		want := []string{"Store", "add", "alpha", "count", "first", "gamma", "items", "others", "renamed", "restOf"}
		if !slices.Equal(got, want) {
			t.Errorf("%s: defines %v, want %v", path, got, want)
		}
	}
}
