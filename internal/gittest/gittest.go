// Package gittest runs git for tests that build their own fixture
// repositories: a fixed identity, no user or system configuration, and a
// failure that fails the test with git's output.
package gittest

import (
	"os"
	"os/exec"
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
