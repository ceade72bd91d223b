package segment

import (
	"context"
	"strings"
	"testing"
)

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
		// A word that stands for constexpr after if.
		{"if FMT_CONSTEXPR20 (n > 1) f();", "if                 (n > 1) f();"},
		{"x = FOO_BAR (n);", ""},
		// An attribute after a parameter's type and name, not an argument.
		{"value(unsigned x FMT_BUILTIN) : v(x) {}", "value(unsigned x            ) : v(x) {}"},
		{"int f(void *p UV_UNUSED, int n);", "int f(void *p          , int n);"},
		{"f(a, FOO_BAR);", ""},
		{"g(x FOO_BAR);", ""},
		// A template parameter that is a macro called, with its comma.
		{"template <typename T, FMT_ENABLE_IF(is_integral<T>::value)>\nvoid f();",
			"template <typename T                                      >\nvoid f();"},
		{"template <typename T,\n          FMT_ENABLE_IF(a &&\n                        b)>\nvoid f();",
			"template <typename T \n                            \n                          >\nvoid f();"},
		{"template <FMT_ENABLE_IF(x), typename T> void f();", "template <                  typename T> void f();"},
		{"template <typename T, typename U = X<FOO_BAR(1)>> void f();", ""},
		{"template <typename T, FOO_BAR(x) + 1> void f();", ""},
		// A macro called as a statement of its own, with no semicolon;
		// not before a block, in an expression, or as a handler after one.
		{"int a;\nFMT_PRAGMA_GCC(optimize(\"Og\"))\nint b;\n", "int a;\n                              \nint b;\n"},
		{"#endif\nRAPIDJSON_DIAG_OFF(effc++)\n", "#endif\n                          \n"},
		{"public:\n  FOO_BAR(a, b)  // note\n", "public:\n                 // note\n"},
		{"int a;\nTEST_CASE(x)\n{\n}\n", ""},
		{"x = \nFOO_BAR(y)\n+ 1;\n", ""},
		{"FOO_TRY { f(); }\nFOO_CATCH(x)\n", ""},
		{"int a;\nFOO_BAR(y);\n", ""},
		{"int a;\nFOO_BAR(y) + 1\n", ""},
		{"bool f() {\n  GTEST_CHECK_(a == b)\n      << \"a and b differ\";\n}\n", ""},
		// A macro called after a parameter list, annotating the function;
		// not after a condition or a macro's arguments.
		{"  int Read() LOCKS_EXCLUDED(mu_) {", "  int Read()                     {"},
		{"  void Compact() EXCLUSIVE_LOCKS_REQUIRED(mutex_);", "  void Compact()                                 ;"},
		{"  int n() const SHARED_LOCKS_REQUIRED(mu) { return n_; }", "  int n() const " + strings.Repeat(" ", len("SHARED_LOCKS_REQUIRED(mu)")) + " { return n_; }"},
		{"  ~MutexLock() UNLOCK_FUNCTION() { mu_->Unlock(); }", "  ~MutexLock()                   { mu_->Unlock(); }"},
		{"  bool Matches(const Tuple& args) const\n      GTEST_EXCLUSIVE_LOCK_REQUIRED_(mu) {\n",
			"  bool Matches(const Tuple& args) const\n      " + strings.Repeat(" ", len("GTEST_EXCLUSIVE_LOCK_REQUIRED_(mu)")) + " {\n"},
		{"  ~FunctionMocker() override GTEST_LOCK_EXCLUDED_(mu) {", "  ~FunctionMocker() override " + strings.Repeat(" ", len("GTEST_LOCK_EXCLUDED_(mu)")) + " {"},
		{"void f(int a,\n       int b) LOCKS_EXCLUDED(mu);\n", "void f(int a,\n       int b) " + strings.Repeat(" ", len("LOCKS_EXCLUDED(mu)")) + ";\n"},
		{"  virtual void Describe(const void* args,\n                        ::std::ostream* os) const\n      GTEST_LOCK_EXCLUDED_(mu) = 0;\n",
			"  virtual void Describe(const void* args,\n                        ::std::ostream* os) const\n      " + strings.Repeat(" ", len("GTEST_LOCK_EXCLUDED_(mu)")) + " = 0;\n"},
		{"  T* Find(const Tuple& args)\n      const GTEST_EXCLUSIVE_LOCK_REQUIRED_(mu) {\n",
			"  T* Find(const Tuple& args)\n      const " + strings.Repeat(" ", len("GTEST_EXCLUSIVE_LOCK_REQUIRED_(mu)")) + " {\n"},
		{"if (a &&\n    b) BACKCHAR(ptr);\n", ""},
		{"if (a &&\n    b)\n  BACKCHAR(ptr);\n", ""},
		{"x = f(a,\n      b);\nFOO_BAR(x) {\n", ""},
		{"if (utf)\n  BACKCHAR(ptr);\n", ""},
		{"int a;\n  FOO_BAR(x) {\n", ""},
		{"mq_gen(static, mq_, mq_t, link)\n\nTEST_BEGIN(test_mq_basic) {\n", ""},
		{"ScopedTrace::~ScopedTrace()\n    GTEST_LOCK_EXCLUDED_(&mu) {\n",
			"ScopedTrace::~ScopedTrace()\n    " + strings.Repeat(" ", len("GTEST_LOCK_EXCLUDED_(&mu)")) + " {\n"},
		{"static int progress_printf(cli_progress *p, const char *fmt, ...)\n\tGIT_FORMAT_PRINTF(2, 3);\n",
			"static int progress_printf(cli_progress *p, const char *fmt, ...)\n\t" + strings.Repeat(" ", len("GIT_FORMAT_PRINTF(2, 3)")) + ";\n"},
		{"if (utf) BACKCHAR(ptr);", ""},
		{"while (n--) SKIP_BYTE(p);", ""},
		{"SECTION(\"2\") SUCCEED();", ""},
		{"x = f(a) FOO_BAR(b) + 1;", ""},
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

