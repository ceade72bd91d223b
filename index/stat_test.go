package index

import (
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestStatCache: a new index reads each file once; a rebuild reads only
// files whose stat changed or was taken too close to the last build, and
// an edit that keeps a file's size and modification time is still seen.
func TestStatCache(t *testing.T) {
	repo, _ := newRepo(t, map[string]string{"a.py": "def f():\n    return 1\n", "b/c.py": "def g():\n    return 2\n", "d.py": "x = 1\n"})
	past := time.Now().Add(-time.Hour)
	for _, p := range []string{"a.py", "b/c.py", "d.py"} {
		os.Chtimes(filepath.Join(repo, p), past, past)
	}
	var mu sync.Mutex
	var reads []string
	readHook = func(p string) { mu.Lock(); reads = append(reads, p); mu.Unlock() }
	defer func() { readHook = nil }()
	took := func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := reads
		reads = nil
		sort.Strings(out)
		return out
	}
	db := filepath.Join(t.TempDir(), "ix.db")
	build(t, Options{Repo: repo, DB: db})
	if d := cmp.Diff([]string{"a.py", "b/c.py", "d.py"}, took()); d != "" {
		t.Fatalf("a new index reads each file once (-want +got):\n%s", d)
	}
	build(t, Options{Repo: repo, DB: db})
	if got := took(); len(got) != 0 {
		t.Fatalf("a rebuild of an unchanged tree read %v", got)
	}
	// A fresh write is read (its time is too close to the last build),
	// and so is a file whose bytes changed under the same size and time.
	os.WriteFile(filepath.Join(repo, "a.py"), []byte("def f():\n    return 3\n"), 0o644)
	os.WriteFile(filepath.Join(repo, "d.py"), []byte("x = 2\n"), 0o644)
	os.Chtimes(filepath.Join(repo, "d.py"), past, past)
	sum := build(t, Options{Repo: repo, DB: db})
	if d := cmp.Diff([]string{"a.py", "a.py", "d.py", "d.py"}, took()); d != "" {
		t.Errorf("after two edits (-want +got):\n%s", d)
	}
	if sum.Parsed != 2 {
		t.Errorf("parsed %d files, want 2", sum.Parsed)
	}
	units := mustUnits(t, db)
	found := map[string]bool{}
	for _, u := range units {
		found[u.Content] = true
	}
	if !found["def f():\n    return 3\n"] || !found["x = 2\n"] {
		t.Errorf("the edits are not in the index: %v", found)
	}
}
