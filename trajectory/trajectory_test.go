package trajectory

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
)

func parseFile(t *testing.T, f Format, name string, opts Options) *Trajectory {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Parse(f, name, bytes.NewReader(data), opts)
	if err != nil {
		t.Fatalf("Parse(%s, %s): %v", f, name, err)
	}
	return tr
}

// fixtureUnits are the units of the fixture repository the samples read.
var fixtureUnits = []mss.Unit{
	{ID: "h1", Path: "widgets/header.py", StartLine: 1, EndLine: 8, Kind: "module"},
	{ID: "h2", Path: "widgets/header.py", StartLine: 10, EndLine: 12, Symbol: "parse_header", Kind: "function"},
	{ID: "h3", Path: "widgets/header.py", StartLine: 31, EndLine: 32, Symbol: "emit", Kind: "function"},
	{ID: "u1", Path: "widgets/util.py", StartLine: 1, EndLine: 3, Kind: "module"},
	{ID: "u2", Path: "widgets/util.py", StartLine: 5, EndLine: 9, Symbol: "split", Kind: "function"},
}

func TestSWEAgent(t *testing.T) {
	tr := parseFile(t, SWEAgent, "sample.traj", Options{})
	if tr.Issue != "parse_header drops the last field" {
		t.Errorf("issue = %q", tr.Issue)
	}
	if tr.InstanceID != "acme__widgets-12" {
		t.Errorf("instance id = %q", tr.InstanceID)
	}
	type brief struct {
		Kind  Kind
		Path  string
		Query string
		Seen  []mss.Span
	}
	var got []brief
	for _, s := range tr.Steps {
		got = append(got, brief{s.Kind, s.Path, s.Query, s.Seen})
	}
	want := []brief{
		{Kind: Search, Query: "header.py"},
		{Kind: Read, Path: "widgets/header.py", Seen: []mss.Span{{Path: "widgets/header.py", StartLine: 10, EndLine: 12}}},
		{Kind: Read, Path: "widgets/header.py", Seen: []mss.Span{{Path: "widgets/header.py", StartLine: 31, EndLine: 32}}},
		{Kind: Search, Query: "split"},
		{Kind: Read, Path: "widgets/util.py", Seen: []mss.Span{{Path: "widgets/util.py", StartLine: 1, EndLine: 3}}},
		{Kind: Edit, Path: "widgets/header.py"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("steps (-want +got):\n%s", d)
	}
}

func TestJSONL(t *testing.T) {
	tr := parseFile(t, JSONL, "sample.jsonl", Options{})
	st, al, err := tr.State(StateOptions{Steps: 3, Units: fixtureUnits})
	if err != nil {
		t.Fatal(err)
	}
	want := &mss.State{
		StateID:           "sample@3",
		Issue:             "parse_header drops the last field",
		InformationNeed:   "where headers are parsed",
		CurrentHypothesis: "the separator is wrong",
		OpenedFiles:       []string{"widgets/util.py"},
		SearchQueries:     []string{"parse_header"},
		ObservedSpans: []mss.Span{
			{Path: "widgets/header.py", StartLine: 10, EndLine: 12, Symbol: "parse_header"},
			{Path: "widgets/util.py", StartLine: 1, EndLine: 3},
		},
	}
	if d := cmp.Diff(want, st); d != "" {
		t.Errorf("state (-want +got):\n%s", d)
	}
	if al.Seen != 2 || al.Units != 2 || len(al.Unaligned) != 0 {
		t.Errorf("alignment = %+v, want 2 seen, 2 units, none unaligned", al)
	}
}

func TestSERBenchCardAndPrefix(t *testing.T) {
	tr := parseFile(t, SERBench, "sample_serbench.json", Options{})
	// The whole prefix: the recorded card, with aligned observed spans.
	st, _, err := tr.State(StateOptions{Units: fixtureUnits})
	if err != nil {
		t.Fatal(err)
	}
	if st.StateID != "acme__widgets-12:after_file_inspection" || st.CurrentHypothesis != "slice bug" {
		t.Errorf("full prefix did not keep the recorded card: %+v", st)
	}
	if d := cmp.Diff([]string{"widgets/header.py", "widgets/util.py"}, st.OpenedFiles); d != "" {
		t.Errorf("opened files (-want +got):\n%s", d)
	}
	wantSpans := []mss.Span{
		{Path: "widgets/header.py", StartLine: 10, EndLine: 12, Symbol: "parse_header"},
		{Path: "widgets/util.py", StartLine: 1, EndLine: 3},
	}
	if d := cmp.Diff(wantSpans, st.ObservedSpans); d != "" {
		t.Errorf("observed (-want +got):\n%s", d)
	}
	// The first two steps: derived from step metadata.
	st, _, err = tr.State(StateOptions{Steps: 2, Units: fixtureUnits})
	if err != nil {
		t.Fatal(err)
	}
	want := &mss.State{
		StateID:            "acme__widgets-12:after_file_inspection@2",
		InstanceID:         "acme__widgets-12",
		Repo:               "acme/widgets",
		BaseCommit:         "0123456789abcdef0123456789abcdef01234567",
		Issue:              "parse_header drops the last field",
		InformationNeed:    "find the parser",
		CurrentHypothesis:  "the slice is off by one",
		CurrentSubgoal:     "locate parse_header",
		CurrentObservation: "QUERY: parse_header\n\n1. widgets\\header.py:10-12 symbol=parse_header type=function\ndef parse_header(line): ...",
		SearchQueries:      []string{"parse_header"},
		ObservedSpans:      wantSpans[:1],
	}
	if d := cmp.Diff(want, st); d != "" {
		t.Errorf("state at step 2 (-want +got):\n%s", d)
	}
}

func TestSERBenchSharedExample(t *testing.T) {
	f, err := os.Open("../../shared/serbench/example/items.jsonl")
	if err != nil {
		t.Skip("shared SERBench example not present:", err)
	}
	defer f.Close()
	data, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(SERBench, "items.jsonl", bytes.NewReader(data), Options{}); err == nil || !strings.Contains(err.Error(), "3 items") {
		t.Errorf("several items without a state id: err = %v, want one naming 3 items", err)
	}
	first := strings.SplitN(string(data), "\n", 2)[0]
	tr, err := Parse(SERBench, "items.jsonl", strings.NewReader(first), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Steps) != 6 {
		t.Fatalf("got %d steps, want 6", len(tr.Steps))
	}
	read := tr.Steps[3]
	if want := (mss.Span{Path: "django_celery_beat/admin.py", StartLine: 1, EndLine: 79}); read.Kind != Read || len(read.Seen) != 1 || read.Seen[0] != want {
		t.Errorf("step 3 = %v %v, want a read of %v", read.Kind, read.Seen, want)
	}
	if n := len(tr.Steps[1].Seen); n != 8 {
		t.Errorf("search step showed %d results, want 8", n)
	}
	tr2, err := Parse(SERBench, "items.jsonl", bytes.NewReader(data), Options{StateID: tr.StateID})
	if err != nil || tr2.StateID != tr.StateID {
		t.Errorf("choosing %q by id: %v", tr.StateID, err)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		f    Format
		in   string
		want string
	}{
		{JSONL, `{"tool": "read_file", "path": "a.py", "start_line": 5, "end_line": 2}`, "in.jsonl:1: field end_line"},
		{JSONL, "{\"tool\": \"plan\"}\n{\"tool\": \"read_file\"}", "in.jsonl:2: field path: missing"},
		{JSONL, `{"tool": "read_file", "path": "../etc/passwd"}`, "not a repository path"},
		{JSONL, `{"tool": "read_file", "paht": "a.py"}`, `unknown field "paht"`},
		{JSONL, `{"path": "a.py"}`, "field tool: missing"},
		{JSONL, `{"tool": "search", "results": [{"path": "a.py", "start_line": 0, "end_line": 3}]}`, "in.jsonl:1: field results[0]: lines 0-3 are not a 1-based range"},
		// A line past the last a span may name is refused by its line and
		// field, naming the limit.
		{JSONL, "{\"tool\": \"plan\"}\n{\"tool\": \"read_file\", \"path\": \"a.py\", \"start_line\": 1, \"end_line\": 2000000000}",
			"in.jsonl:2: field end_line: 2000000000; want a line of at most 1073741824"},
		{JSONL, `{"tool": "read_file", "path": "a.py", "start_line": 1073741825}`, "in.jsonl:1: field start_line: 1073741825; want a line of at most 1073741824"},
		{JSONL, `{"tool": "search", "results": [{"path": "a.py", "start_line": 1, "end_line": 1073741825}]}`, "in.jsonl:1: field results[0]: lines 1-1073741825 end past line 1073741824"},
		{SERBench, `{"state_id": "x", "trajectory_prefix": [{"action_type": "repo_search", "search_results": [{"path": "a.py", "line_start": 1, "line_end": 2000000000}]}]}`, "in.jsonl:1: trajectory_prefix[0]: search_results[0]: lines 1-2000000000 end past line 1073741824"},
		{SERBench, `[{"action_type": "read_file", "tool_output": "FILE a.py:3-2000000000\n"}]`, `in.jsonl: step 0: tool_output header "FILE a.py:3-2000000000": lines 3-2000000000 end past line 1073741824`},
		{SERBench, `[{"action_type": "read_file", "tool_output": "FILE a.py:9-3\n"}]`, `in.jsonl: step 0: tool_output header "FILE a.py:9-3": lines 9-3 are not a 1-based range`},
		{SERBench, `[{"action_type": "read_file", "tool_output": "FILE ../a.py:3-9\n"}]`, `in.jsonl: step 0: tool_output header "FILE ../a.py:3-9": "../a.py" is not a repository path`},
		// A key given twice would be read as its last value; state cards
		// refuse it and so does a step. Type errors name the JSON field.
		{JSONL, "{\"tool\": \"plan\"}\n{\"tool\": \"view\", \"path\": \"main.go\", \"path\": \"x.go\", \"start_line\": 1, \"end_line\": 2}", "in.jsonl:2: field path: given twice"},
		{JSONL, `{"tool": "search", "results": [{"path": "a.py", "start_line": 1, "end_line": 3, "end_line": 9}]}`, "in.jsonl:1: field results[0].end_line: given twice"},
		{JSONL, `{"Tool": "view", "path": "a.py"}`, `in.jsonl:1: field Tool: unknown field (field names are case-sensitive; did you mean "tool"?)`},
		{JSONL, "{\"tool\": \"plan\"}\n\n{\"tool\": \"view\", \"path\": \"a.py\", \"start_line\": \"3\"}", "in.jsonl:3: field start_line: want int, got JSON string"},
		{JSONL, `{"tool": "search", "results": [{"path": "a.py", "start_line": 1, "end_line": 3}, {"path": "a.py", "start_line": 1, "end_line": true}]}`, "in.jsonl:1: field results[1].end_line: want int, got JSON bool"},
		{SWEAgent, `{"history": []}`, "no field trajectory"},
		{SWEAgent, "{\"trajectory\": [{\"action\": \"open a.py\"},\n {\"action\": \"open b.py\", \"observation\": \"x\", \"action\": \"open c.py\"}]}",
			"in.jsonl:2: field trajectory[1].action: given twice; each field is named once"},
		{SERBench, "{\"state_id\": \"x\", \"trajectory_prefix\": []}\n{\"state_id\": \"y\", \"issue\": \"a\", \"issue\": \"b\", \"trajectory_prefix\": []}",
			"in.jsonl:2: field issue: given twice; each field is named once"},
		{SERBench, `{"state_id": "x", "trajectory_prefix": [{"action_type": "read_file", "action_input": "a.py", "action_input": "b.py"}]}`,
			"in.jsonl:1: field trajectory_prefix[0].action_input: given twice"},
		{SERBench, `[{"action_type": "plan_update"}, {"action_type": "read_file", "action_type": "edit_file"}]`,
			"in.jsonl:1: field [1].action_type: given twice"},
		{SWEAgent, `{"trajectory": [{"action": "open a.py", "state": 7}]}`, "trajectory[0].state"},
		{SERBench, `{"state_id": "x"}`, "no field trajectory_prefix"},
		{SERBench, `{"state_id": "x", "trajectory_prefix": [{"action_type": "repo_search", "search_results": [{"path": "a.py", "line_start": 4, "line_end": 1}]}]}`, "trajectory_prefix[0]: search_results[0]: lines 4-1 are not a 1-based range"},
		{SERBench, ``, "empty input"},
		{JSONL, "\n  \n", "in.jsonl: empty input: no step"},
		{JSONL, `{"tool": "read_file", "path": "a.py", "start_line": -1, "end_line": 0}`, "in.jsonl:1: field start_line: -1; want a line of 1 or more"},
		{JSONL, `{"tool": "read_file", "path": "a.py", "start_line": 2, "end_line": -3}`, "in.jsonl:1: field end_line: -3; want a line of 1 or more"},
		// Bytes that are not UTF-8 (a Latin-1 file printed raw) and half a
		// surrogate pair would be read as U+FFFD: refused by line and field.
		{JSONL, "{\"tool\": \"plan\"}\n{\"tool\": \"bash\", \"output\": \"caf\xe9\"}", "in.jsonl:2: field output: not UTF-8 text"},
		{SWEAgent, "{\"trajectory\": [\n {\"action\": \"cat a.py\", \"observation\": \"\\ud800\"}]}", `in.jsonl:2: field trajectory[0].observation: \ud800 is half a UTF-16 surrogate pair`},
		{SERBench, "{\"state_id\": \"x\",\n \"issue\": \"\xff\"}", "in.jsonl:2: field issue: not UTF-8 text"},
		// A null step is no step of nothing.
		{SERBench, `{"state_id": "x", "trajectory_prefix": [{"action_type": "plan_update"}, null]}`, "in.jsonl:1: trajectory_prefix[1]: null; want a step object"},
		{SERBench, `[null]`, "in.jsonl: step 0: null; want a step object"},
		{SWEAgent, `{"trajectory": [{"action": "open a.py"}, null]}`, "trajectory[1]: null"},
		{JSONL, "{\"tool\": \"plan\"}\nnull", "in.jsonl:2: field tool: missing"},
		{Format("nope"), `{}`, "unknown trajectory format"},
	}
	for _, tc := range tests {
		_, err := Parse(tc.f, "in.jsonl", strings.NewReader(tc.in), Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%s, %q): err = %v, want it to contain %q", tc.f, tc.in, err, tc.want)
		}
	}
}

