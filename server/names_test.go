package server

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestUnsafeFileNames: names with ESC or newline bytes are quoted in text
// answers; a name that is not UTF-8 is never put into JSON (where it
// would turn into U+FFFD and name another file).
func TestUnsafeFileNames(t *testing.T) {
	dir := writeFixture(t)
	files := map[string]string{
		"esc\x1b[31m.py": "def escaped_name_marker():\n    return 1\n",
		"new\nline.py":   "def newline_name_marker():\n    return 2\n",
		"bad\xff.py":     "def latin_name_marker():\n    return 3\n",
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Skip("file system refuses the name:", err)
		}
	}
	svc, err := New(context.Background(), Config{Repo: dir, Loader: &IndexLoader{Repo: dir}, ScanInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	cs := connect(t, svc)
	for _, q := range []string{"escaped_name_marker", "newline_name_marker", "latin_name_marker"} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search_code", Arguments: map[string]any{"query": q}})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", q, err, res)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if strings.ContainsAny(text, "\x1b") || strings.Contains(text, "new\nline") || !json.Valid([]byte(mustJSON(t, res.StructuredContent))) {
			t.Errorf("%s: raw name in the text answer: %q", q, text)
		}
		if strings.Contains(mustJSON(t, res.StructuredContent), "\ufffd") || strings.Contains(mustJSON(t, res.StructuredContent), `\ufffd`) {
			t.Errorf("%s: U+FFFD in the JSON answer: %s", q, mustJSON(t, res.StructuredContent))
		}
		if q == "latin_name_marker" && !strings.Contains(text, `"bad\xff.py":1-2 left out: its path is not UTF-8`) {
			t.Errorf("%s: no warning naming the non-UTF-8 file:\n%s", q, text)
		}
		if q == "escaped_name_marker" && !strings.Contains(text, `"esc\x1b[31m.py":1-2 escaped_name_marker`) {
			t.Errorf("%s: the ESC name is not quoted:\n%s", q, text)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
