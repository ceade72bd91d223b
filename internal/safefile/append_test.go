package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestOpenAppend: one run at a time holds a file it appends to; a second
// is refused until the first closes it, and a file replaced by a rename
// is the one a later run holds.
func TestOpenAppend(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no advisory locks")
	}
	path := filepath.Join(t.TempDir(), "out", "o.jsonl")
	if err := MkdirFor(path); err != nil {
		t.Fatal(err)
	}
	a, err := OpenAppend(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenAppend(path); !errors.Is(err, ErrBusy) {
		t.Errorf("second open while held: %v, want ErrBusy", err)
	}
	if _, err := a.WriteString("{}\n"); err != nil {
		t.Fatal(err)
	}
	// A rename over the file while it is held: a later run holds the new file.
	if err := Replace(path, []byte("{\"x\":1}\n"), nil); err != nil {
		t.Fatal(err)
	}
	a.Close()
	b, err := OpenAppend(path)
	if err != nil {
		t.Fatalf("open after the first closed: %v", err)
	}
	defer b.Close()
	held, _ := b.Stat()
	now, _ := os.Stat(path)
	if !os.SameFile(held, now) || held.Size() != int64(len("{\"x\":1}\n")) {
		t.Errorf("holds %v (%d bytes), not the file at the path", held.Name(), held.Size())
	}
	link := filepath.Join(filepath.Dir(path), "link.jsonl")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if f, err := OpenAppend(link); err == nil {
		f.Close()
		t.Error("opened through a symbolic link")
	}
}
