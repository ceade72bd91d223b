package server

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// shown is a unit as an agent reads it in a recover_evidence answer.
type shown struct {
	Path       string
	Start, End int
	Symbol     string
	Lines      []string // source lines, by printed line number from Start
}

var (
	headerRE = regexp.MustCompile(`^── \[\d+\] (\S+):(\d+)-(\d+)(?: (\S+))? \(\d+ tokens\)$`)
	lineRE   = regexp.MustCompile(`^ *(\d+)  (.*)$`)
)

func parseAnswer(t *testing.T, text string) []shown {
	t.Helper()
	var out []shown
	for l := range strings.SplitSeq(text, "\n") {
		if m := headerRE.FindStringSubmatch(l); m != nil {
			a, _ := strconv.Atoi(m[2])
			b, _ := strconv.Atoi(m[3])
			out = append(out, shown{Path: m[1], Start: a, End: b, Symbol: m[4]})
			continue
		}
		if m := lineRE.FindStringSubmatch(l); m != nil && len(out) > 0 {
			cur := &out[len(out)-1]
			n, _ := strconv.Atoi(m[1])
			if n != cur.Start+len(cur.Lines) {
				t.Fatalf("line %d of %s out of sequence in answer:\n%s", n, cur.Path, text)
			}
			cur.Lines = append(cur.Lines, m[2])
		}
	}
	return out
}

func callText(t *testing.T, cs *mcp.ClientSession, tool string, args any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	if res.IsError {
		t.Fatalf("%s returned an error: %s", tool, b.String())
	}
	return b.String()
}

// checkCurrent asserts every shown unit matches the file on disk at the
// printed line numbers.
func checkCurrent(t *testing.T, dir string, units []shown) {
	t.Helper()
	for _, u := range units {
		data, err := os.ReadFile(filepath.Join(dir, u.Path))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		if u.End > len(lines) || len(u.Lines) != u.End-u.Start+1 {
			t.Fatalf("%s:%d-%d: %d lines shown, file has %d", u.Path, u.Start, u.End, len(u.Lines), len(lines))
		}
		if d := cmp.Diff(lines[u.Start-1:u.End], u.Lines); d != "" {
			t.Errorf("%s:%d-%d differs from the file (-file +shown):\n%s", u.Path, u.Start, u.End, d)
		}
	}
}

func connect(t *testing.T, svc *Service) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := NewMCPServer(svc, "test").Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

var headerIssue = map[string]any{
	"issue":            "parse_header drops the last field of a header line",
	"information_need": "where header fields are split and joined",
	"max_units":        2,
}

