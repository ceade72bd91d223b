package main

import (
	"bytes"
	"compress/gzip"
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

// TestStateFromTrajectoryGzip: a trajectory compressed with gzip (a
// SERBench items.jsonl.gz, as the release ships them) is read as the
// serbench commands read it; a .gz name over plain text is refused.
func TestStateFromTrajectoryGzip(t *testing.T) {
	dir := t.TempDir()
	item := `{"state_id": "s1", "repo": "o/r", "issue": "save truncates files", "trajectory_prefix": [{"action_type": "read_file", "action_input": "pkg/io.py", "tool_output": "FILE pkg/io.py:8-10\n..."}]}` + "\n"
	step := `{"tool": "read_file", "path": "pkg/io.py", "start_line": 9, "end_line": 9, "issue": "save truncates files"}` + "\n"
	gz := func(name, text string) string {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(text))
		w.Close()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		format, input, id string
		want              mss.Span
	}{
		{"serbench", gz("items.jsonl.gz", item), "s1", mss.Span{Path: "pkg/io.py", StartLine: 8, EndLine: 10}},
		{"jsonl", gz("run.jsonl.gz", step), "run", mss.Span{Path: "pkg/io.py", StartLine: 9, EndLine: 9}},
	} {
		out, stderr, err := runCmd(t, newStateCmd(), "", "from-trajectory", "--format", tc.format, "--input", tc.input)
		if err != nil {
			t.Errorf("%s: %v\n%s", tc.input, err, stderr)
			continue
		}
		var st mss.State
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Fatalf("output is not a state card: %v\n%s", err, out)
		}
		if want := []mss.Span{tc.want}; st.StateID != tc.id || !cmp.Equal(want, st.ObservedSpans) {
			t.Errorf("%s: state %q, spans %v; want %q, %v", tc.input, st.StateID, st.ObservedSpans, tc.id, want)
		}
	}
	plain := filepath.Join(dir, "plain.jsonl.gz")
	os.WriteFile(plain, []byte(item), 0o644)
	if _, _, err := runCmd(t, newStateCmd(), "", "from-trajectory", "--format", "serbench", "--input", plain); err == nil || !strings.Contains(err.Error(), "plain.jsonl.gz: not a gzip file") {
		t.Errorf("plain text named .gz: %v, want it refused as not gzip", err)
	}
}
