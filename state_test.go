package mss

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParseStateErrors(t *testing.T) {
	big := `{"issue": "` + strings.Repeat("x", MaxTextBytes+1) + `"}`
	for _, tc := range []struct {
		name, in, want string
	}{
		{"empty", ``, "state s.json: empty; want one JSON object"},
		{"white space", " \n\t\n", "state s.json: only white space; want one JSON object"},
		{"bom only", "\xef\xbb\xbf", "state s.json: empty; want one JSON object"},
		{"syntax", "{\n\"issue\": \"a\",\n}", "state s.json:3: invalid character '}'"},
		{"type", "{\n\"issue\": 3}", `state s.json:2: field issue: want string, got JSON number`},
		{"not object", `[1]`, "state s.json:1: want a JSON object, got JSON array"},
		{"unknown", "{\"issue\": \"a\",\n \"isue\": \"b\"}", `state s.json:2: field isue: unknown field`},
		// The key's own line, not the end of the object the decoder read
		// on to, and the span it is in.
		{"unknown mid card", "{\"issue\": \"a\",\n \"max_units\": 3,\n \"state_id\": \"s\",\n \"opened_files\": []\n}", `state s.json:2: field max_units: unknown field`},
		{"unknown span key", "{\"issue\": \"a\", \"observed_spans\": [\n{\"path\": \"x.go\", \"start_line\": 1, \"end_line\": 2},\n{\"path\": \"x.go\", \"lines\": 1,\n \"start_line\": 1, \"end_line\": 2}],\n \"state_id\": \"s\"}", `state s.json:3: field observed_spans[1].lines: unknown field`},
		{"unknown path key", "{\"issue\": \"a\",\n \"observed_spans\": [{\"path\": \"x.go\", \"start_line\": 1, \"end_line\": 2}],\n \"path\": \"y.go\",\n \"state_id\": \"s\"}", `state s.json:3: field path: unknown field`},
		{"folded key", "{\"issue\": \"a\",\n \"State_ID\": \"b\"}", `state s.json:2: field State_ID: unknown field (field names are case-sensitive; did you mean "state_id"?)`},
		{"folded span key", "{\"issue\": \"a\", \"observed_spans\": [\n{\"path\": \"x.go\", \"start_line\": 1, \"END_LINE\": 2}]}", `state s.json:2: field observed_spans[0].END_LINE: unknown field`},
		{"two values", "{\"issue\": \"a\"}\n{}", "state s.json:2: more than one JSON value"},
		{"no text", `{"state_id": "x"}`, "state s.json: no text to recover evidence for"},
		{"span path", `{"issue": "a", "observed_spans": [{"path": "../x", "start_line": 1, "end_line": 2}]}`, `state s.json:1: field observed_spans[0].path: not a repository-relative path: "../x" climbs out of the repository with a .. element`},
		{"span lines", `{"issue": "a", "observed_spans": [{"path": "x.go", "start_line": 5, "end_line": 2}]}`, `state s.json:1: field observed_spans[0]: (x.go) lines 5-2 are not a 1-based range`},
		// A range past MaxLine is refused by the limit's name, not as a
		// range the card gives in order.
		{"span past the limit", `{"issue": "a", "observed_spans": [{"path": "x.go", "start_line": 1, "end_line": 2000000000}]}`, `state s.json:1: field observed_spans[0]: (x.go) lines 1-2000000000 end past line 1073741824, the last a span may name`},
		// An opened file is a repository's file, as a span's path is.
		{"opened file", "{\"issue\": \"a\",\n \"opened_files\": [\"x.go\",\n  \"../x\"]}", `state s.json:3: field opened_files[1]: not a repository-relative path: "../x" climbs out of the repository with a .. element`},
		{"opened file absolute", `{"issue": "a", "opened_files": ["/testbed/x.go"]}`, `state s.json:1: field opened_files[0]: not a repository-relative path: "/testbed/x.go" is absolute`},
		{"too long", big, "state s.json:1: field issue: 262145 bytes, limit 262144"},
		// What Validate refuses is named by its line too, in a card
		// written over several lines.
		{"span path line", "{\n \"issue\": \"a\",\n \"observed_spans\": [\n  {\"path\": \"x.go\", \"start_line\": 1, \"end_line\": 2},\n  {\"start_line\": 1,\n   \"path\": \"/etc/passwd\", \"end_line\": 2}\n ]\n}",
			`state s.json:6: field observed_spans[1].path: not a repository-relative path: "/etc/passwd" is absolute`},
		{"span lines line", "{\n \"issue\": \"a\",\n \"observed_spans\": [\n  {\"path\": \"x.go\", \"start_line\": 1, \"end_line\": 2},\n\n  {\"path\": \"x.go\", \"start_line\": 9, \"end_line\": 2}\n ]\n}",
			`state s.json:6: field observed_spans[1]: (x.go) lines 9-2 are not a 1-based range`},
		{"too long line", "{\"state_id\": \"x\",\n\"issue\":\n\"" + strings.Repeat("x", MaxTextBytes+1) + "\"}", "state s.json:3: field issue: 262145 bytes, limit 262144"},
		// A mistyped field inside an array names its element.
		{"span type", "{\"issue\": \"a\", \"observed_spans\": [{\"path\": \"x.go\", \"start_line\": 1, \"end_line\": 2},\n {\"path\": \"x.go\", \"start_line\": \"3\", \"end_line\": 4}]}",
			`state s.json:2: field observed_spans[1].start_line: want int, got JSON string`},
		// A field given twice would be read as its last value: refused.
		{"duplicate", "{\"issue\": \"a\",\n \"issue\": \"b\"}", "state s.json:2: field issue: given twice"},
		{"duplicate span key", "{\"issue\": \"a\", \"observed_spans\": [{\"path\": \"x.go\", \"start_line\": 1,\n \"end_line\": 2, \"start_line\": 2}]}", "state s.json:2: field observed_spans[0].start_line: given twice"},
		// Bytes that are not UTF-8 would be read as U+FFFD: refused, with
		// the line and the field whose value holds them.
		{"not utf8", "{\"issue\": \"a\xff\"}", "state s.json:1: field issue: not UTF-8 text"},
		{"not utf8 span path", "{\"issue\": \"a\",\n \"observed_spans\": [{\"path\": \"x.go\", \"start_line\": 1, \"end_line\": 2},\n {\"path\": \"caf\xe9.go\", \"start_line\": 1, \"end_line\": 2}]}", "state s.json:3: field observed_spans[1].path: not UTF-8 text"},
		{"not utf8 key", "{\"issue\": \"a\",\n \"caf\xe9\": 1}", "state s.json:2: not UTF-8 text"},
		{"lone high surrogate", "{\"issue\": \"a\",\n \"observed_spans\": [{\"path\": \"ma\\ud800in.py\", \"start_line\": 1, \"end_line\": 2}]}", "state s.json:2: field observed_spans[0].path: \\ud800 is half a UTF-16 surrogate pair, no character"},
		{"lone low surrogate", "{\"issue\": \"a\\uDC00b\"}", "state s.json:1: field issue: \\uDC00 is half a UTF-16 surrogate pair, no character"},
		{"high surrogate then no low", "{\"issue\": \"\\ud83d\\u0041\"}", "state s.json:1: field issue: \\ud83d is half a UTF-16 surrogate pair, no character"},
		// A null span would be read as an empty one: refused where it
		// stands, as the element it is.
		{"null span", `{"issue":"x","observed_spans":[null]}`, "state s.json:1: field observed_spans[0]: null"},
		{"null span line", "{\"issue\": \"x\",\n \"observed_spans\": [\n  {\"path\": \"x.go\", \"start_line\": 1, \"end_line\": 2},\n  null]}", "state s.json:4: field observed_spans[1]: null"},
		// So is a null for any field of the card or of a span, or for a
		// list's element: read as left out, or as "".
		{"null list", "{\"issue\": \"x\",\n \"observed_spans\": null}", "state s.json:2: field observed_spans: null; want a list ([] for none), or leave the field out"},
		{"null text", `{"issue": null, "information_need": "x"}`, `state s.json:1: field issue: null; want a string ("" for none), or leave the field out`},
		{"null opened files", `{"issue": "x", "opened_files": null}`, "state s.json:1: field opened_files: null; want a list"},
		{"null prefix", `{"issue": "x", "trajectory_prefix": null}`, "state s.json:1: field trajectory_prefix: null; want a list"},
		{"null query", `{"issue": "x", "search_queries": ["a", null]}`, "state s.json:1: field search_queries[1]: null; want a string"},
		{"null span line number", `{"issue": "x", "observed_spans": [{"path": "x.go", "start_line": null, "end_line": 2}]}`, "state s.json:1: field observed_spans[0].start_line: null; want a line number"},
		{"null span symbol", `{"issue": "x", "observed_spans": [{"path": "x.go", "start_line": 1, "end_line": 2, "symbol": null}]}`, "state s.json:1: field observed_spans[0].symbol: null; want a string"},
		// A span without a path is named by the line of its element.
		{"span without path", "{\"issue\": \"x\",\n \"observed_spans\": [\n  {\"start_line\": 1, \"end_line\": 2}]}", "state s.json:3: field observed_spans[0].path: not a repository-relative path: empty"},
		{"truncated", "{\"issue\": \"a\"", "state s.json:1: unexpected end of JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseState("s.json", []byte(tc.in))
			if err == nil {
				t.Fatalf("ParseState(%.40q) = nil error, want %q", tc.in, tc.want)
			}
			var se *StateError
			if !errors.As(err, &se) {
				t.Errorf("error %T is not a *StateError", err)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("ParseState(%.40q) error\n got %q\nwant prefix %q", tc.in, err, tc.want)
			}
		})
	}
}

