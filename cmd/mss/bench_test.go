package main

import (
	"encoding/json"
	"github.com/missingcomplement/mss/internal/gittest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// benchFixture is a one-repository mirror root with states, labels and two
// predictions files.
type benchFixture struct {
	dir, root                   string
	states, labels, bm25, other string
	commit                      string
}

func benchWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func benchJSONL(t *testing.T, path string, vs ...any) {
	t.Helper()
	var b strings.Builder
	for _, v := range vs {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	benchWrite(t, path, b.String())
}

const (
	benchLookup = `import json


def parse_config(text):
    """Parse the configuration text."""
    return json.loads(text)


def lookup_single(table, key):
    """Look a key up; raise KeyError when absent."""
    return table[key]
`
	benchPlot = `from lookup import lookup_single


class PairGrid:
    def map(self, func, hue=None):
        return [lookup_single(self.table, h) for h in hue]
`
)

func newBenchFixture(t *testing.T) *benchFixture {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	gittest.Run(t, dir, "init", "-q", "-b", "main", work)
	benchWrite(t, filepath.Join(work, "lookup.py"), benchLookup)
	benchWrite(t, filepath.Join(work, "grid.py"), benchPlot)
	gittest.Run(t, work, "add", ".")
	gittest.Run(t, work, "commit", "-q", "-m", "one")
	fx := &benchFixture{dir: dir, root: filepath.Join(dir, "mirrors"), commit: gittest.Run(t, work, "rev-parse", "HEAD")}
	gittest.Run(t, dir, "clone", "-q", "--bare", work, filepath.Join(fx.root, "acme+widget", "repo"))
	fx.states = filepath.Join(dir, "states.jsonl")
	fx.labels = filepath.Join(dir, "labels.jsonl")
	fx.bm25 = filepath.Join(dir, "bm25.jsonl")
	fx.other = filepath.Join(dir, "other.jsonl")
	benchJSONL(t, fx.states,
		map[string]any{"state_id": "w-1:before_search", "repo": "acme/widget", "base_commit": fx.commit, "state_type": "before_search",
			"issue": "PairGrid.map raises KeyError in lookup_single when hue is given", "information_need": "Find the code that must change."},
		map[string]any{"state_id": "w-1:after_file_inspection", "repo": "acme/widget", "base_commit": fx.commit, "state_type": "after_file_inspection",
			"issue": "PairGrid.map raises KeyError in lookup_single when hue is given", "information_need": "grid.py was read; find what changes with it.",
			"observed_spans": []map[string]any{{"path": "grid.py", "start_line": 4, "end_line": 6}}})
	benchJSONL(t, fx.labels,
		map[string]any{"state_id": "w-1:before_search", "required_groups": []map[string]any{
			{"path": "lookup.py", "lines": [][2]int{{11, 11}}}, {"path": "grid.py", "lines": [][2]int{{6, 6}}}}},
		map[string]any{"state_id": "w-1:after_file_inspection", "required_groups": []map[string]any{
			{"path": "lookup.py", "lines": [][2]int{{11, 11}}}}})
	unit := func(p string, a, b int) map[string]any {
		return map[string]any{"path": p, "start_line": a, "end_line": b}
	}
	benchJSONL(t, fx.bm25,
		map[string]any{"state_id": "w-1:before_search", "method": "bm25", "units": []any{unit("grid.py", 4, 6)}},
		map[string]any{"state_id": "w-1:after_file_inspection", "method": "bm25", "units": []any{unit("grid.py", 4, 6), unit("lookup.py", 9, 11)}},
		map[string]any{"state_id": "w-9:elsewhere", "method": "bm25", "units": []any{}})
	benchJSONL(t, fx.other,
		map[string]any{"state_id": "w-1:before_search", "method": "other", "units": []any{unit("lookup.py", 9, 11), unit("grid.py", 4, 6)}},
		map[string]any{"state_id": "w-1:after_file_inspection", "method": "other", "units": []any{unit("lookup.py", 9, 11)}})
	return fx
}

// runBench runs a fresh bench subcommand.
func runBench(t *testing.T, build func() *cobra.Command, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	return runCmd(t, build(), "", args...)
}

func TestBenchScore(t *testing.T) {
	fx := newBenchFixture(t)
	out, errOut, err := runBench(t, newBenchScoreCmd, "--states", fx.states, "--labels", fx.labels,
		"--mirror-root", fx.root, "--predictions", fx.bm25+","+fx.other)
	if err != nil {
		t.Fatal(err)
	}
	// lookup.py 9-11 costs 27 tokens, grid.py 4-6 costs 28. bm25 completes
	// only the after-inspection state, with its second unit; other
	// completes it with its first and the before-search state with two.
	want := `bm25: states=2 missing=0 C@1=0.0 C@3=50.0 C@5=50.0 C@8=50.0 C@10=50.0 G@5=75.0 G@8=75.0 tok@8=42
   after_file_inspection: n=1 C@5=100.0
   before_search: n=1 C@5=0.0
   groups=1: n=1 C@5=100.0
   groups>=2: n=1 C@5=0.0
other: states=2 missing=0 C@1=50.0 C@3=100.0 C@5=100.0 C@8=100.0 C@10=100.0 G@5=100.0 G@8=100.0 tok@8=41
   after_file_inspection: n=1 C@5=100.0
   before_search: n=1 C@5=100.0
   groups=1: n=1 C@5=100.0
   groups>=2: n=1 C@5=100.0
`
	if out != want {
		t.Errorf("score output:\n%s\nwant:\n%s", out, want)
	}
	if !strings.Contains(errOut, "bm25.jsonl: ignored 1 predictions for states not in the states file (first: w-9:elsewhere)") {
		t.Errorf("stderr %q does not report the unknown state", errOut)
	}
}

func TestBenchCompare(t *testing.T) {
	fx := newBenchFixture(t)
	out, _, err := runBench(t, newBenchCompareCmd, "--states", fx.states, "--labels", fx.labels,
		"--mirror-root", fx.root, "--baseline", fx.bm25, "--method", fx.other, "--draws", "100")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"other minus bm25 on complete@5", "all                    2  50.0   100.0  +50.0", "1/1/0"} {
		if !strings.Contains(out, want) {
			t.Errorf("compare output lacks %q:\n%s", want, out)
		}
	}
}

func TestBenchBadInput(t *testing.T) {
	fx := newBenchFixture(t)
	badStates := filepath.Join(fx.dir, "bad-states.jsonl")
	benchWrite(t, badStates, `{"state_id":"x","repo":"acme/widget","base_commit":"`+fx.commit+`","state_type":"before_search","issue":"x"}`+"\n"+`{"state_id":"y","repo":"acme/widget","state_type":"t","issue":"x"}`+"\n")
	noMirror := filepath.Join(fx.dir, "no-mirror.jsonl")
	benchWrite(t, noMirror, `{"state_id":"w-1:before_search","repo":"acme/gizmo","base_commit":"`+fx.commit+`","state_type":"before_search","issue":"x"}`+"\n")
	noCommit := filepath.Join(fx.dir, "no-commit.jsonl")
	benchWrite(t, noCommit, `{"state_id":"w-1:before_search","repo":"acme/widget","base_commit":"0123456789abcdef0123456789abcdef01234567","state_type":"before_search","issue":"x"}`+"\n")
	partial := filepath.Join(fx.dir, "partial.jsonl")
	benchWrite(t, partial, `{"state_id":"w-1:before_search","method":"partial","units":[]}`+"\n")
	noRepo := filepath.Join(fx.dir, "no-repo.jsonl")
	states, _ := os.ReadFile(fx.states)
	benchWrite(t, noRepo, strings.Replace(string(states), `"repo":"acme/widget"`, `"repo":"acme/gadget"`, 1))
	fewLabels := filepath.Join(fx.dir, "few-labels.jsonl")
	labels, _ := os.ReadFile(fx.labels)
	benchWrite(t, fewLabels, strings.SplitAfter(string(labels), "\n")[0])
	tests := []struct {
		name  string
		build func() *cobra.Command
		args  []string
		want  []string
	}{
		{"state without a label", newBenchScoreCmd, []string{"--states", fx.states, "--labels", fewLabels, "--predictions", fx.bm25},
			[]string{`states.jsonl:2: field state_id: "w-1:after_file_inspection" has no label in ` + fewLabels}},
		{"malformed state", newBenchScoreCmd, []string{"--states", badStates, "--labels", fx.labels, "--predictions", fx.bm25},
			[]string{"bad-states.jsonl:2: field base_commit: missing or empty"}},
		{"missing mirror", newBenchScoreCmd, []string{"--states", noMirror, "--labels", fx.labels, "--predictions", fx.bm25},
			[]string{"acme/gizmo", filepath.Join(fx.root, "acme+gizmo", "repo"), filepath.Join(fx.root, "acme+gizmo.git")}},
		{"unknown commit", newBenchScoreCmd, []string{"--states", noCommit, "--labels", fx.labels, "--predictions", fx.bm25},
			[]string{"no-commit.jsonl:1: field base_commit: repository acme/widget: unknown commit 0123456789abcdef0123456789abcdef01234567"}},
		{"no mirror", newBenchRepoCmd, []string{"--states", noRepo, "--output", filepath.Join(fx.dir, "never-{method}.jsonl")},
			[]string{"no-repo.jsonl:1: field repo: repository acme/gadget: no git directory"}},
		{"unknown metric", newBenchCompareCmd, []string{"--states", fx.states, "--labels", fx.labels, "--baseline", fx.bm25, "--method", fx.other, "--metric", "recall@5"},
			[]string{`--metric "recall@5"`}},
		{"zero k", newBenchScoreCmd, []string{"--states", fx.states, "--labels", fx.labels, "--predictions", fx.bm25, "--k", "5,0"},
			[]string{"--k 0: want a positive number of units"}},
		{"negative budget", newBenchScoreCmd, []string{"--states", fx.states, "--labels", fx.labels, "--predictions", fx.bm25, "--budget", "-1"},
			[]string{"--budget -1: want a positive number of tokens"}},
		{"zero budget", newBenchCompareCmd, []string{"--states", fx.states, "--labels", fx.labels, "--baseline", fx.bm25, "--method", fx.other, "--budget", "0"},
			[]string{"--budget 0: want a positive number of tokens"}},
		// A paired comparison needs both answers for every state: a
		// missing one is not a zero to win or lose against.
		{"method lacks a state", newBenchCompareCmd, []string{"--states", fx.states, "--labels", fx.labels, "--baseline", fx.bm25, "--method", partial},
			[]string{"partial.jsonl: no prediction for 1 of the 2 states", "(first: w-1:after_file_inspection)"}},
		{"baseline lacks a state", newBenchCompareCmd, []string{"--states", fx.states, "--labels", fx.labels, "--baseline", partial, "--method", fx.other},
			[]string{"partial.jsonl: no prediction for 1 of the 2 states", "(first: w-1:after_file_inspection)"}},
		{"no draws", newBenchCompareCmd, []string{"--states", fx.states, "--labels", fx.labels, "--baseline", fx.bm25, "--method", fx.other, "--draws", "0"},
			[]string{"--draws 0: want a positive number"}},
		{"no workers", newBenchRepoCmd, []string{"--states", fx.states, "--output", filepath.Join(fx.dir, "never.jsonl"), "--concurrency", "0"},
			[]string{"--concurrency 0: want a positive number"}},
	}
	for _, tc := range tests {
		_, _, err := runBench(t, tc.build, append(tc.args, "--mirror-root", fx.root)...)
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: got error %v, want it to contain %q", tc.name, err, w)
			}
		}
	}
}

