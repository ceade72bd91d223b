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
