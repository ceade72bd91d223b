package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/internal/gittest"
)

func TestScanTreeIgnoresIndexFiles(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.py", "ix.db", "ix.db-wal", "ix.db.lock", "ix.db.tmp-12-0123456789ab", "ix.db.tmp-12-0123456789ab-journal", "ix.db.0123456789abcdef0123456789abcdef.derived", "ix.dbx", "ix.db-helpers.py", "ix.db.py", ".git/HEAD", "node_modules/m.js", "sub/b.go"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := scanTree(dir, map[string]bool{filepath.Join(dir, "ix.db"): true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a.py", "ix.dbx", "ix.db-helpers.py", "ix.db.py", "sub/b.go"}
	if len(got) != len(want) {
		t.Errorf("scanned %d files, want %d: %v", len(got), len(want), got)
	}
	for _, w := range want {
		if _, ok := got[filepath.Join(dir, filepath.FromSlash(w))]; !ok {
			t.Errorf("%s not scanned", w)
		}
	}
	old := got
	if err := os.WriteFile(filepath.Join(dir, "a.py"), []byte("changed, longer"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "sub/b.go"))
	cur, _ := scanTree(dir, map[string]bool{filepath.Join(dir, "ix.db"): true}, nil)
	if n := diffStamps(old, cur); n != 2 {
		t.Errorf("diffStamps = %d after one change and one removal, want 2", n)
	}
}