// A budget the curve cannot use is refused before anything is scored or
// printed.
func TestBenchScoreChecksBudgetsFirst(t *testing.T) {
	fx := newBenchFixture(t)
	for _, b := range []string{"0", "-5", "2048,0"} {
		out, _, err := runBench(t, newBenchScoreCmd, "--states", fx.states, "--labels", fx.labels,
			"--mirror-root", fx.root, "--predictions", fx.bm25, "--budgets", b)
		if err == nil || !strings.Contains(err.Error(), "want a positive budget") || out != "" {
			t.Errorf("--budgets %s: error %v, output %q; want the budget refused and nothing printed", b, err, out)
		}
	}
}

// On a track whose states all have one group, the curve's column of
// states with two or more groups holds no figure, not a 0.0.
func TestBenchScoreBudgetsOneGroup(t *testing.T) {
	fx := newBenchFixture(t)
	labels := filepath.Join(fx.dir, "one-group.jsonl")
	benchJSONL(t, labels,
		map[string]any{"state_id": "w-1:before_search", "required_groups": []map[string]any{{"path": "grid.py", "lines": [][2]int{{6, 6}}}}},
		map[string]any{"state_id": "w-1:after_file_inspection", "required_groups": []map[string]any{{"path": "lookup.py", "lines": [][2]int{{11, 11}}}}})
	out, _, err := runBench(t, newBenchScoreCmd, "--states", fx.states, "--labels", labels,
		"--mirror-root", fx.root, "--predictions", fx.bm25, "--budgets", "5,6144")
	if err != nil {
		t.Fatal(err)
	}
	want := "budget curve  C@5 B=5  C@5 B=6144  2+ groups B=5  2+ groups B=6144\n" +
		"bm25          0.0      100.0       -              -\n"
	if !strings.HasSuffix(out, want) {
		t.Errorf("budget curve:\n%s\nwant it to end with\n%s", out, want)
	}
}

