package segment

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// symbolsAndDefines segments src and lists each unit as "symbol: defines".
func symbolsAndDefines(t *testing.T, path, src string) []string {
	t.Helper()
	r := Segment(path, []byte(src))
	checkTiling(t, path, []byte(src), r.Units)
	var out []string
	for _, u := range r.Units {
		d := slices.Clone(u.Defines)
		slices.Sort(d)
		out = append(out, u.Symbol+": "+strings.Join(d, " "))
	}
	return out
}

// Names the type a definition is for gives it, however that type is
// written: a C++ operator defined outside a template class of several
// parameters, a conversion operator (outside its class or in it), a Rust
// impl for a type with no name.
// And a name a function merely holds ("apply_operator") is no operator.
func TestNamesOfOddTypes(t *testing.T) {
	tests := []struct {
		path, src string
		want      []string
	}{
		{"a.cpp", `template<class T, class U> bool Pair<T, U>::operator<(const Pair& o) const { return a < o.a; }
template<class T, class U> Pair<T, U>::operator bool() const { return false; }
template<class T, class A> Vec<T, A>& Vec<T, A>::operator+=(const Vec& o) { return *this; }
int apply_operator(int x) { return x; }
`, []string{
			"Pair.operator<: operator<",
			"Pair.operatorbool: operatorbool",
			"Vec.operator+=: operator+=",
			"apply_operator: apply_operator",
		}},
		{"c.cpp", `class Handle {
 public:
  explicit operator bool() const { return fd_ >= 0; }
  template <typename T> operator T*() const { return nullptr; }
  template <typename R> operator Action<R(int)>() const { return {}; }
  int fd_;
};
`, []string{
			"Handle: Handle",
			"Handle.operatorbool: operatorbool",
			"Handle.operatorT*: operatorT*",
			"Handle.operatorAction<R(int)>: operatorAction<R(int)>",
			"Handle: fd_",
		}},
		{"b.rs", `impl<A, B> Speak for (A, B) { fn speak(&self) -> u8 { 1 } }
impl<T, const N: usize> Speak for [T; N] { fn speak(&self) -> u8 { 2 } }
impl Speak for fn(u8, u16) { fn speak(&self) -> u8 { 3 } }
impl<'a> Speak for &'a str { fn speak(&self) -> u8 { 4 } }
impl<T> Speak for Vec<T> { fn speak(&self) -> u8 { 5 } }
`, []string{
			"(A,B).speak: speak",
			"[T;N].speak: speak",
			"fn(u8,u16).speak: speak",
			"str.speak: speak",
			"Vec.speak: speak",
		}},
	}
	for _, tc := range tests {
		if d := cmp.Diff(tc.want, symbolsAndDefines(t, tc.path, tc.src)); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.path, d)
		}
	}
}

// #ifdef NAME and #ifndef NAME ask whether NAME is defined; what their
// branches define is defined.
func TestIfdefDefinesNothing(t *testing.T) {
	src := `#include <stdio.h>
#ifdef HAVE_FOO
static int foo_enabled = 1;
#endif
#ifndef _WIN32
#define SEP '/'
#endif
int use(void) { return SEP; }
`
	if d := cmp.Diff([]string{": SEP foo_enabled", "use: use"}, symbolsAndDefines(t, "c.c", src)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// An exported namespace is read through as a plain one is: the functions
// in it, and in a namespace exported within a plain one, are units.
func TestExportedNamespaceReadThrough(t *testing.T) {
	src := `export namespace Outer {
  export function alpha(x: number): number {
    return x + 1;
  }
  export namespace Inner {
    export function beta(): string { return "b"; }
  }
}
namespace Plain {
  export namespace Deep {
    export function delta() { return 2; }
  }
}
`
	got := symbolsAndDefines(t, "a.ts", src)
	for _, want := range []string{"alpha: alpha", "beta: beta", "delta: delta"} {
		if !slices.Contains(got, want) {
			t.Errorf("no unit %q in %q", want, got)
		}
	}
}

// TestParamsAt checks where an operator's parameters begin, after a
// symbol and after a type whose template arguments hold parentheses.
func TestParamsAt(t *testing.T) {
	for op, want := range map[string]int{
		"operator()":               -1 + len("operator") + 1,
		"operator<(constPair&o)":   len("operator<"),
		"operatorbool()const":      len("operatorbool"),
		"operatorAction<R(int)>()": len("operatorAction<R(int)>"),
		"operator::ns::T()":        len("operator::ns::T"),
		"operatorstd::string":      -1,
	} {
		if got := paramsAt(op); got != want {
			t.Errorf("paramsAt(%q) = %d, want %d", op, got, want)
		}
	}
}

// A C++ definition named by its own declarator, the one its body
// follows, not by a macro call the grammar took for another before it
// (libevent's "static HT_HEAD(map, entry) errors = …;" above
// evutil_socket_error_to_string, which C++ reads as one definition).
func TestDefinitionNamedByItsDeclarator(t *testing.T) {
	src := "static HT_HEAD(cached_map, entry)\n     errors = HT_INITIALIZER();\n\nHT_PROTOTYPE(cached_map,\n\t     entry,\n\t     node);\n\n/** Like strerror. */\nconst char *\nerror_to_string(int errcode)\n{\n\tstruct entry *e;\n\treturn e->msg;\n}\n"
	var names []string
	for _, u := range Segment("a.cc", []byte(src)).Units {
		if u.Kind == KindFunction {
			names = append(names, u.Symbol)
		}
	}
	if want := []string{"error_to_string"}; !slices.Equal(names, want) {
		t.Errorf("functions %q, want %q", names, want)
	}
}
