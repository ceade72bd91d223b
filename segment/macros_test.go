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
