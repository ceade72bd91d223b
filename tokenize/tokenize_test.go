package tokenize

import (
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"

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

// referenceTerms is the plain rune-based definition of Terms that the
// ASCII fast path must agree with.
func referenceTerms(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !isWord(r) }) {
		trimmed := strings.Trim(w, "_")
		if trimmed == "" {
			continue
		}
		whole := strings.ToLower(trimmed)
		if len(whole) >= minLen && !isNumber(whole) {
			out = append(out, whole)
		}
		if parts := Split(trimmed); len(parts) > 1 {
			for _, p := range parts {
				if len(p) >= minLen && !isNumber(p) {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

func TestTermsMatchesReference(t *testing.T) {
	for _, s := range []string{
		"HTTPServer utf8Decode __init__ parseJSON2XML a_B_c ABC abc1def2 X11Display",
		"self._plot_bivariate(x_var, y_var, ax, func, **kws)",
		"héllo wörld_ÄÖ ÄpfelBaum 123abc",
	} {
		if diff := cmp.Diff(referenceTerms(s), Terms(s)); diff != "" {
			t.Errorf("Terms(%q) differs from reference (-want +got):\n%s", s, diff)
		}
	}
}

// FuzzTermsMatchesReference: Terms, and EachScratch with the terms it
// lower-cases into its buffer copied, give the reference's terms; on text
// that is not UTF-8, the two give the same terms.
func FuzzTermsMatchesReference(f *testing.F) {
	f.Add("HTTPServer utf8Decode __init__ parseJSON2XML")
	f.Add("ÄpfelBaum_x9Y")
	f.Add("__ 1_000 x1 12 ab_CD é\x80b 9é _Ä_")
	f.Fuzz(func(t *testing.T, s string) {
		got := Terms(s)
		var scratch []string
		var buf []byte
		EachScratch(s, &buf, func(term string, _ bool) { scratch = append(scratch, strings.Clone(term)) })
		if diff := cmp.Diff(got, scratch); diff != "" {
			t.Fatalf("EachScratch(%q) differs from Terms (-want +got):\n%s", s, diff)
		}
		if !utf8.ValidString(s) {
			return
		}
		if diff := cmp.Diff(referenceTerms(s), got); diff != "" {
			t.Fatalf("Terms(%q) differs from reference (-want +got):\n%s", s, diff)
		}
	})
}

func BenchmarkTerms(b *testing.B) {
	text := strings.Repeat("def _lookup_single(self, key):\n    value = self.lookupTable[key]  # HTTPServer utf8decode\n", 50)
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Each(text, func(string) {})
	}
}

// TestEachScratch: the terms lower-cased into the buffer are those Each
// gives, in order, and only those not found in the text are there.
func TestEachScratch(t *testing.T) {
	text := "HTTPServer lookup_single LookupSingle getName über_Maß x9Y a_BC_d PARSE"
	want := Terms(text)
	var got []string
	var buf []byte
	EachScratch(text, &buf, func(term string, scratch bool) {
		if inBuf := len(buf) > 0 && unsafe.StringData(term) == &buf[0]; inBuf != scratch {
			t.Errorf("term %q: scratch %v, in the buffer %v", term, scratch, inBuf)
		}
		got = append(got, strings.Clone(term))
	})
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("EachScratch differs from Terms (-want +got):\n%s", d)
	}
	if len(buf) == 0 {
		t.Error("no term was lower-cased into the buffer")
	}
}
