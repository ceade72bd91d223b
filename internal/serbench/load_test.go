package serbench

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
)

// exampleDir is the release's three-state example, shipped beside the
// checkout as ../shared; tests that need it skip when it is absent.
func exampleDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "serbench", "example")
	if _, err := os.Stat(filepath.Join(dir, "items.jsonl")); err != nil {
		t.Skipf("SERBench example not found at %s", dir)
	}
	return dir
}

func TestLoadExample(t *testing.T) {
	dir := exampleDir(t)
	items, err := LoadItems(filepath.Join(dir, "items.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	labels, err := LoadLabels(filepath.Join(dir, "labels.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(items.Items), 3; got != want {
		t.Fatalf("items = %d, want %d", got, want)
	}
	var pools []int
	for _, it := range items.Items {
		pools = append(pools, len(it.Pool))
	}
	if diff := cmp.Diff([]int{65, 120, 79}, pools); diff != "" {
		t.Errorf("pool sizes (-want +got):\n%s", diff)
	}
	it := items.Items[0]
	st := it.State
	if st.Repo != "celery/django-celery-beat" || st.Split != "cal500" || st.StateType != "after_file_inspection" {
		t.Errorf("state card fields: repo %q split %q type %q", st.Repo, st.Split, st.StateType)
	}
	if len(st.TrajectoryPrefix) != 6 || len(st.OpenedFiles) != 3 || len(st.SearchQueries) != 2 {
		t.Errorf("history: %d steps, %d opened, %d queries", len(st.TrajectoryPrefix), len(st.OpenedFiles), len(st.SearchQueries))
	}
	if st.Issue == "" || st.InformationNeed == "" || st.CurrentHypothesis == "" || st.CurrentSubgoal == "" || st.CurrentObservation == "" {
		t.Error("state card text fields are empty")
	}
	u := it.Pool[0].Unit()
	if u.ID != "evidence-e1736b7e14a8e84066a6d291" || u.Path != "django_celery_beat/schedulers.py" ||
		u.StartLine != 298 || u.EndLine != 360 || u.Tokens != mss.TokenCost(u.Content) || u.Tokens == 0 || len(u.Hash) != 64 {
		t.Errorf("first unit = %+v", u)
	}
	if !it.InPool("evidence-e1736b7e14a8e84066a6d291") || it.InPool("nope") {
		t.Error("InPool is wrong")
	}
	if n := len(items.Items[1].Pool); n != 120 || !items.Items[1].PoolTruncated {
		t.Errorf("arrow pool: %d units, truncated %v", n, items.Items[1].PoolTruncated)
	}
	l := labels.Get(items.Items[1].State.StateID)
	if l == nil || len(l.Cert.Groups) != 3 || len(l.Cert.AlternativeSets) != 12 {
		t.Fatalf("arrow label = %+v", l)
	}
	if g := l.Cert.Groups[2]; g.Role != "interaction_constraint" || g.MinimumRequired != 1 || g.NecessityWeight != 1 || g.GroupID != "G3" {
		t.Errorf("arrow G3 = %+v", g)
	}
	if errs := Validate(items, labels, nil, Options{}); len(errs) != 0 {
		t.Errorf("example labels do not validate: %v", errs)
	}
}

func gz(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

func TestLoadGzipAndNestedLabels(t *testing.T) {
	dir := t.TempDir()
	flat := `{"state_id":"s1","required_evidence_groups":[{"role":"bug_location","acceptable_evidence_ids":["a"],"minimum_required":1,"necessity_weight":2}]}` + "\n"
	nested := `{"state_id":"s1","graded_labels":{"required_evidence_groups":[{"role":"bug_location","acceptable_evidence_ids":["a"],"minimum_required":1,"necessity_weight":2}]}}` + "\n"
	inner := `{"graded_labels":{"state_id":"s1","required_evidence_groups":[{"role":"bug_location","acceptable_evidence_ids":["a"],"minimum_required":1,"necessity_weight":2}]}}` + "\n"
	both := `{"state_id":"s1","graded_labels":{"state_id":"s1","required_evidence_groups":[{"role":"bug_location","acceptable_evidence_ids":["a"],"minimum_required":1,"necessity_weight":2}]}}` + "\n"
	var got []*Label
	for i, c := range []struct {
		name string
		data []byte
	}{
		{"flat.jsonl", []byte(flat)},
		{"flat.jsonl.gz", gz(t, flat)},
		{"nested.jsonl.gz", gz(t, nested)},
		{"inner.jsonl", []byte(inner)},
		{"both.jsonl", []byte(both)},
	} {
		p := filepath.Join(dir, c.name)
		os.WriteFile(p, c.data, 0o644)
		ls, err := LoadLabels(p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got = append(got, ls.Labels[0])
		if i > 0 {
			if diff := cmp.Diff(got[0].Cert, got[i].Cert); diff != "" {
				t.Errorf("%s differs from the flat form:\n%s", c.name, diff)
			}
		}
	}
}

// TestLoadErrors checks that bad input gives an error naming the file, the
// line and the field.
func TestLoadErrors(t *testing.T) {
	const groupOK = `{"role":"r","acceptable_evidence_ids":["a"],"minimum_required":1,"necessity_weight":1}`
	tests := []struct {
		kind string
		data string
		want []string
	}{
		{"items", "", []string{"F: no items: the file is empty"}},
		{"items", "\n  \n", []string{"F: no items: the file is empty"}},
		{"items", `{"state_id":"s1"` + "\n", []string{"F:1: invalid JSON: unexpected end of line"}},
		{"items", `[1,2]` + "\n", []string{"F:1: line must contain a JSON object, not a list"}},
		{"items", `{"state_id":5,"candidate_evidence":[]}`, []string{"F:1: state_id: must be a string, not a number", "F:1: state_id: must be a non-empty string"}},
		{"items", `{"state_id":"s","issue":"x","candidate_evidence":{}}`, []string{"F:1: candidate_evidence: must be a list, not an object"}},
		{"items", `{"state_id":"s","issue":"x"}`, []string{"F:1: candidate_evidence: missing: every item needs its candidate pool (a list)"}},
		{"items", `{"state_id":"s","issue":"x","candidate_evidence":[{"evidence_id":"a"},{"evidence_id":"a"},{"evidence_id":""},7]}`,
			[]string{`F:1: candidate_evidence[1].evidence_id: duplicate candidate evidence_id "a" (also candidate_evidence[0])`,
				"F:1: candidate_evidence[2].evidence_id: must be a non-empty string",
				"F:1: candidate_evidence[3]: must be an object, not a number"}},
		{"items", `{"state_id":"s","issue":"x","candidate_evidence":[{"evidence_id":"a","line_start":"3"}]}`,
			[]string{"F:1: candidate_evidence[0].line_start: must be an integer, not a string"}},
		{"items", `{"state_id":"s","issue":"x","candidate_evidence":[],"observed_evidence_ids":["x","x"]}` + "\n" + `{"state_id":"s","issue":"x","candidate_evidence":[]}`,
			[]string{`F:1: observed_evidence_ids[1]: duplicate id "x"`, `F:2: state_id: duplicate state_id "s" (first on line 1)`}},
		// An item's card is one a method can be asked with, as every
		// surface's card reader requires: serbench run would stop at it.
		{"items", `{"state_id":"s","candidate_evidence":[]}`,
			[]string{"F:1: no text to recover evidence for: set at least one of issue, information_need, current_observation, current_hypothesis, current_subgoal, latest_test_output, current_diff, search_queries"}},
		{"items", `{"state_id":"s","issue":"x","opened_files":["a.py","../x"],"candidate_evidence":[]}`,
			[]string{`F:1: opened_files[1]: not a repository-relative path: "../x" climbs out of the repository with a .. element`}},
		// A pool unit is a range of lines of a repository's file.
		{"items", `{"state_id":"s","issue":"x","candidate_evidence":[{"evidence_id":"a","source_path":"a.py"},{"evidence_id":"b","source_path":"../../etc/passwd"},{"evidence_id":"c","source_path":"/etc/passwd"}]}`,
			[]string{`F:1: candidate_evidence[1].source_path: not a repository-relative path: "../../etc/passwd" climbs out of the repository with a .. element`,
				`F:1: candidate_evidence[2].source_path: not a repository-relative path: "/etc/passwd" is absolute`}},
		{"items", `{"state_id":"s","issue":"x","candidate_evidence":[{"evidence_id":"a","line_start":-4,"line_end":9},{"evidence_id":"b","line_start":9,"line_end":3},{"evidence_id":"c","line_start":1,"line_end":2000000000},{"evidence_id":"d","line_start":2}]}`,
			[]string{"F:1: candidate_evidence[0].line_start: lines -4-9 (line_start-line_end) are not a 1-based range (want 1 <= line_start <= line_end <= 1073741824)",
				"F:1: candidate_evidence[1].line_start: lines 9-3 (line_start-line_end) are not a 1-based range (want 1 <= line_start <= line_end <= 1073741824)",
				"F:1: candidate_evidence[2].line_start: lines 1-2000000000 (line_start-line_end) are not a 1-based range (want 1 <= line_start <= line_end <= 1073741824)",
				"F:1: candidate_evidence[3].line_start: lines 2-0 (line_start-line_end) are not a 1-based range (want 1 <= line_start <= line_end <= 1073741824)"}},
		{"labels", `{"state_id":"s","required_evidence_groups":[]}`, []string{"F:1: required_evidence_groups: must be a non-empty list"}},
		{"labels", `{"state_id":"s","required_evidence_groups":[{"acceptable_evidence_ids":[],"minimum_required":1.0,"necessity_weight":true}]}`,
			[]string{"F:1: required_evidence_groups[0].role: must be a non-empty string",
				"F:1: required_evidence_groups[0].acceptable_evidence_ids: must not be empty",
				"F:1: required_evidence_groups[0].minimum_required: must be an integer, not 1.0",
				"F:1: required_evidence_groups[0].necessity_weight: must be a number, not a boolean"}},
		{"labels", `{"state_id":"s","required_evidence_groups":[{"role":"r","acceptable_evidence_ids":["a"],"minimum_required":2,"necessity_weight":0}]}`,
			[]string{"F:1: required_evidence_groups[0].minimum_required: 2 exceeds the 1 acceptable evidence ids",
				"F:1: required_evidence_groups[0].necessity_weight: must be finite and positive, not 0"}},
		{"labels", `{"state_id":"s","required_evidence_groups":[{"role":"r","acceptable_evidence_ids":["a"]}]}`,
			[]string{"F:1: required_evidence_groups[0].minimum_required: missing (a positive integer)",
				"F:1: required_evidence_groups[0].necessity_weight: missing (a positive number)"}},
		{"labels", `{"state_id":"s","required_evidence_groups":[` + groupOK + `],"alternative_minimal_sets":[[],["a","a"]]}`,
			[]string{"F:1: alternative_minimal_sets[0]: must not be empty", `F:1: alternative_minimal_sets[1][1]: duplicate id "a"`}},
		// Each weight is finite, their sum is not.
		{"labels", `{"state_id":"s","required_evidence_groups":[` + groupOK + `,{"role":"r","acceptable_evidence_ids":["b"],"minimum_required":1,"necessity_weight":1.7e308},{"role":"q","acceptable_evidence_ids":["c"],"minimum_required":1,"necessity_weight":1.7e308}]}`,
			[]string{"F:1: required_evidence_groups: the necessity_weights sum to +Inf: the total must be finite"}},
		{"labels", `{"state_id":"s","graded_labels":{"required_evidence_groups":[{"role":"r","acceptable_evidence_ids":["a"],"minimum_required":1,"necessity_weight":1e308},{"role":"r","acceptable_evidence_ids":["b"],"minimum_required":1,"necessity_weight":1e308}]}}`,
			[]string{"F:1: graded_labels.required_evidence_groups: the necessity_weights sum to +Inf: the total must be finite"}},
		{"labels", `{"state_id":"s","graded_labels":[1]}`, []string{"F:1: graded_labels: must be an object, not a list"}},
		// A state id on the envelope and inside names one state.
		{"labels", `{"state_id":"s","graded_labels":{"state_id":"t","required_evidence_groups":[` + groupOK + `]}}`,
			[]string{`F:1: graded_labels.state_id: "t", but the envelope's state_id is "s": which state the label is for is unclear`}},
		{"labels", `{"state_id":"s","graded_labels":{"state_id":5,"required_evidence_groups":[` + groupOK + `]}}`,
			[]string{"F:1: graded_labels.state_id: must be a string, not a number", "F:1: graded_labels.state_id: must be a non-empty string"}},
		{"labels", `{"state_id":7,"graded_labels":{"state_id":"s","required_evidence_groups":[` + groupOK + `]}}`,
			[]string{"F:1: state_id: must be a string, not a number"}},
		{"labels", `{"state_id":"s","graded_labels":{"required_evidence_groups":[{"group_id":"G","role":"r","acceptable_evidence_ids":["a"],"minimum_required":1,"necessity_weight":1},{"group_id":"G","role":"r","acceptable_evidence_ids":["b"],"minimum_required":0,"necessity_weight":1}]}}`,
			[]string{`F:1: graded_labels.required_evidence_groups[1].group_id: duplicate group_id "G" (also group 0)`,
				"F:1: graded_labels.required_evidence_groups[1].minimum_required: must be a positive integer, not 0"}},
		{"predictions", `{"state_id":"s","method":"m","ranked_evidence_ids":["a","a",""]}`,
			[]string{`F:1: ranked_evidence_ids[1]: duplicate id "a"`, "F:1: ranked_evidence_ids[2]: must be a non-empty string"}},
		{"predictions", `{"state_id":"s","method":"","ranked_evidence_ids":"a"}`,
			[]string{"F:1: method: must be a non-empty string", "F:1: ranked_evidence_ids: must be a list of strings, not a string"}},
		{"predictions", `{"state_id":"s","method":"m"}`, []string{"F:1: ranked_evidence_ids: missing (a list of evidence ids; [] abstains)"}},
		{"predictions", `{"state_id":"s","method":"m","ranked_evidence_ids":[]}` + "\n\n" + `{"state_id":"s","method":"m","ranked_evidence_ids":["b"]}`,
			[]string{`F:3: state_id: duplicate prediction for state_id "s" and method "m" (first on line 1)`}},
		{"predictions", "{\"state_id\":\"s\",\"method\":\"m\xff\",\"ranked_evidence_ids\":[]}", []string{"F:1: invalid UTF-8"}},
		{"predictions", `{"state_id":"s","method":"m","ranked_evidence_ids":[]} {}`, []string{"F:1: invalid JSON: more than one value on the line"}},
		// A key given twice is refused, not read with its last value;
		// the row is read on, its other problems reported too.
		{"predictions", `{"state_id":"s","method":"m","ranked_evidence_ids":["a"],"ranked_evidence_ids":["b"]}`,
			[]string{"F:1: ranked_evidence_ids: given twice; each field is named once"}},
		{"predictions", `{"state_id":"s","method":"m","ranked_evidence_ids":["a","a"],"config":{"k":8,"k":5}}`,
			[]string{"F:1: config.k: given twice; each field is named once", `F:1: ranked_evidence_ids[1]: duplicate id "a"`}},
		{"items", `{"state_id":"s","issue":"x","candidate_evidence":[],"observed_evidence_ids":["x"],"observed_evidence_ids":[]}`,
			[]string{"F:1: observed_evidence_ids: given twice; each field is named once"}},
		{"items", `{"state_id":"s","issue":"x","candidate_evidence":[{"evidence_id":"a","line_start":3,"line_end":4},{"evidence_id":"b","line_start":3,"line_end":9,"line_start":7}]}`,
			[]string{"F:1: candidate_evidence[1].line_start: given twice; each field is named once"}},
		{"labels", `{"state_id":"s","required_evidence_groups":[{"role":"r","acceptable_evidence_ids":["a"],"minimum_required":1,"minimum_required":2,"necessity_weight":1}]}`,
			[]string{"F:1: required_evidence_groups[0].minimum_required: given twice; each field is named once",
				"F:1: required_evidence_groups[0].minimum_required: 2 exceeds the 1 acceptable evidence ids"}},
	}
	for _, tc := range tests {
		var err error
		r := strings.NewReader(tc.data)
		switch tc.kind {
		case "items":
			_, err = ReadItems(r, "F")
		case "labels":
			_, err = ReadLabels(r, "F")
		case "predictions":
			_, err = ReadPredictions(r, "F")
		}
		var list Errors
		if !errors.As(err, &list) {
			t.Errorf("%s %q: error %v, want a list of input errors", tc.kind, tc.data, err)
			continue
		}
		var got []string
		for _, e := range list {
			got = append(got, e.Error())
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s %q (-want +got):\n%s", tc.kind, tc.data, diff)
		}
	}
}

func TestLoadNotGzip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "items.jsonl.gz")
	os.WriteFile(p, []byte(`{"state_id":"s","candidate_evidence":[]}`), 0o644)
	_, err := LoadItems(p)
	if err == nil || !strings.Contains(err.Error(), "not a gzip file") {
		t.Errorf("LoadItems(plain .gz) error = %v, want not a gzip file", err)
	}
	// A truncated gzip stream is an I/O error, not a panic.
	full := gz(t, strings.Repeat(`{"state_id":"s","candidate_evidence":[]}`+"\n", 50))
	os.WriteFile(p, full[:len(full)/2], 0o644)
	if _, err := LoadItems(p); err == nil {
		t.Error("LoadItems(truncated gzip) gave no error")
	}
	if _, err := LoadItems(filepath.Join(t.TempDir(), "missing.jsonl")); err == nil {
		t.Error("LoadItems(missing file) gave no error")
	}
}

// TestFastItemMatchesCareful decodes every example row both ways.
func TestFastItemMatchesCareful(t *testing.T) {
	dir := exampleDir(t)
	b, err := os.ReadFile(filepath.Join(dir, "items.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		fast := fastItem(row, i+1)
		if fast == nil {
			t.Fatalf("row %d: fast path declined a well-formed row", i+1)
		}
		e := &errs{file: "F"}
		obj, _ := decodeLine(row, i+1, e)
		slow := parseItem(line{n: i + 1, obj: obj}, e)
		if len(e.list) > 0 {
			t.Fatal(e.list)
		}
		if diff := cmp.Diff(slow, fast, cmp.AllowUnexported(Item{})); diff != "" {
			t.Errorf("row %d: fast and careful paths differ (-careful +fast):\n%s", i+1, diff)
		}
	}
}
