package index

import (
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss/internal/gittest"
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
	checkResolve(t, []string{
		"source/core/index.ts", "source/types.ts", "source/as-promise/index.ts", "source/view.tsx",
		"lib/esm.mts", "lib/util.js", "lib/util.ts", "web/app.js", "web/fmt.js", "web/widgets/index.jsx",
		"src/main/java/com/acme/Strings.java", "src/main/java/com/acme/Outer.java",
		"src/main/java/com/acme/util/A.java", "src/main/java/com/acme/util/B.java", "src/main/java/com/acme/util/notes.txt",
		"src/main/java/com/acme/util/sub/C.java", "src/test/java/com/acme/util/ATest.java",
		"pkg/util/u.go", "pkg/util/u_test.go",
		"src/lib/common.h", "src/lib/odb.c", "src/util/common.h", "tests/common.h", "tests/odb/loose.c", "include/api.h",
	}, nil, []resolveCase{
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
		{"main.go", "github.com/acme/tool/pkg/util", "pkg/util/u.go"},
		{"main.go", "strings", ""},
		{"src/lib/odb.c", "common.h", "src/lib/common.h"},
		{"tests/odb/loose.c", "common.h", "tests/common.h"},
		{"src/lib/odb.c", "api.h", "include/api.h"},
		{"src/cli/main.c", "common.h", ""},
		{"src/lib/odb.c", "stdio.h", ""},
	})
}

// TestResolveByManifests resolves what only a manifest can: a
// TypeScript path alias (in a tsconfig with comments and a trailing
// comma, or one extended), a workspace package's name, a Rust crate of
// the workspace or a module of the importing file's own crate, and a Go
// package of the repository's modules, where a path under none of them
// is no file (the standard library's context is not context/).
func TestResolveByManifests(t *testing.T) {
	files := []string{
		"packages/shared/src/index.ts", "packages/shared/src/general.ts", "packages/shared/index.js",
		"packages/vue/src/index.ts", "packages/vue/server-renderer/index.mjs", "packages/runtime/src/a.ts",
		"app/src/main.ts", "app/src/util.ts", "cli/index.js", "cli/typings/index.d.ts", "libs/fmt/lib/main.js", "libs/fmt/index.js", "web/app.js",
		"src/lib.rs", "src/distr/mod.rs", "src/distr/uniform.rs", "src/rngs.rs", "src/rngs/std.rs", "benches/bench.rs",
		"rand_core/src/lib.rs", "rand_core/src/block.rs", "crates/my-util/src/lib.rs",
		"acme.go", "acme_test.go", "cmd/tool/main.go", "api/client.go", "context/remote.go", "tools/gen/gen.go",
	}
	manifests := map[string]string{
		"tsconfig.json": `{
  // the workspace's packages, by their sources
  "compilerOptions": {
    "paths": {
      "@vue/*": ["./packages/*/src"],
      "vue": ["./packages/vue/src"], /* exact */
    },
  },
}`,
		"tsconfig.base.json":            `{"compilerOptions": {"baseUrl": ".", "paths": {"@/*": ["app/src/*"]}}}`,
		"app/tsconfig.json":             `{"extends": ["@tsconfig/node18/tsconfig.json", "../tsconfig.base"], "include": ["src"]}`,
		"loop/tsconfig.json":            `{"extends": "./tsconfig.json"}`,
		"packages/shared/package.json":  `{"name": "@vue/shared", "main": "index.js", "types": "dist/shared.d.ts"}`,
		"packages/vue/package.json":     `{"name": "vue", "main": "index.js"}`,
		"libs/fmt/package.json":         `{"name": "fmt-lib", "source": "lib/main.js", "main": "index.js"}`,
		"cli/package.json":              `{"name": "cli", "types": "typings/index.d.ts", "main": "index.js"}`,
		"Cargo.toml":                    "[package]\nname = \"rand\" # the crate\n\n[workspace]\nmembers = [\"rand_core\", \"crates/*\"]\n",
		"rand_core/Cargo.toml":          "[package] # the core\nname = 'rand_core'\nversion = \"0.9.0\"\n",
		"crates/my-util/Cargo.toml":     "[package]\nname = \"my-util\"\n\n[dependencies]\nname = \"not-this\"\n",
		"packages/private/package.json": `{"private": true}`,
		"go.mod":                        "// the module\nmodule example.com/acme // v1\n\ngo 1.22\n",
		"tools/go.mod":                  "module \"example.com/acme/tools\"\n",
	}
	checkResolve(t, files, manifests, []resolveCase{
		{"packages/runtime/src/a.ts", "@vue/shared", "packages/shared/src/index.ts"},
		{"packages/runtime/src/a.ts", "vue", "packages/vue/src/index.ts"},
		{"packages/runtime/src/a.ts", "@vue/shared/src/general", "packages/shared/src/general.ts"},
		{"app/src/main.ts", "@/util", "app/src/util.ts"},
		{"app/src/main.ts", "@/missing", ""},
		{"loop/x.ts", "@/util", ""},
		{"web/app.js", "fmt-lib", "libs/fmt/lib/main.js"},
		{"web/app.js", "@vue/shared", "packages/shared/src/index.ts"},
		{"web/app.js", "vue/server-renderer", "packages/vue/server-renderer/index.mjs"},
		{"web/app.js", "cli", "cli/index.js"},
		{"web/app.js", "lodash", ""},
		{"web/app.js", "lodash/fp", ""},
		{"src/distr/uniform.rs", "crate::rngs::std::StdRng", "src/rngs/std.rs"},
		{"src/distr/uniform.rs", "super::Distribution", "src/distr/mod.rs"},
		{"src/distr/mod.rs", "super::rngs::StdRng", "src/rngs.rs"},
		{"src/lib.rs", "self::distr::uniform::{Uniform, UniformInt}", "src/distr/uniform.rs"},
		{"src/rngs.rs", "self::std", "src/rngs/std.rs"}, // mod std; in src/rngs.rs
		{"src/distr/mod.rs", "self::uniform", "src/distr/uniform.rs"},
		{"benches/bench.rs", "rand::distr::Uniform", "src/distr/mod.rs"},
		{"src/lib.rs", "rand_core::block::BlockRng", "rand_core/src/block.rs"},
		{"src/lib.rs", "my_util::{a, b}", "crates/my-util/src/lib.rs"},
		{"src/lib.rs", "core::fmt", ""},
		{"src/lib.rs", "not_this::X", ""},
		{"cmd/tool/main.go", "example.com/acme", "acme.go"},
		{"cmd/tool/main.go", "example.com/acme/api", "api/client.go"},
		{"cmd/tool/main.go", "example.com/acme/tools/gen", "tools/gen/gen.go"},
		{"api/client.go", "context", ""},
		{"api/client.go", "github.com/other/sdk/api", ""},
	})
}

