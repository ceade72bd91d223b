package index

import (
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestExclusiveChild tries to take SQLite's exclusive lock of the index
// at MSS_LOCK_DB without waiting, and says whether it could: run only as
// a child process of TestHeaderReadKeepsLocks.
func TestExclusiveChild(t *testing.T) {
	db := os.Getenv("MSS_LOCK_DB")
	if db == "" {
		t.Skip("child of TestHeaderReadKeepsLocks")
	}
	conn, err := sql.Open("sqlite", "file:"+db+"?_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Exec(`BEGIN EXCLUSIVE`); err != nil {
		fmt.Println("lock: busy")
		return
	}
	fmt.Println("lock: taken")
	conn.Exec(`ROLLBACK`)
}

// exclusiveFromChild reports whether another process can take the
// exclusive lock of db now.
func exclusiveFromChild(t *testing.T, db string) bool {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestExclusiveChild$", "-test.v")
	cmd.Env = append(os.Environ(), "MSS_LOCK_DB="+db)
	out, err := cmd.CombinedOutput()
	switch {
	case err != nil:
		t.Fatalf("child: %v\n%s", err, out)
	case strings.Contains(string(out), "lock: taken"):
		return true
	case strings.Contains(string(out), "lock: busy"):
		return false
	}
	t.Fatalf("child said neither:\n%s", out)
	return false
}

// TestHeaderReadKeepsLocks: while this process reads the index (SQLite
// holds a shared lock, a POSIX lock of the process), looking at the file
// again, to decide whether a build may write it or to open it once more,
// must not release that lock: closing any descriptor of a file drops
// every POSIX lock the process holds on it, and another process could
// then write the index under the reader.
func TestHeaderReadKeepsLocks(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	dir, _ := newRepo(t, fixture)
	db := filepath.Join(dir, ".mss", "index.db")
	build(t, Options{Repo: dir})
	ix := openIndex(t, db)
	tx, err := ix.db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRow(`SELECT COUNT(*) FROM files`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if exclusiveFromChild(t, db) {
		t.Fatal("another process took the exclusive lock under a read transaction")
	}
	for _, look := range []struct {
		name string
		f    func()
	}{
		{"checkTarget", func() { checkTarget(db, true) }},
		{"isIndexFile", func() { isIndexFile(db) }},
		{"Open", func() {
			if ix2, err := Open(db); err == nil {
				ix2.Close()
			}
		}},
		{"Probe", func() { Probe(db, false) }},
	} {
		look.f()
		if exclusiveFromChild(t, db) {
			t.Fatalf("after %s, another process took the exclusive lock under this process's read transaction", look.name)
		}
	}
}
