package main

import (
	"fmt"
	"github.com/missingcomplement/mss/internal/gittest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchBuildFixture is a mirror root with one repository, acme/tool: a base
// commit and a fix commit that references an issue and adds a test.
func benchBuildFixture(t *testing.T) (root, gitDir, base, patch string) {
	t.Helper()
	root = t.TempDir()
	work := filepath.Join(t.TempDir(), "work")
	benchWrite(t, filepath.Join(work, "tool.py"), "def size(xs):\n    return len(xs)\n\n\ndef head(xs):\n    return xs[0]\n")
	benchWrite(t, filepath.Join(work, "tests", "test_tool.py"), "def test_size():\n    assert True\n")
	gittest.Run(t, work, "init", "-q", "-b", "main")
	gittest.Run(t, work, "add", "-A")
	gittest.Run(t, work, "commit", "-q", "-m", "base")
	base = gittest.Run(t, work, "rev-parse", "HEAD")
	benchWrite(t, filepath.Join(work, "tool.py"), "def size(xs):\n    return len(xs or [])\n\n\ndef head(xs):\n    return xs[0] if xs else None\n")
	benchWrite(t, filepath.Join(work, "tests", "test_tool.py"), "def test_size():\n    assert size(None) == 0\n")
	gittest.Run(t, work, "add", "-A")
	gittest.Run(t, work, "commit", "-q", "-m", "Fix #3: size and head fail on None")
	patch = gittest.Run(t, work, "diff", base, "HEAD") + "\n"
	gitDir = filepath.Join(root, "acme+tool", "repo")
	if err := os.MkdirAll(filepath.Dir(gitDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(work, ".git"), gitDir); err != nil {
		t.Fatal(err)
	}
	return root, gitDir, base, patch
}

func TestBenchBuildInstances(t *testing.T) {
	root, _, base, patch := benchBuildFixture(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	benchJSONL(t, in,
		map[string]any{"instance_id": "acme__tool-3", "repo": "acme/tool", "base_commit": base, "problem_statement": "size(None) fails", "patch": patch},
		map[string]any{"instance_id": "acme__tool-4", "repo": "acme/tool", "problem_statement": "x", "patch": patch})
	out := filepath.Join(dir, "out")
	_, errOut, err := runBench(t, newBenchBuildCmd, "--instances", in, "--mirror-root", root, "--out", out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut, "read 1 instance; built 1 instance, 2 states") ||
		!strings.Contains(errOut, "files left out: test file 1") ||
		!strings.Contains(errOut, "bad record skipped: "+in+":2: field base_commit: missing") {
		t.Errorf("stderr:\n%s", errOut)
	}
	// A file of bad records only is an error, and nothing is written.
	onlyBad := filepath.Join(dir, "bad.jsonl")
	benchJSONL(t, onlyBad, map[string]any{"instance_id": "acme__tool-4", "repo": "acme/tool", "problem_statement": "x", "patch": patch})
	none := filepath.Join(dir, "none")
	_, errOut, err = runBench(t, newBenchBuildCmd, "--instances", onlyBad, "--mirror-root", root, "--out", none)
	if err == nil || !strings.Contains(err.Error(), "no usable instance") || !strings.Contains(errOut, "bad record: "+onlyBad+":1: field base_commit: missing") {
		t.Errorf("only bad records: %v\n%s", err, errOut)
	}
	if _, serr := os.Stat(none); serr == nil {
		t.Errorf("%s written though no instance was usable", none)
	}
	states, err := os.ReadFile(filepath.Join(out, "states.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	labels, err := os.ReadFile(filepath.Join(out, "labels.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(states), "\n"); n != 2 || !strings.Contains(string(states), `"state_id": "acme__tool-3:after_file_inspection"`) {
		t.Errorf("states:\n%s", states)
	}
	want := `{"state_id": "acme__tool-3:before_search", "required_groups": [` +
		`{"path": "tool.py", "symbol": "size", "span": [1, 2], "lines": [[2, 2]], "group_id": "G1", "minimum_required": 1, "necessity_weight": 1.0, "role": "edit_site"}, ` +
		`{"path": "tool.py", "symbol": "head", "span": [5, 6], "lines": [[6, 6]], "group_id": "G2", "minimum_required": 1, "necessity_weight": 1.0, "role": "edit_site"}], "alternative_sets": []}` + "\n"
	if first, _, _ := strings.Cut(string(labels), "\n"); first+"\n" != want {
		t.Errorf("label:\n got %s\nwant %s", first, want)
	}
	// Rebuilding gives the same bytes.
	if _, _, err := runBench(t, newBenchBuildCmd, "--instances", in, "--mirror-root", root, "--out", out); err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(filepath.Join(out, "states.jsonl"))
	if string(again) != string(states) {
		t.Error("second build differs")
	}
}

func TestBenchBuildHistory(t *testing.T) {
	_, gitDir, base, _ := benchBuildFixture(t)
	out := filepath.Join(t.TempDir(), "out")
	_, errOut, err := runBench(t, newBenchBuildCmd, "--from-history", "--repo", gitDir, "--out", out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut, "acme/tool: 1 fix commit\n") || !strings.Contains(errOut, "built 1 instance, 2 states") {
		t.Errorf("stderr:\n%s", errOut)
	}
	states, _ := os.ReadFile(filepath.Join(out, "states.jsonl"))
	if !strings.Contains(string(states), `"issue": "Fix #3: size and head fail on None"`) ||
		!strings.Contains(string(states), `"base_commit": "`+base+`"`) {
		t.Errorf("states:\n%s", states)
	}
}

func TestBenchBuildFiledIssues(t *testing.T) {
	_, gitDir, _, _ := benchBuildFixture(t)
	work := t.TempDir()
	gitAt := func(args ...string) string {
		return gittest.Run(t, work, append([]string{"--git-dir", gitDir, "--work-tree", work}, args...)...)
	}
	gitAt("checkout", "-q", "-f", "main")
	fixBase := gitAt("rev-parse", "HEAD")
	benchWrite(t, filepath.Join(work, "tool.py"), "def size(xs):\n    return len(xs or [])\n\n\ndef head(xs):\n    return xs[-1] if xs else None\n")
	gitAt("add", "-A")
	gitAt("commit", "-q", "-m", "Take the last element (#5)")
	dir := t.TempDir()
	issues := filepath.Join(dir, "issues.json")
	benchWrite(t, issues, "{\n  \"acme__tool-5\": \"head gives the first element\",\n  \"acme__tool-3\": \"size fails\",\n  \"other__lib-9\": \"elsewhere\",\n  \"acme__tool-5\": \"again\"\n}\n")
	out := filepath.Join(dir, "out")
	_, errOut, err := runBench(t, newBenchBuildCmd, "--from-history", "--repo", gitDir, "--issues", issues, "--out", out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"issues of repositories not given with --repo, left out: other/lib 1\n",
		"acme/tool: 1 filed issue; other commits: listed issues whose pull request no first-parent commit merged 1, merged no pull request of a listed issue 1\n",
		"bad record skipped: " + issues + ":5: field instance_id: acme__tool-5: pull request 5 of acme/tool given before, at " + issues + ":2\n",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	states, _ := os.ReadFile(filepath.Join(out, "states.jsonl"))
	if !strings.Contains(string(states), `"instance_id": "acme__tool-5"`) || !strings.Contains(string(states), `"issue": "head gives the first element"`) ||
		!strings.Contains(string(states), `"base_commit": "`+fixBase+`"`) {
		t.Errorf("states:\n%s", states)
	}
	if _, _, err := runBench(t, newBenchBuildCmd, "--instances", issues, "--mirror-root", dir, "--issues", issues, "--out", out); err == nil ||
		!strings.Contains(err.Error(), "--issues goes with --from-history") {
		t.Errorf("--issues without --from-history: %v", err)
	}
}

func TestBenchBuildFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--out", "x"},
		{"--out", "x", "--instances", "a.jsonl"},
		{"--out", "x", "--from-history"},
		{"--out", "x", "--from-history", "--repo", "a", "--instances", "b"},
	} {
		if _, _, err := runBench(t, newBenchBuildCmd, args...); err == nil {
			t.Errorf("%v: want an error", args)
		}
	}
	// Counts that select nothing are refused, not run.
	for _, a := range [][2]string{{"--limit", "-1"}, {"--max-groups", "0"}, {"--max-files", "-3"}} {
		out := t.TempDir()
		_, _, err := runBench(t, newBenchBuildCmd, "--out", out, "--from-history", "--repo", t.TempDir(), "--repo-name", "o/n", a[0], a[1])
		if err == nil || !strings.Contains(err.Error(), a[0]+" "+a[1]+": want") {
			t.Errorf("%s %s: %v, want a refusal naming the flag", a[0], a[1], err)
		}
	}
	if _, _, err := runBench(t, newBenchBuildCmd, "--out", t.TempDir(), "--from-history", "--repo", t.TempDir()); err == nil ||
		!strings.Contains(err.Error(), "give --repo-name") {
		t.Errorf("unnamed repository: %v", err)
	}
	// An empty --out is refused before the history is mined.
	_, gitDir, _, _ := benchBuildFixture(t)
	if _, _, err := runBench(t, newBenchBuildCmd, "--out", "", "--from-history", "--repo", gitDir); err == nil || !strings.HasPrefix(err.Error(), "--out is empty") {
		t.Errorf("--out \"\": %v", err)
	}
	// --since is a date, not whatever git makes of a word.
	_, _, err := runBench(t, newBenchBuildCmd, "--out", t.TempDir(), "--from-history", "--repo", t.TempDir(), "--repo-name", "o/n", "--since", "notadate")
	if err == nil || !strings.HasPrefix(err.Error(), `--since "notadate" is not a date: want YYYY-MM-DD`) {
		t.Errorf("--since notadate: %v", err)
	}
	// --repo-name is owner/name, as an instance's repo is.
	for _, name := range []string{"noslash", "a/b/c", "/abs", "a/", `a\b/c`, "a/.."} {
		_, _, err := runBench(t, newBenchBuildCmd, "--out", t.TempDir(), "--from-history", "--repo", t.TempDir(), "--repo-name", name)
		if want := fmt.Sprintf("--repo-name: %q is not owner/name", name); err == nil || err.Error() != want {
			t.Errorf("--repo-name %s: %v, want %s", name, err, want)
		}
	}
}

// An input with nothing in it (an empty instances file or array, an empty
// or {} --issues file, a history without a fix commit) is refused before
// anything is written: an earlier track stays as it was.
func TestBenchBuildNothingToBuild(t *testing.T) {
	root, gitDir, base, patch := benchBuildFixture(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	benchJSONL(t, in, map[string]any{"instance_id": "acme__tool-3", "repo": "acme/tool", "base_commit": base, "problem_statement": "size(None) fails", "patch": patch})
	out := filepath.Join(dir, "out")
	if _, _, err := runBench(t, newBenchBuildCmd, "--instances", in, "--mirror-root", root, "--out", out); err != nil {
		t.Fatal(err)
	}
	states, _ := os.ReadFile(filepath.Join(out, "states.jsonl"))
	labels, _ := os.ReadFile(filepath.Join(out, "labels.jsonl"))
	for name, tc := range map[string]struct {
		text string
		args []string
		want string
	}{
		"empty instances":  {"", []string{"--mirror-root", root, "--instances"}, "no instances in "},
		"empty array":      {"[]\n", []string{"--mirror-root", root, "--instances"}, "no instances in "},
		"empty issues":     {"", []string{"--from-history", "--repo", gitDir, "--issues"}, "no issues in "},
		"empty map issues": {"{}\n", []string{"--from-history", "--repo", gitDir, "--issues"}, "no issues in "},
	} {
		p := filepath.Join(t.TempDir(), "input")
		benchWrite(t, p, tc.text)
		_, _, err := runBench(t, newBenchBuildCmd, append(append(tc.args, p), "--out", out)...)
		if err == nil || err.Error() != tc.want+p {
			t.Errorf("%s: %v, want %s%s", name, err, tc.want, p)
		}
	}
	_, _, err := runBench(t, newBenchBuildCmd, "--from-history", "--repo", gitDir, "--rev", base, "--out", out)
	if err == nil || !strings.Contains(err.Error(), "no instance mined from the history") {
		t.Errorf("history without a fix commit: %v", err)
	}
	// Instances that are all skipped build nothing, and nothing is written.
	noApply := filepath.Join(t.TempDir(), "in.jsonl")
	benchJSONL(t, noApply, map[string]any{"instance_id": "acme__tool-3", "repo": "acme/tool", "base_commit": base, "problem_statement": "x", "patch": strings.Replace(patch, "-    return len(xs)", "-    return len(ys)", 1)})
	_, errOut, err := runBench(t, newBenchBuildCmd, "--instances", noApply, "--mirror-root", root, "--out", out)
	if err == nil || err.Error() != "no instance built (the reasons are above); nothing written to "+out ||
		!strings.Contains(errOut, "read 1 instance; built none\ninstances skipped: patch does not apply to the base commit 1\n") {
		t.Errorf("every instance skipped: %v\n%s", err, errOut)
	}
	if s, _ := os.ReadFile(filepath.Join(out, "states.jsonl")); string(s) != string(states) {
		t.Errorf("states replaced:\n%s", s)
	}
	if l, _ := os.ReadFile(filepath.Join(out, "labels.jsonl")); string(l) != string(labels) {
		t.Errorf("labels replaced:\n%s", l)
	}
}
