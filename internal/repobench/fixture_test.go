package repobench

import (
	"encoding/json"
	"github.com/missingcomplement/mss/internal/gittest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fixture is a small repository mirrored as root/Acme+Widget/repo (the
// fetch layout, spelled with different case than the states use).
type fixture struct {
	root   string // mirror root
	gitDir string
	c1, c2 string // commits
}

const (
	fixA1 = "def alpha():\n    return 1\n\ndef beta():\n    return 2\n"
	fixA2 = fixA1 + "def gamma():\n    return 3\n"
	fixB  = "x = 1\ny = 2" // no trailing newline
)

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	tmp := t.TempDir()
	work := filepath.Join(tmp, "work")
	gittest.Run(t, tmp, "init", "-q", "-b", "main", work)
	writeFile(t, filepath.Join(work, "a.py"), fixA1)
	writeFile(t, filepath.Join(work, "b.py"), fixB)
	writeFile(t, filepath.Join(work, "d", "e.py"), "pass\n")
	writeFile(t, filepath.Join(work, ".hidden", "x.py"), "h = 1\n")
	gittest.Run(t, work, "add", ".")
	gittest.RunEnv(t, work, []string{"GIT_COMMITTER_DATE=2020-01-01T00:00:00Z"}, "commit", "-q", "-m", "one", "--date", "2020-01-01T00:00:00Z")
	c1 := gittest.Run(t, work, "rev-parse", "HEAD")
	writeFile(t, filepath.Join(work, "a.py"), fixA2)
	gittest.RunEnv(t, work, []string{"GIT_COMMITTER_DATE=2020-01-02T00:00:00Z"}, "commit", "-q", "-am", "two", "--date", "2020-01-02T00:00:00Z")
	c2 := gittest.Run(t, work, "rev-parse", "HEAD")
	root := filepath.Join(tmp, "mirrors")
	gitDir := filepath.Join(root, "Acme+Widget", "repo")
	gittest.Run(t, tmp, "clone", "-q", "--bare", work, gitDir)
	return &fixture{root: root, gitDir: gitDir, c1: c1, c2: c2}
}

// writeJSONL writes values one a line.
func writeJSONL(t testing.TB, path string, values ...any) {
	t.Helper()
	var b strings.Builder
	for _, v := range values {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	writeFile(t, path, b.String())
}
