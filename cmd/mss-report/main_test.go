package main

import (
	"bytes"
	"encoding/json"
	"github.com/missingcomplement/mss/internal/gittest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fixture is a one-repository mirror root with states, labels and two
// predictions files (methods bm25 and other).
type fixture struct {
	dir, root, states, labels, bm25, other string
}

func write(t *testing.T, path string, lines ...any) {
	t.Helper()
	var b strings.Builder
	for _, l := range lines {
		if s, ok := l.(string); ok {
			b.WriteString(s)
			continue
		}
		data, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	gittest.Run(t, dir, "init", "-q", "-b", "main", work)
	write(t, filepath.Join(work, "lookup.py"), "import json\n\n\ndef parse_config(text):\n    return json.loads(text)\n\n\ndef lookup_single(table, key):\n    return table[key]\n")
	write(t, filepath.Join(work, "grid.py"), "from lookup import lookup_single\n\n\nclass PairGrid:\n    def map(self, func, hue=None):\n        return [lookup_single(self.table, h) for h in hue]\n")
	gittest.Run(t, work, "add", ".")
	gittest.Run(t, work, "commit", "-q", "-m", "one")
	commit := gittest.Run(t, work, "rev-parse", "HEAD")
	fx := &fixture{dir: dir, root: filepath.Join(dir, "mirrors"),
		states: filepath.Join(dir, "states.jsonl"), labels: filepath.Join(dir, "labels.jsonl"),
		bm25: filepath.Join(dir, "bm25.jsonl"), other: filepath.Join(dir, "other.jsonl")}
	gittest.Run(t, dir, "clone", "-q", "--bare", work, filepath.Join(fx.root, "acme+widget", "repo"))
	issue := "PairGrid.map raises KeyError in lookup_single when hue is given"
	write(t, fx.states,
		map[string]any{"state_id": "w-1:before_search", "repo": "acme/widget", "base_commit": commit, "state_type": "before_search", "issue": issue},
		map[string]any{"state_id": "w-1:after_file_inspection", "repo": "acme/widget", "base_commit": commit, "state_type": "after_file_inspection", "issue": issue,
			"observed_spans": []map[string]any{{"path": "grid.py", "start_line": 4, "end_line": 6}}})
	write(t, fx.labels,
		map[string]any{"state_id": "w-1:before_search", "required_groups": []map[string]any{
			{"path": "lookup.py", "lines": [][2]int{{9, 9}}}, {"path": "grid.py", "lines": [][2]int{{6, 6}}}}},
		map[string]any{"state_id": "w-1:after_file_inspection", "required_groups": []map[string]any{
			{"path": "lookup.py", "lines": [][2]int{{9, 9}}}}})
	unit := func(p string, a, b int) map[string]any {
		return map[string]any{"path": p, "start_line": a, "end_line": b}
	}
	write(t, fx.bm25,
		map[string]any{"state_id": "w-1:before_search", "method": "bm25", "units": []any{unit("grid.py", 4, 6)}},
		map[string]any{"state_id": "w-1:after_file_inspection", "method": "bm25", "units": []any{unit("grid.py", 4, 6), unit("lookup.py", 8, 9)}},
		map[string]any{"state_id": "w-9:elsewhere", "method": "bm25", "units": []any{}})
	write(t, fx.other,
		map[string]any{"state_id": "w-1:before_search", "method": "other", "units": []any{unit("lookup.py", 8, 9), unit("grid.py", 4, 6)}},
		map[string]any{"state_id": "w-1:after_file_inspection", "method": "other", "units": []any{unit("lookup.py", 8, 9)}})
	return fx
}

func runReport(args ...string) (stdout, stderr string, err error) {
	cmd := newReportCmd()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err = cmd.Execute()
	return out.String(), errOut.String(), err
}

func TestReport(t *testing.T) {
	fx := newFixture(t)
	dir := filepath.Join(fx.dir, "report")
	out, errOut, err := runReport("--states", fx.states, "--labels", fx.labels, "--mirror-root", fx.root,
		"--predictions", fx.bm25, "--predictions", fx.other, "--baseline", "bm25", "--out", dir, "--draws", "100")
	if err != nil {
		t.Fatal(err)
	}
	if want := "wrote " + filepath.Join(dir, "index.html") + "\n"; out != want {
		t.Errorf("stdout %q, want %q", out, want)
	}
	if !strings.Contains(errOut, "bm25.jsonl: ignored 1 predictions for states not in the states file (first: w-9:elsewhere)") {
		t.Errorf("stderr %q does not report the unknown state", errOut)
	}
	for _, f := range []string{"index.html", "summary.json", "complete_at_k.png", "strata.png", "paired.png"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("report file %s: %v", f, err)
		}
	}
	// bm25 completes only the after-inspection state; other completes both.
	var summary struct {
		Methods map[string]struct {
			Mean map[string]float64 `json:"mean"`
		} `json:"methods"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &summary); err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for name, m := range summary.Methods {
		got[name] = m.Mean["complete@5"]
	}
	if got["bm25"] != 0.5 || got["other"] != 1 {
		t.Errorf("complete@5 by method %v, want bm25 0.5, other 1\n%s", got, data)
	}
	// Same input, same files.
	again := filepath.Join(fx.dir, "again")
	if _, _, err := runReport("--states", fx.states, "--labels", fx.labels, "--mirror-root", fx.root,
		"--predictions", fx.bm25+","+fx.other, "--baseline", "bm25", "--out", again, "--draws", "100"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"index.html", "summary.json", "paired.png"} {
		a, _ := os.ReadFile(filepath.Join(dir, f))
		b, _ := os.ReadFile(filepath.Join(again, f))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs on the same input", f)
		}
	}
}

func TestReportBadInput(t *testing.T) {
	fx := newFixture(t)
	out := filepath.Join(fx.dir, "r")
	base := []string{"--states", fx.states, "--labels", fx.labels, "--mirror-root", fx.root, "--out", out}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown baseline", []string{"--predictions", fx.bm25, "--baseline", "nope"}, "--baseline nope: no predictions of that method (methods: bm25)"},
		{"unknown metric", []string{"--predictions", fx.bm25, "--metric", "recall@5"}, `--metric "recall@5"`},
		{"no mirror root", []string{"--predictions", fx.bm25, "--mirror-root", filepath.Join(fx.dir, "none")}, "not a directory"},
		{"missing predictions flag", nil, `required flag(s) "predictions" not set`},
		{"zero k", []string{"--predictions", fx.bm25, "--k", "0,5"}, "--k 0: want a positive number of units"},
		{"zero budget", []string{"--predictions", fx.bm25, "--budget", "0"}, "--budget 0: want a positive number of tokens"},
		{"no draws", []string{"--predictions", fx.bm25, "--draws", "0"}, "--draws 0: want a positive number"},
	}
	for _, tc := range tests {
		_, _, err := runReport(append(append([]string{}, base...), tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed run created %s (%v)", out, err)
	}
}