func TestMCPSessionExcludesDeliveredAndFollowsEdits(t *testing.T) {
	svc, dir := newTestService(t, nil)
	cs := connect(t, svc)
	ctx := context.Background()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	sort.Strings(names)
	if d := cmp.Diff([]string{"index_status", "mark_observed", "recover_evidence", "search_code"}, names); d != "" {
		t.Errorf("tools (-want +got):\n%s", d)
	}

	first := parseAnswer(t, callText(t, cs, "recover_evidence", headerIssue))
	if len(first) == 0 {
		t.Fatal("first answer is empty")
	}
	checkCurrent(t, dir, first)
	if !hasSymbol(first, "parse_header") {
		t.Errorf("first answer %v lacks parse_header", first)
	}
	second := parseAnswer(t, callText(t, cs, "recover_evidence", headerIssue))
	if len(second) == 0 {
		t.Fatal("second answer is empty")
	}
	for _, a := range second {
		for _, b := range first {
			if a.Path == b.Path && a.Start <= b.End && b.Start <= a.End {
				t.Errorf("second answer repeats %s:%d-%d delivered first", a.Path, a.Start, a.End)
			}
		}
	}

	// Edit: prepend lines to the Go file and ask about it; the answer shows
	// the shifted lines.
	goFile := filepath.Join(dir, "cmd/tool/main.go")
	old, _ := os.ReadFile(goFile)
	edited := strings.Replace(string(old), "package main\n", "package main\n\n// Tool prints its non-flag arguments.\n// It has no flags yet.\n", 1)
	if err := os.WriteFile(goFile, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	goState := map[string]any{"issue": "parseArgs keeps flag arguments", "information_need": "parseArgs in main.go", "max_units": 4}
	fourth := parseAnswer(t, callText(t, cs, "recover_evidence", goState))
	if !hasSymbol(fourth, "parseArgs") {
		t.Fatalf("answer after the edit lacks parseArgs: %v", fourth)
	}
	checkCurrent(t, dir, fourth)
	// The unit starts at its doc comment, line 12 before the edit.
	for _, u := range fourth {
		if u.Symbol == "parseArgs" && u.Start != 12+3 {
			t.Errorf("parseArgs shown at line %d, want %d after the edit", u.Start, 12+3)
		}
	}

	// The agent reads util.py itself; answers must not offer it again.
	callText(t, cs, "mark_observed", map[string]any{"observed_spans": []mss.Span{{Path: "widgets/util.py", StartLine: 1, EndLine: 100}}})
	wide := map[string]any{"issue": headerIssue["issue"], "information_need": "split_fields Reader read_header SEP", "max_units": 8}
	third := parseAnswer(t, callText(t, cs, "recover_evidence", wide))
	for _, u := range third {
		if u.Path == "widgets/util.py" {
			t.Errorf("third answer offers %s:%d-%d, which the agent marked as read", u.Path, u.Start, u.End)
		}
	}

	status := callText(t, cs, "index_status", map[string]any{})
	if !strings.Contains(status, `"generation": 2`) {
		t.Errorf("index_status after one edit should report generation 2:\n%s", status)
	}
	found := callText(t, cs, "search_code", map[string]any{"query": "emit_header"})
	if !strings.Contains(found, "widgets/header.py:") {
		t.Errorf("search_code emit_header:\n%s", found)
	}
}

func hasSymbol(units []shown, sym string) bool {
	for _, u := range units {
		if strings.HasSuffix(u.Symbol, sym) {
			return true
		}
	}
	return false
}

func TestMCPStreamableHTTPSessions(t *testing.T) {
	svc, dir := newTestService(t, nil)
	ts := httptest.NewServer(NewMCPHandler(NewMCPServer(svc, "test"), svc, 0))
	t.Cleanup(ts.Close) // after the clients' cleanups, which close their streams
	ctx := context.Background()
	dial := func() *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	a := parseAnswer(t, callText(t, dial(), "recover_evidence", headerIssue))
	var before int
	for _, u := range a {
		if u.Symbol == "parse_header" {
			before = u.Start
		}
	}
	if before == 0 {
		t.Fatalf("session A: no parse_header in %v", a)
	}
	p := filepath.Join(dir, "widgets/header.py")
	old, _ := os.ReadFile(p)
	if err := os.WriteFile(p, append([]byte("# one\n# two\n# three\n"), old...), 0o644); err != nil {
		t.Fatal(err)
	}
	// A new session has seen nothing: it gets parse_header again, moved.
	b := parseAnswer(t, callText(t, dial(), "recover_evidence", headerIssue))
	checkCurrent(t, dir, b)
	for _, u := range b {
		if u.Symbol == "parse_header" && u.Start != before+3 {
			t.Errorf("session B: parse_header at %d, want %d", u.Start, before+3)
		}
	}
	if !hasSymbol(b, "parse_header") {
		t.Errorf("session B: no parse_header in %v", b)
	}
}

// callTool calls tool with the raw arguments args and gives whether the
// result is an error, and its first text.
func callTool(t *testing.T, cs *mcp.ClientSession, tool, args string) (bool, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s %q: %v", tool, args, err)
	}
	text := ""
	if len(res.Content) > 0 {
		text = res.Content[0].(*mcp.TextContent).Text
	}
	return res.IsError, text
}

// Arguments that give a field twice would be read as the last value; the
// tools refuse them as every state-card reader does.
func TestMCPRefusesRepeatedKeys(t *testing.T) {
	svc, _ := newTestService(t, nil)
	cs := connect(t, svc)
	for _, tc := range []struct{ tool, args, field string }{
		{"recover_evidence", `{"issue": "parse_header drops a field", "issue": "something else"}`, "issue"},
		{"recover_evidence", `{"issue": "x", "observed_spans": [{"path": "a.py", "start_line": 1, "end_line": 2, "end_line": 9}]}`, "observed_spans[0].end_line"},
		{"recover_evidence", `{"issue": "x", "max_units": 1, "max_units": 8}`, "max_units"},
		{"mark_observed", `{"observed_spans": [{"path": "a.py", "start_line": 1, "start_line": 3, "end_line": 4}]}`, "observed_spans[0].start_line"},
		{"search_code", `{"query": "split_fields", "query": "parse_header"}`, "query"},
	} {
		isError, text := callTool(t, cs, tc.tool, tc.args)
		if !isError || !strings.Contains(text, "field "+tc.field+": given twice") {
			t.Errorf("%s %s: error %v, %q; want a refusal naming %s", tc.tool, tc.args, isError, text, tc.field)
		}
	}
}

