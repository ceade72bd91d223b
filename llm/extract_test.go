package llm

import (
	"errors"
	"testing"
)

func TestExtractJSON(t *testing.T) {
	tests := []struct {
		in, want string
		err      error
	}{
		{`{"a":1}`, `{"a":1}`, nil},
		{"  {\"a\":1}\n", `{"a":1}`, nil},
		{"```json\n{\"a\":1}\n```", `{"a":1}`, nil},
		{"Here you go:\n```\n{\"a\": [1,2]}\n```\nDone.", `{"a": [1,2]}`, nil},
		{"<think>pick {the best}</think>\n{\"ids\":[\"x\"]} trailing", `{"ids":["x"]}`, nil},
		{"```python\nx = {1}\n```\n{\"b\":2}", `{"b":2}`, nil},
		{`{"a":1`, "", ErrNoJSON},
		{`[1,2]`, "", ErrNoJSON},
		{``, "", ErrNoJSON},
		{`no json here`, "", ErrNoJSON},
	}
	for _, tc := range tests {
		got, err := ExtractJSON(tc.in)
		if !errors.Is(err, tc.err) || string(got) != tc.want {
			t.Errorf("ExtractJSON(%q) = %s, %v; want %s, %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func FuzzExtractJSON(f *testing.F) {
	for _, s := range []string{`{"a":1}`, "```json\n{}\n```", "x {\"a\":{\"b\":[1]}} y", "{{{", "```\n```"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ExtractJSON(s)
		if err != nil {
			return
		}
		if len(got) == 0 || got[0] != '{' {
			t.Fatalf("ExtractJSON(%q) = %q, not an object", s, got)
		}
	})
}
