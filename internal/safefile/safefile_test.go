package safefile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReplace(t *testing.T) {
	dir := t.TempDir()
	check := JSONLines("state_id")
	p := filepath.Join(dir, "out.jsonl")
	// A new file, then a rewrite of our own output.
	for _, data := range []string{`{"state_id":"a"}` + "\n", `{"state_id":"b"}` + "\n"} {
		if err := Replace(p, []byte(data), check); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(p); string(got) != data {
			t.Fatalf("file holds %q, want %q", got, data)
		}
	}
	// Someone else's file is left alone.
	notes := filepath.Join(dir, "notes.md")
	os.WriteFile(notes, []byte("# my notes\n"), 0o644)
	err := Replace(notes, []byte(`{"state_id":"x"}`+"\n"), check)
	if err == nil || !strings.Contains(err.Error(), "notes.md: line 1 is not a JSON record") {
		t.Fatalf("Replace over notes = %v, want a refusal naming the file and line", err)
	}
	if got, _ := os.ReadFile(notes); string(got) != "# my notes\n" {
		t.Fatalf("notes changed: %q", got)
	}
	// Nor a symbolic link, a directory or a named pipe, whatever they point at.
	os.Symlink(p, filepath.Join(dir, "link"))
	os.Mkdir(filepath.Join(dir, "d"), 0o755)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"link": "a symbolic link", "d": "a directory", "fifo": "a named pipe"} {
		err := Replace(filepath.Join(dir, name), []byte("{}\n"), nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Replace over %s = %v, want a refusal (%s)", name, err, want)
		}
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the named pipe was replaced: %v %v", fi, err)
	}
	// No temporary file is left behind.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("left %s behind", e.Name())
		}
	}
}

func TestDeviceNotReplaced(t *testing.T) {
	fi, err := os.Lstat(os.DevNull)
	if err != nil || fi.Mode()&os.ModeDevice == 0 {
		t.Skip("no device at", os.DevNull)
	}
	// Writable is the whole decision; Replace would rename over the device.
	if err := Writable(os.DevNull, nil); err == nil || !strings.Contains(err.Error(), "a device") {
		t.Fatalf("Writable(%s) = %v, want a refusal", os.DevNull, err)
	}
}

func TestReplaceMakesDirectory(t *testing.T) {
	p := filepath.Join(t.TempDir(), "out", "deeper", "run.jsonl")
	if err := Replace(p, []byte("{}\n"), nil); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(p); err != nil || string(data) != "{}\n" {
		t.Fatalf("read back %q, %v", data, err)
	}
}

func TestJSONLinesWantsEveryKey(t *testing.T) {
	dir := t.TempDir()
	check := JSONLines("state_id", "method", "ranked_evidence_ids")
	// Files that hold "state_id" but are not predictions: an items file,
	// a states file, a labels file; and a line naming the keys only in a
	// nested object or a string.
	for name, data := range map[string]string{
		"items.jsonl":  `{"state_id":"a","issue":"x","candidate_evidence":[]}` + "\n",
		"states.jsonl": `{"state_id": "a", "repo": "o/r", "base_commit": "c"}` + "\n",
		"labels.jsonl": `{"state_id":"a","required_groups":[]}` + "\n",
		"nested.jsonl": `{"state_id":"a","meta":{"method":"m","ranked_evidence_ids":[]}}` + "\n",
		"text.jsonl":   `{"state_id":"a","issue":"\"method\" \"ranked_evidence_ids\""}` + "\n",
		"array.jsonl":  `["state_id","method","ranked_evidence_ids"]` + "\n",
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(data), 0o644)
		err := Replace(p, []byte(`{"state_id":"a","method":"m","ranked_evidence_ids":[]}`+"\n"), check)
		if err == nil || !strings.Contains(err.Error(), name+": line 1") {
			t.Errorf("Replace over %s = %v, want a refusal naming the file and line", name, err)
		}
		if got, _ := os.ReadFile(p); string(got) != data {
			t.Errorf("%s changed: %q", name, got)
		}
	}
	// An earlier output, blank lines included, is replaced.
	p := filepath.Join(dir, "preds.jsonl")
	os.WriteFile(p, []byte(`{"state_id":"a","method":"m","ranked_evidence_ids":["e"]}`+"\n\n"), 0o644)
	if err := Replace(p, []byte("{}\n"), check); err != nil {
		t.Errorf("Replace over an earlier output: %v", err)
	}
}

// A name TempName gives is new each time and not yet a file; WriteNew
// makes it, and never writes over a file already there.
func TestWriteNew(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.json")
	a, b := TempName(p), TempName(p)
	if a == b || filepath.Dir(a) != dir || !strings.HasPrefix(filepath.Base(a), ".out.json.tmp") {
		t.Fatalf("TempName: %q, %q", a, b)
	}
	if _, err := os.Lstat(a); err == nil {
		t.Fatal("TempName made the file")
	}
	if err := WriteNew(a, []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(a); err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("made %v, %v; want mode 0644", fi, err)
	}
	if err := WriteNew(a, []byte("other\n")); err == nil {
		t.Error("WriteNew over an existing file: no error")
	}
	if got, _ := os.ReadFile(a); string(got) != "{}\n" {
		t.Errorf("the existing file holds %q", got)
	}
}