// TestMCPRefusesWrongTypes: a value of the wrong type for a field (a
// count past an int's range, a fraction, a string for a line), an unknown
// field and a null are refused with the HTTP API's message, naming the
// field, not Go's types.
func TestMCPRefusesWrongTypes(t *testing.T) {
	svc, _ := newTestService(t, nil)
	cs := connect(t, svc)
	for _, tc := range []struct{ tool, args, want string }{
		{"recover_evidence", `{"issue": "x", "budget_tokens": 1e400}`, "field budget_tokens: want int, got JSON number 1e400"},
		{"recover_evidence", `{"issue": "x", "budget_tokens": 99999999999999999999}`, "field budget_tokens: want int, got JSON number 99999999999999999999"},
		{"recover_evidence", `{"issue": "x", "max_units": 2.5}`, "field max_units: want int, got JSON number 2.5"},
		{"mark_observed", `{"observed_spans": [{"path": "a.py", "start_line": "1", "end_line": 2}]}`, "field observed_spans[0].start_line: want int, got JSON string"},
		{"search_code", `{"query": "parse_header", "limit": "ten"}`, "field limit: want int, got JSON string"},
		// Unknown keys, keys named in another case and nulls get the HTTP
		// API's message too, not the input schema's.
		{"recover_evidence", `{"issue": "x", "bogus": 1}`, `unknown field "bogus"`},
		{"recover_evidence", `{"Issue": "x"}`, `field Issue: unknown field (field names are case-sensitive; did you mean "issue"?)`},
		{"recover_evidence", `{"issue": "x", "observed_spans": [{"path": "a.py", "start_line": 1, "end_line": 2, "extra": 1}]}`, `unknown field "extra"`},
		{"recover_evidence", `{"issue": "x", "budget_tokens": null}`, "field budget_tokens: null; give a value, or leave the field out"},
		{"recover_evidence", `{"issue": "x", "search_queries": [null]}`, "field search_queries[0]: null; want a string"},
		{"recover_evidence", `{"issue": "x", "observed_spans": [{"path": "a.py", "start_line": 1, "end_line": null}]}`, "field observed_spans[0].end_line: null; want a line number"},
		{"search_code", `{"query": null}`, "field query: null; give a value, or leave the field out"},
	} {
		isError, text := callTool(t, cs, tc.tool, tc.args)
		if !isError || text != tc.want {
			t.Errorf("%s %s: error %v, %q; want %q", tc.tool, tc.args, isError, text, tc.want)
		}
	}
}

// Arguments holding bytes that are not UTF-8 would be read as U+FFFD;
// the tools refuse them, naming the field, as every state-card reader
// does. A null span is refused too.
func TestMCPRefusesNotUTF8(t *testing.T) {
	svc, _ := newTestService(t, nil)
	cs := connect(t, svc)
	for _, tc := range []struct{ tool, args, want string }{
		{"recover_evidence", "{\"issue\": \"caf\xff\"}", "field issue: not UTF-8 text"},
		{"recover_evidence", "{\"issue\": \"x\", \"search_queries\": [\"ok\", \"caf\xe9\"]}", "field search_queries[1]: not UTF-8 text"},
		// A null span, list or text field is refused as the HTTP API
		// refuses it.
		{"recover_evidence", `{"issue": "x", "observed_spans": [null]}`, "field observed_spans[0]: null; want a span object"},
		{"recover_evidence", `{"issue": "x", "observed_spans": null}`, "field observed_spans: null"},
		{"recover_evidence", `{"issue": null, "information_need": "x"}`, "field issue: null; want a string"},
		{"mark_observed", "{\"observed_spans\": [{\"path\": \"caf\xe9.py\", \"start_line\": 1, \"end_line\": 2}]}", "field observed_spans[0].path: not UTF-8 text"},
		{"search_code", "{\"query\": \"parse_header\xff\"}", "field query: not UTF-8 text"},
	} {
		isError, text := callTool(t, cs, tc.tool, tc.args)
		if !isError || !strings.Contains(text, tc.want) {
			t.Errorf("%s %q: error %v, %q; want a refusal containing %q", tc.tool, tc.args, isError, text, tc.want)
		}
	}
}

// A unit from a file that is not UTF-8 passes the tools' output schemas and
// carries the file's exact bytes in its structured content.
func TestMCPUnitBytesNotUTF8(t *testing.T) {
	svc, dir := newTestService(t, nil)
	src := "def accent_label(s):\n    return s + \" caf\xe9\"\n"
	if err := os.WriteFile(filepath.Join(dir, "accents.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, svc)
	for _, call := range []struct {
		tool string
		args any
	}{
		{"recover_evidence", map[string]any{"issue": "`accent_label` mangles the accent", "max_units": 1}},
		{"search_code", map[string]any{"query": "accent_label"}},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: call.tool, Arguments: call.args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", call.tool, err, res)
		}
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Units []struct {
				Path         string `json:"path"`
				ContentBytes []byte `json:"content_bytes"`
			} `json:"units"`
		}
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatalf("%s: %v\n%s", call.tool, err, raw)
		}
		if len(got.Units) == 0 || got.Units[0].Path != "accents.py" || string(got.Units[0].ContentBytes) != src {
			t.Errorf("%s: structured units %s, want accents.py with its bytes", call.tool, raw)
		}
	}
}
