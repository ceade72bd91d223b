package segment

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
)

var update = flag.Bool("update", false, "rewrite golden files")

// describe prints units one a line, in the form golden files hold.
func describe(r *Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "language=%q fallback=%q\n", r.Language, r.Fallback)
	for i, u := range r.Units {
		fmt.Fprintf(&b, "%d-%d %s %q tokens=%d\n", u.StartLine, u.EndLine, u.Kind, u.Symbol, u.Tokens)
		if len(u.Defines) > 0 {
			fmt.Fprintf(&b, "  defines %s\n", strings.Join(u.Defines, " "))
		}
		if len(r.Calls[i]) > 0 {
			fmt.Fprintf(&b, "  calls %s\n", strings.Join(r.Calls[i], " "))
		}
		if len(u.Imports) > 0 {
			fmt.Fprintf(&b, "  imports %s\n", strings.Join(u.Imports, " "))
		}
		if len(u.References) > 0 {
			fmt.Fprintf(&b, "  refs %s\n", strings.Join(u.References, " "))
		}
	}
	return b.String()
}

func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/src/*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			r := Segment(name, src)
			checkTiling(t, name, src, r.Units)
			got := describe(r)
			golden := filepath.Join("testdata", "golden", name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("%s units differ from %s (-want +got):\n%s", name, golden, diff)
			}
		})
	}
}

// checkTiling verifies the invariants every segmentation keeps: units in
// order, disjoint, covering every non-blank line, never starting or ending
// on a blank line; Content is exactly the lines with newlines; Tokens and
// Hash agree with Content; ids are unique and recomputable.
func checkTiling(t *testing.T, path string, src []byte, units []mss.Unit) {
	t.Helper()
	text := string(src)
	lines := strings.Split(text, "\n")
	if strings.HasSuffix(text, "\n") {
		lines = lines[:len(lines)-1]
	}
	if text == "" {
		lines = nil
	}
	covered := make([]int, len(lines)+2)
	ids := map[string]bool{}
	prevEnd := 0
	for _, u := range units {
		if u.StartLine <= prevEnd || u.EndLine < u.StartLine || u.EndLine > len(lines) {
			t.Fatalf("%s: unit %d-%d out of order or range (previous end %d, %d lines)", path, u.StartLine, u.EndLine, prevEnd, len(lines))
		}
		prevEnd = u.EndLine
		var want strings.Builder
		for l := u.StartLine; l <= u.EndLine; l++ {
			want.WriteString(lines[l-1])
			want.WriteString("\n")
			covered[l]++
		}
		if u.Content != want.String() {
			t.Errorf("%s:%d-%d: content is not the unit's lines", path, u.StartLine, u.EndLine)
		}
		if u.Tokens != mss.TokenCost(u.Content) {
			t.Errorf("%s:%d-%d: tokens %d, want %d", path, u.StartLine, u.EndLine, u.Tokens, mss.TokenCost(u.Content))
		}
		if strings.TrimSpace(lines[u.StartLine-1]) == "" || strings.TrimSpace(lines[u.EndLine-1]) == "" {
			t.Errorf("%s:%d-%d: unit starts or ends on a blank line", path, u.StartLine, u.EndLine)
		}
		if id := UnitID(u.Path, u.StartLine, u.EndLine, u.Hash); id != u.ID || ids[id] {
			t.Errorf("%s:%d-%d: id %q not unique or not recomputable (%q)", path, u.StartLine, u.EndLine, u.ID, id)
		}
		ids[u.ID] = true
		if u.Path != path {
			t.Errorf("unit path %q, want %q", u.Path, path)
		}
	}
	for l := 1; l <= len(lines); l++ {
		if strings.TrimSpace(lines[l-1]) != "" && covered[l] != 1 {
			t.Errorf("%s: line %d covered %d times: %q", path, l, covered[l], lines[l-1])
		}
	}
}

func TestLanguage(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"a/b.py", "python"},
		{"x.go", "go"},
		{"x.JS", "javascript"},
		{"x.mjs", "javascript"},
		{"x.ts", "typescript"},
		{"x.tsx", "tsx"},
		{"X.java", "java"},
		{"x.rs", "rust"},
		{"x.c", "c"},
		{"x.h", "c"},
		{"x.cc", "cpp"},
		{"x.hpp", "cpp"},
		{"README.md", ""},
		{"Makefile", ""},
	} {
		if got := Language(tc.path); got != tc.want {
			t.Errorf("Language(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}

// TestFileKinds: which paths are C and C++ headers, and which type
// declaration files; both kinds are of the language table alone.
func TestFileKinds(t *testing.T) {
	for _, tc := range []struct {
		path         string
		header, decl bool
	}{
		{"include/zlib.h", true, false},
		{"src/core.HPP", true, false},
		{"x.hh", true, false},
		{"x.h++", true, false},
		{"kernels/reduce.cuh", true, false},
		{"x.c", false, false},
		{"x.inl", false, false},
		{"types/index.d.ts", false, true},
		{"index.d.cts", false, true},
		{"typings/esm.D.MTS", false, true},
		{"stubs/api.pyi", false, true},
		{"src/index.ts", false, false},
		{"src/d.ts/index.js", false, false},
	} {
		if got := HeaderFile(tc.path); got != tc.header {
			t.Errorf("HeaderFile(%q) = %v, want %v", tc.path, got, tc.header)
		}
		if got := DeclarationFile(tc.path); got != tc.decl {
			t.Errorf("DeclarationFile(%q) = %v, want %v", tc.path, got, tc.decl)
		}
	}
}

func TestHeaderPicksCPP(t *testing.T) {
	src, err := os.ReadFile("testdata/src/sample.h")
	if err != nil {
		t.Fatal(err)
	}
	r := Segment("sample.h", src)
	if r.Language != "cpp" {
		t.Errorf("sample.h parsed as %q, want cpp", r.Language)
	}
	for _, u := range r.Units {
		if u.Language != r.Language {
			t.Errorf("unit %d-%d language %q, want %q", u.StartLine, u.EndLine, u.Language, r.Language)
		}
	}
}

func TestNoFinalNewline(t *testing.T) {
	units := File("x.py", []byte("def f():\n    return 42"))
	if len(units) != 1 {
		t.Fatalf("got %d units, want 1", len(units))
	}
	if want := "def f():\n    return 42\n"; units[0].Content != want {
		t.Errorf("content %q, want %q", units[0].Content, want)
	}
	if units[0].Tokens != 6 {
		t.Errorf("tokens %d, want 6", units[0].Tokens)
	}
}

func TestEmpty(t *testing.T) {
	for _, p := range []string{"x.py", "x.txt"} {
		if u := File(p, nil); len(u) != 0 {
			t.Errorf("File(%q, nil) = %d units, want 0", p, len(u))
		}
		if u := File(p, []byte("\n\n  \n")); len(u) != 0 {
			t.Errorf("File(%q, blank) = %d units, want 0", p, len(u))
		}
		// A byte order mark is no text: a file of it and blank lines
		// is empty, as the file without it is.
		for _, src := range []string{"\uFEFF", "\uFEFF\n\n", "\uFEFF  \r\n"} {
			if u := File(p, []byte(src)); len(u) != 0 {
				t.Errorf("File(%q, %q) = %d units (%q), want 0", p, src, len(u), u[0].Content)
			}
		}
	}
}

// TestSplitLongFunction checks that a long function is cut into parts
// within the limits, at statement starts, each keeping the function's
// symbol, the first holding the signature.
func TestSplitLongFunction(t *testing.T) {
	var b strings.Builder
	b.WriteString("import os\n\n\ndef long_function(a, b):\n    \"\"\"Doc.\"\"\"\n")
	for i := 0; i < 450; i++ {
		if i%10 == 0 {
			fmt.Fprintf(&b, "    if a > %d:\n        b += os.getpid()\n", i)
		} else {
			fmt.Fprintf(&b, "    a = a + compute_value_%d(b)\n", i)
		}
	}
	b.WriteString("    return a\n\n\ndef short():\n    return 1\n")
	parts := unitsOf(t, "long.py", []byte(b.String()), "long_function")
	if len(parts) < 3 {
		t.Fatalf("long function in %d parts, want at least 3", len(parts))
	}
	if !strings.HasPrefix(parts[0].Content, "def long_function(a, b):") {
		t.Errorf("first part starts %q, want the signature", strings.SplitN(parts[0].Content, "\n", 2)[0])
	}
	for _, p := range parts {
		if n := p.EndLine - p.StartLine + 1; n > maxLines || p.Tokens > maxTokens {
			t.Errorf("part %d-%d: %d lines, %d tokens; limits %d, %d", p.StartLine, p.EndLine, n, p.Tokens, maxLines, maxTokens)
		}
		if p.Kind != KindFunction {
			t.Errorf("part %d-%d kind %q, want function", p.StartLine, p.EndLine, p.Kind)
		}
		// Parts start at a statement: never inside the two-line if.
		if first := strings.SplitN(p.Content, "\n", 2)[0]; strings.HasPrefix(first, "        ") {
			t.Errorf("part %d-%d starts inside a statement: %q", p.StartLine, p.EndLine, first)
		}
	}
	for i, p := range parts {
		want := "def long_function(a, b):\n"
		if i == 0 {
			want = ""
		}
		if p.Context != want {
			t.Errorf("part %d context %q, want %q", i, p.Context, want)
		}
	}
	if got := parts[0].Defines; !cmp.Equal(got, []string{"long_function"}) {
		t.Errorf("first part defines %v, want [long_function]", got)
	}
}

func TestWindowsForText(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 250; i++ {
		fmt.Fprintf(&b, "line %d of the document\n", i)
		if i%25 == 24 {
			b.WriteString("\n")
		}
	}
	src := []byte(b.String())
	r := Segment("doc.txt", src)
	checkTiling(t, "doc.txt", src, r.Units)
	if r.Fallback != FallbackNoGrammar || r.Language != "" {
		t.Errorf("fallback %q language %q, want %q and \"\"", r.Fallback, r.Language, FallbackNoGrammar)
	}
	for _, u := range r.Units {
		if u.Kind != KindWindow || u.EndLine-u.StartLine+1 > windowLines {
			t.Errorf("unit %d-%d kind %q: want a window of at most %d lines", u.StartLine, u.EndLine, u.Kind, windowLines)
		}
		// Windows end at a paragraph end here, as one is always near.
		if u.EndLine < len(strings.Split(b.String(), "\n"))-2 && !strings.HasPrefix(strings.SplitN(u.Content, "\n", 2)[0], "line") {
			t.Errorf("window %d-%d does not start at a paragraph", u.StartLine, u.EndLine)
		}
	}
}

func TestSyntaxErrorsFallBack(t *testing.T) {
	src := []byte(strings.Repeat("}}} ((( not code ::: [[[\n", 50))
	r := Segment("bad.go", src)
	if r.Fallback != FallbackSyntaxErrors {
		t.Errorf("fallback %q, want %q", r.Fallback, FallbackSyntaxErrors)
	}
	checkTiling(t, "bad.go", src, r.Units)
	if len(r.Units) == 0 {
		t.Fatal("no units: a file that does not parse must still be covered")
	}
}

// A block of macro calls the grammar cannot read makes an error node of
// every argument; the rest of the header is well formed, and is segmented
// as code, not cut into windows.
func TestMacroArgumentsDoNotWindow(t *testing.T) {
	var b strings.Builder
	b.WriteString("namespace json {\nclass Schema {\npublic:\n")
	for i := range 40 {
		fmt.Fprintf(&b, "    int Get%d() const {\n        return value_ + %d;\n    }\n\n", i, i)
	}
	for i := range 30 {
		fmt.Fprintf(&b, "    STRING_(Name%d, 'n', 'a', 'm', 'e', 's', 't', 'r', 'i', 'n', 'g')\n", i)
	}
	b.WriteString("private:\n    int value_;\n};\n}\n")
	src := []byte(b.String())
	r := Segment("schema.h", src)
	if r.Fallback != "" {
		t.Fatalf("fallback %q: a header of well-formed methods and a block of macro calls was cut into windows", r.Fallback)
	}
	checkTiling(t, "schema.h", src, r.Units)
	found := false
	for _, u := range r.Units {
		found = found || u.Symbol == "Schema.Get7"
	}
	if !found {
		t.Errorf("no unit for Schema.Get7 among %d units", len(r.Units))
	}
}

func TestStableIDs(t *testing.T) {
	a := File("m.py", []byte("def f1():\n    return 1\n\n\ndef f2():\n    return 2\n"))
	b := File("m.py", []byte("def f1():\n    return 1\n\n\ndef f2():\n    return 3\n"))
	if a[0].ID != b[0].ID {
		t.Errorf("unchanged unit changed id: %s vs %s", a[0].ID, b[0].ID)
	}
	if a[1].ID == b[1].ID {
		t.Errorf("changed unit kept id %s", a[1].ID)
	}
	if len(a[0].ID) != 16 {
		t.Errorf("id %q: want 16 hex digits", a[0].ID)
	}
}

func FuzzFile(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/src/*")
	for _, s := range seeds {
		src, err := os.ReadFile(s)
		if err == nil {
			f.Add(filepath.Base(s), src)
		}
	}
	f.Add("x.py", []byte("\xff\xfe\x00def"))
	f.Fuzz(func(t *testing.T, name string, src []byte) {
		name = "f" + filepath.Ext(name)
		units := File(name, src)
		checkTiling(t, name, src, units)
	})
}

// TestParseOverBudget: a parse that runs out of time gives the budget's
// error, and the parser it halted is not used again: the next parse of
// the same grammar is whole.
func TestParseOverBudget(t *testing.T) {
	// One P: a parser put back is the next one taken.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	small := []byte("class B {\n  int g() {\n    return 1;\n  }\n}\n")
	want := Segment("B.java", small)
	garbled := []byte("class A { void f() { " + strings.Repeat("A<B<C<", 20000) + " } }\n")
	f := newFile("A.java", garbled)
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	if tree, err := f.parse(ctx, javaGrammar); err == nil {
		tree.Close()
		t.Skip("the garbled file parsed within a millisecond")
	} else if !strings.Contains(err.Error(), "over the time budget") {
		t.Fatalf("err %v, want the time budget's", err)
	}
	for range 3 {
		if d := cmp.Diff(want, Segment("B.java", small)); d != "" {
			t.Fatalf("after a halted parse (-before +after):\n%s", d)
		}
	}
}

// TestSegmentOverBudget: a file whose parse runs past its budget is
// segmented again with retryBudgets times the budget, and a result still
// over it says so (Result.OverBudget); one within it does not.
func TestSegmentOverBudget(t *testing.T) {
	garbled := []byte("class A { void f() { " + strings.Repeat("A<B<C<", 20000) + " } }\n")
	defer func(b func(int) time.Duration) { budgetOf = b }(budgetOf)
	budgetOf = func(int) time.Duration { return time.Microsecond }
	res := Segment("A.java", garbled)
	if !res.OverBudget || !strings.HasSuffix(res.Fallback, fmt.Sprintf("over the time budget of %v", retryBudgets*time.Microsecond)) {
		t.Errorf("over budget twice: OverBudget %v, fallback %q; want the second budget's", res.OverBudget, res.Fallback)
	}
	budgetOf = parseBudget
	if res := Segment("B.java", []byte("class B {\n  int g() {\n    return 1;\n  }\n}\n")); res.OverBudget || res.Fallback != "" {
		t.Errorf("within budget: OverBudget %v, fallback %q", res.OverBudget, res.Fallback)
	}
}

// TestRustSignatureDefinesNothing: a Rust function defines its name, not
// the names of its signature's types, in a module cut into runs of its
// items as anywhere else.
func TestRustSignatureDefinesNothing(t *testing.T) {
	src := "mod m {\n" + strings.Repeat("    /// Compare.\n    pub fn compare<T: Ord>(x: &[T], y: &[T]) -> cmp::Ordering where T: Copy {\n        x.cmp(y)\n    }\n", 40) + "}\n"
	r := Segment("f.rs", []byte(src))
	defined := 0
	for _, u := range r.Units {
		for _, d := range u.Defines {
			if d != "compare" && d != "m" {
				t.Errorf("%d-%d %s defines %s", u.StartLine, u.EndLine, u.Symbol, d)
			}
			if d == "compare" {
				defined++
			}
		}
	}
	if defined == 0 {
		t.Error("no unit defines compare")
	}
}

// TestExportListDefinesNothing: a barrel file's export lists, of names
// from other modules or of its own, define none of them; what the module
// declares, it defines.
func TestExportListDefinesNothing(t *testing.T) {
	src := "export { ref, isRef as isReference } from './ref'\nexport * from './watch'\nexport type { Ref } from './ref'\n\n" +
		"export const version = '3'\nfunction local(): number {\n  return 1\n}\nexport { local }\n"
	for _, p := range []string{"src/index.ts", "src/index.js"} {
		r := Segment(p, []byte(src))
		var defined []string
		for _, u := range r.Units {
			defined = append(defined, u.Defines...)
		}
		sort.Strings(defined)
		if want := []string{"local", "version"}; !cmp.Equal(defined, want) {
			t.Errorf("%s: the units define %v, want %v", p, defined, want)
		}
	}
}

// TestUnitID: ids are stable across versions; an index's units keep the
// ids they were written with.
func TestUnitID(t *testing.T) {
	for _, c := range []struct {
		path       string
		start, end int
		hash, want string
	}{
		{"a/b.rs", 1, 10, "abc", "f9e7b7d7da1738b9"},
		{"x", 123456, 7890123, "ffff", "2d0cf9510fe48403"},
	} {
		if got := UnitID(c.path, c.start, c.end, c.hash); got != c.want {
			t.Errorf("UnitID(%q, %d, %d, %q) = %s, want %s", c.path, c.start, c.end, c.hash, got, c.want)
		}
	}
}

// TestUnitHash: a unit's hash is the SHA-256 of its content, the newline
// a file's last line lacks included.
func TestUnitHash(t *testing.T) {
	sources := map[string][]byte{"nofinal.py": []byte("def f():\n    return 1\n\ndef g():\n    return 2")}
	files, _ := filepath.Glob("testdata/src/*")
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		sources[filepath.Base(path)] = src
	}
	for name, src := range sources {
		for _, u := range Segment(name, src).Units {
			if sum := sha256.Sum256([]byte(u.Content)); u.Hash != hex.EncodeToString(sum[:]) {
				t.Errorf("%s:%d-%d: hash %s is not its content's", name, u.StartLine, u.EndLine, u.Hash)
			}
		}
	}
}

// TestMembersReadUnderTheirClass: a class's members carry its signature
// as context (the innermost class's, the body's opening line when code
// stands before the body on it); the class header and code outside any
// class carry none, a run of the class after a member carries it.
func TestMembersReadUnderTheirClass(t *testing.T) {
	cases := []struct {
		path, src string
		want      map[string]string // symbol: context
	}{
		{"c.py", "import os\n\n\nclass Config(dict):\n    \"\"\"Doc.\"\"\"\n\n    def load(self):\n        return 1\n\n    class Inner:\n        def deep(self):\n            return 2\n\n    x = 3\n\n\ndef top():\n    return 0\n",
			map[string]string{"Config": "", "Config.load": "class Config(dict):\n", "Config.Inner": "class Config(dict):\n", "Config.Inner.deep": "    class Inner:\n", "top": ""}},
		{"A.java", "package x;\n\npublic class A extends B\n    implements C {\n  private int f;\n\n  public void m() {\n    f = 1;\n  }\n}\n",
			map[string]string{"A": "", "A.m": "public class A extends B\n    implements C {\n"}},
		{"a.rs", "impl<'a> Foo<'a> for Bar {\n    fn one(&self) -> u8 {\n        1\n    }\n}\n",
			map[string]string{"Bar.one": "impl<'a> Foo<'a> for Bar {\n"}},
	}
	for _, c := range cases {
		r := Segment(c.path, []byte(c.src))
		checkTiling(t, c.path, []byte(c.src), r.Units)
		got := map[string]string{}
		for _, u := range r.Units {
			_, ok := c.want[u.Symbol]
			if _, seen := got[u.Symbol]; ok && !seen {
				got[u.Symbol] = u.Context // a class's first unit is its header
			}
			if strings.Contains(u.Content, "x = 3") && u.Context != "class Config(dict):\n" {
				t.Errorf("%s: the run after a member has context %q", c.path, u.Context)
			}
		}
		if !cmp.Equal(got, c.want) {
			t.Errorf("%s: contexts %q, want %q", c.path, got, c.want)
		}
	}
}

// TestLongClassHeaderReadUnderItsClass: a class's header run cut for
// size is read, past its first part, under the class's signature.
func TestLongClassHeaderReadUnderItsClass(t *testing.T) {
	src := repeatLines("public class Big extends Base {\n", "  private int field%d = %d;\n", 260, "\n  void m() {\n    field0 = 1;\n  }\n}\n")
	header := unitsOf(t, "Big.java", []byte(src), "Big")
	if len(header) < 2 {
		t.Fatalf("class header in %d parts, want 2 or more", len(header))
	}
	for i, u := range header {
		want := "public class Big extends Base {\n"
		if i == 0 {
			want = ""
		}
		if u.Context != want {
			t.Errorf("header part %d (%d-%d): context %q, want %q", i, u.StartLine, u.EndLine, u.Context, want)
		}
	}
}

// TestLongStatementReadUnderItsFirstLine: a later part of a run of
// module statements that starts inside a long one (a table, a function
// passed as an argument, a macro's block) is read under that statement's
// first line; a part that starts a statement of its own, or follows a
// short one, carries no context.
func TestLongStatementReadUnderItsFirstLine(t *testing.T) {
	py := repeatLines("import os\n\n_docs = dict(\n", "    key%d=\"a value long enough to cost some tokens, number %d\",\n", 300, ")\n")
	js := repeatLines("export default supported && function adapter(config) {\n", "  config.value%d = compute(config, %d);\n", 400, "}\n")
	for _, c := range []struct{ path, src, want string }{
		{"docs.py", py, "_docs = dict(\n"},
		{"http.js", js, "export default supported && function adapter(config) {\n"},
	} {
		r := Segment(c.path, []byte(c.src))
		checkTiling(t, c.path, []byte(c.src), r.Units)
		if len(r.Units) < 3 {
			t.Fatalf("%s: %d units, want the statement cut into parts", c.path, len(r.Units))
		}
		for i, u := range r.Units {
			want := c.want
			if i == 0 || u.StartLine == 1 || strings.HasPrefix(u.Content, c.want) {
				want = "" // the file's first unit, or the statement's first part
			}
			if u.Context != want {
				t.Errorf("%s: unit %d-%d has context %q, want %q", c.path, u.StartLine, u.EndLine, u.Context, want)
			}
		}
	}
	// Short statements after a cut: none is opened above the part.
	short := repeatLines("", "VALUE_%d = compute_something_long_enough(%d)\n", 400, "")
	for _, u := range Segment("consts.py", []byte(short)).Units {
		if u.Context != "" {
			t.Errorf("consts.py: unit %d-%d has context %q, want none", u.StartLine, u.EndLine, u.Context)
		}
	}
}

// repeatLines is head, then line with its two verbs given i, for each i
// below n, then tail: a source too long for one unit.
func repeatLines(head, line string, n int, tail string) string {
	var b strings.Builder
	b.WriteString(head)
	for i := range n {
		fmt.Fprintf(&b, line, i, i)
	}
	b.WriteString(tail)
	return b.String()
}

// unitsOf segments src, checks that its units tile it, and returns those
// of symbol.
func unitsOf(t *testing.T, path string, src []byte, symbol string) []mss.Unit {
	t.Helper()
	r := Segment(path, src)
	checkTiling(t, path, src, r.Units)
	var out []mss.Unit
	for _, u := range r.Units {
		if u.Symbol == symbol {
			out = append(out, u)
		}
	}
	return out
}

// TestByteOrderMark checks that a file opening with a byte order mark
// keeps it in its first unit, and that the mark alone on the first line
// is a blank line, not a unit of its own.
func TestByteOrderMark(t *testing.T) {
	units := File("m.py", []byte("\uFEFFimport os\n\n\ndef f():\n    return os.sep\n"))
	if len(units) == 0 || units[0].StartLine != 1 || !strings.HasPrefix(units[0].Content, "\uFEFFimport os") {
		t.Fatalf("units %+v, want the first at line 1 holding the mark", units)
	}
	units = File("m.py", []byte("\uFEFF\ndef f():\n    return 1\n"))
	if len(units) != 1 || units[0].StartLine != 2 || units[0].Symbol != "f" {
		t.Fatalf("units %+v, want one, f at line 2", units)
	}
}
