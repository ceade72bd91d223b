package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/index"
	"github.com/missingcomplement/mss/internal/gittest"
	"github.com/missingcomplement/mss/segment"
)

func runRecover(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	return runCmd(t, newRecoverCmd(), stdin, args...)
}

// recoverRepo writes a small Python repository (no git needed).
func recoverRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"pkg/parse.py": "def parse_header(line):\n    key, value = line.split(':')\n    return key, value\n\n\ndef parse_headers(lines):\n    return dict(parse_header(l) for l in lines)\n",
		"pkg/send.py":  "def encode_request(req):\n    return req.method + ' ' + req.url\n",
		"pkg/util.py":  "def to_native(s):\n    return s.decode()\n",
	}
	gittest.WriteTree(t, dir, files)
	return dir
}

func TestRecoverJSON(t *testing.T) {
	repo := recoverRepo(t)
	state := `{"issue": "parse_header fails on values containing ':'",
	  "observed_spans": [{"path": "pkg/parse.py", "start_line": 6, "end_line": 7}]}`
	out, stderr, err := runRecover(t, state, "--repo", repo, "--db", "", "--state", "-", "--json")
	if err != nil {
		t.Fatalf("recover: %v\n%s", err, stderr)
	}
	var got struct {
		Units []struct {
			Path      string `json:"path"`
			StartLine int    `json:"start_line"`
			EndLine   int    `json:"end_line"`
			Symbol    string `json:"symbol"`
			Tokens    int    `json:"tokens"`
			Content   string `json:"content"`
		} `json:"units"`
		Method string            `json:"method"`
		Trace  []json.RawMessage `json:"trace"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if got.Method != "complement" || len(got.Trace) == 0 {
		t.Errorf("method %q, %d trace steps; want complement with a trace", got.Method, len(got.Trace))
	}
	if len(got.Units) == 0 || got.Units[0].Symbol != "parse_header" || got.Units[0].Content == "" || got.Units[0].Tokens == 0 {
		t.Fatalf("first unit = %+v, want parse_header with content and tokens", got.Units)
	}
	for _, u := range got.Units {
		if u.Path == "pkg/parse.py" && u.StartLine <= 7 && u.EndLine >= 6 {
			t.Errorf("returned the observed span: %+v", u)
		}
	}
	// Text output with --explain, from a file, with a baseline method.
	sp := filepath.Join(t.TempDir(), "state.json")
	os.WriteFile(sp, []byte(state), 0o644)
	out, _, err = runRecover(t, "", "--db", filepath.Join(repo, ".mss", "index.db"), "--state", sp, "--method", "bm25", "--explain")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "pkg/parse.py:1-3 parse_header") || !strings.Contains(out, "── method bm25") {
		t.Errorf("text output lacks the unit header or the explanation:\n%s", out)
	}
}

// TestRecoverText: --issue and --need give the card a file of those two
// fields would, with the same answer; a card and text together, or
// neither, are refused; text a card would refuse is refused the same way.
func TestRecoverText(t *testing.T) {
	repo := recoverRepo(t)
	issue, need := "parse_header fails on values containing ':'", "Find the code that splits a header line."
	card, err := json.Marshal(map[string]string{"issue": issue, "information_need": need})
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := runRecover(t, string(card), "--repo", repo, "--state", "-", "--json")
	if err != nil {
		t.Fatal(err)
	}
	got, stderr, err := runRecover(t, "", "--repo", repo, "--issue", issue, "--need", need, "--json")
	if err != nil {
		t.Fatalf("recover --issue --need: %v\n%s", err, stderr)
	}
	if got != want || !strings.Contains(got, `"symbol": "parse_header"`) {
		t.Errorf("--issue/--need answered\n%s\nthe same card from a file\n%s", got, want)
	}
	if out, _, err := runRecover(t, "", "--repo", repo, "--issue", issue); err != nil || !strings.Contains(out, "parse_header") {
		t.Errorf("--issue alone: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--state", "-", "--issue", issue}, "not both"},
		{nil, "name a state card (--state FILE"},
		{[]string{"--issue", " \n "}, "no text to recover evidence for"},
		{[]string{"--issue", strings.Repeat("x", mss.MaxTextBytes+1)}, "--issue/--need:1: field issue: 262145 bytes"},
		// Bytes that are not UTF-8 are refused as in a card file, not
		// read as U+FFFD.
		{[]string{"--issue", "caf\xff"}, "state --issue/--need: field issue: not UTF-8 text"},
		{[]string{"--issue", issue, "--need", "split \"caf\xe9\"\nhere"}, "state --issue/--need: field information_need: not UTF-8 text"},
	} {
		_, _, err := runRecover(t, string(card), append([]string{"--repo", repo}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.40q: %.200v, want an error naming %q", tc.args, err, tc.want)
		}
	}
}

func TestRecoverBadInput(t *testing.T) {
	repo := recoverRepo(t)
	empty := t.TempDir()
	tests := []struct {
		name, stdin string
		args        []string
		wantErr     string // "" means success
		wantStderr  string
	}{
		{"no text", `{"state_id": "x", "opened_files": ["a.py"]}`, []string{"--repo", repo}, "no text to recover evidence for", ""},
		{"syntax", "{\n\"issue\": \"x\",\n\"observed_spans\": [\n}", []string{"--repo", repo}, "<stdin>:4", ""},
		{"type", "{\"issue\": \"x\",\n \"observed_spans\": 3}", []string{"--repo", repo}, `<stdin>:2: field observed_spans: want []mss.Span`, ""},
		{"white space", " \n \n", []string{"--repo", repo}, "<stdin>: only white space", ""},
		{"byte-order mark", "\ufeff{\"issue\": \"parse_header\"}", []string{"--repo", repo}, "", ""},
		{"unknown field", "{\"issue\": \"x\",\n\"observed_span\": []}", []string{"--repo", repo}, "<stdin>:2: field observed_span: unknown field", ""},
		{"oversized", strings.Repeat(" ", 5<<20), []string{"--repo", repo}, "larger than", ""},
		{"bad span", `{"issue": "x", "observed_spans": [{"path": "a.py", "start_line": 5, "end_line": 2}]}`, []string{"--repo", repo}, "observed_spans[0]", ""},
		{"no repo", `{"issue": "x"}`, nil, "--repo", ""},
		{"unknown method", `{"issue": "x"}`, []string{"--repo", repo, "--method", "nope"}, "unknown method", ""},
		{"unknown order", `{"issue": "x"}`, []string{"--repo", repo, "--order", "best"}, `--order "best": want fused, learned or an order model's file`, ""},
		{"learned order", `{"issue": "parse_header"}`, []string{"--repo", repo, "--order", "learned"}, "", ""},
		{"unknown observed path", `{"issue": "parse_header", "observed_spans": [{"path": "gone.py", "start_line": 1, "end_line": 2}]}`, []string{"--repo", repo}, "", "gone.py is not in the index"},
		{"empty repository", `{"issue": "parse_header"}`, []string{"--repo", empty}, "", "no units recovered"},
		{"tiny budget", `{"issue": "parse_header"}`, []string{"--repo", repo, "--budget", "2"}, "", "budget"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--state", "-"}, tc.args...)
			_, stderr, err := runRecover(t, tc.stdin, args...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to mention %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v, want success", err)
			}
			if !strings.Contains(stderr, tc.wantStderr) {
				t.Errorf("stderr = %q, want it to mention %q", stderr, tc.wantStderr)
			}
		})
	}
}

