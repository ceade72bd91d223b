package segment

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLexNames(t *testing.T) {
	for _, tc := range []struct {
		lang, text  string
		refs, calls []string
	}{
		{"python", "def f(x):\n    return helper(x) + other.attr  # not_this\n",
			[]string{"helper", "other", "attr"}, []string{"helper"}},
		{"python", "s = 'skip_me' + \"and_me\" + f'{in_field} skip_too' + rb'raw_skip'\nkept = 1\n",
			[]string{"in_field", "kept"}, nil},
		// What a string interpolates is code: an f-string's replacement
		// fields ({{ is a brace), a template literal's ${...}, nested.
		{"python", "x = f\"{{not_me}} {obj.attr:>{width}} {d['key_skip']}\" + F'''{call_it(v1)}'''\n",
			[]string{"obj", "attr", "width", "call_it", "v1"}, []string{"call_it"}},
		{"javascript", "const s = `a_skip ${fmt(x1)} b_skip ${c2 ? `d_skip ${e3}` : 'f_skip'}`; kept4\n",
			[]string{"fmt", "x1", "c2", "e3", "kept4"}, []string{"fmt"}},
		{"python", "x = \"\"\"doc with name_inside\nstill_doc\"\"\"\nafter_doc()\n",
			[]string{"after_doc"}, []string{"after_doc"}},
		{"go", "// comment_word\nfunc (s *Srv) Run() error { return s.handle (nil) }\n",
			[]string{"Srv", "Run", "error", "handle"}, []string{"Run", "handle"}},
		{"go", "x := `raw_skip\nraw_line2` + \"esc\\\"aped_skip\"\nyy := zz\n",
			[]string{"yy", "zz"}, nil},
		{"rust", "fn f<'a>(x: &'a str) -> usize { println!(\"fmt_skip\"); x.len() }\n",
			[]string{"str", "usize", "println", "len"}, []string{"println", "len"}},
		{"rust", "let c = 'q'; let d = '\\n'; done_now\n",
			[]string{"done_now"}, nil},
		{"javascript", "/* block_skip */ const a1 = `tmpl_skip` + get(b2) // tail_skip\n",
			[]string{"a1", "get", "b2"}, []string{"get"}},
		{"cpp", "template <typename T> void buf<T>::grow(size_t n) { size_ += n; }\n",
			[]string{"buf", "grow", "size_t", "size_"}, []string{"grow"}},
		{"java", "public int count() { return this.items.size(); } // c2\n",
			[]string{"count", "items", "size"}, []string{"count", "size"}},
		{"python", "x = 0x1F + 3e10 + value_2\n", []string{"value_2"}, nil},
		// Strings end where the language ends them: Rust's run across
		// lines, raw strings at their closing quote and hashes, C++'s raw
		// strings at )delim", Java's text blocks at """, and Go's raw
		// strings know no escapes.
		{"rust", "const LONG: &str = \"\\\nBy default skip_one\nskip_two(x) \\\"q\\\"\n\";\nkept_it()\n",
			[]string{"LONG", "str", "kept_it"}, []string{"kept_it"}},
		{"rust", "let v = r#\"a \"quoted\" raw_skip\"#; let w = br\"b_skip\"; let u = b\"c_skip\"; kept_one\n",
			[]string{"kept_one"}, nil},
		{"rust", "let r = 1; rr(r)\n", []string{"rr"}, []string{"rr"}},
		{"cpp", "auto s = R\"x(skip_raw \"q\" )\"\nmore_skip)x\"; kept_two(s);\n",
			[]string{"kept_two"}, []string{"kept_two"}},
		{"java", "String s = \"\"\"\n  text_skip \"x\"\n  \"\"\"; kept_three\n",
			[]string{"String", "kept_three"}, nil},
		{"go", "p := `C:\\`\nkept_go\n", []string{"kept_go"}, nil},
	} {
		refs, calls := lexNames(tc.text, tc.lang, nil, nil)
		if diff := cmp.Diff(tc.refs, refs); diff != "" {
			t.Errorf("%s %q refs (-want +got):\n%s", tc.lang, tc.text, diff)
		}
		if diff := cmp.Diff(tc.calls, calls); diff != "" {
			t.Errorf("%s %q calls (-want +got):\n%s", tc.lang, tc.text, diff)
		}
	}
}

