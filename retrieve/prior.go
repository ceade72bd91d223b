package retrieve

import (
	"path"
	"slices"
	"strings"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/segment"
)

// PathClass says what kind of file a path is, as far as its name tells.
type PathClass string

// Path classes. A "where is the code to change" need is usually answered by
// source; tests, documentation, examples, benchmarks and vendored or
// generated code are ranked lower by a multiplicative prior.
const (
	ClassSource    PathClass = "source"
	ClassTest      PathClass = "test"
	ClassDoc       PathClass = "doc"
	ClassExample   PathClass = "example"
	ClassVendor    PathClass = "vendor"
	ClassGenerated PathClass = "generated"
	// ClassDeclaration is a type declaration file (.d.ts, .d.mts, .d.cts,
	// .pyi; segment.DeclarationFile) that restates names an
	// implementation defines.
	ClassDeclaration PathClass = "declaration"
)

// Priors multiply the fused score of a unit by its path class.
const (
	PriorSource      = 1.0
	PriorTest        = 0.3
	PriorDoc         = 0.4
	PriorExample     = 0.5
	PriorVendor      = 0.25
	PriorGenerated   = 0.25
	PriorDeclaration = 0.5
)

// Prior is the multiplicative prior of a path class.
func (c PathClass) Prior() float64 {
	switch c {
	case ClassTest:
		return PriorTest
	case ClassDoc:
		return PriorDoc
	case ClassExample:
		return PriorExample
	case ClassVendor:
		return PriorVendor
	case ClassGenerated:
		return PriorGenerated
	case ClassDeclaration:
		return PriorDeclaration
	}
	return PriorSource
}

var (
	// vendorDirs hold someone else's code. A test framework's directory
	// (gtest/, googletest/, catch2/) is not among them: the index leaves a
	// copy of one out unless asked, and indexes it in the framework's own
	// tree, where it is the source.
	vendorDirs = map[string]bool{"vendor": true, "third_party": true, "thirdparty": true, "third-party": true,
		"node_modules": true, "external": true, "extern": true, "deps": true, "_vendor": true, "vendored": true,
		"bower_components": true}
	testDirs = map[string]bool{"test": true, "tests": true, "testing": true, "testdata": true, "__tests__": true,
		"spec": true, "specs": true, "test-data": true, "testutil": true, "testutils": true, "fixtures": true, "mocks": true}
	docDirs     = map[string]bool{"doc": true, "docs": true, "documentation": true, "website": true, "site": true, "changelog": true}
	exampleDirs = map[string]bool{"example": true, "examples": true, "samples": true, "sample": true, "demo": true,
		"demos": true, "bench": true, "benches": true, "benchmark": true, "benchmarks": true, "tutorial": true}
	docExt = map[string]bool{".md": true, ".rst": true, ".txt": true, ".adoc": true, ".html": true}
)

// ClassifyUnit assigns a unit its path's class, but test for a unit its
// text opens as test code in a source file (segment.TestCode: a Rust
// #[test] function or #[cfg(test)] module beside the code it tests).
func ClassifyUnit(u *mss.Unit) PathClass {
	c := Classify(u.Path)
	if c == ClassSource && segment.TestCode(u.Content, u.Language) {
		return ClassTest
	}
	return c
}

// TestNamedFor reports whether the test file at path test is named for
// the source file at path src: whether src's FileKey is one of test's
// TestSubjects.
func TestNamedFor(test, src string) bool {
	k := FileKey(src)
	return k != "" && slices.Contains(TestSubjects(test), k)
}

// FileKey is the name of the file at path p as a test file's name is
// compared with it (TestSubjects): its base name without its last
// extension, as segment.ModuleKey compares a module's name.
func FileKey(p string) string {
	return segment.ModuleKey(strings.TrimSuffix(path.Base(p), path.Ext(p)))
}

// TestSubjects are the FileKeys of the source files the test file at path
// test is named for, by the conventions Classify reads a test file's name
// by: test_parser.py, test-parser.c, parser_test.go, parser_tests.rs,
// ParserTest.java, ParserTests.cs, parser.test.js and parser.spec.ts are
// named for parser.* (tests/parser.rs too: a test file's name left as it
// is). So is a file of a test tree for the source file its directory is
// named for (koa's __tests__/response/body.test.js, for lib/response.js),
// but not a test beside the code (server/auth_test.go is not named for
// server/server.go) nor one in a directory Classify takes for tests as
// such (tests/test.c is not named for src/tests.c). Only a file's last
// extension is dropped (command.chain.test.js is named for
// command.chain, not command).
func TestSubjects(test string) []string {
	var out []string
	dirs := strings.Split(strings.ToLower(path.Dir(test)), "/")
	if dir := dirs[len(dirs)-1]; !testDirs[dir] && slices.ContainsFunc(dirs[:len(dirs)-1], func(d string) bool { return testDirs[d] }) {
		out = append(out, segment.ModuleKey(dir))
	}
	base := strings.ToLower(path.Base(test))
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	for _, p := range []string{"test_", "test-"} {
		if s, ok := strings.CutPrefix(stem, p); ok && s != "" {
			return append(out, segment.ModuleKey(s))
		}
	}
	suffixes := []string{".test", ".spec", "_tests", "_test"}
	if ext == ".java" || ext == ".kt" || ext == ".cs" {
		suffixes = append(suffixes, "tests", "test")
	}
	for _, suf := range suffixes {
		if s, ok := strings.CutSuffix(stem, suf); ok && s != "" {
			return append(out, segment.ModuleKey(s))
		}
	}
	return append(out, segment.ModuleKey(stem))
}

// Classify assigns a path class from directory and file names alone.
func Classify(p string) PathClass {
	p = strings.ToLower(strings.ReplaceAll(p, `\`, "/"))
	dirs := strings.Split(p, "/")
	base := dirs[len(dirs)-1]
	dirs = dirs[:len(dirs)-1]
	for _, d := range dirs {
		if vendorDirs[d] {
			return ClassVendor
		}
	}
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	if strings.HasSuffix(stem, ".min") || strings.Contains(base, ".pb.") || strings.HasSuffix(stem, "_pb2") ||
		strings.HasSuffix(stem, "_generated") || strings.HasPrefix(stem, "zz_generated") || strings.Contains(stem, "amalgamat") {
		return ClassGenerated
	}
	for _, d := range dirs {
		if testDirs[d] {
			return ClassTest
		}
	}
	if strings.HasPrefix(stem, "test_") || strings.HasSuffix(stem, "_test") || strings.HasSuffix(stem, "_tests") ||
		strings.HasSuffix(stem, ".test") || strings.HasSuffix(stem, ".spec") || stem == "conftest" || stem == "test" ||
		(strings.HasSuffix(stem, "test") && (ext == ".java" || ext == ".kt")) ||
		(strings.HasSuffix(stem, "tests") && (ext == ".java" || ext == ".kt" || ext == ".cs")) {
		return ClassTest
	}
	if docExt[ext] {
		return ClassDoc
	}
	if segment.DeclarationFile(base) {
		return ClassDeclaration
	}
	for _, d := range dirs {
		if docDirs[d] {
			return ClassDoc
		}
		if exampleDirs[d] {
			return ClassExample
		}
	}
	return ClassSource
}