// TestRecoverAfterEdit: after an edit, recover answers from the stored
// structures overlaid with the edited file rather than deriving them
// again; --exact derives them, and so does an edit too large to overlay.
func TestRecoverAfterEdit(t *testing.T) {
	repo := recoverRepo(t)
	gittest.WriteTree(t, repo, map[string]string{"pkg/shades.py": gittest.Filler(60)})
	db := filepath.Join(repo, ".mss", "index.db")
	meta := func() index.Meta {
		t.Helper()
		ix, err := index.Open(db)
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		return ix.Meta()
	}
	ask := func(issue string, args ...string) string {
		t.Helper()
		out, stderr, err := runRecover(t, `{"issue": "`+issue+`"}`, append([]string{"--repo", repo, "--state", "-", "--json"}, args...)...)
		if err != nil {
			t.Fatalf("recover: %v\n%s", err, stderr)
		}
		var got struct {
			Units []struct {
				Symbol string `json:"symbol"`
			} `json:"units"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.Units) == 0 {
			t.Fatalf("output %v:\n%s", err, out)
		}
		return got.Units[0].Symbol
	}
	ask("`parse_header` fails on values containing ':'")
	if m := meta(); m.Derived == "" {
		t.Fatal("a new index has no stored structures")
	}
	edit := func(name string) {
		t.Helper()
		src, _ := os.ReadFile(filepath.Join(repo, "pkg/send.py"))
		gittest.WriteTree(t, repo, map[string]string{"pkg/send.py": string(src) + "\n\ndef " + name + "(req):\n    return encode_request(req)\n"})
	}
	edit("retry_request")
	if got := ask("`retry_request` sends twice"); got != "retry_request" {
		t.Errorf("after an edit the first unit is %s, want retry_request", got)
	}
	if m := meta(); m.Derived != "" || m.Base == "" {
		t.Errorf("after an edit: derived %q, base %q; want the structures kept and overlaid, not derived", m.Derived, m.Base)
	}
	// An index opened as it is overlays what it keeps too.
	if out, stderr, err := runRecover(t, `{"issue": "`+"`retry_request` sends twice"+`"}`, "--db", db, "--state", "-", "--json"); err != nil || !strings.Contains(out, `"symbol": "retry_request"`) {
		t.Errorf("--db after an edit: %v\n%s%s", err, stderr, out)
	}
	edit("resend_request")
	if got := ask("`resend_request` sends twice", "--exact"); got != "resend_request" {
		t.Errorf("with --exact the first unit is %s, want resend_request", got)
	}
	if m := meta(); m.Derived == "" || m.Base != "" {
		t.Errorf("with --exact: derived %q, base %q; want them derived", m.Derived, m.Base)
	}
	files := map[string]string{}
	for k := range 40 {
		files[fmt.Sprintf("gen/g%d.py", k)] = fmt.Sprintf("def generated_%d():\n    return %d\n", k, k)
	}
	gittest.WriteTree(t, repo, files)
	if got := ask("`generated_7` returns the wrong number"); got != "generated_7" {
		t.Errorf("after a large change the first unit is %s, want generated_7", got)
	}
	if m := meta(); m.Derived == "" {
		t.Errorf("after a change too large to overlay: derived %q, base %q; want them derived", m.Derived, m.Base)
	}
}

// TestExampleStateCurrent: the README's example state card says it has
// read units of this repository; each observed span must still be the
// unit of its symbol, or the example answers for code that moved.
func TestExampleStateCurrent(t *testing.T) {
	root := filepath.Join("..", "..")
	f, err := os.Open(filepath.Join(root, "testdata", "example-state.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := mss.DecodeState("example-state.json", f)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.ObservedSpans) == 0 {
		t.Fatal("the example state observes nothing")
	}
	for _, sp := range st.ObservedSpans {
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(sp.Path)))
		if err != nil {
			t.Fatal(err)
		}
		var units []string
		found := false
		for _, u := range segment.Segment(sp.Path, src).Units {
			if u.Symbol == sp.Symbol {
				units = append(units, fmt.Sprintf("%d-%d", u.StartLine, u.EndLine))
				found = found || u.StartLine == sp.StartLine && u.EndLine == sp.EndLine
			}
		}
		if !found {
			t.Errorf("observed span %s:%d-%d %s: the unit of %s is at %v now", sp.Path, sp.StartLine, sp.EndLine, sp.Symbol, sp.Symbol, units)
		}
	}
}

// A unit the index holds but its file no longer does is left out of the
// answer, and recover says so on standard error.
func TestRecoverWarnsLeftOut(t *testing.T) {
	repo := recoverRepo(t)
	state := `{"issue": "` + "`parse_header` fails on values containing ':'" + `"}`
	if _, stderr, err := runRecover(t, state, "--repo", repo, "--state", "-"); err != nil {
		t.Fatalf("recover: %v\n%s", err, stderr)
	}
	gittest.WriteTree(t, repo, map[string]string{"pkg/parse.py": "def parse_header(line):\n    key, value = line.split(':', 1)\n    return key, value\n\n\ndef parse_headers(lines):\n    return dict(parse_header(l) for l in lines)\n"})
	out, stderr, err := runRecover(t, state, "--db", filepath.Join(repo, ".mss", "index.db"), "--state", "-")
	if err != nil {
		t.Fatalf("recover --db: %v\n%s", err, stderr)
	}
	if strings.Contains(out, "split(':')") {
		t.Errorf("the answer holds the text the file no longer has:\n%s", out)
	}
	if !strings.Contains(stderr, "mss: warning: pkg/parse.py:1-3 left out: file changed since indexing") {
		t.Errorf("stderr does not say parse_header was left out:\n%s\nstdout:\n%s", stderr, out)
	}
}

// TestRecoverAllLeftOut: when every unit chosen is left out at the
// check against the files, or nothing fits the budget, "no units
// recovered" says so, not the last step of the selection's trace.
func TestRecoverAllLeftOut(t *testing.T) {
	repo := recoverRepo(t)
	state := `{"issue": "` + "`to_native` fails on str" + `"}`
	if _, stderr, err := runRecover(t, state, "--repo", repo, "--state", "-"); err != nil {
		t.Fatalf("recover: %v\n%s", err, stderr)
	}
	if err := os.Remove(filepath.Join(repo, "pkg", "util.py")); err != nil {
		t.Fatal(err)
	}
	out, stderr, err := runRecover(t, state, "--db", filepath.Join(repo, ".mss", "index.db"), "--state", "-", "--max-units", "1")
	if err != nil {
		t.Fatalf("recover --db: %v\n%s", err, stderr)
	}
	if strings.Contains(out, "to_native") {
		t.Errorf("the answer holds a unit whose file is gone:\n%s", out)
	}
	if want := "mss: no units recovered: the one unit chosen was left out when checked against its file"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	// A budget nothing fits: that is the reason, not what stayed uncovered.
	_, stderr, err = runRecover(t, `{"issue": "`+"`parse_header` fails"+`"}`, "--repo", repo, "--state", "-", "--budget", "3")
	if err != nil {
		t.Fatalf("recover --budget 3: %v\n%s", err, stderr)
	}
	if want := "mss: no units recovered: no unread candidate fits the budget of 3 tokens\n"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
}

// A price setting recover cannot read is refused, as bench repo refuses it.
func TestRecoverBadPrice(t *testing.T) {
	repo := recoverRepo(t)
	setFlags = []string{"price.m1=abc"}
	defer func() { setFlags = nil }()
	_, _, err := runRecover(t, `{"issue": "parse_header"}`, "--repo", repo, "--state", "-")
	if err == nil || !strings.Contains(err.Error(), `setting price.m1="abc"`) {
		t.Errorf("recover --set price.m1=abc: %v, want a refusal", err)
	}
}

// A Latin-1 file's unit reaches a JSON client byte for byte.
func TestRecoverJSONBytesNotUTF8(t *testing.T) {
	dir := t.TempDir()
	src := "def greeting_text():\n    return \"caf\xe9 cr\xe8me\"\n"
	gittest.WriteTree(t, dir, map[string]string{"pkg/greet.py": src})
	state := "{\"issue\": \"`greeting_text` returns mangled accents\"}"
	out, stderr, err := runRecover(t, state, "--repo", dir, "--db", "", "--state", "-", "--json")
	if err != nil {
		t.Fatalf("recover: %v\n%s", err, stderr)
	}
	var got struct {
		Units []struct {
			Path         string `json:"path"`
			Content      string `json:"content"`
			ContentBytes []byte `json:"content_bytes"`
		} `json:"units"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if len(got.Units) != 1 || got.Units[0].Path != "pkg/greet.py" {
		t.Fatalf("units = %+v, want pkg/greet.py", got.Units)
	}
	if u := got.Units[0]; string(u.ContentBytes) != src || !strings.Contains(u.Content, "caf\uFFFD") {
		t.Errorf("content %q, content_bytes %q; want readable text and the file's bytes %q", u.Content, u.ContentBytes, src)
	}
}

// A damaged index is rebuilt, or its structures derived again, and
// recover says so on stderr and answers.
func TestRecoverSaysIndexRepaired(t *testing.T) {
	repo := recoverRepo(t)
	state := `{"issue": "parse_header fails on values containing ':'"}`
	if _, stderr, err := runRecover(t, state, "--repo", repo, "--state", "-"); err != nil {
		t.Fatalf("recover: %v\n%s", err, stderr)
	}
	db := filepath.Join(repo, ".mss", "index.db")
	derived, _ := filepath.Glob(db + ".*.derived")
	if len(derived) != 1 {
		t.Fatalf("derived files %v", derived)
	}
	os.WriteFile(derived[0], []byte("damaged"), 0o644)
	out, stderr, err := runRecover(t, state, "--repo", repo, "--state", "-")
	if err != nil || !strings.Contains(out, "parse_header") || !strings.Contains(stderr, "derived file was missing or damaged; deriving its retrieval structures again") {
		t.Errorf("over a damaged derived file: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr)
	}
	b, _ := os.ReadFile(db)
	os.WriteFile(db, b[:len(b)/3], 0o644)
	out, stderr, err = runRecover(t, state, "--repo", repo, "--state", "-")
	if err != nil || !strings.Contains(out, "parse_header") || !strings.Contains(stderr, "corrupt") || !strings.Contains(stderr, "rebuilding it") {
		t.Errorf("over a damaged index: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr)
	}
}

// A file whose name is not UTF-8 cannot be named in JSON (U+FFFD would
// name another file): recover --json and index ls --json leave it out
// with a warning, index show --json refuses it, and the text outputs
// name it quoted. An empty file is "empty" to ls and show alike.
func TestJSONLeavesOutNamesNotUTF8(t *testing.T) {
	dir := t.TempDir()
	bad := "lat\xe9.py"
	gittest.WriteTree(t, dir, map[string]string{bad: "def parse_config(text):\n    return text.split('=')\n", "e.py": ""})
	out, stderr, err := runRecover(t, `{"issue": "parse_config fails"}`, "--repo", dir, "--state", "-", "--json")
	if err != nil {
		t.Fatalf("recover: %v\n%s", err, stderr)
	}
	if strings.Contains(out, "lat") || !strings.Contains(stderr, `"lat\xe9.py":1-2 left out: its path is not UTF-8`) {
		t.Errorf("recover --json: stdout %s\nstderr %s\nwant the unit left out with a warning", out, stderr)
	}
	out, stderr, err = runCmd(t, newIndexLsCmd(), "", "--repo", dir, "--json")
	if err != nil || strings.Contains(out, "lat") || !strings.Contains(stderr, `"lat\xe9.py" left out`) {
		t.Errorf("ls --json: %v\nstdout %s\nstderr %s", err, out, stderr)
	}
	if _, _, err := runCmd(t, newIndexShowCmd(), "", "--repo", dir, "--json", bad); err == nil || !strings.Contains(err.Error(), "not UTF-8") {
		t.Errorf("show --json of a name not UTF-8: %v, want a refusal", err)
	}
	if out, _, err := runCmd(t, newIndexShowCmd(), "", "--repo", dir, bad); err != nil || !strings.Contains(out, "parse_config") {
		t.Errorf("show: %v\n%s", err, out)
	}
	if _, _, err := runCmd(t, newIndexShowCmd(), "", "--repo", dir, "e.py"); err == nil || !strings.HasSuffix(err.Error(), "e.py has no units: empty") {
		t.Errorf("show of an empty file: %v, want it called empty", err)
	}
	if out, _, err := runCmd(t, newIndexLsCmd(), "", "--repo", dir); err != nil || !strings.Contains(out, "empty") {
		t.Errorf("ls: %v\n%s", err, out)
	}
}

// TestExplainNamesDeliveredUnits: a trace step about a delivered unit that
// no candidate was (a unit grown or joined from candidates has an id of its
// own) names it by path, lines and symbol, as steps about candidates are
// named, never by its id.
func TestExplainNamesDeliveredUnits(t *testing.T) {
	cand := mss.Unit{ID: "aaaaaaaaaaaaaaaa", Path: "pkg/a.py", StartLine: 1, EndLine: 3, Symbol: "f"}
	grown := mss.Unit{ID: "bbbbbbbbbbbbbbbb", Path: "pkg/a.py", StartLine: 1, EndLine: 9, Symbol: "f", Tokens: 30}
	res := &mss.Result{Method: "complement", Units: []mss.Unit{grown}, Trace: []mss.TraceStep{
		{Stage: "select", UnitID: cand.ID, Reason: "relevance"},
		{Stage: "render", UnitID: grown.ID, Reason: "the test the state asks for goes last; grown from " + cand.ID},
	}}
	var b strings.Builder
	writeExplain(&b, res, []mss.Candidate{{Unit: cand}}, 6144)
	out := b.String()
	for _, want := range []string{"select       pkg/a.py:1-3 f  relevance", "render       pkg/a.py:1-9 f  the test the state asks for goes last; grown from pkg/a.py:1-3 f"} {
		if !strings.Contains(out, want) {
			t.Errorf("explanation lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, grown.ID) || strings.Contains(out, cand.ID) {
		t.Errorf("explanation names a unit by its id:\n%s", out)
	}
}
