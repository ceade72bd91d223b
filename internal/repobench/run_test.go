package repobench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/internal/gittest"
	"github.com/missingcomplement/mss/internal/safefile"
	"github.com/missingcomplement/mss/pipeline"
)

// lineSnapshot offers one candidate per state: the file and lines its
// information need names, as "path:start-end".
type lineSnapshot struct{ commit string }

func (s lineSnapshot) Candidates(_ context.Context, st *mss.State, _ pipeline.Limits) (*pipeline.Query, error) {
	var path string
	var a, b int
	if _, err := fmt.Sscanf(strings.ReplaceAll(st.InformationNeed, ":", " "), "%s %d-%d", &path, &a, &b); err != nil {
		return nil, fmt.Errorf("bad need %q: %v", st.InformationNeed, err)
	}
	return &pipeline.Query{State: st, Candidates: []mss.Candidate{{Unit: mss.Unit{Path: path, StartLine: a, EndLine: b, Symbol: s.commit[:7]}}}}, nil
}

func (s lineSnapshot) Select(ctx context.Context, ctrl mss.Controller, q *pipeline.Query, lim pipeline.Limits, _ pipeline.SelectOptions) (*pipeline.Answer, error) {
	res, err := ctrl.Select(ctx, &mss.Request{State: q.State, Candidates: q.Candidates, Budget: lim.Budget, MaxUnits: lim.MaxUnits})
	if err != nil {
		return nil, err
	}
	return &pipeline.Answer{Result: *res, Candidates: q.Candidates}, nil
}

// firstController returns the candidates as they come.
type firstController struct{}

func (firstController) Name() string { return "first" }
func (firstController) Select(_ context.Context, req *mss.Request) (*mss.Result, error) {
	res := &mss.Result{Method: "first", Config: "v1"}
	for _, c := range req.Candidates {
		res.Units = append(res.Units, c.Unit)
	}
	return res, nil
}

func runFixture(t *testing.T) (*fixture, []*mss.State) {
	fx := newFixture(t)
	states := []*mss.State{
		{StateID: "s1", Repo: "acme/widget", BaseCommit: fx.c2, StateType: "before_search", InformationNeed: "a.py:7-8"},
		{StateID: "s2", Repo: "acme/widget", BaseCommit: fx.c1, StateType: "before_search", InformationNeed: "a.py:1-2"},
		{StateID: "s3", Repo: "Acme/Widget", BaseCommit: fx.c2, StateType: "after_file_inspection", InformationNeed: "b.py:1-2"},
	}
	return fx, states
}

func TestRunOrderResumeAndRewrite(t *testing.T) {
	fx, states := runFixture(t)
	src := NewSource(fx.root)
	defer src.Close()
	out := filepath.Join(t.TempDir(), "pred.jsonl")
	var opened []string
	var notices []string
	opts := RunOptions{
		States: states, Source: src, Limits: pipeline.DefaultLimits(),
		Methods: []MethodRun{{Name: "first", Output: out, New: func() (mss.Controller, error) { return firstController{}, nil }}},
		Open: func(_ context.Context, repo, gitDir, commit string) (*Opened, error) {
			if gitDir != fx.gitDir {
				t.Errorf("git dir %q, want %q", gitDir, fx.gitDir)
			}
			opened = append(opened, repo+"@"+commit[:7])
			return &Opened{Snapshot: lineSnapshot{commit}}, nil
		},
		Notice: func(s string) { notices = append(notices, s) },
	}

	// A previous run answered s3, then was killed while writing s1.
	writeFile(t, out, `{"state_id":"s3","method":"first","config":"v1","units":[{"path":"b.py","start_line":1,"end_line":2}],"retrieve_ms":0.4}`+"\n"+`{"state_id":"s1","meth`)
	stats, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if ms := stats.Methods["first"]; ms.Resumed != 1 || ms.Done != 2 || len(ms.LatencyMS) != 2 || len(stats.Builds) != 2 || stats.Pending != 2 {
		t.Errorf("stats = %+v %+v; want 2 pending, 1 resumed, 2 done, 2 latencies, 2 builds", stats, ms)
	}
	// Commits in time order, c1 first, though the file names c2 first.
	if diff := cmp.Diff([]string{"acme/widget@" + fx.c1[:7], "acme/widget@" + fx.c2[:7]}, opened); diff != "" {
		t.Errorf("index order (-want +got):\n%s", diff)
	}
	if len(notices) != 2 || !strings.Contains(notices[0], "pred.jsonl:2: dropped a torn last line") || !strings.Contains(notices[1], "1 of 3 states already answered") {
		t.Errorf("notices = %q", notices)
	}
	known := map[string]bool{"s1": true, "s2": true, "s3": true}
	ps, err := LoadPredictions([]string{out}, known)
	if err != nil {
		t.Fatal(err)
	}
	got := ps.ByMethod["first"]
	if len(got) != 3 || !reflect.DeepEqual(got["s1"].Units[0], PredUnit{Path: "a.py", StartLine: 7, EndLine: 8, Symbol: fx.c2[:7]}) || got["s1"].Config != "v1" {
		t.Errorf("predictions = %+v", got)
	}
	data, _ := os.ReadFile(out)
	var ids []string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		p, err := parsePrediction([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, p.StateID)
	}
	if diff := cmp.Diff([]string{"s1", "s2", "s3"}, ids); diff != "" {
		t.Errorf("file not rewritten in states order (-want +got):\n%s", diff)
	}

	// A second run finds everything answered and opens nothing.
	opened = nil
	stats, err = Run(context.Background(), opts)
	if err != nil || stats.Methods["first"].Done != 0 || len(opened) != 0 {
		t.Errorf("rerun: stats %+v, opened %v, err %v", stats, opened, err)
	}
}

