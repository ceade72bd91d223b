package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	serbenchItemsFixture = `{"state_id":"s1","repo":"o/a","state_type":"before_edit","issue":"parser crashes on empty input","information_need":"where is parser input checked","observed_evidence_ids":["obs"],"candidate_evidence":[{"evidence_id":"obs","source_path":"src/parser.py","line_start":1,"line_end":2,"content_excerpt":"def parse(x):\n    pass\n"},{"evidence_id":"e1","source_path":"src/parser.py","line_start":10,"line_end":12,"content_excerpt":"def check_input(x):\n    if not x:\n        raise ValueError\n"},{"evidence_id":"e2","source_path":"src/net.py","line_start":1,"line_end":2,"content_excerpt":"def fetch(url):\n    return url\n"},{"evidence_id":"e3","source_path":"tests/test_parser.py","line_start":4,"line_end":8,"content_excerpt":"def test_empty_input():\n    parse('')\n"}]}
{"state_id":"s2","repo":"o/b","state_type":"after_file_inspection","issue":"cache timeout ignored","candidate_evidence":[{"evidence_id":"c1","source_path":"cache.py","line_start":1,"line_end":3,"content_excerpt":"def get(key, timeout):\n    return store[key]\n"},{"evidence_id":"c2","source_path":"cache.py","line_start":5,"line_end":6,"content_excerpt":"def retry():\n    pass\n"}]}
`
	serbenchLabelsFixture = `{"state_id":"s1","required_evidence_groups":[{"group_id":"G1","role":"bug_location","acceptable_evidence_ids":["e1"],"minimum_required":1,"necessity_weight":2},{"group_id":"G2","role":"verification_constraint","acceptable_evidence_ids":["e3"],"minimum_required":1,"necessity_weight":1}],"observed_evidence_ids":["obs"]}
{"state_id":"s2","graded_labels":{"required_evidence_groups":[{"role":"bug_location","acceptable_evidence_ids":["c1"],"minimum_required":1,"necessity_weight":1}],"alternative_minimal_sets":[["c1"]]}}
`
)

