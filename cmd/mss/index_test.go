package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/missingcomplement/mss/index"
)

func runIndex(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newIndexCmd()
	var out, errb bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SetArgs(args)
	cmd.SilenceUsage = true
	cmd.SilenceErrors = true
	err := cmd.Execute()
	if errb.Len() > 0 {
		t.Errorf("stderr not quiet off a terminal: %q", errb.String())
	}
	return out.String(), err
}

func TestIndexCommand(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"pkg/util.py": "def lookup_single(name):\n    return name\n",
		"main.go":     "package main\n\nfunc main() {}\n",
		"README.md":   "# Demo\n",
	}
	for p, c := range files {
		full := filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, []byte(c), 0o644)
	}
	git := exec.Command("git", "init", "-q")
	git.Dir = dir
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}

	out, err := runIndex(t, "--repo", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"indexed 3 files, 4 units (3 parsed, 0 reused)", "units    go 2, python 1, text 1"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	db := filepath.Join(dir, ".mss", "index.db")
	if _, err := os.Stat(filepath.Join(dir, ".mss", ".gitignore")); err != nil {
		t.Errorf("no .mss/.gitignore: %v", err)
	}

	out, err = runIndex(t, "--repo", dir, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var sum index.Summary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("--json output: %v\n%s", err, out)
	}
	if sum.Units != 4 || sum.Reused != 3 || sum.Parsed != 0 || sum.DB != db {
		t.Errorf("second run summary %+v: want 4 units, all files reused, db %s", sum, db)
	}

	out, err = runIndex(t, "check", "--db", db)
	if err != nil || !strings.HasPrefix(out, "ok: ") {
		t.Errorf("check: %q, %v", out, err)
	}
	if _, err := runIndex(t, "check", "--db", filepath.Join(dir, "missing.db")); err == nil {
		t.Error("check of a missing index: want an error")
	}
	if _, err := runIndex(t, "--repo", filepath.Join(dir, "nope")); err == nil {
		t.Error("index of a missing directory: want an error")
	}
}
