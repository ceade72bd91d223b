package segment

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestMaskConditionals(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"one function opened two ways: the first way is kept",
			"#ifdef NO_EXC\nint f(int x) {\n#else\nint f(int x) try {\n#endif\n  return x;\n#ifdef NO_EXC\n}\n#else\n} catch (...) { return 0; }\n#endif\n",
			"             \nint f(int x) {\n     \n                  \n      \n  return x;\n             \n}\n     \n" + strings.Repeat(" ", 27) + "\n      \n"},
		{"an opening brace under a guard",
			"#ifdef __cplusplus\nextern \"C\" {\n#endif\nint g(void);\n#ifdef __cplusplus\n}\n#endif\n",
			"                  \nextern \"C\" {\n      \nint g(void);\n                  \n}\n      \n"},
		{"branches that each pair their braces are left alone",
			"#ifdef _WIN32\nint h(void) { return 1; }\n#else\nint h(void) { return 2; }\n#endif\n", ""},
		{"braces in comments, strings, characters and raw strings count for nothing",
			"#if A\nconst char *s = \"{\"; char c = '{'; // {\n/* { */ auto r = R\"x({)x\";\n#endif\n", ""},
		{"a block comment across rows hides a directive and braces",
			"/* #if X\n { */\nint k;\n", ""},
		{"a directive continued over rows is blanked whole",
			"#if defined(A) && \\\n    defined(B)\nvoid m() {\n#else\nvoid m(int) {\n#endif\n}\n",
			"                   \n              \nvoid m() {\n     \n             \n      \n}\n"},
		{"a nested conditional inside a kept branch is reduced on its own",
			"#if A\n#if B\nvoid n() {\n#else\nvoid n(int) {\n#endif\n}\n#endif\n",
			"#if A\n     \nvoid n() {\n     \n             \n      \n}\n#endif\n"},
		{"an #endif with no #if is left alone", "}\n#endif\n", ""},
		{"CRLF rows keep their CR", "#if A\r\nvoid p() {\r\n#endif\r\n}\r\n", "     \r\nvoid p() {\r\n      \r\n}\r\n"},
	} {
		got, conds := newFile("x.h", []byte(tc.in)).maskConditionals([]byte(tc.in))
		want := tc.want
		if want == "" {
			want = tc.in
		}
		if string(got) != want || (conds != nil) != (tc.want != "") {
			t.Errorf("%s:\nmaskConditionals(%q)\n = %q, %v\nwant %q", tc.name, tc.in, got, conds, want)
		}
	}
}

// A definition whose opening a conditional gives two ways (cpp-httplib's
// parse_range_header, with and without a function try block) is one unit
// named for it, from its #ifdef to the #endif after its close, and the
// definitions after it are units of their own; before, the parser read the
// two openings as two functions and one "parse_range_header" ran on over
// the definitions that follow.
func TestConditionalSplitsNoDefinition(t *testing.T) {
	var b strings.Builder
	b.WriteString("#include <string>\n\nnamespace lib {\n\n")
	b.WriteString("#ifdef NO_EXCEPTIONS\ninline bool parse_range(const std::string &s, int &n) {\n#else\ninline bool parse_range(const std::string &s, int &n) try {\n#endif\n")
	b.WriteString("  if (s.empty()) { return false; }\n  n = std::stoi(s);\n  return true;\n")
	b.WriteString("#ifdef NO_EXCEPTIONS\n}\n#else\n} catch (...) { return false; }\n#endif\n\n")
	for _, name := range []string{"range_error", "make_provider", "parse_disposition"} {
		b.WriteString("inline bool " + name + "(int code) {\n  if (code > 400) {\n    return true;\n  }\n  return false;\n}\n\n")
	}
	b.WriteString("int last;\n\n} // namespace lib\n")
	src := b.String()
	row := func(prefix string, nth int) int { // 1-based row of the nth line starting with prefix
		for i, line := range strings.Split(src, "\n") {
			if strings.HasPrefix(line, prefix) {
				if nth--; nth == 0 {
					return i + 1
				}
			}
		}
		t.Fatalf("no line %q", prefix)
		return 0
	}
	type def struct {
		start, end int
		symbol     string
	}
	want := []def{{row("#ifdef", 1), row("#endif", 2), "parse_range"}}
	for _, name := range []string{"range_error", "make_provider", "parse_disposition"} {
		start := row("inline bool "+name, 1)
		want = append(want, def{start, start + 5, name})
	}
	var defs []def
	for _, u := range File("lib.h", []byte(src)) {
		if u.Kind != KindModule {
			defs = append(defs, def{u.StartLine, u.EndLine, u.Symbol})
		}
	}
	if len(defs) != len(want) {
		t.Fatalf("definitions %v, want %v", defs, want)
	}
	for i := range want {
		if defs[i] != want[i] {
			t.Errorf("definition %d: %v, want %v", i, defs[i], want[i])
		}
	}
}

