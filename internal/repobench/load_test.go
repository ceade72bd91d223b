package repobench

import (
	"github.com/missingcomplement/mss/internal/gittest"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadStatesErrors(t *testing.T) {
	good := `{"state_id":"a:before_search","repo":"o/n","base_commit":"c","state_type":"before_search","issue":"x"}`
	tests := []struct {
		name, content, want string
	}{
		{"malformed json", good + "\n{\"state_id\": \n", "states.jsonl:2: unexpected end of JSON"},
		{"wrong type", `{"state_id":"a","repo":"o/n","base_commit":"c","state_type":"t","observed_spans":[{"path":"p","start_line":"1"}]}`,
			"states.jsonl:1: field observed_spans[0].start_line: want int, got JSON string"},
		{"missing repo", `{"state_id":"a","base_commit":"c","state_type":"t","issue":"x"}`, "states.jsonl:1: field repo: missing or empty"},
		{"missing commit", `{"state_id":"a","repo":"o/n","state_type":"t","issue":"x"}`, "states.jsonl:1: field base_commit: missing or empty"},
		{"duplicate", good + "\n\n" + good + "\n", `states.jsonl:3: field state_id: "a:before_search" already defined on line 1`},
		{"empty", "\n", "no states"},
		{"span without path", `{"state_id":"a","repo":"o/n","base_commit":"c","state_type":"t","issue":"x","observed_spans":[{"start_line":1}]}`,
			"states.jsonl:1: field observed_spans[0].path: not a repository-relative path: empty"},
		// The one reader of state cards (mss.ParseState) decides, as on
		// every other surface: unknown fields, paths out of the
		// repository, reversed spans and cards with no text are refused
		// when the file is read, naming its line.
		{"unknown field", good + "\n" + `{"state_id":"b","repo":"o/n","base_commit":"c","state_type":"t","issue":"x","zzz":1}`,
			"states.jsonl:2: field zzz: unknown field"},
		{"folded field", `{"state_id":"b","repo":"o/n","base_commit":"c","state_type":"t","Issue":"x"}`,
			`states.jsonl:1: field Issue: unknown field (field names are case-sensitive; did you mean "issue"?)`},
		{"climbing span", good + "\n" + `{"state_id":"b","repo":"o/n","base_commit":"c","state_type":"t","issue":"x","observed_spans":[{"path":"../x.py","start_line":1,"end_line":2}]}`,
			"states.jsonl:2: field observed_spans[0].path: not a repository-relative path"},
		{"reversed span", `{"state_id":"b","repo":"o/n","base_commit":"c","state_type":"t","issue":"x","observed_spans":[{"path":"x.py","start_line":9,"end_line":2}]}`,
			"states.jsonl:1: field observed_spans[0]: (x.py) lines 9-2 are not a 1-based range"},
		{"no text", `{"state_id":"b","repo":"o/n","base_commit":"c","state_type":"t"}`,
			"states.jsonl:1: no text to recover evidence for"},
		// A null list is refused, as everywhere a card is read.
		{"null list", good + "\n" + `{"state_id":"b","repo":"o/n","base_commit":"c","state_type":"t","issue":"x","observed_spans":null}`,
			"states.jsonl:2: field observed_spans: null; want a list ([] for none), or leave the field out"},
		// score.py compares an answer unit's path with a span's as
		// written: a span path the card reader would clean counts other
		// units as already read.
		{"dotted span", good + "\n" + `{"state_id":"b","repo":"o/n","base_commit":"c","state_type":"t","issue":"x","observed_spans":[{"path":"a.py","start_line":1,"end_line":2},{"path":"./a.py","start_line":1,"end_line":2}]}`,
			`states.jsonl:2: field observed_spans[1].path: "./a.py" is not written as the clean path "a.py"`},
		{"backslash span", `{"state_id":"b","repo":"o/n","base_commit":"c","state_type":"t","issue":"x","observed_spans":[{"path":"d\\e.py","start_line":1,"end_line":2}]}`,
			`states.jsonl:1: field observed_spans[0].path: "d\\e.py" is not written as the clean path "d/e.py"`},
		{"array", good + "\n[]", "states.jsonl:2: want a JSON object, got JSON array"},
		{"null", good + "\nnull", "states.jsonl:2: want a JSON object, got JSON null"},
	}
	for _, tc := range tests {
		p := filepath.Join(t.TempDir(), "states.jsonl")
		writeFile(t, p, tc.content)
		_, err := LoadStates(p)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
	p := filepath.Join(t.TempDir(), "states.jsonl")
	writeFile(t, p, "\n"+good+"\n")
	got, err := LoadStates(p)
	if err != nil || len(got) != 1 || got[0].StateID != "a:before_search" {
		t.Errorf("good file: got %v, %v", got, err)
	}
}

func TestLoadLabelsErrors(t *testing.T) {
	tests := []struct {
		name, content, want string
	}{
		{"no groups", `{"state_id":"a","required_groups":[]}`, "labels.jsonl:1: field required_groups: empty"},
		{"bad lines", `{"state_id":"a","required_groups":[{"path":"p","lines":[[1,"2"]]}]}`, "labels.jsonl:1: field required_groups[0].lines"},
		{"no path", `{"state_id":"a","required_groups":[{"lines":[[1,2]]}]}`, "labels.jsonl:1: field required_groups[0].path: missing or empty"},
		{"nul in path", `{"state_id":"a","required_groups":[{"path":"p","lines":[[1,2]]}],"alternative_sets":[[{"path":"\u0000invalid","lines":[[1,2]]}]]}`,
			`labels.jsonl:1: field alternative_sets[0][0].path: "\x00invalid" holds a NUL character`},
		{"empty alternative", `{"state_id":"a","required_groups":[{"path":"p","lines":[[1,2]]}],"alternative_sets":[[]]}`,
			"labels.jsonl:1: field alternative_sets[0]: empty set"},
		{"zero weights", `{"state_id":"a","required_groups":[{"path":"p","lines":[[1,2]],"necessity_weight":0}]}`,
			"labels.jsonl:1: field required_groups: necessity weights sum to zero"},
		// A range of another length would decode into [2]int without a
		// word: padded with zeros, or cut.
		{"one number", `{"state_id":"a","required_groups":[{"path":"p","lines":[[1,2],[5]]}]}`,
			"labels.jsonl:1: field required_groups[0].lines[1]: want two numbers, [first line, last line], got 1"},
		{"three numbers", `{"state_id":"a","required_groups":[{"path":"p","lines":[[1,2]]},{"path":"q","lines":[[5,9,12]]}]}`,
			"labels.jsonl:1: field required_groups[1].lines[0]: want two numbers, [first line, last line], got 3"},
		{"backwards", `{"state_id":"a","required_groups":[{"path":"p","lines":[[1,2]]}],"alternative_sets":[[{"path":"p","lines":[[9,3]]}]]}`,
			"labels.jsonl:1: field alternative_sets[0][0].lines[0]: [9, 3] is not a 1-based range of lines"},
		{"null line", `{"state_id":"a","required_groups":[{"path":"p","lines":[[1,2],[3,null]]}]}`,
			"labels.jsonl:1: field required_groups[0].lines[1][1]: null; want a line number"},
		{"line zero", `{"state_id":"a","required_groups":[{"path":"p","lines":[[0,3]]}]}`,
			"labels.jsonl:1: field required_groups[0].lines[0]: [0, 3] is not a 1-based range of lines"},
		// What encoding/json takes without a word is refused, as state
		// cards refuse it: a key given twice (it keeps the last) and a key
		// that is a field only by folding case (score.py does not read it).
		{"folded key", `{"state_id":"a","required_groups":[{"path":"p","lines":[[1,2]]}],"Required_Groups":[{"path":"x.py","lines":[[1,1]]}]}`,
			`labels.jsonl:1: field Required_Groups: unknown field (field names are case-sensitive; did you mean "required_groups"?)`},
		{"folded key in a group", `{"state_id":"a","required_groups":[{"path":"p","lines":[[1,2]]},{"path":"q","Lines":[[1,2]],"lines":[[3,4]]}]}`,
			`labels.jsonl:1: field required_groups[1].Lines: unknown field (field names are case-sensitive; did you mean "lines"?)`},
		{"key twice", `{"state_id":"a","required_groups":[{"path":"p","lines":[[1,2]]}],"alternative_sets":[],"required_groups":[]}`,
			"labels.jsonl:1: field required_groups: given twice"},
		{"key twice in a group", `{"state_id":"a","required_groups":[{"path":"p","path":"q","lines":[[1,2]]}]}`,
			"labels.jsonl:1: field required_groups[0].path: given twice"},
		// A key the format does not define is refused, not dropped: a
		// misspelt alternative_sets would leave the alternatives out, a
		// misspelt necessity_weight would weigh the group 1.
		{"unknown key", `{"state_id":"a","required_groups":[{"path":"p","lines":[[1,2]]}],"alternative_set":[[{"path":"q","lines":[[1,2]]}]]}`,
			"labels.jsonl:1: field alternative_set: unknown field"},
		{"unknown key in a group", `{"state_id":"a","required_groups":[{"path":"p","lines":[[1,2]]},{"path":"q","lines":[[1,2]],"necessity_wieght":0}]}`,
			"labels.jsonl:1: field required_groups[1].necessity_wieght: unknown field"},
		{"unknown key in an alternative", `{"state_id":"a","required_groups":[{"path":"p","lines":[[1,2]]}],"alternative_sets":[[{"path":"q","lines":[[1,2]],"weight":2}]]}`,
			"labels.jsonl:1: field alternative_sets[0][0].weight: unknown field"},
		{"group key at the top", `{"state_id":"a","required_groups":[{"path":"p","lines":[[1,2]]}],"lines":[[3,4]]}`,
			"labels.jsonl:1: field lines: unknown field"},
		// score.py covers a group with one overlapping unit: a group
		// requires 1, or says nothing.
		{"minimum required zero", `{"state_id":"a","required_groups":[{"path":"p","lines":[[1,2]],"minimum_required":0}]}`,
			"labels.jsonl:1: field required_groups[0].minimum_required: 0; want 1"},
		{"minimum required negative", `{"state_id":"a","required_groups":[{"path":"p","lines":[[1,2]]}],"alternative_sets":[[{"path":"q","lines":[[1,2]],"minimum_required":-1}]]}`,
			"labels.jsonl:1: field alternative_sets[0][0].minimum_required: -1; want 1"},
		{"minimum required above one", `{"state_id":"a","required_groups":[{"path":"p","lines":[[1,2],[5,6]],"minimum_required":5}]}`,
			"labels.jsonl:1: field required_groups[0].minimum_required: 5; want 1"},
		{"minimum required null", `{"state_id":"a","required_groups":[{"path":"p","lines":[[1,2]],"minimum_required":null}]}`,
			"labels.jsonl:1: field required_groups[0].minimum_required: null"},
		{"minimum required fraction", `{"state_id":"a","required_groups":[{"path":"p","lines":[[1,2]],"minimum_required":1.5}]}`,
			"labels.jsonl:1: field required_groups[0].minimum_required: got JSON number 1.5"},
		{"array", `[{"state_id":"a"}]`, "labels.jsonl:1: want a JSON object, got JSON array"},
		{"number", `7`, "labels.jsonl:1: want a JSON object, got JSON number"},
		{"null", `null`, "labels.jsonl:1: want a JSON object, got JSON null"},
		{"mistyped weight", `{"state_id":"a","required_groups":[{"path":"p","lines":[[1,2]]},{"path":"q","lines":[[1,2]],"necessity_weight":"1"}]}`,
			"labels.jsonl:1: field required_groups[1].necessity_weight: got JSON string, want float64"},
		// Weights: a negative one, a total that overflows (score.py's means
		// turn NaN), a null (score.py fails on it; encoding/json reads 1).
		{"negative weight", `{"state_id":"a","required_groups":[{"path":"p","lines":[[1,2]]},{"path":"q","lines":[[1,2]],"necessity_weight":-1.0}]}`,
			"labels.jsonl:1: field required_groups[1].necessity_weight: -1 is negative"},
		{"negative alternative weight", `{"state_id":"a","required_groups":[{"path":"p","lines":[[1,2]]}],"alternative_sets":[[{"path":"q","lines":[[1,2]],"necessity_weight":-2}]]}`,
			"labels.jsonl:1: field alternative_sets[0][0].necessity_weight: -2 is negative"},
		{"infinite total", `{"state_id":"a","required_groups":[{"path":"p","lines":[[1,2]],"necessity_weight":1.7e308},{"path":"q","lines":[[1,2]],"necessity_weight":1.7e308}]}`,
			"labels.jsonl:1: field required_groups: necessity weights sum to +Inf"},
		{"null weight", `{"state_id":"a","required_groups":[{"path":"p","lines":[[1,2]],"necessity_weight":null}]}`,
			"labels.jsonl:1: field required_groups[0].necessity_weight: null"},
		{"null alternatives", `{"state_id":"a","required_groups":[{"path":"p","lines":[[1,2]]}],"alternative_sets":null}`,
			"labels.jsonl:1: field alternative_sets: null"},
		{"not UTF-8", "{\"state_id\":\"a\",\"required_groups\":[{\"path\":\"p\xff.py\",\"lines\":[[1,2]]}]}",
			"labels.jsonl:1: field required_groups[0].path: not UTF-8 text"},
	}
	for _, tc := range tests {
		p := filepath.Join(t.TempDir(), "labels.jsonl")
		writeFile(t, p, tc.content)
		_, err := LoadLabels(p)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
	// Every field of a group the track's labels give, and mss bench build
	// writes, is read; minimum_required is 1 or absent.
	p := filepath.Join(t.TempDir(), "labels.jsonl")
	writeFile(t, p, `{"state_id": "a", "required_groups": [{"path": "p.py", "symbol": "f", "span": [1, 9], "lines": [[2, 3]], "group_id": "G1", "minimum_required": 1, "necessity_weight": 1.0, "role": "edit_site"}], "alternative_sets": [[{"path": "q.py", "symbol": "g", "span": [4, 8], "lines": [[5, 5]]}]]}`+"\n")
	if ls, err := LoadLabels(p); err != nil || len(ls["a"].RequiredGroups) != 1 || len(ls["a"].AlternativeSets) != 1 {
		t.Errorf("a label of every field: got %v, %v", ls, err)
	}
}

func TestLoadPredictions(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "p.jsonl")
	writeFile(t, p, `{"state_id":"a","method":"m","units":[{"path":"x","start_line":1,"end_line":2}]}
{"state_id":"zz","method":"m","units":[]}

{"state_id":"a","method":"m","units":[{"path":"y","start_line":3,"end_line":4}]}
{"state_id":"a","method":"n","units":[]}
`)
	ps, err := LoadPredictions([]string{p}, map[string]bool{"a": true})
	if err != nil {
		t.Fatal(err)
	}
	if got := ps.ByMethod["m"]["a"].Units[0].Path; got != "y" {
		t.Errorf("later line should replace earlier: got unit path %q, want y", got)
	}
	if ps.ByMethod["n"]["a"] == nil || len(ps.ByMethod["n"]["a"].Units) != 0 {
		t.Errorf("prediction of no units: got %+v", ps.ByMethod["n"]["a"])
	}
	if ps.Unknown[p] != 1 || ps.UnknownExample[p] != "zz" {
		t.Errorf("unknown: got %v %v", ps.Unknown, ps.UnknownExample)
	}
	bad := []struct{ content, want string }{
		{`{"state_id":"a","units":[]}`, "p.jsonl:1: field method: missing or empty"},
		// An empty answer is [], not a line without units.
		{`{"state_id":"a","method":"m"}`, "p.jsonl:1: field units: missing; want the answer's units ([] for none)"},
		{`{"state_id":"a","method":"m","candidates":3,"retrieve_ms":1}`, "p.jsonl:1: field units: missing"},
		{`{"state_id":"a","method":"m","units":[{"path":"x","end_line":2}]}`, "p.jsonl:1: field units[0].start_line: missing"},
		{`{"state_id":"a","method":"m","units":[{"path":"x","start_line":1}]}`, "p.jsonl:1: field units[0].end_line: missing"},
		{`{"state_id":"a","method":"m","units":[{"start_line":1,"end_line":1}]}`, "p.jsonl:1: field units[0].path: missing or empty"},
		{`{"state_id":"a","method":"m","units":[{"path":"x","start_line":1,"end_line":2},{"path":"x","start_line":1.5,"end_line":2}]}`, "p.jsonl:1: field units[1].start_line"},
		{`{"state_id":"a","method":"m","units":[{"path":"x","start_line":1,"end_line":2}]`, "p.jsonl:1: malformed JSON"},
		// A key score.py does not read is no field, whatever its case; a
		// key given twice is refused rather than the last one taken.
		{`{"state_id":"a","method":"m","Units":[{"path":"x","start_line":1,"end_line":2}]}`,
			`p.jsonl:1: field Units: unknown field (field names are case-sensitive; did you mean "units"?)`},
		{`{"state_id":"a","method":"m","units":[{"path":"x","start_line":1,"end_line":2,"PATH":"y"}]}`,
			`p.jsonl:1: field units[0].PATH: unknown field (field names are case-sensitive; did you mean "path"?)`},
		{`{"state_id":"a","method":"m","method":"n","units":[]}`, "p.jsonl:1: field method: given twice"},
		{`{"state_id":"a","METHOD":"m","method":"n","units":[]}`, `p.jsonl:1: field METHOD: unknown field (field names are case-sensitive; did you mean "method"?)`},
		{`{"state_id":"a","method":"m","units":[{"path":"x","start_line":1,"end_line":2}],"units":[]}`, "p.jsonl:1: field units: given twice"},
		// A key no prediction has is refused, not dropped: a misspelt
		// units would be an empty answer.
		{`{"state_id":"a","method":"m","unit":[{"path":"x","start_line":1,"end_line":2}]}`, "p.jsonl:1: field unit: unknown field"},
		{`{"state_id":"a","method":"m","units":[{"path":"x","start_line":1,"end_line":2},{"path":"y","start":1,"start_line":1,"end_line":2}]}`,
			"p.jsonl:1: field units[1].start: unknown field"},
		{`{"state_id":"a","method":"m","units":[],"fallback":{"stage":"propose","reason":"x","why":"y"}}`, "p.jsonl:1: field fallback.why: unknown field"},
		{`{"state_id":"a","method":"m","units":[{"path":"x","start_line":1,"start_line":3,"end_line":2}]}`, "p.jsonl:1: field units[0].start_line: given twice"},
		{`[{"state_id":"a","method":"m"}]`, "p.jsonl:1: want a JSON object, got JSON array"},
		{`42`, "p.jsonl:1: want a JSON object, got JSON number"},
		{`null`, "p.jsonl:1: want a JSON object, got JSON null"},
		// score.py fails on null units; encoding/json would read none.
		{`{"state_id":"a","method":"m","units":null}`, "p.jsonl:1: field units: null"},
		// A time is 0 ms or more, up to a day; a count is 0 or more.
		{`{"state_id":"a","method":"m","units":[],"retrieve_ms":-3.5}`, "p.jsonl:1: field retrieve_ms: -3.5; want a time of 0 ms or more, up to a day"},
		{`{"state_id":"a","method":"m","units":[],"retrieve_ms":1,"select_ms":-0.1}`, "p.jsonl:1: field select_ms: -0.1; want a time of 0 ms or more, up to a day"},
		{`{"state_id":"a","method":"m","units":[],"retrieve_ms":1e308}`, "p.jsonl:1: field retrieve_ms: 1e+308; want a time of 0 ms or more, up to a day (86400000 ms)"},
		{`{"state_id":"a","method":"m","units":[],"retrieve_ms":2,"select_ms":86400000.5}`, "p.jsonl:1: field select_ms: 8.64000005e+07; want a time"},
		{`{"state_id":"a","method":"m","units":[],"retrieve_ms":1e308,"select_ms":1e308}`, "p.jsonl:1: field retrieve_ms: 1e+308; want a time"},
		{`{"state_id":"a","method":"m","units":[],"candidates":-4}`, "p.jsonl:1: field candidates: -4; want a count of 0 or more"},
		{`{"state_id":"a","method":"m","units":[{"path":"x","start_line":1,"end_line":2},{"path":"x","start_line":1,"end_line":2,"tokens":-1}]}`, "p.jsonl:1: field units[1].tokens: -1; want a count of 0 or more"},
		{`{"state_id":"a","method":"m","units":[],"retrieve_ms":1e309}`, "p.jsonl:1: field retrieve_ms: got JSON number 1e309"},
		{"{\"state_id\":\"a\",\"method\":\"m\",\"units\":[{\"path\":\"x\xfe\",\"start_line\":1,\"end_line\":2}]}", "p.jsonl:1: field units[0].path: not UTF-8 text"},
	}
	for _, tc := range bad {
		writeFile(t, p, tc.content+"\n")
		_, err := LoadPredictions([]string{p}, map[string]bool{"a": true})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got error %v, want it to contain %q", tc.content, err, tc.want)
		}
	}
}

func TestFindGitDir(t *testing.T) {
	fx := newFixture(t)
	for _, repo := range []string{"acme/widget", "Acme/Widget", "ACME/WIDGET"} {
		got, err := FindGitDir(fx.root, repo)
		if err != nil || got != fx.gitDir {
			t.Errorf("FindGitDir(%s) = %q, %v; want %q", repo, got, err, fx.gitDir)
		}
	}
	bare := filepath.Join(fx.root, "Other+Thing.git")
	gittest.Run(t, fx.root, "clone", "-q", "--bare", fx.gitDir, bare)
	if got, err := FindGitDir(fx.root, "other/thing"); err != nil || got != bare {
		t.Errorf("bare .git layout: got %q, %v; want %q", got, err, bare)
	}
	_, err := FindGitDir(fx.root, "nobody/here")
	for _, want := range []string{"nobody/here", filepath.Join(fx.root, "nobody+here", "repo"), filepath.Join(fx.root, "nobody+here.git")} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("missing mirror: got %v, want it to name %s", err, want)
		}
	}
	if _, err := FindGitDir(fx.root, "noslash"); err == nil {
		t.Error("repo without owner: got no error")
	}
}