func TestRunErrors(t *testing.T) {
	fx, states := runFixture(t)
	src := NewSource(fx.root)
	defer src.Close()
	base := RunOptions{
		Source: src, Limits: pipeline.DefaultLimits(),
		Open: func(_ context.Context, _, _, commit string) (*Opened, error) {
			return &Opened{Snapshot: lineSnapshot{commit}}, nil
		},
	}
	tests := []struct {
		name     string
		states   []*mss.State
		existing string
		want     string
	}{
		{"missing mirror", []*mss.State{{StateID: "x", Repo: "acme/gizmo", BaseCommit: fx.c1}},
			"", "state x: repository acme/gizmo: no git directory for repository: looked in " + filepath.Join(fx.root, "acme+gizmo", "repo")},
		{"unknown commit", []*mss.State{{StateID: "x", Repo: "acme/widget", BaseCommit: "deadbeef"}},
			"", "state x: repository acme/widget: unknown commit deadbeef"},
		{"other method in output", states,
			`{"state_id":"s1","method":"bm25","units":[]}` + "\n", `pred.jsonl:1: field method: "bm25", but this run writes "first"`},
		{"state from another split", states,
			`{"state_id":"zz","method":"first","units":[]}` + "\n", `pred.jsonl:1: field state_id: "zz" is not in the states file`},
		// A replay's answers (no timings) or answers of two
		// configurations are no live run's file to append to; nor is one
		// whose answers were made with other settings than this run's.
		{"replay's answers", states,
			`{"state_id":"s1","method":"first","config":"v1","units":[]}` + "\n", `pred.jsonl:1: field retrieve_ms: missing, so a replay's answer`},
		{"two configurations", states,
			`{"state_id":"s1","method":"first","config":"v1","units":[],"retrieve_ms":1}` + "\n" + `{"state_id":"s2","method":"first","config":"v0","units":[],"retrieve_ms":1}` + "\n",
			`pred.jsonl:2: field config: "v0", but the lines before it have "v1"`},
		{"other settings", states,
			`{"state_id":"s1","method":"first","config":"v0","units":[],"retrieve_ms":1}` + "\n",
			`pred.jsonl: its answers were made with config "v0", this run's first is "v1"`},
		// A time no run records is refused, not resumed into the
		// latency figures.
		{"huge time", states,
			`{"state_id":"s1","method":"first","config":"v1","units":[],"retrieve_ms":1e308}` + "\n",
			`pred.jsonl:1: field retrieve_ms: 1e+308; want a time of 0 ms or more, up to a day`},
		{"negative time", states,
			`{"state_id":"s1","method":"first","config":"v1","units":[],"retrieve_ms":1,"select_ms":-1}` + "\n",
			`pred.jsonl:1: field select_ms: -1; want a time of 0 ms or more, up to a day`},
		{"state answered twice", states,
			`{"state_id":"s1","method":"first","config":"v1","units":[],"retrieve_ms":1}` + "\n" + `{"state_id":"s1","method":"first","config":"v1","units":[{"path":"a.py","start_line":1,"end_line":2}],"retrieve_ms":2}` + "\n",
			`pred.jsonl:2: field state_id: "s1" answered already on line 1`},
		{"malformed middle line", states,
			"{\"state_id\"\n" + `{"state_id":"s1","method":"first","units":[]}` + "\n", "pred.jsonl:1: malformed JSON"},
		{"selection fails", []*mss.State{{StateID: "s9", Repo: "acme/widget", BaseCommit: fx.c1, InformationNeed: "no lines"}},
			"", "state s9: retrieving: bad need"},
		// Another run holds the output: its lines and this run's would
		// interleave.
		{"output held", states, "held", "pred.jsonl: another run is writing it; wait for it, or use another --output"},
		// An empty file of the user's is kept, though the run fails.
		{"empty file of the user's", []*mss.State{{StateID: "x", Repo: "acme/widget", BaseCommit: "deadbeef"}},
			"empty", "unknown commit deadbeef"},
	}
	for _, tc := range tests {
		opts := base
		opts.States = tc.states
		out := filepath.Join(t.TempDir(), "pred.jsonl")
		opts.Methods = []MethodRun{{Name: "first", Output: out, New: func() (mss.Controller, error) { return firstController{}, nil }}}
		switch tc.existing {
		case "":
		case "held":
			f, err := safefile.OpenAppend(out)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
		case "empty":
			writeFile(t, out, "")
		default:
			writeFile(t, out, tc.existing)
		}
		_, err := Run(context.Background(), opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got error %v, want it to contain %q", tc.name, err, tc.want)
		}
		// A run that answered nothing leaves no file it made, and keeps
		// one it did not.
		if st, err := os.Stat(out); tc.existing == "" && err == nil {
			t.Errorf("%s: left %s (%d bytes)", tc.name, out, st.Size())
		}
		if _, err := os.Stat(out); tc.existing != "" && err != nil {
			t.Errorf("%s: removed %s", tc.name, out)
		}
	}
}