func TestAlignSuffixAndUnaligned(t *testing.T) {
	seen := []mss.Span{
		{Path: "/testbed/widgets/header.py", StartLine: 11, EndLine: 31},
		{Path: "docs/notes.txt", StartLine: 1, EndLine: 4},
	}
	got, n, unaligned := Align(seen, fixtureUnits)
	want := []mss.Span{
		{Path: "docs/notes.txt", StartLine: 1, EndLine: 4},
		{Path: "widgets/header.py", StartLine: 10, EndLine: 12, Symbol: "parse_header"},
		{Path: "widgets/header.py", StartLine: 31, EndLine: 32, Symbol: "emit"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Align (-want +got):\n%s", d)
	}
	if n != 2 || !cmp.Equal(unaligned, []string{"docs/notes.txt"}) {
		t.Errorf("aligned %d, unaligned %v; want 2, [docs/notes.txt]", n, unaligned)
	}
}

// TestAlignOpenedFiles: opened files map to indexed paths by their
// longest suffix, as spans do; one that is then no repository-relative
// path (a library's file the agent read) is left out of the card and
// named apart, and without an index only relative paths stay.
func TestAlignOpenedFiles(t *testing.T) {
	files := []string{"/testbed/widgets/header.py", "/usr/lib/python3/json/__init__.py", "./widgets//header.py", "docs/notes.txt"}
	in, outside := alignFiles(files, unitsByPath(fixtureUnits))
	if !cmp.Equal(in, []string{"widgets/header.py", "docs/notes.txt"}) || !cmp.Equal(outside, []string{"/usr/lib/python3/json/__init__.py"}) {
		t.Errorf("with units: in %v, outside %v", in, outside)
	}
	in, outside = alignFiles(files, nil)
	if !cmp.Equal(in, []string{"widgets/header.py", "docs/notes.txt"}) || !cmp.Equal(outside, []string{"/testbed/widgets/header.py", "/usr/lib/python3/json/__init__.py"}) {
		t.Errorf("without units: in %v, outside %v", in, outside)
	}
}

// stateAndAlignment is a card made from a trajectory, and its alignment.
type stateAndAlignment struct {
	st *mss.State
	al *Alignment
}

// statesWithAndWithoutUnits parses in and makes its card twice: aligned
// to the fixture's units (the key true) and with no index (false).
func statesWithAndWithoutUnits(t *testing.T, f Format, name, in string) map[bool]stateAndAlignment {
	t.Helper()
	tr, err := Parse(f, name, strings.NewReader(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[bool]stateAndAlignment{}
	for _, units := range [][]mss.Unit{fixtureUnits, nil} {
		st, al, err := tr.State(StateOptions{Units: units})
		if err != nil {
			t.Fatal(err)
		}
		out[units != nil] = stateAndAlignment{st, al}
	}
	return out
}

// TestStateLeavesOutReadsOutside: lines the agent read of a file
// outside the repository (a library's) are left out of the card and
// named apart, with or without an index, so the card stays one every
// surface accepts.
func TestStateLeavesOutReadsOutside(t *testing.T) {
	in := `{"tool": "read_file", "issue": "parse_header drops the last field", "path": "/usr/lib/python3/json/decoder.py", "start_line": 1, "end_line": 3}
{"tool": "read_file", "path": "/testbed/widgets/header.py", "start_line": 10, "end_line": 12}
`
	for units, sa := range statesWithAndWithoutUnits(t, JSONL, "run.jsonl", in) {
		st, al := sa.st, sa.al
		if err := st.Validate(); err != nil {
			t.Errorf("units %v: card refused: %v", units, err)
		}
		want := []string{"/usr/lib/python3/json/decoder.py"}
		if !units {
			want = []string{"/testbed/widgets/header.py", "/usr/lib/python3/json/decoder.py"}
		}
		if !cmp.Equal(al.Outside, want) {
			t.Errorf("units %v: outside %v, want %v", units, al.Outside, want)
		}
		for _, s := range st.ObservedSpans {
			if strings.HasPrefix(s.Path, "/") {
				t.Errorf("units %v: observed span %+v of a file outside the repository", units, s)
			}
		}
	}
}

// TestStateNamesItemFilesOutside: a file a SERBench item's own card says
// was opened that climbs out of the repository is left out of the card
// and named apart, as a step's is, not dropped without a word.
func TestStateNamesItemFilesOutside(t *testing.T) {
	in := `{"state_id": "s", "issue": "parse_header drops the last field", "opened_files": ["widgets\\header.py", "../outside.py", "/usr/lib/python3/json/decoder.py"], "trajectory_prefix": []}`
	for units, sa := range statesWithAndWithoutUnits(t, SERBench, "item.json", in) {
		st, al := sa.st, sa.al
		if !cmp.Equal(st.OpenedFiles, []string{"widgets/header.py"}) {
			t.Errorf("units %v: opened files %v, want widgets/header.py", units, st.OpenedFiles)
		}
		if want := []string{"../outside.py", "/usr/lib/python3/json/decoder.py"}; !cmp.Equal(al.Outside, want) {
			t.Errorf("units %v: outside %v, want %v", units, al.Outside, want)
		}
	}
}

func TestStepOutOfRange(t *testing.T) {
	tr := parseFile(t, JSONL, "sample.jsonl", Options{})
	if _, _, err := tr.State(StateOptions{Steps: 9}); err == nil {
		t.Error("State(step 9) of a 4-step trajectory: no error")
	}
}
