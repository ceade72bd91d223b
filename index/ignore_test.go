package index

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/missingcomplement/mss/internal/gittest"
)

func TestIgnoreMatch(t *testing.T) {
	rules := `# comment
*.log
build/
/docs/*.md
!docs/keep.md
**/fixtures/**
a/**/z.py
\#literal
tmp
!tmp/keep.py
`
	l, err := parseIgnore(".mssignore", []byte(rules))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"x.log", true},
		{"deep/dir/x.log", true},
		{"x.log.py", false},
		{"build/out.py", true},
		{"src/build/out.py", true},
		{"build", false}, // a file named build: "build/" is for directories
		{"docs/a.md", true},
		{"docs/keep.md", false},
		{"src/docs/a.md", false}, // anchored
		{"docs/sub/a.md", false}, // "*" stays inside one component
		{"tests/fixtures/data.py", true},
		{"fixtures/data.py", true},
		{"a/z.py", true},
		{"a/b/c/z.py", true},
		{"b/a/z.py", false},
		{"#literal", true},
		{"tmp/keep.py", true}, // inside an excluded directory: stays excluded
		{"main.py", false},
	} {
		if got := l.match(tc.path); got != tc.want {
			t.Errorf("match(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
	if _, err := parseIgnore(".mssignore", []byte("ok\n[bad\n")); err == nil || !strings.Contains(err.Error(), ".mssignore:2") {
		t.Errorf("malformed pattern: %v, want an error naming line 2", err)
	}
	var none *ignoreList
	if none.match("x") {
		t.Error("nil list matched")
	}
}

// TestMssIgnore: files listed in .mssignore are recorded as ignored, in a
// work tree and in a commit, and un-ignoring brings them back, though
// their stats are the ones recorded, from well before the last build.
func TestMssIgnore(t *testing.T) {
	files := map[string]string{
		"keep.py":         "def keep():\n    return 1\n",
		"scratch/tmp.py":  "def tmp():\n    return 2\n",
		"notes/a.txt":     "notes\n",
		".mssignore":      "scratch/\n*.txt\n",
		"pkg/generated.x": "data\n",
	}
	dir, rev := newRepo(t, files)
	old := time.Now().Add(-time.Hour)
	for p := range files {
		if err := os.Chtimes(filepath.Join(dir, p), old, old); err != nil {
			t.Fatal(err)
		}
	}
	for _, commit := range []bool{false, true} {
		opts := Options{Repo: dir}
		if commit {
			opts = Options{Repo: dir, Rev: rev, DB: filepath.Join(t.TempDir(), "c.db")}
		}
		sum := build(t, opts)
		if sum.Skipped[skipIgnored] != 2 {
			t.Errorf("commit=%v: skipped %v, want ignored 2", commit, sum.Skipped)
		}
		got := distinctPaths(mustUnits(t, sum.DB))
		for _, p := range got {
			if p == "scratch/tmp.py" || p == "notes/a.txt" {
				t.Errorf("commit=%v: %s indexed", commit, p)
			}
		}
		if sum.Candidates != 5 {
			t.Errorf("commit=%v: %d candidates, want 5", commit, sum.Candidates)
		}
	}
	gittest.WriteTree(t, dir, map[string]string{".mssignore": "*.txt\n"})
	sum := build(t, Options{Repo: dir})
	if sum.Skipped[skipIgnored] != 1 || sum.Parsed != 2 {
		t.Errorf("after un-ignoring scratch/: skipped %v, parsed %d (want .mssignore and scratch/tmp.py)", sum.Skipped, sum.Parsed)
	}
	if got := distinctPaths(mustUnits(t, sum.DB)); !contains(got, "scratch/tmp.py") {
		t.Errorf("scratch/tmp.py not indexed after un-ignoring: %v", got)
	}
}

// TestSizeCaps: source a grammar parses is indexed up to MaxFileBytes,
// other text up to MaxTextBytes, in a work tree and in a commit; the
// summary names the source left out.
func TestSizeCaps(t *testing.T) {
	var code, text strings.Builder
	code.WriteString("package big\n")
	for i := 0; code.Len() < 1500<<10; i++ {
		fmt.Fprintf(&code, "\n// F%d returns its number.\nfunc F%d() int {\n\treturn %d\n}\n", i, i, i)
	}
	for text.Len() < 1500<<10 {
		text.WriteString("<path d=\"M0 0 L10 10 L20 0 Z\" fill=\"#336699\" stroke=\"none\"/>\n")
	}
	files := map[string]string{
		"big.go":    code.String(),
		"logo.svg":  text.String(),
		"README.md": "# big\n",
	}
	dir, rev := newRepo(t, files)
	for _, c := range []struct {
		opts        Options
		indexed     []string
		tooLarge    int
		largeSource []string
	}{
		{Options{}, []string{"README.md", "big.go"}, 1, nil},
		{Options{MaxTextBytes: 2 << 20}, []string{"README.md", "big.go", "logo.svg"}, 0, nil},
		{Options{MaxFileBytes: 1 << 20, MaxTextBytes: 2 << 20}, []string{"README.md"}, 2, []string{"big.go"}},
	} {
		for _, commit := range []bool{false, true} {
			opts := c.opts
			opts.Repo, opts.DB = dir, filepath.Join(t.TempDir(), "i.db")
			if commit {
				opts.Rev = rev
			}
			sum := build(t, opts)
			if sum.Skipped[skipLarge] != c.tooLarge {
				t.Errorf("max %d, text %d, commit=%v: skipped %v, want %d too large", c.opts.MaxFileBytes, c.opts.MaxTextBytes, commit, sum.Skipped, c.tooLarge)
			}
			var large []string
			for _, f := range sum.LargeSource {
				large = append(large, f.Path)
				if f.Bytes != int64(len(files[f.Path])) {
					t.Errorf("%s: %d bytes reported, want %d", f.Path, f.Bytes, len(files[f.Path]))
				}
			}
			if !slices.Equal(large, c.largeSource) {
				t.Errorf("max %d, text %d, commit=%v: large source %v, want %v", c.opts.MaxFileBytes, c.opts.MaxTextBytes, commit, large, c.largeSource)
			}
			got := distinctPaths(mustUnits(t, sum.DB))
			sort.Strings(got)
			if !slices.Equal(got, c.indexed) {
				t.Errorf("max %d, text %d, commit=%v: indexed %v, want %v", c.opts.MaxFileBytes, c.opts.MaxTextBytes, commit, got, c.indexed)
			}
		}
	}
}
