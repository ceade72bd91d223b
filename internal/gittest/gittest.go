// Package gittest builds fixture repositories for tests: it writes their
// files and runs git with a fixed identity, no user or system
// configuration, and a failure that fails the test with git's output.
package gittest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Run runs git in dir and returns its output without surrounding white
// space.
func Run(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return strings.TrimSpace(Output(t, dir, nil, args...))
}

// RunEnv is Run with env added to the environment (GIT_AUTHOR_DATE=...).
func RunEnv(t testing.TB, dir string, env []string, args ...string) string {
	t.Helper()
	return strings.TrimSpace(Output(t, dir, env, args...))
}

// Output runs git in dir with env added and returns its output as git
// printed it (a diff keeps its last newline).
func Output(t testing.TB, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), env...),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// WriteTree writes files (slash-separated paths relative to dir, and
// their contents) under dir, making directories as needed.
func WriteTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Repo makes a git work tree in a new temporary directory holding files
// (as WriteTree writes them), committed on branch main, and returns the
// directory.
func Repo(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	Run(t, dir, "init", "-q", "-b", "main")
	WriteTree(t, dir, files)
	Run(t, dir, "add", "-A")
	Run(t, dir, "commit", "-q", "-m", "init")
	return dir
}

// Filler is a Python file of n small functions: a fixture's units that
// no edit touches, so that an edit is a small share of them, as in any
// repository worth an overlay.
func Filler(n int) string {
	var b strings.Builder
	for k := range n {
		fmt.Fprintf(&b, "def shade_%d(c):\n    return c * %d\n\n\n", k, k)
	}
	return b.String()
}

// BenchRepo is the real repository a benchmark runs on: the git directory
// MSS_BENCH_REPO, at the commit MSS_BENCH_REV (empty: the default). It
// skips the benchmark when MSS_BENCH_REPO is unset.
func BenchRepo(b testing.TB) (repo, rev string) {
	b.Helper()
	repo = os.Getenv("MSS_BENCH_REPO")
	if repo == "" {
		b.Skip("MSS_BENCH_REPO not set")
	}
	return repo, os.Getenv("MSS_BENCH_REV")
}

// BenchRev2 is the other commit of a benchmark that moves between two,
// MSS_BENCH_REV2; it skips the benchmark when that is unset.
func BenchRev2(b testing.TB) string {
	b.Helper()
	rev2 := os.Getenv("MSS_BENCH_REV2")
	if rev2 == "" {
		b.Skip("MSS_BENCH_REV2 not set")
	}
	return rev2
}
