package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func runCmd(t *testing.T, cmd *cobra.Command, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SetIn(strings.NewReader(stdin))
	cmd.SetArgs(args)
	cmd.SilenceUsage = true
	cmd.SilenceErrors = true
	err := cmd.Execute()
	return out.String(), errb.String(), err
}

// TestServeRefusesBadLimits: zero or negative limits and a blank token
// are errors, not silent defaults.
func TestServeRefusesBadLimits(t *testing.T) {
	repo := recoverRepo(t)
	for _, tc := range []struct {
		args  []string
		token string
		want  string
	}{
		{[]string{"--max-body", "0"}, "", "--max-body 0"},
		{[]string{"--max-concurrent", "-1"}, "", "--max-concurrent -1"},
		{[]string{"--max-sessions", "0"}, "", "--max-sessions 0"},
		{[]string{"--max-budget", "-5"}, "", "--max-budget -5"},
		{[]string{"--session-ttl", "0s"}, "", "--session-ttl 0s"},
		{[]string{"--body-timeout", "-1s"}, "", "--body-timeout -1s"},
		{[]string{"--max-file-bytes", "0"}, "", "--max-file-bytes 0"},
		{[]string{"--max-text-bytes", "-1"}, "", "--max-text-bytes -1"},
		{nil, " ", "MSS_SERVE_TOKEN: the bearer token is blank"},
		{nil, "\t", "MSS_SERVE_TOKEN: the bearer token is blank"},
		{[]string{"--allow-remote"}, "", "remote access needs a bearer token"},
	} {
		t.Setenv("MSS_SERVE_TOKEN", tc.token)
		for _, name := range []string{"serve", "mcp"} {
			cmd := newServeCmd()
			if name == "mcp" {
				cmd = newMCPCmd()
			}
			args := append([]string{"--repo", repo, "--listen", "127.0.0.1:0"}, tc.args...)
			_, _, err := runCmd(t, cmd, "", args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s %v (token %q): %v, want an error containing %q", name, tc.args, tc.token, err, tc.want)
			}
		}
	}
	// Each is refused before the repository is indexed.
	if _, err := os.Stat(filepath.Join(repo, ".mss")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the refused runs indexed the repository: %v", err)
	}
}

// TestMCPStdioShortClient: a client that sends its messages and closes
// stdin at once gets its answers, bad lines answered with JSON-RPC
// errors, and the index is complete on disk when mss mcp exits. A blank
// token in the environment is no matter over stdio, where no request
// carries one.
func TestMCPStdioShortClient(t *testing.T) {
	repo := recoverRepo(t)
	t.Setenv("MSS_SERVE_TOKEN", " ")
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`not json`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_code","arguments":{"query":"parse_header"}}}`,
	}, "\n") + "\n"
	out, stderr, err := runCmd(t, newMCPCmd(), in, "--repo", repo)
	if err != nil {
		t.Fatalf("mss mcp: %v\n%s", err, stderr)
	}
	ids := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage     `json:"id"`
			Result json.RawMessage     `json:"result"`
			Error  *struct{ Code int } `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("output line %q: %v", sc.Text(), err)
		}
		if m.Error != nil {
			ids[string(m.ID)] = fmt.Sprintf("error %d", m.Error.Code)
			continue
		}
		ids[string(m.ID)] = string(m.Result)
	}
	if !strings.Contains(ids["1"], `"serverInfo"`) || !strings.Contains(ids["2"], "pkg/parse.py") || ids["null"] != "error -32700" {
		t.Errorf("answers by id: %v\nstderr:\n%s", ids, stderr)
	}
	if !strings.Contains(stderr, "mss: indexed") {
		t.Errorf("stderr does not log the end of indexing:\n%s", stderr)
	}
	if fi, err := os.Stat(filepath.Join(repo, ".mss", "index.db")); err != nil || fi.Size() == 0 {
		t.Errorf("index after exit: %v", err)
	}
}