func TestPercentile(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3, 10, 9, 8, 7, 6}
	for _, tc := range []struct{ p, want float64 }{{50, 5}, {95, 10}, {10, 1}, {0, 1}, {100, 10}} {
		if got := Percentile(xs, tc.p); got != tc.want {
			t.Errorf("Percentile(%v) = %v, want %v", tc.p, got, tc.want)
		}
	}
}

// secondController returns the candidates in reverse.
type secondController struct{}

func (secondController) Name() string { return "second" }
func (secondController) Select(_ context.Context, req *mss.Request) (*mss.Result, error) {
	res := &mss.Result{Method: "second"}
	for i := len(req.Candidates) - 1; i >= 0; i-- {
		res.Units = append(res.Units, req.Candidates[i].Unit)
	}
	return res, nil
}

// firstAndSecond runs firstController into the file first and
// secondController into second.
func firstAndSecond(first, second string) []MethodRun {
	return []MethodRun{
		{Name: "first", Output: first, New: func() (mss.Controller, error) { return firstController{}, nil }},
		{Name: "second", Output: second, New: func() (mss.Controller, error) { return secondController{}, nil }},
	}
}

func TestRunSeveralMethodsShareRetrieval(t *testing.T) {
	fx, states := runFixture(t)
	src := NewSource(fx.root)
	defer src.Close()
	dir := t.TempDir()
	first, second := filepath.Join(dir, "first.jsonl"), filepath.Join(dir, "second.jsonl")
	// first already answered s2.
	writeFile(t, first, `{"state_id":"s2","method":"first","config":"v1","units":[],"retrieve_ms":0.4}`+"\n")
	opens := 0
	opts := RunOptions{
		States: states, Source: src, Limits: pipeline.DefaultLimits(), Concurrency: 2,
		Methods: firstAndSecond(first, second),
		Open: func(_ context.Context, _, _, commit string) (*Opened, error) {
			opens++
			return &Opened{Snapshot: lineSnapshot{commit}, Phases: map[string]float64{"index": 0.5}}, nil
		},
	}
	stats, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if opens != 2 || stats.Pending != 3 || stats.Methods["first"].Done != 2 || stats.Methods["second"].Done != 3 {
		t.Errorf("opens %d, stats %+v first %+v second %+v", opens, stats, stats.Methods["first"], stats.Methods["second"])
	}
	if stats.Builds[0].Phases["index"] != 0.5 {
		t.Errorf("phases not recorded: %+v", stats.Builds)
	}
	opts.Methods[1].Output = first
	if _, err := Run(context.Background(), opts); err == nil || !strings.Contains(err.Error(), "both write") {
		t.Errorf("two methods, one file: got %v", err)
	}
	// One file spelled two ways is no other run's, and a file of neither
	// method is made.
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"first.jsonl", "fresh.jsonl"} {
		sep := string(filepath.Separator)
		dup := dir + sep + "sub" + sep + ".." + sep + name
		opts.Methods[0].Output, opts.Methods[1].Output = filepath.Join(dir, name), dup
		_, err := Run(context.Background(), opts)
		if err == nil || !strings.Contains(err.Error(), "methods first and second both write "+opts.Methods[0].Output+" (as "+dup+")") {
			t.Errorf("two methods, one file spelled two ways: got %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "fresh.jsonl")); err == nil {
		t.Errorf("a refused run left the file it made")
	}
}

// TestRunRepositoriesAtOnce: with several repositories answered at once,
// every state of every method is answered once, whatever order the
// workers run in (under -race, no worker reads what another writes
// unlocked).
func TestRunRepositoriesAtOnce(t *testing.T) {
	fx := newFixture(t)
	var states []*mss.State
	for _, repo := range []string{"acme/widget", "acme/gadget", "acme/gizmo", "acme/doohickey"} {
		if repo != "acme/widget" {
			gittest.Run(t, fx.root, "clone", "-q", "--bare", fx.gitDir, filepath.Join(fx.root, strings.ReplaceAll(repo, "/", "+"), "repo"))
		}
		for i := range 6 {
			commit := fx.c1
			if i%2 == 1 {
				commit = fx.c2
			}
			states = append(states, &mss.State{StateID: fmt.Sprintf("%s#%d", repo, i), Repo: repo, BaseCommit: commit, InformationNeed: fmt.Sprintf("a.py:%d-%d", i+1, i+2)})
		}
	}
	src := NewSource(fx.root)
	defer src.Close()
	dir := t.TempDir()
	first, second := filepath.Join(dir, "first.jsonl"), filepath.Join(dir, "second.jsonl")
	// first already answered one state of each repository.
	var resumed strings.Builder
	for _, st := range states {
		if strings.HasSuffix(st.StateID, "#3") {
			fmt.Fprintf(&resumed, "{\"state_id\":%q,\"method\":\"first\",\"config\":\"v1\",\"units\":[],\"retrieve_ms\":0.4}\n", st.StateID)
		}
	}
	writeFile(t, first, resumed.String())
	var mu sync.Mutex
	opens := 0
	opts := RunOptions{
		States: states, Source: src, Limits: pipeline.DefaultLimits(), Concurrency: 2,
		Methods: firstAndSecond(first, second),
		Open: func(_ context.Context, _, _, commit string) (*Opened, error) {
			mu.Lock()
			opens++
			mu.Unlock()
			return &Opened{Snapshot: lineSnapshot{commit}}, nil
		},
	}
	stats, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if opens != 8 || stats.Methods["first"].Resumed != 4 || stats.Methods["first"].Done != 20 || stats.Methods["second"].Done != 24 {
		t.Errorf("opens %d, first %+v, second %+v; want 8 opens, 4 resumed and 20 done, 24 done", opens, stats.Methods["first"], stats.Methods["second"])
	}
	for _, out := range []string{first, second} {
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		for i, st := range states { // rewritten in the states' order
			if i >= len(lines) || !strings.Contains(lines[i], fmt.Sprintf("%q", st.StateID)) {
				t.Fatalf("%s: line %d is not state %s: %d lines", out, i+1, st.StateID, len(lines))
			}
		}
	}
}
