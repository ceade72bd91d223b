package tokenize

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"lookup_single", []string{"lookup", "single"}},
		{"_lookup_single", []string{"lookup", "single"}},
		{"lookupSingle", []string{"lookup", "single"}},
		{"HTTPServer", []string{"http", "server"}},
		{"utf8decode", []string{"utf", "8", "decode"}},
		{"__init__", []string{"init"}},
		{"X", []string{"x"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, Split(tt.in)); diff != "" {
			t.Errorf("Split(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestTerms(t *testing.T) {
	got := Terms("HueMapping._lookup_single(key) at seaborn/_oldcore.py:151 a 42")
	want := []string{"huemapping", "hue", "mapping", "lookup_single", "lookup", "single", "key", "at", "seaborn", "oldcore", "py"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Terms mismatch (-want +got):\n%s", diff)
	}
}

func TestIdentifiers(t *testing.T) {
	got := Identifiers("call self._plot_bivariate(x, y) in 2 ways")
	want := []string{"call", "self", "_plot_bivariate", "in", "ways"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Identifiers mismatch (-want +got):\n%s", diff)
	}
}

func FuzzTerms(f *testing.F) {
	f.Add("HueMapping._lookup_single")
	f.Add("héllo wörld_ÄÖ 123abc")
	f.Fuzz(func(t *testing.T, s string) {
		for _, term := range Terms(s) {
			if len(term) < minLen {
				t.Fatalf("term %q shorter than %d", term, minLen)
			}
		}
	})
}
