package index

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"
)

// TestReplacedIndexReadersLeaveJournal: a reader of an index a rebuild
// has renamed a new one over goes on reading the file it opened, and
// never takes the journal of the new file's writer (the same name, the
// index's path with -journal) for one of its own: it neither rolls that
// journal back into its file nor deletes it under its writer.
func TestReplacedIndexReadersLeaveJournal(t *testing.T) {
	dir, _ := newRepo(t, fixture)
	db := filepath.Join(dir, ".mss", "index.db")
	build(t, Options{Repo: dir})
	ix := openIndex(t, db)
	want, err := ix.Units()
	if err != nil {
		t.Fatal(err)
	}
	build(t, Options{Repo: dir, Rebuild: true})

	// A writer of the new file, in the middle of its commit: its journal
	// is whole (synchronous off writes its header at once) and it holds
	// the new file's lock, not the old one's.
	w, err := sql.Open("sqlite", dsn(db, false)+"&_pragma=journal_mode(DELETE)&_pragma=synchronous(OFF)")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	tx, err := w.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`INSERT INTO meta(key, value) VALUES('padding', 'x')`); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(db + "-journal"); err != nil {
		t.Fatalf("no journal while writing: %v", err)
	}

	got, err := ix.Units()
	if err != nil {
		t.Fatalf("reading the replaced index: %v", err)
	}
	if len(got) != len(want) || got[0].Content != want[0].Content {
		t.Errorf("the replaced index read %d units, want its own %d", len(got), len(want))
	}
	if _, err := os.Stat(db + "-journal"); err != nil {
		t.Fatalf("the reader of the replaced index removed the new index's journal: %v", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatalf("the new index's writer: %v", err)
	}
	if err := ix.Check(); err != nil {
		t.Errorf("the replaced index: %v", err)
	}
	if err := openIndex(t, db).Check(); err != nil {
		t.Errorf("the new index: %v", err)
	}
}