func TestBenchRepo(t *testing.T) {
	fx := newBenchFixture(t)
	pred := filepath.Join(fx.dir, "out", "pred.jsonl")
	if err := os.MkdirAll(filepath.Dir(pred), 0o755); err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(fx.dir, "idx")
	for _, method := range []string{"complement", "bm25"} {
		out, _, err := runBench(t, newBenchRepoCmd, "--states", fx.states, "--labels", fx.labels, "--mirror-root", fx.root,
			"--method", method, "--output", pred+"."+method, "--index-dir", idx)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		for _, want := range []string{"2 states, 2 pending at start", method + " -> " + pred + "." + method + ": 2 answered now, 0 resumed",
			"latency per state", "snapshots: 1 in", "acme/widget: 1 commit,", method + ": states=2 missing=0"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: output lacks %q:\n%s", method, want, out)
			}
		}
		data, err := os.ReadFile(pred + "." + method)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(lines) != 2 || !strings.Contains(lines[0], `"state_id":"w-1:before_search"`) || !strings.Contains(lines[0], `"method":"`+method+`"`) {
			t.Errorf("%s: predictions file:\n%s", method, data)
		}
	}
	if _, err := os.Stat(filepath.Join(idx, "acme+widget.db")); err != nil {
		t.Errorf("index not kept in --index-dir: %v", err)
	}
	// A rerun finds both states answered.
	out, _, err := runBench(t, newBenchRepoCmd, "--states", fx.states, "--mirror-root", fx.root,
		"--method", "bm25", "--output", pred+".bm25", "--index-dir", idx)
	if err != nil || !strings.Contains(out, ": 0 answered now, 2 resumed") {
		t.Errorf("rerun: %v\n%s", err, out)
	}
	if _, _, err := runBench(t, newBenchRepoCmd, "--states", fx.states, "--mirror-root", fx.root,
		"--method", "no-such-method", "--output", pred); err == nil || !strings.Contains(err.Error(), `unknown method "no-such-method"`) {
		t.Errorf("unknown method: got %v", err)
	}
	if _, _, err := runBench(t, newBenchRepoCmd, "--states", fx.states, "--mirror-root", fx.root,
		"--method", "bm25,rrf", "--output", pred); err == nil || !strings.Contains(err.Error(), "must contain {method}") {
		t.Errorf("several methods, one file: got %v", err)
	}
	// Several methods in one pass: bm25 is already done, rrf and mmr run.
	out, _, err = runBench(t, newBenchRepoCmd, "--states", fx.states, "--labels", fx.labels, "--mirror-root", fx.root,
		"--method", "bm25,rrf,mmr", "--output", pred+".{method}", "--index-dir", idx)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"bm25 -> " + pred + ".bm25: 0 answered now, 2 resumed", "rrf -> " + pred + ".rrf: 2 answered now",
		"mmr: states=2", "rrf: states=2", "bm25: states=2"} {
		if !strings.Contains(out, want) {
			t.Errorf("several methods: output lacks %q:\n%s", want, out)
		}
	}
}

