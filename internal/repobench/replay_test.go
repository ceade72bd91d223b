package repobench

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/internal/gittest"
)

// joinAll answers with the state's first two candidates joined into one
// unit, the line between them restored as a bare newline, as growth joins
// units that meet (package expand).
type joinAll struct{}

func (joinAll) Name() string { return "join" }

func (joinAll) Select(_ context.Context, req *mss.Request) (*mss.Result, error) {
	a, b := req.Candidates[0].Unit, req.Candidates[1].Unit
	content := a.Content + "\n" + b.Content
	return &mss.Result{Units: []mss.Unit{
		{ID: "joined", Path: a.Path, StartLine: a.StartLine, EndLine: b.EndLine, Symbol: a.Symbol, Symbols: []string{a.Symbol, b.Symbol}, Content: content, Tokens: mss.TokenCost(content)},
		req.Candidates[2].Unit,
	}}, nil
}

// TestReplayVerifies: with the repositories at hand, a replayed answer is
// verified against the base commit's files as a live one is: a unit
// joined over a blank line is delivered with the file's own bytes (CRLF
// line ends, spaces on the blank line) and costs what they cost; an
// observed unit is dropped either way. Without them, units keep their
// cached text. A unit that holds several symbols names them all.
func TestReplayVerifies(t *testing.T) {
	tmp := t.TempDir()
	work := filepath.Join(tmp, "work")
	const src = "def f():\r\n    return 1\r\n      \r\ndef g():\r\n    return 2\r\n"
	const other = "def h():\r\n    return 3\r\n"
	gittest.Run(t, tmp, "init", "-q", "-b", "main", work)
	writeFile(t, filepath.Join(work, "w.py"), src)
	writeFile(t, filepath.Join(work, "v.py"), other)
	gittest.Run(t, work, "add", ".")
	gittest.RunEnv(t, work, []string{"GIT_COMMITTER_DATE=2020-01-01T00:00:00Z"}, "commit", "-q", "-m", "one", "--date", "2020-01-01T00:00:00Z")
	commit := gittest.Run(t, work, "rev-parse", "HEAD")
	root := filepath.Join(tmp, "mirrors")
	gittest.Run(t, tmp, "clone", "-q", "--bare", work, filepath.Join(root, "acme+widget", "repo"))

	f := mss.Unit{ID: "f", Path: "w.py", StartLine: 1, EndLine: 2, Symbol: "f", Content: "def f():\r\n    return 1\r\n"}
	g := mss.Unit{ID: "g", Path: "w.py", StartLine: 4, EndLine: 5, Symbol: "g", Content: "def g():\r\n    return 2\r\n"}
	h := mss.Unit{ID: "h", Path: "v.py", StartLine: 1, EndLine: 2, Symbol: "h", Content: other}
	var cands []mss.Candidate
	for i, u := range []mss.Unit{f, g, h} {
		u.Tokens = mss.TokenCost(u.Content)
		cands = append(cands, mss.Candidate{Unit: u, Score: 1 / float64(i+1), Views: map[string]int{"lexical": i + 1}})
	}
	cache := &Cache{States: map[string]*CachedState{}}
	files := map[string][]mss.Unit{"w.py": {cands[0].Unit, cands[1].Unit}, "v.py": {cands[2].Unit}}
	read := &mss.State{StateID: "read", Repo: "acme/widget", BaseCommit: commit, Issue: "f and g",
		ObservedSpans: []mss.Span{{Path: "v.py", StartLine: 1, EndLine: 2}}}
	cache.States[read.StateID] = &CachedState{Candidates: cands, Files: files}
	answer := func(rp *Replay) []PredUnit {
		t.Helper()
		got, err := rp.Answer(context.Background(), []*mss.State{read}, "join", joinAll{})
		if err != nil {
			t.Fatal(err)
		}
		return got["read"].Units
	}
	repos := NewSource(root)
	defer repos.Close()
	want := []PredUnit{{Path: "w.py", StartLine: 1, EndLine: 5, Symbol: "f", Tokens: mss.TokenCost(src), Symbols: []string{"f", "g"}}}
	if diff := cmp.Diff(want, answer(&Replay{Cache: cache, Files: repos})); diff != "" {
		t.Errorf("verified against the files (-want +got):\n%s", diff)
	}
	want[0].Tokens = mss.TokenCost(f.Content + "\n" + g.Content)
	if diff := cmp.Diff(want, answer(&Replay{Cache: cache})); diff != "" {
		t.Errorf("as cached (-want +got):\n%s", diff)
	}
}

// TestReplayedCheck: a replay replaces only an earlier replay's output of
// its own method, never a live run's (it records timings a replay does
// not), another method's, or a file of other records.
func TestReplayedCheck(t *testing.T) {
	const replayed = `{"state_id":"s1","method":"bm25","config":"c","units":[{"path":"a.py","start_line":1,"end_line":2}],"candidates":3}`
	check := ReplayedCheck("bm25")
	for _, ok := range []string{"", "\n", replayed + "\n", replayed + "\n\n" + strings.Replace(replayed, "s1", "s2", 1) + "\n"} {
		if err := check([]byte(ok)); err != nil {
			t.Errorf("%q: %v, want it taken for a replay's output", ok, err)
		}
	}
	for text, want := range map[string]string{
		strings.Replace(replayed, `"candidates":3`, `"candidates":3,"retrieve_ms":12.5,"select_ms":0.3`, 1):          "line 1: field retrieve_ms: a live run's record",
		strings.Replace(replayed, `"candidates":3`, `"candidates":3,"select_ms":0.3`, 1):                             "line 1: field select_ms: a live run's record",
		strings.Replace(replayed, `"candidates":3`, `"candidates":3,"fallback":{"stage":"propose","reason":"x"}`, 1): "line 1: field fallback: a live run's record",
		replayed + "\n" + strings.Replace(replayed, `"bm25"`, `"complement"`, 1):                                     `line 2: field method: "complement", but this replay writes "bm25"`,
		strings.Replace(replayed, `"candidates":3`, `"candidates":3,"notes":"mine"`, 1):                              "line 1: not a prediction record (field notes: unknown field)",
		`{"state_id":"s1","method":"bm25","units":[]}` + "\n" + `{"my":"notes"}`:                                     "line 2: not a prediction record",
		strings.Replace(replayed, `"method":"bm25"`, `"method":"bm25","method":"bm25"`, 1):                           "line 1: not a prediction record",
	} {
		if err := check([]byte(text)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s\n: %v, want an error with %q", text, err, want)
		}
	}
}

// TestPredUnitNamesWhatItHolds: a prediction's unit lists the symbols it
// holds when they are more than its own symbol, as when a run of module
// statements, named for nothing, was grown into the function under it.
func TestPredUnitNamesWhatItHolds(t *testing.T) {
	for _, c := range []struct {
		symbol  string
		symbols []string
		want    []string
	}{
		{"f", []string{"f"}, nil},
		{"f", []string{"f", "g"}, []string{"f", "g"}},
		{"", []string{"boxplot"}, []string{"boxplot"}},
		{"", nil, nil},
	} {
		u := mss.Unit{Path: "a.py", StartLine: 1, EndLine: 9, Symbol: c.symbol, Symbols: c.symbols}
		if got := predUnit(&u).Symbols; !cmp.Equal(got, c.want) {
			t.Errorf("symbol %q holding %q: symbols %q, want %q", c.symbol, c.symbols, got, c.want)
		}
	}
}
