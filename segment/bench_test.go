package segment

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// treeFile is a file of a checkout that a grammar parses.
type treeFile struct {
	path string // relative to the checkout, with slashes
	src  []byte
	g    *grammar
}

// treeFiles reads the files under root that a grammar parses, leaving
// out .git and files over 2 MiB (as an index leaves them out by
// default).
func treeFiles(tb testing.TB, root string) []treeFile {
	tb.Helper()
	var files []treeFile
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || grammarFor(p) == nil {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil || len(src) > 2<<20 {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		files = append(files, treeFile{rel, src, grammarOf(rel, src)})
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return files
}

// BenchmarkSegmentTree segments every file of a directory tree that a
// grammar parses, on one core, and times tree-sitter's parse of the same
// bytes alone: how much of segmenting is the parser's, which no change
// here can shorten.
//
//	MSS_BENCH_TREE=/path/to/checkout go test -run '^$' -bench SegmentTree -benchtime 3x ./segment/
//
// It skips when MSS_BENCH_TREE is unset. Files over 2 MiB are left out,
// as an index leaves them out by default.
func BenchmarkSegmentTree(b *testing.B) {
	root := os.Getenv("MSS_BENCH_TREE")
	if root == "" {
		b.Skip("MSS_BENCH_TREE not set")
	}
	files := treeFiles(b, root)
	size := 0
	for _, f := range files {
		size += len(f.src)
	}
	if len(files) == 0 {
		b.Skipf("no file under %s that a grammar parses", root)
	}
	var parse, segment time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		for _, f := range files {
			p := parserFor(f.g)
			tree, err := p.ParseCtx(context.Background(), nil, f.src)
			if err != nil {
				b.Fatalf("%s: %v", f.path, err)
			}
			tree.Close()
			parserPool(f.g).Put(p)
		}
		t1 := time.Now()
		for _, f := range files {
			Segment(f.path, f.src)
		}
		parse += t1.Sub(t0)
		segment += time.Since(t1)
	}
	mb := float64(size) / 1e6 * float64(b.N)
	b.ReportMetric(float64(len(files)), "files")
	b.ReportMetric(float64(size)/1e6, "MB")
	b.ReportMetric(mb/parse.Seconds(), "parse-MB/s")
	b.ReportMetric(mb/segment.Seconds(), "segment-MB/s")
	b.ReportMetric(parse.Seconds()/segment.Seconds(), "parse-share")
}

// BenchmarkMaskTree masks the function bodies of every file of a
// directory tree whose grammar masks them (grammar.mask), on one core:
// the lexing that decides what a masked parse reads.
//
//	MSS_BENCH_TREE=/path/to/checkout go test -run '^$' -bench MaskTree ./segment/
func BenchmarkMaskTree(b *testing.B) {
	root := os.Getenv("MSS_BENCH_TREE")
	if root == "" {
		b.Skip("MSS_BENCH_TREE not set")
	}
	var files []treeFile
	size := 0
	for _, f := range treeFiles(b, root) {
		if f.g != nil && f.g.mask != nil {
			files, size = append(files, f), size+len(f.src)
		}
	}
	if len(files) == 0 {
		b.Skipf("no file under %s whose grammar masks bodies", root)
	}
	b.SetBytes(int64(size))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, f := range files {
			f.g.mask(f.src)
		}
	}
	b.ReportMetric(float64(len(files)), "files")
}

// BenchmarkMaskMacrosUnclosed: masking a file of about 1 MB of macro
// calls that never close (an annotation after a parameter list, a
// template parameter), or of parentheses nested deep before them, reads
// each call a bounded way, so the time grows with the file's length, not
// its square (unbounded, the first two took minutes).
func BenchmarkMaskMacrosUnclosed(b *testing.B) {
	for _, tc := range []struct{ name, src string }{
		{"annotation", strings.Repeat("f() AB_C(", 110000)},
		{"template", strings.Repeat("template <typename T, AB_C(", 40000)},
		{"nested", strings.Repeat("f(", 60000) + strings.Repeat(") AB_C(x)", 60000)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			src := []byte(tc.src)
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				maskMacros(src)
			}
		})
	}
}