// TestLexNamesMany: a text naming more names than a list is read through
// for (nameScan) gives each once, in order of first appearance, before
// and after its lists pass that length.
func TestLexNamesMany(t *testing.T) {
	var text strings.Builder
	var refs, calls []string
	for i := range 3 * nameScan {
		name := fmt.Sprintf("name_%d", i)
		refs = append(refs, name)
		if i%2 == 0 {
			calls = append(calls, name)
			fmt.Fprintf(&text, "%s(1)\n", name)
		} else {
			fmt.Fprintf(&text, "value = %s\n", name)
		}
	}
	refs = slices.Insert(refs, 1, "value") // first met on the second row
	// Every name again, each a call now: no ref repeats, and the odd
	// names become calls only here, after every even one.
	for i := range 3 * nameScan {
		fmt.Fprintf(&text, "name_%d()\n", i)
		if i%2 == 1 {
			calls = append(calls, fmt.Sprintf("name_%d", i))
		}
	}
	gotRefs, gotCalls := lexNames(text.String(), "python", nil, nil)
	if diff := cmp.Diff(refs, gotRefs); diff != "" {
		t.Errorf("refs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(calls, gotCalls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

func TestLexImports(t *testing.T) {
	for _, tc := range []struct {
		lang, text string
		want       []string
	}{
		{"python", "def f():\n    from sympy.core import (Add,\n        Mul)\n    import os.path as p, sys\n",
			[]string{"sympy.core", "sympy.core.Add", "os.path", "sys"}},
		{"python", "from . import util\nfrom ..pkg import *\n", []string{".", ".util", "..pkg"}},
		{"python", "    >>> from sympy import S\n# import nothing\n", nil},
		{"javascript", "const u = require('./util')\nconst v = require(\"lodash\")\n", []string{"./util", "lodash"}},
		{"go", "import \"fmt\"\n", nil},
	} {
		if diff := cmp.Diff(tc.want, lexImports(tc.text, tc.lang)); diff != "" {
			t.Errorf("%s %q (-want +got):\n%s", tc.lang, tc.text, diff)
		}
	}
}

// wholeTextImports is what lexImports gave for Python when it ran its
// patterns over the whole text: lexImports, which runs them only on the
// lines holding "import", must give the same.
func wholeTextImports(text string) []string {
	var out []string
	for _, m := range pyFromImport.FindAllStringSubmatch(text, -1) {
		out = appendFromImport(out, m)
	}
	for _, m := range pyImport.FindAllStringSubmatch(text, -1) {
		out = appendImport(out, m)
	}
	return out
}

// TestLexImportsByLine: imports found line by line are the ones found in
// the whole text, at a text's first and last line, with carriage
// returns, with "import" twice on a line and in other words.
func TestLexImportsByLine(t *testing.T) {
	for _, text := range []string{
		"import os",
		"import os\n",
		"from a import b, c\r\nimport d\r\n",
		"x = 1\nfrom .m import (p,\n  q)\nimport importlib, reimport  # import again\n",
		"importlib.import_module('x')\n  import  sys , re\nfrom\timport import import\n",
		"\n\nimport\n",
		"def f():\n    import a.b as c\n    return c\nfrom x.y import *\nimport",
	} {
		if diff := cmp.Diff(wholeTextImports(text), lexImports(text, "python")); diff != "" {
			t.Errorf("%q (-whole text +by line):\n%s", text, diff)
		}
	}
}

// FuzzLexImports: imports found line by line are the ones found in the
// whole text.
func FuzzLexImports(f *testing.F) {
	f.Add("from a import b\nimport c, d\n")
	f.Add("x\nimport\tq\r\nfrom . import (r,\ns)")
	f.Fuzz(func(t *testing.T, text string) {
		if diff := cmp.Diff(wholeTextImports(text), lexImports(text, "python")); diff != "" {
			t.Errorf("%q (-whole text +by line):\n%s", text, diff)
		}
	})
}

// TestLexNamesPackages: a name of the file's packages followed by a dot
// is a qualifier: it stays a name the text uses, and the name it selects
// is not the text's own; the same word selected from a value still is.
func TestLexNamesPackages(t *testing.T) {
	packages := map[string]bool{"strings": true, "pb": true}
	text := "parts := strings.Split(s, sep)\nSplit(parts)\nx := pb.Request{}\nout.Split()\n"
	refs, calls := lexNames(text, "go", packages, nil)
	if diff := cmp.Diff([]string{"parts", "strings", "sep", "Split", "pb", "out"}, refs); diff != "" {
		t.Errorf("refs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Split"}, calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

func TestGoPackageName(t *testing.T) {
	for path, want := range map[string]string{
		"strings":      "strings",
		"net/http":     "http",
		"math/rand/v2": "rand",
		"v2":           "v2",
	} {
		if got := goPackageName(path); got != want {
			t.Errorf("goPackageName(%q) = %q, want %q", path, got, want)
		}
	}
}

// TestPlatformQualifiers: a package or object the platform gives (Go's
// standard library; a Java class imported from java.* or javax.*, or one
// of java.lang's; JavaScript's global objects; what a Python file imports
// from the standard library) qualifies what it selects, which is not the
// unit's reference; any other may be the repository's own (a Go path
// with a domain or a module named without one, a Java class of another
// package, a JavaScript import, a Python package outside the standard
// library), and its selections stay the unit's references.
func TestPlatformQualifiers(t *testing.T) {
	for _, tc := range []struct {
		path, src, symbol string
		refs, calls       []string
	}{
		{"p.go", "package p\n\nimport (\n\t\"strings\"\n\tstr \"strings\"\n\t\"example.com/repo/internal\"\n\t\"myapp/util\"\n)\n\n" +
			"func f(s string) []string {\n\tinternal.Join(s)\n\tutil.Do(s)\n\treturn append(strings.Split(s, \",\"), str.Fields(s)...)\n}\n",
			"f", []string{"Do", "Join", "append", "internal", "str", "string", "strings", "util"}, []string{"Do", "Join", "append"}},
		{"A.java", "package p;\n\nimport java.util.Objects;\nimport static java.util.Objects.requireNonNull;\nimport org.example.Util;\n\n" +
			"class A {\n  boolean same(Object o) {\n    Util.helper(o);\n    return Objects.equals(String.valueOf(o), requireNonNull(o)) && equals(o);\n  }\n}\n",
			"A.same", []string{"Object", "Objects", "String", "Util", "equals", "helper", "requireNonNull"}, []string{"equals", "helper", "requireNonNull"}},
		{"m.js", "import util from './util'\n\nfunction parseAll(s) {\n  console.log(JSON.parse(s))\n  return util.parse(Object.keys(s)).map(parse)\n}\n",
			"parseAll", []string{"JSON", "Object", "console", "map", "parse", "util"}, []string{"map", "parse"}},
		{"m.py", "import os.path\nimport numpy as np\nfrom collections import OrderedDict\nfrom os import path as p\nfrom .util import helper\n\n\n" +
			"def f(x):\n    d = OrderedDict.fromkeys(x)\n    return os.path.join(p.sep, np.array(d), helper.name)\n",
			"f", []string{"OrderedDict", "array", "helper", "name", "np", "os"}, []string{"array"}},
	} {
		r := Segment(tc.path, []byte(tc.src))
		found := false
		for i, u := range r.Units {
			if u.Symbol != tc.symbol {
				continue
			}
			found = true
			if diff := cmp.Diff(tc.refs, u.References); diff != "" {
				t.Errorf("%s references (-want +got):\n%s", tc.path, diff)
			}
			if diff := cmp.Diff(tc.calls, r.Calls[i]); diff != "" {
				t.Errorf("%s calls (-want +got):\n%s", tc.path, diff)
			}
		}
		if !found {
			t.Errorf("%s: no unit %s in %s", tc.path, tc.symbol, describe(r))
		}
	}
}
