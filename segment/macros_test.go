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
		// A calling convention, between the type and the name called.
		{"int CJSON_CDECL main(void)", "int             main(void)"},
		{"void * JEMALLOC_NOTHROW f(int);", "void *                  f(int);"},
		{"  FMT_CONSTEXPR FMT_INLINE named(T v)", "                           named(T v)"},
		{"FMT_CONSTEXPR FMT_INLINE auto visit(V&& v)", "                         auto visit(V&& v)"},
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
		// Types: after a type before nothing called, or an enum's tag.
		{"PCRE2_EXP_DEFN PCRE2_SPTR PCRE2_CALL_CONVENTION", "               PCRE2_SPTR PCRE2_CALL_CONVENTION"},
		{"enum FOO_KIND kind(void);", ""},
		{"const char *x = FOO_BAR;", ""},
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

// TestCallingConventionMacro: a function whose name follows a calling
// convention macro ("int CJSON_CDECL main(void)") is named for itself,
// not for its parameter list.
func TestCallingConventionMacro(t *testing.T) {
	src := []byte("static int helper(void)\n{\n    return 1;\n}\n\nint CJSON_CDECL main(void)\n{\n    helper();\n    return 0;\n}\n")
	if us := unitsOf(t, "tests/parse_hex4.c", src, "main"); len(us) != 1 || us[0].StartLine != 6 || us[0].EndLine != 10 || us[0].Kind != "function" {
		t.Fatalf("main: %+v", us)
	}
}