// resolveCase is an import of from and the files it resolves to, joined
// by commas.
type resolveCase struct{ from, imp, want string }

// checkResolve resolves each case in a repository of the files paths
// and the manifests' texts.
func checkResolve(t *testing.T, paths []string, manifests map[string]string, cases []resolveCase) {
	t.Helper()
	files := map[string]string{}
	for _, p := range paths {
		files[p] = ""
	}
	r := newResolver(files, manifests)
	for _, tc := range cases {
		got := strings.Join(r.resolve(tc.from, tc.imp), ",")
		if got != tc.want {
			t.Errorf("resolve(%q, %q) = %q, want %q", tc.from, tc.imp, got, tc.want)
		}
	}
}

func TestPlainJSON(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"{\"a\": 1, // one\n \"b\": [2, 3,],}", "{\"a\": 1, \n \"b\": [2, 3]}"},
		{`{"u": "http://x/*y*/", /* c */ "v": "a,}"}`, `{"u": "http://x/*y*/",   "v": "a,}"}`},
		{`{"s": "q\"//", "t": 1}`, `{"s": "q\"//", "t": 1}`},
	} {
		if got := string(plainJSON(tc.in)); got != tc.want {
			t.Errorf("plainJSON(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestImportsByManifests indexes a workspace whose imports only its
// manifests resolve, the compiler options long enough to be stored in
// several windows, and follows an edit of them.
func TestImportsByManifests(t *testing.T) {
	var include strings.Builder
	for i := range 120 {
		fmt.Fprintf(&include, "    \"packages/p%d/src\",\n", i)
	}
	tsconfig := func(target string) string {
		return "{\n  \"compilerOptions\": {\n    \"paths\": {\n      \"@acme/*\": [\"./packages/*/" + target + "\"]\n    }\n  },\n  \"include\": [\n" +
			include.String() + "  ],\n}\n"
	}
	dir, _ := newRepo(t, map[string]string{
		"tsconfig.json":              tsconfig("src"),
		"packages/core/package.json": `{"name": "@acme/core", "main": "dist/index.js"}` + "\n",
		"packages/core/src/index.ts": "export function start(): number {\n  return 1\n}\n",
		"packages/core/lib/index.ts": "export function start(): number {\n  return 2\n}\n",
		"packages/app/src/main.ts":   "import { start } from '@acme/core'\n\nexport function main(): number {\n  return start()\n}\n",
		"Cargo.toml":                 "[workspace]\nmembers = [\"engine\", \"cli\"]\n",
		"engine/Cargo.toml":          "[package]\nname = \"acme-engine\"\n",
		"engine/src/lib.rs":          "pub mod plan;\n",
		"engine/src/plan.rs":         "pub fn plan() -> u32 {\n    1\n}\n",
		"cli/Cargo.toml":             "[package]\nname = \"acme-cli\"\n",
		"cli/src/main.rs":            "use acme_engine::plan::plan;\n\nfn main() {\n    plan();\n}\n",
	})
	build(t, Options{Repo: dir})
	imports := func() []FileImport {
		t.Helper()
		ix := openIndex(t, filepath.Join(dir, ".mss", "index.db"))
		imps, err := ix.FileImports()
		if err != nil {
			t.Fatal(err)
		}
		units, edges := unitsAndEdges(t, ix)
		windows := 0
		for _, u := range units {
			if u.Path == "tsconfig.json" {
				windows++
			}
		}
		if windows < 2 {
			t.Fatalf("tsconfig.json is %d units; the test wants it in several", windows)
		}
		first := map[string]string{}
		for i := len(units) - 1; i >= 0; i-- {
			first[units[i].Path] = units[i].ID
		}
		for _, fi := range imps {
			if !slices.Contains(edges, Edge{first[fi.From], first[fi.To], EdgeImport}) {
				t.Errorf("file import %+v has no import edge", fi)
			}
		}
		return imps
	}
	// engine/src/lib.rs declares its module plan (pub mod plan;).
	want := []FileImport{{"cli/src/main.rs", "engine/src/plan.rs"}, {"engine/src/lib.rs", "engine/src/plan.rs"}, {"packages/app/src/main.ts", "packages/core/src/index.ts"}}
	if diff := cmp.Diff(want, imports()); diff != "" {
		t.Errorf("file imports (-want +got):\n%s", diff)
	}
	gittest.WriteTree(t, dir, map[string]string{"tsconfig.json": tsconfig("lib")})
	build(t, Options{Repo: dir})
	want[2].To = "packages/core/lib/index.ts"
	if diff := cmp.Diff(want, imports()); diff != "" {
		t.Errorf("after the edit, file imports (-want +got):\n%s", diff)
	}
}

// FuzzManifests: any text as a manifest parses or is passed over, and
// imports resolve against it without a panic, to files of the repository
// only.
func FuzzManifests(f *testing.F) {
	f.Add(`{"compilerOptions": {"baseUrl": "..", "paths": {"@/*": ["src/*", "*"], "*": ["./**/*"]}}, "extends": ["./a", "b"]}`, "@/x")
	f.Add("{\"name\": \"@a/b\", // c\n \"main\": \"../../x.js\",}", "@a/b/c")
	f.Add("[package]\nname = 'x-y' # c\n[lib]\npath = \"../lib.rs\"\nname = \"", "x_y::a::b")
	f.Add("module \"example.com/m\"\n", "example.com/m/sub")
	f.Fuzz(func(t *testing.T, text, imp string) {
		files := map[string]string{"src/a.ts": "", "src/x.ts": "", "src/lib.rs": "", "src/a/b.rs": "", "sub/m.go": "", "a.c": "", "inc/x.h": ""}
		manifests := map[string]string{}
		for _, p := range []string{"tsconfig.json", "src/jsconfig.json", "package.json", "src/package.json", "Cargo.toml", "go.mod"} {
			files[p] = ""
			manifests[p] = text
		}
		r := newResolver(files, manifests)
		for _, from := range []string{"src/a.ts", "src/lib.rs", "src/a/b.rs", "sub/m.go", "a.c"} {
			for _, p := range r.resolve(from, imp) {
				if _, ok := files[p]; !ok {
					t.Fatalf("resolve(%q, %q) gave %q, no file of the repository", from, imp, p)
				}
			}
		}
	})
}