func serbenchFixture(t *testing.T, preds string) (dir string) {
	t.Helper()
	dir = t.TempDir()
	for name, data := range map[string]string{
		"items.jsonl":       serbenchItemsFixture,
		"labels.jsonl":      serbenchLabelsFixture,
		"predictions.jsonl": preds,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runSerbench runs "mss serbench args..." in dir and returns stdout,
// stderr and the error.
func runSerbench(t *testing.T, dir string, args ...string) (string, string, error) {
	t.Helper()
	cwd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(cwd)
	return runCmd(t, newSerbenchCmd(), "", args...)
}

func TestSerbenchValidateMessages(t *testing.T) {
	preds := `{"state_id":"s1","method":"m","ranked_evidence_ids":["e1","e1","zz"]}
{"state_id":"nope","method":"m","ranked_evidence_ids":[]}
{"state_id":"s1","method":"m","ranked_evidence_ids":[]}
{"state_id":"s2","method":"other","ranked_evidence_ids":["c1"]}
{"state_id":"s2","method":7}
`
	dir := serbenchFixture(t, preds)
	_, stderr, err := runSerbench(t, dir, "validate", "--items", "items.jsonl", "--labels", "labels.jsonl", "--predictions", "predictions.jsonl")
	if err == nil {
		t.Fatal("validate accepted bad predictions")
	}
	want := []string{
		`predictions.jsonl:1: ranked_evidence_ids[1]: duplicate id "e1"`,
		`predictions.jsonl:3: state_id: duplicate prediction for state_id "s1" and method "m" (first on line 1)`,
		`predictions.jsonl:5: method: must be a string, not a number`,
		`predictions.jsonl:5: ranked_evidence_ids: missing (a list of evidence ids; [] abstains)`,
		`predictions.jsonl:1: ranked_evidence_ids[1]: evidence id "zz" is not a candidate of state "s1"`,
		`predictions.jsonl:2: state_id: unknown state_id "nope": not in items.jsonl`,
		`items.jsonl:1: state_id: method "other" has no prediction for state "s1" in predictions.jsonl`,
		`items.jsonl:2: state_id: method "m" has no prediction for state "s2" in predictions.jsonl`,
	}
	if diff := cmp.Diff(want, strings.Split(strings.TrimSpace(stderr), "\n")); diff != "" {
		t.Errorf("validate messages (-want +got):\n%s", diff)
	}
	if got, want := err.Error(), "8 problem(s) found"; got != want {
		t.Errorf("error = %q, want %q", got, want)
	}

	// --partial drops only the coverage rule.
	_, stderr, _ = runSerbench(t, dir, "validate", "--items", "items.jsonl", "--predictions", "predictions.jsonl", "--partial")
	if strings.Contains(stderr, "has no prediction") || !strings.Contains(stderr, "unknown state_id") {
		t.Errorf("--partial output:\n%s", stderr)
	}
}

func TestSerbenchValidateLabelRules(t *testing.T) {
	dir := serbenchFixture(t, `{"state_id":"s1","method":"m","ranked_evidence_ids":[]}`+"\n")
	bad := `{"state_id":"s1","required_evidence_groups":[{"role":"bug_location","acceptable_evidence_ids":["obs","e9"],"minimum_required":1,"necessity_weight":2}],"observed_evidence_ids":[]}
{"state_id":"zz","required_evidence_groups":[{"role":"r","acceptable_evidence_ids":["c1"],"minimum_required":1,"necessity_weight":1}]}
`
	os.WriteFile(filepath.Join(dir, "labels.jsonl"), []byte(bad), 0o644)
	_, stderr, err := runSerbench(t, dir, "validate", "--items", "items.jsonl", "--labels", "labels.jsonl", "--predictions", "predictions.jsonl", "--partial")
	if err == nil {
		t.Fatal("validate accepted bad labels")
	}
	want := []string{
		`labels.jsonl:1: required_evidence_groups[0].acceptable_evidence_ids: evidence id(s) not in the candidate pool of "s1": ["e9"]`,
		`labels.jsonl:1: observed_evidence_ids: disagree with items.jsonl:1: [] here, ["obs"] there`,
		`labels.jsonl:1: required_evidence_groups: residual gold overlaps observed evidence: ["obs"]`,
		`labels.jsonl:2: state_id: unknown state_id "zz": not in items.jsonl`,
		`items.jsonl:2: state_id: state "s2" has no label in labels.jsonl`,
	}
	if diff := cmp.Diff(want, strings.Split(strings.TrimSpace(stderr), "\n")); diff != "" {
		t.Errorf("validate messages (-want +got):\n%s", diff)
	}
}

func TestSerbenchScoreJSON(t *testing.T) {
	preds := `{"state_id":"s1","method":"m","ranked_evidence_ids":["obs","e3","e1"]}
{"state_id":"s2","method":"m","ranked_evidence_ids":[]}
`
	dir := serbenchFixture(t, preds)
	stdout, stderr, err := runSerbench(t, dir, "score", "--items", "items.jsonl", "--labels", "labels.jsonl",
		"--predictions", "predictions.jsonl", "--k", "2,3", "--json", "--per-state", "scores.jsonl")
	if err != nil {
		t.Fatalf("score: %v\n%s", err, stderr)
	}
	var got map[string]map[string]float64
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("score --json output is not JSON: %v\n%s", err, stdout)
	}
	// s1 at k=2: only G2 (weight 1) completes, at rank 2; the ideal at k=2
	// is 2 + 1/log2(3). At k=3 both complete. s2 abstains: all 0.
	m := got["m"]
	log3 := 1.584962500721156
	checks := map[string]float64{
		"states":                      2,
		"mss_complete@2":              0,
		"mss_complete@3":              0.5,
		"group_recall@2":              0.25,
		"necessity_weighted_recall@2": 1.0 / 6,
		"role_coverage@3":             0.5,
		"group_ndcg@2":                (1 / log3) / (2 + 1/log3) / 2,
		"required_novelty@3":          0.5,
	}
	for k, want := range checks {
		if v, ok := m[k]; !ok || (v-want) > 1e-12 || (want-v) > 1e-12 {
			t.Errorf("%s = %v, want %v", k, v, want)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "scores.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[0], `{"group_ndcg@2":`) {
		t.Errorf("per-state file:\n%s", b)
	}
}

func TestSerbenchRunCompare(t *testing.T) {
	dir := serbenchFixture(t, "")
	for _, m := range []string{"bm25", "complement"} {
		_, stderr, err := runSerbench(t, dir, "run", "--items", "items.jsonl", "--method", m, "--k", "3", "--output", m+".jsonl")
		if err != nil {
			t.Fatalf("run %s: %v\n%s", m, err, stderr)
		}
	}
	if _, stderr, err := runSerbench(t, dir, "run", "--items", "items.jsonl", "--method", "bm25", "--k", "4", "--skip-observed", "--name", "bm25_fresh", "--output", "fresh.jsonl"); err != nil {
		t.Fatalf("run --skip-observed: %v\n%s", err, stderr)
	}
	fresh, _ := os.ReadFile(filepath.Join(dir, "fresh.jsonl"))
	if strings.Contains(string(fresh), `"obs"`) || !strings.Contains(string(fresh), `"method":"bm25_fresh"`) || !strings.Contains(string(fresh), `"skip_observed":true`) {
		t.Errorf("run --skip-observed wrote:\n%s", fresh)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "bm25.jsonl"))
	b, _ := os.ReadFile(filepath.Join(dir, "complement.jsonl"))
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.Contains(line, `"obs"`) {
			t.Errorf("complement returned an observed unit: %s", line)
		}
	}
	os.WriteFile(filepath.Join(dir, "both.jsonl"), append(a, b...), 0o644)
	if _, stderr, err := runSerbench(t, dir, "validate", "--items", "items.jsonl", "--labels", "labels.jsonl", "--predictions", "both.jsonl"); err != nil {
		t.Fatalf("run output does not validate: %v\n%s", err, stderr)
	}
	stdout, stderr, err := runSerbench(t, dir, "compare", "--items", "items.jsonl", "--labels", "labels.jsonl", "--predictions", "both.jsonl",
		"--baseline", "bm25", "--method", "complement", "--k", "3", "--draws", "200", "--json")
	if err != nil {
		t.Fatalf("compare: %v\n%s", err, stderr)
	}
	var got struct {
		Metric string `json:"metric"`
		Strata []struct {
			Stratum string `json:"stratum"`
			N       int    `json:"n"`
		} `json:"strata"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	var names []string
	ns := map[string]int{}
	for _, s := range got.Strata {
		names = append(names, s.Stratum)
		ns[s.Stratum] = s.N
	}
	wantNames := []string{"all", "groups=1", "groups=2", "groups>=3", "state_type=after_file_inspection", "state_type=before_edit", "observed=with", "observed=without"}
	if diff := cmp.Diff(wantNames, names); diff != "" || got.Metric != "mss_complete@3" {
		t.Errorf("metric %q, strata (-want +got):\n%s", got.Metric, diff)
	}
	if ns["all"] != 2 || ns["groups=1"] != 1 || ns["groups=2"] != 1 || ns["observed=with"] != 1 {
		t.Errorf("stratum sizes %v", ns)
	}
}

// An output path that holds someone else's file, or is not a file at all,
// is refused and left as it was; an earlier output is replaced.
func TestSerbenchRunKeepsForeignFiles(t *testing.T) {
	dir := serbenchFixture(t, "")
	notes := filepath.Join(dir, "notes.md")
	if err := os.WriteFile(notes, []byte("# notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"notes.md": "notes.md: line 1 is not a JSON record", "pipe": "pipe: not a regular file (a named pipe)"} {
		_, _, err := runSerbench(t, dir, "run", "--items", "items.jsonl", "--method", "bm25", "--k", "3", "--output", name)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("run --output %s: %v, want a refusal containing %q", name, err, want)
		}
	}
	if data, _ := os.ReadFile(notes); string(data) != "# notes\n" {
		t.Errorf("notes.md changed: %q", data)
	}
	// The items and labels files hold "state_id" on every line too, but
	// they are not predictions: run --items items.jsonl --output
	// items.jsonl must not replace the items.
	for _, f := range []struct{ name, data, want string }{
		{"items.jsonl", serbenchItemsFixture, "items.jsonl: the --items file"},
		{"labels.jsonl", serbenchLabelsFixture, "labels.jsonl: line 1 is not a JSON record with \"method\""},
	} {
		name, data := f.name, f.data
		_, _, err := runSerbench(t, dir, "run", "--items", "items.jsonl", "--method", "bm25", "--k", "3", "--output", name)
		if err == nil || !strings.Contains(err.Error(), f.want) {
			t.Errorf("run --output %s: %v, want a refusal", name, err)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != data {
			t.Errorf("%s changed", name)
		}
	}
	// A --name of white space only would write rows validate refuses.
	for _, name := range []string{" ", "\t"} {
		_, _, err := runSerbench(t, dir, "run", "--items", "items.jsonl", "--method", "bm25", "--k", "3", "--name", name, "--output", "blank.jsonl")
		if want := fmt.Sprintf("--name: method name %q: want a non-empty name", name); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("run --name %q: %v, want a refusal containing %q", name, err, want)
		}
		if _, err := os.Stat(filepath.Join(dir, "blank.jsonl")); err == nil {
			t.Errorf("run --name %q wrote its output", name)
		}
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the named pipe was replaced: %v", err)
	}
	for i := 0; i < 2; i++ {
		if _, stderr, err := runSerbench(t, dir, "run", "--items", "items.jsonl", "--method", "bm25", "--k", "3", "--output", "p.jsonl"); err != nil {
			t.Fatalf("run %d over its own output: %v\n%s", i, err, stderr)
		}
	}
}

// TestSerbenchValidateRefusesWhatRunRefuses: an item whose card no method
// can be asked with, or whose pool unit is no range of a repository's
// file, is refused by validate as by run, with the same message.
func TestSerbenchValidateRefusesWhatRunRefuses(t *testing.T) {
	for _, tc := range []struct{ from, to, want string }{
		{`"state_type":"before_edit",`, `"state_type":"before_edit","opened_files":["../x"],`, `items.jsonl:1: opened_files[0]: not a repository-relative path: "../x" climbs out of the repository with a .. element`},
		{`"issue":"parser crashes on empty input","information_need":"where is parser input checked",`, ``, "items.jsonl:1: no text to recover evidence for"},
		{`"source_path":"src/net.py"`, `"source_path":"../../etc/passwd"`, `items.jsonl:1: candidate_evidence[2].source_path: not a repository-relative path: "../../etc/passwd" climbs out`},
		{`"line_start":10,"line_end":12`, `"line_start":-10,"line_end":12`, "items.jsonl:1: candidate_evidence[1].line_start: lines -10-12 (line_start-line_end) are not a 1-based range"},
		{`"line_start":10,"line_end":12`, `"line_start":12,"line_end":10`, "items.jsonl:1: candidate_evidence[1].line_start: lines 12-10 (line_start-line_end) are not a 1-based range"},
	} {
		dir := serbenchFixture(t, `{"state_id":"s1","method":"m","ranked_evidence_ids":[]}`+"\n"+`{"state_id":"s2","method":"m","ranked_evidence_ids":[]}`+"\n")
		items := strings.Replace(serbenchItemsFixture, tc.from, tc.to, 1)
		if items == serbenchItemsFixture {
			t.Fatalf("%s is not in the fixture", tc.from)
		}
		if err := os.WriteFile(filepath.Join(dir, "items.jsonl"), []byte(items), 0o644); err != nil {
			t.Fatal(err)
		}
		_, vErr, err := runSerbench(t, dir, "validate", "--items", "items.jsonl", "--labels", "labels.jsonl", "--predictions", "predictions.jsonl")
		if err == nil || !strings.Contains(vErr, tc.want) {
			t.Errorf("validate: %v\n%s; want a refusal containing %q", err, vErr, tc.want)
		}
		_, rErr, err := runSerbench(t, dir, "run", "--items", "items.jsonl", "--method", "bm25", "--output", "out.jsonl")
		if err == nil || !strings.Contains(rErr, tc.want) {
			t.Errorf("run: %v\n%s; want a refusal containing %q", err, rErr, tc.want)
		}
	}
}

// A bootstrap of no draws is refused, not printed as an interval [0, 0].
func TestSerbenchCompareNoDraws(t *testing.T) {
	var preds strings.Builder
	for _, m := range []string{"a", "b"} {
		fmt.Fprintf(&preds, `{"state_id":"s1","method":%q,"ranked_evidence_ids":["e1"]}`+"\n", m)
		fmt.Fprintf(&preds, `{"state_id":"s2","method":%q,"ranked_evidence_ids":["c1"]}`+"\n", m)
	}
	dir := serbenchFixture(t, preds.String())
	if _, stderr, err := runSerbench(t, dir, "compare", "--items", "items.jsonl", "--labels", "labels.jsonl", "--predictions", "predictions.jsonl",
		"--baseline", "a", "--method", "b", "--draws", "10"); err != nil {
		t.Fatalf("compare --draws 10: %v\n%s", err, stderr)
	}
	for _, d := range []string{"0", "-5"} {
		_, _, err := runSerbench(t, dir, "compare", "--items", "items.jsonl", "--labels", "labels.jsonl", "--predictions", "predictions.jsonl",
			"--baseline", "a", "--method", "b", "--draws", d)
		if err == nil || !strings.Contains(err.Error(), "--draws "+d+": want a positive number") {
			t.Errorf("compare --draws %s: %v, want a refusal", d, err)
		}
	}
}

// Weights that are each finite but sum past the float range are refused
// by every command that reads labels, naming file, line and field; score
// and compare never panic on them or print NaN.
func TestSerbenchOverflowingWeights(t *testing.T) {
	preds := `{"state_id":"s1","method":"a","ranked_evidence_ids":["e1","e3"]}
{"state_id":"s2","method":"a","ranked_evidence_ids":["c1"]}
{"state_id":"s1","method":"b","ranked_evidence_ids":["e3"]}
{"state_id":"s2","method":"b","ranked_evidence_ids":[]}
`
	dir := serbenchFixture(t, preds)
	labels := strings.Replace(serbenchLabelsFixture, `"necessity_weight":2}`, `"necessity_weight":1.7e308}`, 1)
	labels = strings.Replace(labels, `"necessity_weight":1}],"observed`, `"necessity_weight":1.7e308}],"observed`, 1)
	os.WriteFile(filepath.Join(dir, "labels.jsonl"), []byte(labels), 0o644)
	const want = "labels.jsonl:1: required_evidence_groups: the necessity_weights sum to +Inf: the total must be finite"
	for _, args := range [][]string{
		{"validate", "--items", "items.jsonl", "--labels", "labels.jsonl", "--predictions", "predictions.jsonl"},
		{"score", "--labels", "labels.jsonl", "--predictions", "predictions.jsonl"},
		{"compare", "--items", "items.jsonl", "--labels", "labels.jsonl", "--predictions", "predictions.jsonl",
			"--baseline", "a", "--method", "b", "--metric", "group_ndcg", "--k", "3", "--draws", "10"},
	} {
		stdout, stderr, err := runSerbench(t, dir, args...)
		if err == nil || !strings.Contains(stderr, want) || strings.Contains(stdout, "NaN") {
			t.Errorf("%s: err %v, stdout %q, stderr %q; want a refusal containing %q", args[0], err, stdout, stderr, want)
		}
	}
}

// An output is never one of the command's inputs (under any name), and
// replaces only an earlier output of its own kind: --per-state a file of
// score rows, run --output predictions of the same method.
func TestSerbenchOutputsKeepInputs(t *testing.T) {
	preds := `{"state_id":"s1","method":"m","ranked_evidence_ids":["e1"]}
{"state_id":"s2","method":"m","ranked_evidence_ids":["c1"]}
`
	dir := serbenchFixture(t, preds)
	if err := os.Link(filepath.Join(dir, "predictions.jsonl"), filepath.Join(dir, "alias.jsonl")); err != nil {
		t.Fatal(err)
	}
	score := func(perState string) error {
		_, _, err := runSerbench(t, dir, "score", "--items", "items.jsonl", "--labels", "labels.jsonl", "--predictions", "predictions.jsonl", "--per-state", perState)
		return err
	}
	for name, want := range map[string]string{
		"predictions.jsonl": "predictions.jsonl: the --predictions file",
		"alias.jsonl":       "alias.jsonl: the --predictions file",
		"labels.jsonl":      "labels.jsonl: the --labels file",
		"items.jsonl":       "items.jsonl: the --items file",
	} {
		if err := score(name); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("score --per-state %s: %v, want a refusal containing %q", name, err, want)
		}
	}
	// Another predictions file is not a per-state file either.
	other := filepath.Join(dir, "other.jsonl")
	os.WriteFile(other, []byte(preds), 0o644)
	if err := score("other.jsonl"); err == nil || !strings.Contains(err.Error(), "other.jsonl: line 1") {
		t.Errorf("score --per-state other.jsonl (predictions): %v, want a refusal", err)
	}
	// Its own earlier output is replaced.
	for i := 0; i < 2; i++ {
		if err := score("scores.jsonl"); err != nil {
			t.Fatalf("score --per-state scores.jsonl, run %d: %v", i, err)
		}
	}

	// run --output: predictions of another method are someone else's.
	mine := `{"state_id":"s1","method":"my_retriever","ranked_evidence_ids":["e1"]}` + "\n"
	os.WriteFile(filepath.Join(dir, "mine.jsonl"), []byte(mine), 0o644)
	_, _, err := runSerbench(t, dir, "run", "--items", "items.jsonl", "--method", "bm25", "--k", "3", "--output", "mine.jsonl")
	if err == nil || !strings.Contains(err.Error(), `mine.jsonl: line 1: method "my_retriever", but this run writes "bm25"; use another --output`) {
		t.Errorf("run --output mine.jsonl: %v, want a refusal", err)
	}
	if err := os.Link(filepath.Join(dir, "items.jsonl"), filepath.Join(dir, "items2.jsonl")); err != nil {
		t.Fatal(err)
	}
	_, _, err = runSerbench(t, dir, "run", "--items", "items.jsonl", "--method", "bm25", "--k", "3", "--output", "items2.jsonl")
	if err == nil || !strings.Contains(err.Error(), "items2.jsonl: the --items file") {
		t.Errorf("run --output items2.jsonl (a link to the items): %v, want a refusal", err)
	}
	for name, data := range map[string]string{"predictions.jsonl": preds, "other.jsonl": preds, "mine.jsonl": mine, "labels.jsonl": serbenchLabelsFixture, "items.jsonl": serbenchItemsFixture} {
		if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != data {
			t.Errorf("%s changed:\n%s", name, got)
		}
	}
	// The same method's earlier output (here under --name) is replaced.
	for i := 0; i < 2; i++ {
		if _, stderr, err := runSerbench(t, dir, "run", "--items", "items.jsonl", "--method", "bm25", "--name", "my_retriever", "--k", "3", "--output", "mine.jsonl"); err != nil {
			t.Fatalf("run %d over its own method's output: %v\n%s", i, err, stderr)
		}
	}
}
