package index

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEdgesOfAnySplit: the edges of many rows are the same whether they
// are resolved in one part or in several.
func TestEdgesOfAnySplit(t *testing.T) {
	var rows []nameRow
	for i := range 5000 {
		p := fmt.Sprintf("pkg/m%d.py", i/10)
		rows = append(rows, nameRow{id: fmt.Sprintf("u%d", i), path: p,
			defines: []string{fmt.Sprintf("f%d", i)},
			refs:    []string{fmt.Sprintf("f%d", (i*7)%5000), fmt.Sprintf("f%d", i/10*10), "common"},
			calls:   []string{fmt.Sprintf("f%d", (i*7)%5000)},
			imports: []string{fmt.Sprintf("pkg.m%d", (i+3)/10%500)}})
	}
	rows[0].defines = append(rows[0].defines, "common")
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	one := edgesOf(rows)
	runtime.GOMAXPROCS(4)
	four := edgesOf(rows)
	if len(one) < len(rows) {
		t.Fatalf("%d edges of %d rows", len(one), len(rows))
	}
	if d := cmp.Diff(one, four); d != "" {
		t.Errorf("edges in four parts differ from one part's:\n%s", d)
	}
}

// TestEdgesResolveSelections: a name a unit only selects from a value
// (st.Split) makes no edge to a top-level function of another file that
// shares it, but one to a method of that name, and one to the function
// when it is selected from the function's package (tokenize.Split).
func TestEdgesResolveSelections(t *testing.T) {
	dir, _ := newRepo(t, map[string]string{
		"tokenize/tokenize.go": "package tokenize\n\n// Split splits.\nfunc Split(s string) []string {\n\treturn nil\n}\n",
		"bench/items.go": `package bench

type item struct{ Split string }

// parse reads an item's split.
func parse(st item) string {
	return st.Split
}
`,
		"bench/terms.go": `package bench

import "example.com/m/tokenize"

// terms splits a text.
func terms(text string) []string {
	return tokenize.Split(text)
}
`,
		"query/query.go": `package query

type Query struct{}

// Split splits a query.
func (q Query) Split() []string { return nil }

// words splits a query.
func words(q Query) []string {
	return q.Split()
}
`,
	})
	build(t, Options{Repo: dir})
	ix := openIndex(t, filepath.Join(dir, ".mss", "index.db"))
	units, edges := unitsAndEdges(t, ix)
	id := func(sym string) string { return findUnit(t, units, sym).ID }
	have := map[[2]string]bool{}
	for _, e := range edges {
		have[[2]string{e.From, e.To}] = true
	}
	for _, tc := range []struct {
		from, to string
		want     bool
	}{
		{"parse", "Split", false},
		{"terms", "Split", true},
		{"words", "Query.Split", true},
		{"words", "Split", false},
	} {
		if got := have[[2]string{id(tc.from), id(tc.to)}]; got != tc.want {
			t.Errorf("edge %s -> %s: %v, want %v", tc.from, tc.to, got, tc.want)
		}
	}
}

// TestResolveImports: a relative import finds its file with or without
// an extension or an index file, TypeScript's ECMAScript modules name a
// source by the file it compiles to, a Java import of a member or a
// nested class is its outermost class's file, and one of a package (its
// wildcard import) is the package's classes.
func TestResolveImports(t *testing.T) {
	files := map[string]string{}
	for _, p := range []string{
		"source/core/index.ts", "source/types.ts", "source/as-promise/index.ts", "source/view.tsx",
		"lib/esm.mts", "lib/util.js", "lib/util.ts", "web/app.js", "web/fmt.js", "web/widgets/index.jsx",
		"src/main/java/com/acme/Strings.java", "src/main/java/com/acme/Outer.java",
		"src/main/java/com/acme/util/A.java", "src/main/java/com/acme/util/B.java", "src/main/java/com/acme/util/notes.txt",
		"src/main/java/com/acme/util/sub/C.java", "src/test/java/com/acme/util/ATest.java",
	} {
		files[p] = ""
	}
	r := newResolver(files)
	for _, tc := range []struct{ from, imp, want string }{
		{"source/index.ts", "./types.js", "source/types.ts"},
		{"source/index.ts", "./core/index.js", "source/core/index.ts"},
		{"source/index.ts", "./as-promise", "source/as-promise/index.ts"},
		{"source/index.ts", "./view.js", "source/view.tsx"},
		{"source/index.ts", "./types", "source/types.ts"},
		{"lib/index.mts", "./esm.mjs", "lib/esm.mts"},
		{"lib/index.ts", "./util.js", "lib/util.ts"},
		{"lib/index.js", "./util.js", "lib/util.js"},
		{"web/app.js", "./fmt", "web/fmt.js"},
		{"web/app.js", "./widgets", "web/widgets/index.jsx"},
		{"web/app.js", "./missing.js", ""},
		{"web/app.js", "fmt", ""},
		{"src/main/java/com/acme/App.java", "com.acme.Strings", "src/main/java/com/acme/Strings.java"},
		{"src/main/java/com/acme/App.java", "com.acme.Strings.isBlank", "src/main/java/com/acme/Strings.java"},
		{"src/main/java/com/acme/App.java", "com.acme.Outer.Inner.LIMIT", "src/main/java/com/acme/Outer.java"},
		{"src/main/java/com/acme/App.java", "com.acme.util.Missing.run", ""},
		{"src/main/java/com/acme/App.java", "java.util.List", ""},
		{"src/main/java/com/acme/App.java", "com.acme.util", "src/main/java/com/acme/util/A.java,src/main/java/com/acme/util/B.java,src/test/java/com/acme/util/ATest.java"},
		{"src/main/java/com/acme/App.java", "org.junit", ""},
	} {
		got := strings.Join(r.resolve(tc.from, tc.imp), ",")
		if got != tc.want {
			t.Errorf("resolve(%q, %q) = %q, want %q", tc.from, tc.imp, got, tc.want)
		}
	}
}