// FuzzMaskConditionals: masking keeps every byte's offset and every
// newline and CR, only ever turns bytes into spaces, and hands back the
// input itself when it reduced nothing.
func FuzzMaskConditionals(f *testing.F) {
	for _, s := range []string{
		"#ifdef A\nint f() {\n#else\nint f() try {\n#endif\n}\n",
		"#if X \\\n  && Y\nextern \"C\" {\n#endif\n/* { */ auto r = R\"d({)d\";\n",
		"#endif\n#else\n#if\n{",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		got, conds := newFile("x.h", src).maskConditionals(src)
		diff := blankedOnly(t, src, got, func(c byte) bool { return c != '\n' && c != '\r' })
		if conds == nil && diff {
			t.Fatal("changed the text but reported no conditional")
		}
		for _, c := range conds {
			if !(c.open < c.second || c.second == c.end) || c.second > c.end {
				t.Fatalf("rows out of order: %+v", c)
			}
		}
	})
}

// Names a block that a conditional guards declares (an enum inside
// extern "C" { } under #ifdef __cplusplus, as in fmt's C API header) are
// defined by the unit holding them, as they would be outside the block.
func TestNamesInsideExternBlock(t *testing.T) {
	src := "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\nenum { fmt_error = -1, fmt_error_invalid_arg = -2 };\n\nint fmt_vformat(char* buffer, int size);\n\n#ifdef __cplusplus\n}\n#endif\n"
	for _, lang := range []string{"x.h", "x.hpp"} {
		defined := map[string]bool{}
		for _, u := range File(lang, []byte(src)) {
			for _, d := range u.Defines {
				defined[d] = true
			}
		}
		if !defined["fmt_error"] || !defined["fmt_error_invalid_arg"] {
			t.Errorf("%s: defined %v, want fmt_error and fmt_error_invalid_arg among them", lang, defined)
		}
	}
}

// TestConditionalsAtParseErrors checks that in C a conditional whose
// branches pair their braces, but split what the grammar reads, is read
// as its first branch: a function with two heads over one body, and an
// expression continued under #ifdef, are units named for their function.
func TestConditionalsAtParseErrors(t *testing.T) {
	src := `#include <stdio.h>

static int helper(int x)
{
    return x + 1;
}

#ifdef _WIN32
int open_thing(HANDLE h, int flags)
#else
int open_thing(int fd, int flags)
#endif
{
    int r = helper(flags);
    if (r > 2) {
        return 1;
    }
    return 0;
}

static int
map_flags(int fd)
{
	int flags =
#ifdef MAP_NOCACHE
		MAP_NOCACHE |
#endif
#ifdef MAP_FILE
		MAP_FILE |
#endif
		MAP_PRIVATE;
	if (fd < 0)
		return -1;
	return flags;
}

int close_thing(int fd)
{
    return helper(fd) - 1;
}
`
	var got []string
	for _, u := range File("thing.c", []byte(src)) {
		got = append(got, fmt.Sprintf("%d-%d %s %s", u.StartLine, u.EndLine, u.Kind, u.Symbol))
	}
	want := []string{"1-1 module ", "3-6 function helper", "8-19 function open_thing", "21-35 function map_flags", "37-40 function close_thing"}
	if !slices.Equal(got, want) {
		t.Errorf("units\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestConditionalsHoldingErrors checks which conditionals are offered for
// reduction where the grammar did not fit: the innermost one holding such
// a row, with branches after its first of at most rest rows; one whose
// later branches are long keeps them.
func TestConditionalsHoldingErrors(t *testing.T) {
	src := []byte(`#ifndef GUARD_H
#define GUARD_H
int f(void) {
	int x =
#ifdef A
		A |
#endif
		B;
	return x;
}
#ifdef _WIN32
int g(HANDLE h)
#else
int g(int fd)
#endif
{ return 0; }
#ifdef LONG
int h(void) { return 1; }
#else
int h(void) { return 2; }
int k(void) { return 3; }
#endif
#endif
`)
	f := newFile("x.c", src)
	rows := func(rs ...int) []bool { // 1-based rows where the grammar did not fit
		on := make([]bool, f.nlines())
		for _, r := range rs {
			on[r-1] = true
		}
		return on
	}
	opened := func(cs []*conditional) []int {
		var out []int
		for _, c := range cs {
			out = append(out, c.directives[0][0]+1)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		errs []bool
		rest int
		want []int
	}{
		{"no errors: none", rows(), shortBranches, nil},
		{"an error inside #ifdef A: that one, not the guard", rows(6), shortBranches, []int{5}},
		{"an error on a head: the conditional of two heads", rows(12), shortBranches, []int{11}},
		{"heads in C++: one branch only", rows(12), 0, nil},
		{"an error under #ifdef LONG: its later branch is long", rows(18), 1, nil},
		{"an error outside every inner one: the guard", rows(9), shortBranches, []int{1}},
	} {
		if got := opened(f.conditionals(src, tc.errs, tc.rest)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: conditionals opening at %v, want %v", tc.name, got, tc.want)
		}
	}
}
