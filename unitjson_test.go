package mss

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestUnitJSONKeepsBytesThatAreNotUTF8(t *testing.T) {
	latin1 := "def gamma():\n    return \"caf\xe9\"  # a < b && c\n"
	in := Unit{ID: "u1", Path: "src/bom.py", StartLine: 1, EndLine: 2, Content: latin1, Context: "class K:  # \xff\n", ContextLine: 1, Tokens: 9}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	if _, ok := raw["content_bytes"]; !ok {
		t.Errorf("no content_bytes for content that is not UTF-8: %s", b)
	}
	if _, ok := raw["context_bytes"]; !ok {
		t.Errorf("no context_bytes for a context that is not UTF-8: %s", b)
	}
	if c, _ := raw["content"].(string); !strings.Contains(c, "caf\uFFFD") {
		t.Errorf("content = %q, want readable text with U+FFFD", c)
	}
	var out Unit
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out.Content != latin1 || out.Context != in.Context || out.Path != in.Path || out.Tokens != 9 || out.ContextLine != 1 {
		t.Errorf("round trip = %+v, want %+v", out, in)
	}

	// UTF-8 content has no bytes field, and the caller's encoder decides on
	// HTML escaping.
	in.Content, in.Context = "if a < b && c:\n", ""
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode([]Unit{in}); err != nil {
		t.Fatal(err)
	}
	if s := buf.String(); strings.Contains(s, "_bytes") || !strings.Contains(s, `"if a < b && c:\n"`) {
		t.Errorf("UTF-8 unit encoded as %s", s)
	}
	if b, _ := json.Marshal(in); !strings.Contains(string(b), `\u003c`) {
		t.Errorf("json.Marshal should escape HTML as it always does: %s", b)
	}
}
