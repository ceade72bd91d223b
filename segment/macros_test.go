package segment

import "testing"

func TestMaskMacros(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"FMT_BEGIN_NAMESPACE\n", "                   \n"},
		{"  FMT_CONSTEXPR inline int f();", "                inline int f();"},
		{"FMT_API void g();", "        void g();"},
		{"template <typename T> FMT_CONSTEXPR T sq(T v);", "template <typename T>               T sq(T v);"},
		{"static FMT_INLINE int h();", "static            int h();"},
		{"int f() FMT_NOEXCEPT {", "int f()              {"},
		{"int f() const FMT_OVERRIDE;", "int f() const             ;"},
		{"class FMT_API buf {", "class         buf {"},
		// Left alone: calls, directives and their continuations, members,
		// qualified names, expressions, short or lower-case words.
		{"FMT_ASSERT(x, \"y\");", ""},
		{"#define FMT_API __attribute__((visibility(\"default\")))\n", ""},
		{"#define X \\\n  FMT_BEGIN_NAMESPACE\n", ""},
		{"return a.FOO_BAR x;", ""},
		{"return ns::FOO_BAR;", ""},
		{"x = FOO_BAR + 1;", ""},
		{"case FOO_BAR:", ""},
		{"A_B\n", ""},
		{"Py_BEGIN_ALLOW_THREADS\n", ""},
		{"  return FOO_BAR;", ""},
	} {
		got, changed := maskMacros([]byte(tc.in))
		want := tc.want
		if want == "" {
			want = tc.in
		}
		if string(got) != want || changed != (tc.want != "") {
			t.Errorf("maskMacros(%q) = %q, %v; want %q", tc.in, got, changed, want)
		}
		if len(got) != len(tc.in) {
			t.Errorf("maskMacros(%q) changed the length", tc.in)
		}
	}
}

// FuzzMaskMacros: masking keeps every byte's offset, changes only
// capitals, digits and underscores into spaces, reports whether it changed
// anything, and hands back the input itself when it did not.
func FuzzMaskMacros(f *testing.F) {
	for _, s := range []string{"FMT_BEGIN_NAMESPACE\nFMT_API int f() FMT_NOEXCEPT {}\n", "#define X \\\n  FOO_BAR\n", "static FMT_INLINE int g();\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		got, changed := maskMacros(src)
		diff := blankedOnly(t, src, got, func(c byte) bool { return c == '_' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' })
		if diff != changed {
			t.Fatalf("changed = %v, but bytes differ = %v", changed, diff)
		}
		if !changed && &got[0:1][0] != &src[0:1][0] && len(src) > 0 {
			t.Fatalf("unchanged input was copied")
		}
	})
}

// blankedOnly checks that a mask keeps src's length and changes only
// bytes that may be blanked (blankable) into spaces, and reports whether
// it changed any.
func blankedOnly(t *testing.T, src, got []byte, blankable func(byte) bool) bool {
	t.Helper()
	if len(got) != len(src) {
		t.Fatalf("length %d, want %d", len(got), len(src))
	}
	diff := false
	for i := range src {
		if got[i] == src[i] {
			continue
		}
		diff = true
		if got[i] != ' ' || !blankable(src[i]) {
			t.Fatalf("byte %d: %q became %q", i, src[i], got[i])
		}
	}
	return diff
}
