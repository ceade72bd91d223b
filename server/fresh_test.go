package server

import (
	"os"
	"path/filepath"
	"testing"
)

func TestScanTreeIgnoresIndexFiles(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.py", "ix.db", "ix.db-wal", "ix.db.tmp-12-abcd", "ix.db.0123456789abcdef0123456789abcdef.derived", "ix.dbx", ".git/HEAD", "node_modules/m.js", "sub/b.go"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := scanTree(dir, map[string]bool{filepath.Join(dir, "ix.db"): true})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a.py", "ix.dbx", "sub/b.go"}
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
	cur, _ := scanTree(dir, map[string]bool{filepath.Join(dir, "ix.db"): true})
	if n := diffStamps(old, cur); n != 2 {
		t.Errorf("diffStamps = %d after one change and one removal, want 2", n)
	}
}