func TestDecodeStateLimit(t *testing.T) {
	r := strings.NewReader(strings.Repeat(" ", MaxStateBytes+10))
	_, err := DecodeState("<stdin>", r)
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("DecodeState(oversized) = %v, want a size error", err)
	}
}

func TestParseStateAcceptsEveryTextField(t *testing.T) {
	for _, in := range []string{
		`{"latest_test_output": "FAILED tests/test_x.py::test_y"}`,
		`{"current_diff": "--- a/x\n+++ b/x"}`,
		`{"search_queries": ["parseConfig"]}`,
		"\xef\xbb\xbf{\"issue\": \"a\"}",
	} {
		if _, err := ParseState("s", []byte(in)); err != nil {
			t.Errorf("ParseState(%q): %v", in, err)
		}
	}
}

func TestValidateCleansSpanPaths(t *testing.T) {
	st, err := ParseState("s", []byte(`{"issue": "a", "observed_spans": [{"path": "./src\\x.go", "start_line": 1, "end_line": 2}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := st.ObservedSpans[0].Path; got != "src/x.go" {
		t.Errorf("path = %q, want src/x.go", got)
	}
}

func TestObserved(t *testing.T) {
	st := &State{
		ObservedSpans:       []Span{{Path: "./a/b.go", StartLine: 10, EndLine: 20}},
		ObservedEvidenceIDs: []string{"u9"},
	}
	o := ObservedOf(st)
	for _, tc := range []struct {
		u    Unit
		want bool
	}{
		{Unit{Path: "a/b.go", StartLine: 20, EndLine: 30}, true},
		{Unit{Path: "a/b.go", StartLine: 21, EndLine: 30}, false},
		{Unit{Path: "a/b.go", StartLine: 1, EndLine: 9}, false},
		{Unit{Path: "a/c.go", StartLine: 10, EndLine: 20}, false},
		{Unit{ID: "u9", Path: "z.go", StartLine: 1, EndLine: 1}, true},
	} {
		if got := o.Unit(&tc.u); got != tc.want {
			t.Errorf("Observed.Unit(%s:%d-%d %s) = %v, want %v", tc.u.Path, tc.u.StartLine, tc.u.EndLine, tc.u.ID, got, tc.want)
		}
	}
	if got := o.Paths(); len(got) != 1 || got[0] != "a/b.go" {
		t.Errorf("Paths() = %v, want [a/b.go]", got)
	}
}

func TestObservedUnread(t *testing.T) {
	o := ObservedOf(&State{
		ObservedSpans: []Span{
			{Path: "./a.go", StartLine: 10, EndLine: 20}, {Path: "a.go", StartLine: 15, EndLine: 24},
			{Path: "a.go", StartLine: 30, EndLine: 30}, {Path: "b.go", StartLine: 1, EndLine: 100},
		},
		ObservedEvidenceIDs: []string{"u9"},
	})
	span := func(s, e int) Span { return Span{Path: "a.go", StartLine: s, EndLine: e} }
	for _, tc := range []struct {
		u    Unit
		want []Span
	}{
		{Unit{Path: "a.go", StartLine: 5, EndLine: 12}, []Span{span(5, 9)}},
		{Unit{Path: "a.go", StartLine: 18, EndLine: 40}, []Span{span(25, 29), span(31, 40)}},
		{Unit{Path: "a.go", StartLine: 1, EndLine: 50}, []Span{span(1, 9), span(25, 29), span(31, 50)}},
		{Unit{Path: "a.go", StartLine: 12, EndLine: 22}, nil}, // read whole
		{Unit{Path: "a.go", StartLine: 40, EndLine: 50}, nil}, // not read at all
		{Unit{Path: "b.go", StartLine: 5, EndLine: 9}, nil},
		{Unit{ID: "u9", Path: "a.go", StartLine: 5, EndLine: 12}, nil}, // named by id: read whole
	} {
		if got := o.Unread(&tc.u); !slices.Equal(got, tc.want) {
			t.Errorf("Unread(%s:%d-%d %s) = %v, want %v", tc.u.Path, tc.u.StartLine, tc.u.EndLine, tc.u.ID, got, tc.want)
		}
	}
}

// FuzzParseState: any bytes give a card or a *StateError, never a panic;
// an accepted card is valid and reads back the same after encoding.
func FuzzParseState(f *testing.F) {
	for _, s := range []string{
		`{"issue": "a"}`, `{"latest_test_output": "FAILED t.py::x"}`, "\xef\xbb\xbf{\"issue\": \"a\"}",
		`{"issue": "a", "observed_spans": [{"path": "./a\\b.go", "start_line": 1, "end_line": 2}]}`,
		`{"issue": 3}`, `[]`, ``, " \n", `{"issue": "a"} {}`, `{"isue": "a"}`,
		`{"issue": "a", "observed_spans": null, "search_queries": [null]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := ParseState("f", data)
		if err != nil {
			var se *StateError
			if !errors.As(err, &se) {
				t.Fatalf("ParseState(%q): error %T is not a *StateError: %v", data, err, err)
			}
			return
		}
		if err := st.Validate(); err != nil {
			t.Fatalf("ParseState(%q) accepted a card Validate refuses: %v", data, err)
		}
		enc, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseState("f", enc)
		if err != nil {
			t.Fatalf("re-encoded card %s refused: %v", enc, err)
		}
		enc2, _ := json.Marshal(again)
		if string(enc) != string(enc2) {
			t.Errorf("card changed on a round trip:\n%s\n%s", enc, enc2)
		}
	})
}

// TestOpenedFilesCleaned: an opened file is read in its clean form, as a
// span's path is.
func TestOpenedFilesCleaned(t *testing.T) {
	st, err := ParseState("s.json", []byte(`{"issue": "a", "opened_files": ["./pkg//a.py", "b.py"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(st.OpenedFiles, " "); got != "pkg/a.py b.py" {
		t.Errorf("opened files %q, want pkg/a.py b.py", got)
	}
}

// TestSurrogatePairsAccepted: an escaped surrogate pair is a character,
// and an escaped backslash before "ud800" is no escape at all.
func TestSurrogatePairsAccepted(t *testing.T) {
	for _, card := range []string{`{"issue": "smile \ud83d\ude00"}`, `{"issue": "a\\ud800 b"}`, `{"issue": "\\\ud83d\ude00"}`} {
		if _, err := ParseState("s.json", []byte(card)); err != nil {
			t.Errorf("ParseState(%s): %v", card, err)
		}
	}
}
