package retrieve

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExtractFrames(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []Frame
	}{
		{"python", "Traceback (most recent call last):\n  File \"/usr/lib/python3/site-packages/seaborn/axisgrid.py\", line 1265, in map\n    self._map_bivariate(func)\n",
			[]Frame{{Path: "seaborn/axisgrid.py", Line: 1265, Func: "map"}}},
		{"ipython", "~/envs/lib/python3.8/site-packages/seaborn/_core.py in _lookup_single(self, key)\n",
			[]Frame{{Path: "seaborn/_core.py", Func: "_lookup_single"}}},
		{"java", "\tat com.google.gson.internal.bind.TypeAdapters$7.read(TypeAdapters.java:245)\n",
			[]Frame{{Path: "com/google/gson/internal/bind/TypeAdapters.java", Line: 245, Func: "read"}}},
		{"js", "    at Object.format (/app/node_modules/dayjs/esm/index.js:10:5)\n",
			[]Frame{{Path: "app/node_modules/dayjs/esm/index.js", Line: 10, Func: "format"}}},
		{"go", "goroutine 1 [running]:\ngithub.com/zeromicro/go-zero/core/mr.(*Writer).Write(...)\n\t/src/core/mr/mapreduce.go:120 +0x1f\n",
			[]Frame{{Path: "src/core/mr/mapreduce.go", Line: 120, Func: "Write"}}},
		{"rust", "thread 'main' panicked at 'boom', tokio/src/runtime/task/harness.rs:42:9\n",
			[]Frame{{Path: "tokio/src/runtime/task/harness.rs", Line: 42}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ExtractText(tc.text).Frames
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("frames mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExtractIdentsAndPaths(t *testing.T) {
	m := ExtractText("The `lookup` in xarray/core/dataset.py calls Dataset.quantile and _maybe_null_out; see the docs.")
	if got, want := m.Paths, []string{"xarray/core/dataset.py"}; !cmp.Equal(got, want) {
		t.Errorf("Paths = %v, want %v", got, want)
	}
	for _, q := range []string{"Dataset.quantile"} {
		found := false
		for _, x := range m.Qualified {
			found = found || x == q
		}
		if !found {
			t.Errorf("Qualified %v lacks %q", m.Qualified, q)
		}
	}
	// Code-looking and backticked identifiers weigh more than prose words.
	if !(m.Idents["_maybe_null_out"] > m.Idents["docs"]) {
		t.Errorf("weight(_maybe_null_out)=%v not above weight(docs)=%v", m.Idents["_maybe_null_out"], m.Idents["docs"])
	}
	if !(m.Idents["lookup"] > m.Idents["docs"]) {
		t.Errorf("weight(`lookup`)=%v not above weight(docs)=%v", m.Idents["lookup"], m.Idents["docs"])
	}
}

func FuzzExtractText(f *testing.F) {
	f.Add("File \"a.py\", line 3, in f\n")
	f.Add("at x.y.Z.m(Z.java:1)")
	f.Add("pkg.(*T).M()\n\t/a/b.go:9 +0x1")
	f.Add("`a.b` c::d src/x.rs:1:2")
	f.Fuzz(func(t *testing.T, s string) {
		m := ExtractText(s)
		for _, fr := range m.Frames {
			if fr.Path == "" {
				t.Errorf("frame without path from %q", s)
			}
		}
	})
}

func TestClassify(t *testing.T) {
	tests := map[string]PathClass{
		"src/_pytest/python.py":              ClassSource,
		"testing/test_python.py":             ClassTest,
		"xarray/tests/test_dataset.py":       ClassTest,
		"pkg/server_test.go":                 ClassTest,
		"src/test/java/com/x/FooTest.java":   ClassTest,
		"test/plugin/utc.test.js":            ClassTest,
		"doc/conf.py":                        ClassDoc,
		"README.md":                          ClassDoc,
		"examples/basic.py":                  ClassExample,
		"vendor/github.com/x/y.go":           ClassVendor,
		"test/gtest/gtest.h":                 ClassTest,
		"googletest/src/gtest.cc":            ClassSource,
		"src/catch2/catch_session.cpp":       ClassSource,
		"api/service.pb.go":                  ClassGenerated,
		"src/main/java/com/google/Gson.java": ClassSource,
		"types/index.d.ts":                   ClassDeclaration,
		"index.d.cts":                        ClassDeclaration,
		"typings/esm.d.mts":                  ClassDeclaration,
		"stubs/requests/api.pyi":             ClassDeclaration,
		"src/index.mts":                      ClassSource,
	}
	for p, want := range tests {
		if got := Classify(p); got != want {
			t.Errorf("Classify(%q) = %s, want %s", p, got, want)
		}
	}
}

// TestTestNamedFor: a test file is named for the source file it tests
// by the naming conventions of each language, or by its directory.
func TestTestNamedFor(t *testing.T) {
	tests := []struct {
		test, src string
		want      bool
	}{
		{"tests/test_parse.py", "src/pkg/parse.py", true},
		{"test/test-spawn.c", "src/unix/spawn.c", true},
		{"server/handler_test.go", "server/handler.go", true},
		{"src/test/java/com/x/JsonReaderTest.java", "src/main/java/com/x/JsonReader.java", true},
		{"tests/HeaderTests.cs", "src/Header.cs", true},
		{"__tests__/parse.test.js", "lib/parse.js", true},
		{"src/shared/parse.spec.ts", "src/shared/parse.ts", true},
		{"tests/read_file.rs", "src/read_file.rs", true},
		{"tests/read-file.rs", "src/read_file.rs", true},
		{"__tests__/response/body.test.js", "lib/response.js", true},
		{"server/auth_test.go", "server/server.go", false},
		{"response/body.test.js", "lib/response.js", false},
		{"tests/command.chain.test.js", "lib/command.js", false},
		{"tests/command.chain.test.js", "lib/command.chain.js", true},
		{"tests/test.c", "src/tests.c", false},
		{"tests/test_parse.py", "src/pkg/parser.py", false},
		{"tests/parse_spec.py", "src/parse.py", false},
		{"test/ParseTest.py", "src/Parse.py", false},
		{"tests/test_.py", "src/_.py", false},
	}
	for _, tc := range tests {
		if got := TestNamedFor(tc.test, tc.src); got != tc.want {
			t.Errorf("TestNamedFor(%q, %q) = %v, want %v", tc.test, tc.src, got, tc.want)
		}
	}
}

// Names the text's own code binds are the writer's: not code, unless a
// frame names them; keyword arguments and comparisons bind nothing.
func TestBoundNamesAreNotCode(t *testing.T) {
	text := "`xr.where` drops attrs\n```python\nimport xarray as xr\nimport numpy as np\nda = xr.DataArray(np.ones(3))\nfor item in da:\n    pass\nres := compute(da)\nout = xr.apply_ufunc(\n    func,\n    keep_attrs=True,\n)\nassert out.attrs == da.attrs\n```\n" +
		"Traceback (most recent call last):\n  File \"x.py\", line 3, in run_it\nrun_it = 1\n" +
		">>> import pandas as pd\n>>> frame = pd.DataFrame()\nWe import it as `Loader` in prose.\n"
	m := ExtractText(text)
	for _, n := range []string{"xr", "np", "da", "item", "res", "out", "pd", "frame"} {
		if m.Code[n] || m.Called[n] {
			t.Errorf("%s, bound by the text, counts as code", n)
		}
	}
	for _, n := range []string{"where", "apply_ufunc", "keep_attrs", "DataArray", "run_it", "Loader"} {
		if !m.Code[n] && !m.Called[n] {
			t.Errorf("%s is not code", n)
		}
	}
}

// TestSyntaxPartsAreNoCode: Java's class literal, a receiver and a path
// root are syntax a dotted name holds, not names the text marks as code
// (entity:class matched gson's TypeAdapters.CLASS); the names beside them
// are code.
func TestSyntaxPartsAreNoCode(t *testing.T) {
	m := ExtractText("Serializing `Color.class` fails; this.adapter and self.reader too, as does crate::io::Reader and super::parse.")
	for _, w := range []string{"class", "this", "self", "crate", "super"} {
		if m.Code[w] {
			t.Errorf("%q marked as code", w)
		}
	}
	for _, w := range []string{"Color", "adapter", "reader", "Reader", "parse"} {
		if !m.Code[w] {
			t.Errorf("%q not marked as code", w)
		}
	}
}
