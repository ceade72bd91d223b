package segment

import (
	"bytes"
	"testing"
)

func TestUsesCpp(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{"std::string s;", true},
		{"void A::~A() {}", true},
		{"int x = ::f();", true},
		{"namespace fmt {\n}", true},
		{"namespace {\nint x;\n}", true},
		{"template <typename T> T f(T);", true},
		{"template<class T> struct S;", true},
		{"class logger;\nclass formatter : public base {};", true},
		{"class Foo {\n};", true},
		{"struct S {\npublic:\n  int x;\n};", true},
		{"  private :\n", true},
		{"using namespace std;", true},

		{"int main(void) { return 0; }", false},
		{`asm volatile ("" ::: "memory");`, false},
		{`asm("mov %0, %1" : "=r"(x) :: "memory");`, false},
		{"// std::string in a comment\nint x;", false},
		{"/* namespace fmt { */ int x;", false},
		{`const char *s = "std::string";`, false},
		{`char c = ':'; char d = ':';`, false},
		{"int class_count; int my_namespace;", false},
		{"int template_id = 1 < 2;", false},
		{"struct classy { int public_x; };", false},
		{"x ? a : b;", false},
		{"label: goto label;", false},
		{"[[gnu::pure]] int f(void);", false},
		{"[[deprecated]] int g(void); int x[2][1]; int y = x[1][0];", false},
		{"[[nodiscard]] std::string f();", true},
		{"", false},
	} {
		if got := usesCpp([]byte(tc.src)); got != tc.want {
			t.Errorf("usesCpp(%q) = %v, want %v", tc.src, got, tc.want)
		}
	}
}

// TestCppHeaderIsCpp: a header whose code is C++ is parsed as C++ even
// where the C grammar's error recovery leaves fewer error sites (as in
// a header of forward declarations in namespaces); a C header stays C,
// whatever its comments and strings say.
func TestCppHeaderIsCpp(t *testing.T) {
	cpp := "#pragma once\n\nnamespace spdlog {\nclass logger;\nclass formatter;\n" +
		"namespace sinks {\nclass sink;\n}\n}  // namespace spdlog\n"
	if r := Segment("include/fwd.h", []byte(cpp)); r.Language != "cpp" {
		t.Errorf("C++ header parsed as %q, want cpp", r.Language)
	}
	c := "#ifndef ATOMIC_H\n#define ATOMIC_H\n/* see std::atomic */\n\n" +
		"static inline void barrier(void) {\n    asm volatile (\"\" ::: \"memory\");\n}\n\n" +
		"static const char *name = \"a::b\";\n\n#endif\n"
	if r := Segment("include/atomic.h", []byte(c)); r.Language != "c" {
		t.Errorf("C header parsed as %q, want c", r.Language)
	}
}

// FuzzUsesCpp: no input panics, and what a block comment holds never
// makes a file C++.
func FuzzUsesCpp(f *testing.F) {
	for _, s := range []string{"std::string s;", `asm("" ::: "memory");`, "namespace a {", "/* x", `"\`, "class", "template", "public"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		usesCpp(src)
		inner := src
		for bytes.Contains(inner, []byte("*/")) {
			inner = bytes.ReplaceAll(inner, []byte("*/"), nil)
		}
		if usesCpp(append(append([]byte("/*"), inner...), "*/"...)) {
			t.Errorf("a block comment holding %q made the file C++", inner)
		}
	})
}