// FuzzMaskMacros: masking keeps every byte's offset and every line break,
// changes bytes only into spaces, reports whether it changed anything,
// and hands back the input itself when it did not.
func FuzzMaskMacros(f *testing.F) {
	for _, s := range []string{"FMT_BEGIN_NAMESPACE\nFMT_API int f() FMT_NOEXCEPT {}\n", "#define X \\\n  FOO_BAR\n", "static FMT_INLINE int g();\r\n",
		"template <typename T,\r\n FMT_ENABLE_IF(a(b))>\r\n", "int a;\n  FOO_BAR(\"x)\\\"\")\n", "if FOO_BAR (x) f(int y FOO_BAR);\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		got, changed := maskMacros(src)
		diff := blankedOnly(t, src, got, func(c byte) bool { return c != '\n' && c != '\r' })
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

// TestMaskedMacrosParse: each kind of macro the mask blanks is a place
// the C++ grammar does not fit, and the masked text parses clean.
func TestMaskedMacrosParse(t *testing.T) {
	for _, src := range []string{
		"int f(int n) {\n  if FMT_CONSTEXPR20 (n > 1) return 1;\n  return 0;\n}\n",
		"struct value {\n  value(unsigned char x FMT_BUILTIN) : v(x) {}\n  unsigned v;\n};\n",
		"template <typename T, FMT_ENABLE_IF(!std::is_pointer<T>::value)>\nauto twice(T x) -> T {\n  return x * 2;\n}\n",
		"int a;\nFMT_PRAGMA_GCC(push_options)\nint b;\n",
		"class Counter {\n public:\n  int Read() LOCKS_EXCLUDED(mu_) {\n    return n_;\n  }\n  bool Full() const\n      EXCLUSIVE_LOCKS_REQUIRED(mu_) {\n    return n_ > 9;\n  }\n\n private:\n  int n_;\n};\n",
	} {
		errs := func(text []byte) int {
			f := newFile("x.h", []byte(src))
			if text != nil {
				f.parseText = masked{text: text}
			}
			tree, err := f.parse(context.Background(), cppGrammar)
			if err != nil {
				t.Fatal(err)
			}
			defer tree.Close()
			return errorSites(tree.RootNode())
		}
		text, ok := maskMacros([]byte(src))
		if !ok {
			t.Fatalf("%q: nothing masked", src)
		}
		if before, after := errs(nil), errs(text); before == 0 || after != 0 {
			t.Errorf("%q: %d places the grammar did not fit, %d masked; want some, then none", src, before, after)
		}
	}
}