// A --cache that names an --output's file is refused by both names, not
// as a file another run is writing, and neither file is made.
func TestBenchRepoCacheIsNoOutput(t *testing.T) {
	fx := newBenchFixture(t)
	dir := filepath.Join(fx.dir, "out")
	sep := string(filepath.Separator)
	for _, c := range [][3]string{
		{filepath.Join(dir, "pred.jsonl"), filepath.Join(dir, "pred.jsonl"), "bm25"},
		{filepath.Join(dir, "pred.jsonl"), dir + sep + "." + sep + "pred.jsonl", "bm25"},
		{filepath.Join(dir, "pred.rrf.jsonl"), filepath.Join(dir, "pred.{method}.jsonl"), "bm25,rrf"},
	} {
		_, _, err := runBench(t, newBenchRepoCmd, "--states", fx.states, "--mirror-root", fx.root,
			"--method", c[2], "--output", c[1], "--cache", c[0], "--index-dir", filepath.Join(fx.dir, "idx"))
		if err == nil || !strings.Contains(err.Error(), "--cache "+c[0]+" and --output ") || !strings.Contains(err.Error(), "name one file") {
			t.Errorf("--cache %s, --output %s: %v, want a refusal naming both", c[0], c[1], err)
		}
		if _, err := os.Stat(c[0]); err == nil {
			t.Errorf("--cache %s, --output %s: the refused run made %s", c[0], c[1], c[0])
		}
	}
}

// TestRepoCounts: a repository opened again gets its counts back; one no
// worker opened since the others gives them up.
func TestRepoCounts(t *testing.T) {
	c := newRepoCounts(2)
	a, b := c.of("o/a"), c.of("o/b")
	if a == b {
		t.Fatal("two repositories share their counts")
	}
	if c.of("o/a") != a {
		t.Error("o/a opened again got new counts")
	}
	c.of("o/c") // o/b is now the one opened longest ago
	if len(c.m) != 2 || c.m["o/b"] != nil {
		t.Errorf("kept %v, want o/a and o/c", c.last)
	}
	if c.of("o/a") != a {
		t.Error("o/a lost its counts")
	}
}
