package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
)

func TestStateFromTrajectoryAligns(t *testing.T) {
	repo := t.TempDir()
	src := "import os\n\n\ndef load(path):\n    return open(path).read()\n\n\ndef save(path, text):\n    with open(path, 'w') as f:\n        f.write(text)\n"
	if err := os.MkdirAll(filepath.Join(repo, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "pkg", "io.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	traj := filepath.Join(t.TempDir(), "run.jsonl")
	lines := `{"tool": "plan", "issue": "save truncates files", "information_need": "how files are written"}
{"tool": "read_file", "path": "/testbed/pkg/io.py", "start_line": 9, "end_line": 9}
`
	if err := os.WriteFile(traj, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, err := runCmd(t, newStateCmd(), "", "from-trajectory", "--format", "jsonl", "--input", traj, "--repo", repo, "--db", filepath.Join(t.TempDir(), "ix.db"))
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var st mss.State
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("output is not a state card: %v\n%s", err, out)
	}
	// Line 9 lies in save (lines 8-10); the /testbed/ prefix is resolved.
	want := []mss.Span{{Path: "pkg/io.py", StartLine: 8, EndLine: 10, Symbol: "save"}}
	if d := cmp.Diff(want, st.ObservedSpans); d != "" {
		t.Errorf("observed spans (-want +got):\n%s", d)
	}
	if st.StateID != "run" || st.Issue != "save truncates files" {
		t.Errorf("state id %q, issue %q", st.StateID, st.Issue)
	}
	if !strings.Contains(stderr, "1 seen spans -> 1 units") {
		t.Errorf("summary: %q", stderr)
	}
}
