package segment

import (
	"strings"
	"testing"

	"github.com/missingcomplement/mss"
)

func TestWholeClass(t *testing.T) {
	u := func(start, n int, sym, kind string) mss.Unit {
		return mss.Unit{Path: "a.py", StartLine: start, EndLine: start + n - 1, Symbol: sym, Kind: kind,
			Content: strings.Repeat("xxxxxxx\n", n)}
	}
	file := []mss.Unit{
		u(1, 3, "", KindModule),
		u(5, 2, "A", KindClass),
		u(8, 5, "A.f", KindMethod),
		u(14, 3, "A.B", KindClass),
		u(17, 2, "A.B.g", KindMethod),
		u(20, 5, "h", KindFunction),
		u(26, 2, "C", KindClass),
		u(28, 250, "C.big", KindMethod),
		u(280, 1, "ns.K", KindClass),
		u(281, 2, "ns.K.m", KindMethod),
		u(284, 2, "ns.L", KindClass),
	}
	tests := []struct {
		name       string
		lo, hi     int
		max        int
		wantLo     int
		wantHi     int
		wantClass  string
		wantWholes bool
	}{
		{"a method", 2, 2, 1500, 1, 4, "A", true},
		{"the header", 1, 1, 1500, 1, 4, "A", true},
		{"a nested method: the outer class, which fits", 4, 4, 1500, 1, 4, "A", true},
		{"a nested method: its own class, when only that fits", 4, 4, 15, 3, 4, "A.B", true},
		{"a nested class in a namespace: the class alone", 9, 9, 1500, 8, 9, "ns.K", true},
		{"header and method", 1, 2, 1500, 1, 4, "A", true},
		{"over the cap", 2, 2, 10, 2, 2, "", false},
		{"a function", 5, 5, 1500, 5, 5, "", false},
		{"two classes", 2, 6, 1500, 2, 6, "", false},
		{"over the unit's lines", 6, 6, 1500, 6, 6, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lo, hi, class, ok := WholeClass(file, tt.lo, tt.hi, tt.max)
			if lo != tt.wantLo || hi != tt.wantHi || class != tt.wantClass || ok != tt.wantWholes {
				t.Errorf("WholeClass(%d, %d) = %d, %d, %q, %t; want %d, %d, %q, %t", tt.lo, tt.hi, lo, hi, class, ok, tt.wantLo, tt.wantHi, tt.wantClass, tt.wantWholes)
			}
		})
	}
	// What a run costs is its text with the blank lines between: lines
	// 5-18 hold 12 lines of 8 bytes and 2 blank lines (7 and 13).
	if got, want := RunTokens(file[1:4]), mss.TokenCost(strings.Repeat("xxxxxxx\n", 2)+"\n"+strings.Repeat("xxxxxxx\n", 5)+"\n"+strings.Repeat("xxxxxxx\n", 3)); got != want {
		t.Errorf("RunTokens = %d, want %d", got, want)
	}
}