// TestHiddenIndexedFileEdited: an edit to an indexed file the walk does
// not enter (tracked under a hidden directory) is indexed as any other
// edit is, and the file's first stamp, from well before the build, causes
// no build of its own.
func TestHiddenIndexedFileEdited(t *testing.T) {
	dir := t.TempDir()
	gittest.Run(t, dir, "init", "-q", "-b", "main")
	gittest.WriteTree(t, dir, map[string]string{
		".tools/walrus.py": "def hidden_walrus_tool(v):\n    return v + 1\n",
		"main.py":          "def visible(x):\n    return x\n",
	})
	gittest.Run(t, dir, "add", "-A")
	gittest.Run(t, dir, "commit", "-q", "-m", "init")
	hidden := filepath.Join(dir, ".tools", "walrus.py")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(hidden, old, old); err != nil {
		t.Fatal(err)
	}
	svc, err := New(context.Background(), Config{Repo: dir, Loader: &IndexLoader{Repo: dir}, ScanInterval: time.Nanosecond, FreshWait: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	search := func(want string) {
		t.Helper()
		resp, err := svc.Search(context.Background(), "hidden_walrus_tool", 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Units) != 1 || !strings.Contains(resp.Units[0].Content, want) || len(resp.Warnings) != 0 {
			t.Fatalf("search: units %v, warnings %v; want one holding %q", resp.Units, resp.Warnings, want)
		}
	}
	search("v + 1")
	if g := svc.Info().Generation; g != 1 {
		t.Errorf("generation %d before any edit, want 1", g)
	}
	if err := os.WriteFile(hidden, []byte("def hidden_walrus_tool(v):\n    return v + 999\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	search("v + 999")
	if g := svc.Info().Generation; g != 2 {
		t.Errorf("generation %d after one edit, want 2", g)
	}
}

// TestHiddenDirectoryNewFile: a file added to a hidden directory of the
// project's, beside an indexed file or not, is indexed by the scan that
// sees it; git's own directory changing (git status) builds nothing.
func TestHiddenDirectoryNewFile(t *testing.T) {
	dir := agedRepo(t, map[string]string{
		".tools/sub/walrus.py": "def hidden_walrus_tool(v):\n    return v + 1\n",
		".tools/README":        "tools\n",
		"main.py":              "def visible(x):\n    return x\n",
	}, ".tools/sub/walrus.py", ".tools/README", ".tools/sub", ".tools", "main.py")
	svc := watchingService(t, dir)
	find := func(name string, generation int) {
		t.Helper()
		findDef(t, svc, name)
		if g := svc.Info().Generation; g != generation {
			t.Errorf("search %s: generation %d, want %d", name, g, generation)
		}
	}
	find("hidden_walrus_tool", 1)
	gittest.Run(t, dir, "status", "--porcelain")
	find("visible", 1)
	gittest.WriteTree(t, dir, map[string]string{".tools/brand_new_tool.py": "def brand_new_tool():\n    return 2\n"})
	find("brand_new_tool", 2)
	gittest.WriteTree(t, dir, map[string]string{".tools/sub/deeper.py": "def deeper_tool():\n    return 3\n"})
	find("deeper_tool", 3)
}

// agedRepo makes a git work tree of files, committed, whose paths aged
// (files and directories) are an hour old, so that a scan tells any
// later change from them.
func agedRepo(t *testing.T, files map[string]string, aged ...string) string {
	t.Helper()
	dir := gittest.Repo(t, files)
	old := time.Now().Add(-time.Hour)
	for _, p := range aged {
		if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(p)), old, old); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// watchingService serves dir with a scan before every request.
func watchingService(t *testing.T, dir string) *Service {
	t.Helper()
	svc, err := New(context.Background(), Config{Repo: dir, Loader: &IndexLoader{Repo: dir}, ScanInterval: time.Nanosecond, FreshWait: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}

// findDef searches svc for name and wants its definition alone.
func findDef(t *testing.T, svc *Service, name string) {
	t.Helper()
	resp, err := svc.Search(context.Background(), name, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Units) != 1 || !strings.Contains(resp.Units[0].Content, "def "+name) {
		t.Fatalf("search %s: units %v, warnings %v; want its definition", name, resp.Units, resp.Warnings)
	}
}

// TestIndexInHiddenDirectory: an index kept in a hidden directory of the
// tree, which every build writes to, does not make the next scan build
// again.
func TestIndexInHiddenDirectory(t *testing.T) {
	dir := t.TempDir()
	gittest.Run(t, dir, "init", "-q", "-b", "main")
	gittest.WriteTree(t, dir, map[string]string{"main.py": "def visible(x):\n    return x\n", ".gitignore": ".cache/\n"})
	db := filepath.Join(dir, ".cache", "ix.db")
	svc, err := New(context.Background(), Config{Repo: dir, Loader: &IndexLoader{Repo: dir, DB: db}, Ignore: []string{db}, ScanInterval: time.Nanosecond, FreshWait: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	for range 3 {
		if _, err := svc.Search(context.Background(), "visible", 1); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if g := svc.Info().Generation; g != 1 {
		t.Errorf("generation %d after three searches and no edit, want 1", g)
	}
}

// TestHiddenDirectoryNewSubdirectory: a file added in a new directory
// deep inside a hidden directory that holds no indexed file is indexed by
// the scan that sees it, whether the directories above it existed at
// the last build or were made by it.
func TestHiddenDirectoryNewSubdirectory(t *testing.T) {
	dir := agedRepo(t, map[string]string{
		"main.py":        "def visible(x):\n    return x\n",
		".tools/a/notes": "",
		".github/OWNERS": "",
		".gitignore":     ".tools/a/notes\n",
	}, "main.py", ".tools/a/notes", ".tools/a", ".tools", ".github/OWNERS", ".github")
	svc := watchingService(t, dir)
	findDef(t, svc, "visible")
	gittest.WriteTree(t, dir, map[string]string{".tools/a/b/new_deep_tool.py": "def new_deep_tool():\n    return 2\n"})
	findDef(t, svc, "new_deep_tool")
	// The directories first, seen by a scan, then the file.
	if err := os.MkdirAll(filepath.Join(dir, ".github", "x", "y"), 0o755); err != nil {
		t.Fatal(err)
	}
	findDef(t, svc, "visible")
	gittest.WriteTree(t, dir, map[string]string{".github/x/y/z_workflow_tool.py": "def z_workflow_tool():\n    return 3\n"})
	findDef(t, svc, "z_workflow_tool")
}

// TestScanTreeHiddenDirectories: a scan stamps every directory of a
// hidden directory of the project's, not git's, the index's, a
// dependency cache's or one holding the index database, and no more
// than maxHiddenDirs of them.
func TestScanTreeHiddenDirectories(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{".tools/a/b", ".tools/.git/objects", ".tools/node_modules/m", ".git/refs", ".mss", ".cache/db", ".cache/other", "src/.hidden/deep", ".pytest_cache/v/cache", ".notes/v", ".tools/venv/lib", ".tools/a/.mypy_cache/3.12"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(d)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A cache that ignores itself is not stamped, at the top of a hidden
	// directory or below it; one whose .gitignore keeps some of it is.
	for p, text := range map[string]string{".pytest_cache/.gitignore": "# Created by pytest automatically.\n*\n", ".notes/.gitignore": "*\n!keep.md\n", ".tools/venv/.gitignore": "*\n", ".tools/a/.mypy_cache/.gitignore": "# Automatically created by mypy\n*\n"} {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(p)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := scanTree(dir, map[string]bool{filepath.Join(dir, ".cache", "db", "ix.db"): true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range got {
		rel, _ := filepath.Rel(dir, k)
		keys = append(keys, filepath.ToSlash(rel)+"/")
	}
	slices.Sort(keys)
	want := []string{".cache/other/", ".notes/", ".notes/v/", ".tools/", ".tools/a/", ".tools/a/b/", "src/.hidden/", "src/.hidden/deep/"}
	if !slices.Equal(keys, want) {
		t.Errorf("stamped %v, want %v", keys, want)
	}

	many := t.TempDir()
	for i := range maxHiddenDirs + 10 {
		if err := os.MkdirAll(filepath.Join(many, ".venv", fmt.Sprintf("p%05d", i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	got, err = scanTree(many, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != maxHiddenDirs {
		t.Errorf("stamped %d directories of a hidden one, want the bound %d", len(got), maxHiddenDirs)
	}
	again, _ := scanTree(many, nil, nil)
	if n := diffStamps(got, again); n != 0 {
		t.Errorf("two scans of an unchanged tree differ in %d stamps", n)
	}
}

// TestScanTreeReadsNoLinkedGitignore: a hidden directory's .gitignore
// that is a symbolic link (out of the tree, or to a pipe) or a pipe
// itself is not read: the directory is stamped as one without a
// .gitignore, and the scan does not wait on the pipe.
func TestScanTreeReadsNoLinkedGitignore(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	selfIgnoring := filepath.Join(outside, "gitignore")
	if err := os.WriteFile(selfIgnoring, []byte("*\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(outside, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	for _, d := range []string{".tools", ".piped", ".linkedpipe"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(selfIgnoring, filepath.Join(dir, ".tools", ".gitignore")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, ".piped", ".gitignore"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(fifo, filepath.Join(dir, ".linkedpipe", ".gitignore")); err != nil {
		t.Fatal(err)
	}
	got, err := scanTree(dir, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".tools", ".piped", ".linkedpipe"} {
		if _, ok := got[dirKey(filepath.Join(dir, d))]; !ok {
			t.Errorf("%s not stamped: its .gitignore was read", d)
		}
	}
}

// TestScanTreeSeesAWriteThatKeepsSizeAndTime: a file written again with
// bytes of the same length and its modification time set back is a
// change, as it is to the index.
func TestScanTreeSeesAWriteThatKeepsSizeAndTime(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "util.py")
	if err := os.WriteFile(p, []byte("return int(text)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	before, err := scanTree(dir, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("return abs(text)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	after, _ := scanTree(dir, nil, nil)
	if n := diffStamps(before, after); n != 1 {
		t.Errorf("diffStamps = %d after a write that kept the size and the time, want 1", n)
	}
}

// TestWorkTreeGone: while the work tree cannot be scanned (moved away),
// requests are refused as having no usable index and health says why;
// once it is back, both are as before.
func TestWorkTreeGone(t *testing.T) {
	svc, dir := newTestService(t, nil)
	if _, err := svc.Search(context.Background(), "parse_header", 1); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(dir, dir+".away"); err != nil {
		t.Fatal(err)
	}
	_, err := svc.Search(context.Background(), "parse_header", 1)
	var unavailable *indexUnavailable
	if !errors.As(err, &unavailable) || !strings.Contains(err.Error(), "cannot be scanned") {
		t.Errorf("search with the tree gone: %v; want the index unavailable, the scan's error named", err)
	}
	if code, api := classify(err); code != 503 || api.Code != CodeIndexUnavailable {
		t.Errorf("search with the tree gone: %d %s; want 503 %s", code, api.Code, CodeIndexUnavailable)
	}
	if st := svc.Status(); st.Status != StateError || !strings.Contains(st.Error, "cannot be scanned") {
		t.Errorf("status with the tree gone: %s %q; want %s naming the scan", st.Status, st.Error, StateError)
	}
	// Without the token, the error names the tree by its base name.
	if st := svc.Status().Public(); strings.Contains(st.Error, dir) || !strings.Contains(st.Error, filepath.Base(dir)) {
		t.Errorf("public status with the tree gone: %q; want the tree's base name, not %s", st.Error, dir)
	}
	if err := os.Rename(dir+".away", dir); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Search(context.Background(), "parse_header", 1); err != nil {
		t.Errorf("search with the tree back: %v", err)
	}
	if st := svc.Status(); st.Status != StateReady || st.Error != "" {
		t.Errorf("status with the tree back: %s %q; want %s", st.Status, st.Error, StateReady)
	}
}

// TestObservedInEditedFileBeforeRescan: a request whose observed spans
// are in the lines of a file edited since the index was built (the server
// has not scanned since) counts as read the unit the agent read, not the
// one the index holds at those lines.
func TestObservedInEditedFileBeforeRescan(t *testing.T) {
	src := "def parse_header(line):\n    key, value = line.split(':')\n    return key, value\n\n\ndef parse_headers(lines):\n    return dict(parse_header(l) for l in lines)\n"
	dir := gittest.Repo(t, map[string]string{"pkg/parse.py": src})
	svc, err := New(context.Background(), Config{Repo: dir, Loader: &IndexLoader{Repo: dir}, ScanInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	if err := os.WriteFile(filepath.Join(dir, "pkg", "parse.py"), []byte("# one\n# two\n# three\n# four\n# five\n"+src), 0o644); err != nil {
		t.Fatal(err)
	}
	resp, err := svc.Recover(context.Background(), &RecoverRequest{State: mss.State{
		Issue:         "parse_headers fails on values containing ':' that parse_header splits",
		ObservedSpans: []mss.Span{{Path: "pkg/parse.py", StartLine: 6, EndLine: 8}}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range resp.Units {
		got = append(got, fmt.Sprintf("%s %d-%d", u.Symbol, u.StartLine, u.EndLine))
	}
	if want := "parse_headers 11-12"; len(got) != 1 || got[0] != want {
		t.Errorf("units %q, want [%s]", got, want)
	}
}
