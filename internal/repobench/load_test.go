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
		{"bad lines", `{"state_id":"a","required_groups":[{"path":"p","lines":[[1,"2"]]}]}`, "labels.jsonl:1: field required_groups.lines"},
		{"no path", `{"state_id":"a","required_groups":[{"lines":[[1,2]]}]}`, "labels.jsonl:1: field required_groups[0].path: missing or empty"},
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
		{"line zero", `{"state_id":"a","required_groups":[{"path":"p","lines":[[0,3]]}]}`,
			"labels.jsonl:1: field required_groups[0].lines[0]: [0, 3] is not a 1-based range of lines"},
	}
	for _, tc := range tests {
		p := filepath.Join(t.TempDir(), "labels.jsonl")
		writeFile(t, p, tc.content)
		_, err := LoadLabels(p)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
}

func TestLoadPredictions(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "p.jsonl")
	writeFile(t, p, `{"state_id":"a","method":"m","units":[{"path":"x","start_line":1,"end_line":2}]}
{"state_id":"zz","method":"m","units":[]}

{"state_id":"a","method":"m","units":[{"path":"y","start_line":3,"end_line":4}]}
{"state_id":"a","method":"n"}
`)
	ps, err := LoadPredictions([]string{p}, map[string]bool{"a": true})
	if err != nil {
		t.Fatal(err)
	}
	if got := ps.ByMethod["m"]["a"].Units[0].Path; got != "y" {
		t.Errorf("later line should replace earlier: got unit path %q, want y", got)
	}
	if ps.ByMethod["n"]["a"] == nil || len(ps.ByMethod["n"]["a"].Units) != 0 {
		t.Errorf("prediction without units: got %+v", ps.ByMethod["n"]["a"])
	}
	if ps.Unknown[p] != 1 || ps.UnknownExample[p] != "zz" {
		t.Errorf("unknown: got %v %v", ps.Unknown, ps.UnknownExample)
	}
	bad := []struct{ content, want string }{
		{`{"state_id":"a","units":[]}`, "p.jsonl:1: field method: missing or empty"},
		{`{"state_id":"a","method":"m","units":[{"path":"x","end_line":2}]}`, "p.jsonl:1: field units[0].start_line: missing"},
		{`{"state_id":"a","method":"m","units":[{"path":"x","start_line":1}]}`, "p.jsonl:1: field units[0].end_line: missing"},
		{`{"state_id":"a","method":"m","units":[{"start_line":1,"end_line":1}]}`, "p.jsonl:1: field units[0].path: missing or empty"},
		{`{"state_id":"a","method":"m","units":[{"path":"x","start_line":1.5,"end_line":2}]}`, "p.jsonl:1: field units.start_line"},
		{`{"state_id":"a","method":"m","units":[{"path":"x","start_line":1,"end_line":2}]`, "p.jsonl:1: malformed JSON"},
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
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, line []byte) {
		p, err := parsePrediction(line)
		if err == nil && (p.StateID == "" || p.Method == "") {
			t.Errorf("accepted %q without state_id or method", line)
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