func FuzzParsePrediction(f *testing.F) {
	f.Add([]byte(`{"state_id":"a","method":"m","units":[{"path":"x","start_line":1,"end_line":2}]}`))
	f.Add([]byte(`{"state_id":"a","method":"m","units":[{"path":"x"}]}`))
	f.Add([]byte(`{"state_id":"a","method":"m","units":null}`))
	f.Add([]byte(`{"state_id":"a","method":"m"}`))
	f.Add([]byte(`{"state_id":"a","method":"m","unit":[{"path":"x","start_line":1,"end_line":2}]}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, line []byte) {
		p, err := parsePrediction(line)
		if err == nil && (p.StateID == "" || p.Method == "" || p.Units == nil) {
			t.Errorf("accepted %q without state_id, method or units", line)
		}
	})
}

func FuzzLoadStatesLine(f *testing.F) {
	f.Add([]byte(`{"state_id":"a","repo":"o/n","base_commit":"c","state_type":"t"}`))
	f.Add([]byte(`{"state_id":"a","observed_spans":[{"path":"p","start_line":1,"end_line":2}]}`))
	f.Add([]byte("{\"state_id\":\n"))
	// One directory for the whole run, one file rewritten per input,
	// rather than a directory made and removed for every input.
	p := filepath.Join(f.TempDir(), "s.jsonl")
	f.Fuzz(func(t *testing.T, content []byte) {
		writeFile(t, p, string(content))
		states, err := LoadStates(p)
		if err != nil {
			return
		}
		for _, s := range states {
			if s.StateID == "" || s.Repo == "" || s.BaseCommit == "" || s.StateType == "" {
				t.Errorf("accepted a state with an empty required field: %+v", s)
			}
		}
	})
}
