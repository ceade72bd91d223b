package repobench

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/internal/gittest"
)

func TestUnitCostByHand(t *testing.T) {
	fx := newFixture(t)
	src := NewSource(fx.root)
	defer src.Close()
	sc := &Scorer{Source: src}
	st1 := &mss.State{StateID: "s", Repo: "acme/widget", BaseCommit: fx.c1}
	st2 := &mss.State{StateID: "s", Repo: "acme/widget", BaseCommit: fx.c2}
	// a.py at c1 splits into lines of 12,12,0,11,12,0 bytes (the last is
	// the empty piece after the final newline); each costs its length+1.
	tests := []struct {
		name      string
		st        *mss.State
		u         PredUnit
		wantCost  int
		wantValid bool
	}{
		{"two lines", st1, PredUnit{Path: "a.py", StartLine: 1, EndLine: 2}, 7, true},                // 26 bytes
		{"second def", st1, PredUnit{Path: "a.py", StartLine: 4, EndLine: 5}, 7, true},               // 25 bytes
		{"clamped end", st1, PredUnit{Path: "a.py", StartLine: 1, EndLine: 99}, 14, true},            // 53 bytes
		{"clamped start", st1, PredUnit{Path: "a.py", StartLine: 0, EndLine: 1}, 4, true},            // 13 bytes
		{"trailing empty line", st1, PredUnit{Path: "a.py", StartLine: 6, EndLine: 6}, 1, true},      // 1 byte
		{"past the end", st1, PredUnit{Path: "a.py", StartLine: 7, EndLine: 9}, 0, false},            //
		{"reversed", st1, PredUnit{Path: "a.py", StartLine: 3, EndLine: 2}, 0, false},                //
		{"no final newline", st1, PredUnit{Path: "b.py", StartLine: 1, EndLine: 2}, 3, true},         // 12 bytes
		{"unknown path", st1, PredUnit{Path: "nope.py", StartLine: 1, EndLine: 2}, 0, false},         //
		{"relative path", st1, PredUnit{Path: "./a.py", StartLine: 1, EndLine: 2}, 0, false},         //
		{"parent path", st1, PredUnit{Path: "../a.py", StartLine: 1, EndLine: 2}, 0, false},          //
		{"hidden dir", st1, PredUnit{Path: ".hidden/x.py", StartLine: 1, EndLine: 1}, 2, true},       // 6 bytes
		{"file grew at c2", st2, PredUnit{Path: "a.py", StartLine: 7, EndLine: 8}, 4, true},          // 13 bytes + the empty last piece
		{"directory listing", st1, PredUnit{Path: "d", StartLine: 1, EndLine: 3}, 14, true},          // "tree C:d", "", "e.py"
		{"same file other commit", st2, PredUnit{Path: "a.py", StartLine: 1, EndLine: 99}, 20, true}, // 53+26 bytes
	}
	for _, tc := range tests {
		cost, valid, err := sc.UnitCost(tc.st, tc.u)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if cost != tc.wantCost || valid != tc.wantValid {
			t.Errorf("%s: UnitCost(%+v) = %d, %v; want %d, %v", tc.name, tc.u, cost, valid, tc.wantCost, tc.wantValid)
		}
	}
}

// fetchLayout makes the fixture's git directory what the fetch tool
// writes, <owner>+<name>/repo without core.bare: git then takes the
// current directory for its work tree and reads "C:./a.py" as "C:a.py",
// where in a bare repository it refuses "./" paths.
func fetchLayout(t *testing.T, fx *fixture) {
	t.Helper()
	gittest.Run(t, fx.root, "--git-dir", fx.gitDir, "config", "--unset", "core.bare")
}

// Paths starting "./" cost what `git show C:PATH` prints, as score.py
// costs them: in the fetch layout git reads them from the top of the
// tree; in a bare repository it fails, and they cost nothing.
func TestUnitCostRelativePaths(t *testing.T) {
	fx := newFixture(t)
	fetchLayout(t, fx)
	src := NewSource(fx.root)
	defer src.Close()
	sc := &Scorer{Source: src}
	st := &mss.State{StateID: "s", Repo: "acme/widget", BaseCommit: fx.c1}
	// Lines 1-2 of the listing: "tree C:./d" (50 bytes with its
	// newline) and "" (1).
	listing := (len("tree "+fx.c1+":./d") + 1 + 1 + 3) / 4
	tests := []struct {
		path      string
		wantCost  int
		wantValid bool
	}{
		{"./a.py", 7, true},
		{".//a.py", 7, true},
		{"./d/../a.py", 7, true},
		{"./.hidden/x.py", 2, true},
		{"./d", listing, true},
		{"../a.py", 0, false},
		{"./../a.py", 0, false},
		{"./nope.py", 0, false},
	}
	for _, tc := range tests {
		u := PredUnit{Path: tc.path, StartLine: 1, EndLine: 2}
		cost, valid, err := sc.UnitCost(st, u)
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if cost != tc.wantCost || valid != tc.wantValid {
			t.Errorf("fetch layout: UnitCost(%+v) = %d, %v; want %d, %v", u, cost, valid, tc.wantCost, tc.wantValid)
		}
	}

	bare := newFixture(t)
	bsrc := NewSource(bare.root)
	defer bsrc.Close()
	bst := &mss.State{StateID: "s", Repo: "acme/widget", BaseCommit: bare.c1}
	if cost, valid, err := (&Scorer{Source: bsrc}).UnitCost(bst, PredUnit{Path: "./a.py", StartLine: 1, EndLine: 2}); err != nil || cost != 0 || valid {
		t.Errorf("bare repository: UnitCost(./a.py) = %d, %v, %v; want 0, false", cost, valid, err)
	}
}

// oddPaths are predictions whose paths git reads otherwise than a plain
// path: relative ones, ones holding "..", which git show may take for a
// range, and ones holding a glob character, which git show takes for a
// pathspec when they name no file.
func oddPaths() []*Prediction {
	units := []PredUnit{
		{Path: "./a.py", StartLine: 4, EndLine: 5}, {Path: ".//b.py", StartLine: 1, EndLine: 1},
		{Path: "../a.py", StartLine: 1, EndLine: 2}, {Path: "./d", StartLine: 1, EndLine: 3},
		{Path: "..a.py", StartLine: 1, EndLine: 1}, {Path: "a.py..", StartLine: 1, EndLine: 2},
		{Path: "a*.py", StartLine: 1, EndLine: 2}, {Path: "?.py", StartLine: 1, EndLine: 1},
		{Path: "[ab].py", StartLine: 1, EndLine: 1}, {Path: `a\.py`, StartLine: 1, EndLine: 1},
		{Path: "./a.py", StartLine: 1, EndLine: 2},
	}
	return []*Prediction{
		{StateID: "w-1:before_search", Method: "odd", Units: units},
		{StateID: "w-3:before_search", Method: "odd", Units: units[1:]},
	}
}

// fixtureCase is the scoring fixture shared by the by-hand test and the
// comparison with score.py.
func fixtureCase(fx *fixture) (states []*mss.State, labels []*Label, preds []*Prediction) {
	two := 2.0
	states = []*mss.State{
		{StateID: "w-1:before_search", Repo: "acme/widget", BaseCommit: fx.c1, StateType: "before_search", Issue: "i",
			ObservedSpans: []mss.Span{{Path: "a.py", StartLine: 4, EndLine: 5}}},
		{StateID: "w-2:after_file_inspection", Repo: "acme/widget", BaseCommit: fx.c2, StateType: "after_file_inspection", Issue: "i"},
		{StateID: "w-3:before_search", Repo: "acme/widget", BaseCommit: fx.c2, StateType: "before_search", Issue: "i"},
	}
	labels = []*Label{
		{StateID: "w-1:before_search",
			RequiredGroups: []LineGroup{
				{Path: "a.py", Lines: [][2]int{{2, 2}}, NecessityWeight: &two},
				{Path: "b.py", Lines: [][2]int{{1, 1}}},
			},
			AlternativeSets: [][]LineGroup{{{Path: "a.py", Lines: [][2]int{{5, 5}}}}},
		},
		{StateID: "w-2:after_file_inspection",
			RequiredGroups: []LineGroup{{Path: ".hidden/x.py", Lines: [][2]int{{1, 1}}}},
		},
		{StateID: "w-3:before_search",
			RequiredGroups: []LineGroup{{Path: "a.py", Lines: [][2]int{{7, 7}, {1, 1}}}, {Path: "b.py", Lines: [][2]int{{2, 2}}}},
		},
	}
	preds = []*Prediction{
		{StateID: "w-1:before_search", Method: "m1", Units: []PredUnit{
			{Path: "a.py", StartLine: 4, EndLine: 5}, {Path: "./a.py", StartLine: 1, EndLine: 2},
			{Path: "b.py", StartLine: 1, EndLine: 2}, {Path: "a.py", StartLine: 1, EndLine: 99}}},
		{StateID: "w-2:after_file_inspection", Method: "m1", Units: []PredUnit{{Path: ".hidden/x.py", StartLine: 1, EndLine: 1}}},
		{StateID: "w-1:before_search", Method: "m2", Units: []PredUnit{
			{Path: "b.py", StartLine: 1, EndLine: 2}, {Path: "a.py", StartLine: 1, EndLine: 99}}},
		{StateID: "w-3:before_search", Method: "m2", Units: []PredUnit{
			{Path: "a.py", StartLine: 7, EndLine: 8}, {Path: "b.py", StartLine: 2, EndLine: 2}}},
		{StateID: "w-9:unknown", Method: "m2", Units: []PredUnit{{Path: "a.py", StartLine: 1, EndLine: 1}}},
	}
	return states, labels, preds
}

func TestScoreByHand(t *testing.T) {
	fx := newFixture(t)
	src := NewSource(fx.root)
	defer src.Close()
	states, labels, preds := fixtureCase(fx)
	sc := &Scorer{Source: src, Ks: []int{1, 2, 3, 4}, Budget: 20}
	byID := func(id string) (*mss.State, *Label) {
		for i, s := range states {
			if s.StateID == id {
				return s, labels[i]
			}
		}
		t.Fatalf("no state %s", id)
		return nil, nil
	}
	type fig struct{ complete, recall, necessity, tokens, observed float64 }
	tests := []struct {
		pred int
		want map[int]fig
	}{
		// a.py 4-5 (7 tokens, observed) covers only the alternative set;
		// ./a.py is invalid (0 tokens); b.py 1-2 (3) covers G2 (weight 1
		// of 3); a.py 1-99 (14) would overflow 20.
		{0, map[int]fig{1: {1, 0, 0, 7, 1}, 2: {1, 0, 0, 7, 1}, 3: {1, 0.5, 1.0 / 3, 10, 1}, 4: {1, 0.5, 1.0 / 3, 10, 1}}},
		// ".hidden/x.py" loses its leading dot to lstrip("./") before the
		// path comparison, so it never covers its own group.
		{1, map[int]fig{1: {0, 0, 0, 2, 0}, 4: {0, 0, 0, 2, 0}}},
		// b.py (3) then a.py 1-99 (14, overlaps the observed 4-5).
		{2, map[int]fig{1: {0, 0.5, 1.0 / 3, 3, 0}, 2: {1, 1, 1, 17, 1}}},
		// a.py 7-8 at c2 (4) covers G1 by its [7,7] range; b.py 2-2 (2).
		{3, map[int]fig{1: {0, 0.5, 0.5, 4, 0}, 2: {1, 1, 1, 6, 0}}},
	}
	for _, tc := range tests {
		p := preds[tc.pred]
		st, label := byID(p.StateID)
		got, err := sc.ScoreState(st, label, p.Units)
		if err != nil {
			t.Fatal(err)
		}
		for k, w := range tc.want {
			g := fig{got[Key(Complete, k)], got[Key(GroupRecall, k)], got[Key(Necessity, k)], got[Key(Tokens, k)], got[Key(ObservedUnits, k)]}
			if diff := cmp.Diff(w, g, cmp.AllowUnexported(fig{}), cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-12 })); diff != "" {
				t.Errorf("%s %s @%d (-want +got):\n%s", p.Method, p.StateID, k, diff)
			}
		}
	}
}

func TestScoreMeansAndStrata(t *testing.T) {
	fx := newFixture(t)
	src := NewSource(fx.root)
	defer src.Close()
	states, labels, preds := fixtureCase(fx)
	lm := map[string]*Label{}
	known := map[string]bool{}
	for i, s := range states {
		lm[s.StateID] = labels[i]
		known[s.StateID] = true
	}
	ps := &PredictionSet{ByMethod: map[string]map[string]*Prediction{}}
	for _, p := range preds {
		if !known[p.StateID] {
			continue
		}
		if ps.ByMethod[p.Method] == nil {
			ps.ByMethod[p.Method] = map[string]*Prediction{}
		}
		ps.ByMethod[p.Method][p.StateID] = p
	}
	sc := &Scorer{Source: src, Budget: 20}
	scores, err := sc.Score(states, lm, ps)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteText(&buf, scores); err != nil {
		t.Fatal(err)
	}
	// m1: complete@5 1,0,0 (w-3 missing); m2: w-1 complete by k=2, w-3
	// complete by k=2, w-2 missing. tok@8: m1 (10+2+0)/3, m2 (17+0+6)/3.
	want := `m1: states=3 missing=1 C@1=33.3 C@3=33.3 C@5=33.3 C@8=33.3 C@10=33.3 G@5=16.7 G@8=16.7 tok@8=4
   after_file_inspection: n=1 C@5=0.0
   before_search: n=2 C@5=50.0
   groups=1: n=1 C@5=0.0
   groups>=2: n=2 C@5=50.0
m2: states=3 missing=1 C@1=0.0 C@3=66.7 C@5=66.7 C@8=66.7 C@10=66.7 G@5=66.7 G@8=66.7 tok@8=8
   after_file_inspection: n=1 C@5=0.0
   before_search: n=2 C@5=100.0
   groups=1: n=1 C@5=0.0
   groups>=2: n=2 C@5=100.0
`
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("text output (-want +got):\n%s", diff)
	}
}

// TestAgreesWithScorePy runs the track's reference scorer on the fixture
// and demands the same figures.
func TestAgreesWithScorePy(t *testing.T) {
	script := filepath.Join("..", "..", "..", "shared", "repotrack", "score.py")
	if _, err := os.Stat(script); err != nil {
		t.Skipf("reference scorer not found: %v", err)
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	for _, layout := range []string{"bare", "fetch"} {
		t.Run(layout, func(t *testing.T) {
			fx := newFixture(t)
			if layout == "fetch" {
				fetchLayout(t, fx)
			}
			agreesWithScorePy(t, py, script, fx)
		})
	}
}

func agreesWithScorePy(t *testing.T, py, script string, fx *fixture) {
	dir := t.TempDir()
	states, labels, preds := fixtureCase(fx)
	preds = append(preds, oddPaths()...)
	var sv, lv, pv []any
	for _, s := range states {
		sv = append(sv, s)
	}
	for _, l := range labels {
		lv = append(lv, l)
	}
	for _, p := range preds {
		pv = append(pv, p)
	}
	sPath, lPath, pPath := filepath.Join(dir, "states.jsonl"), filepath.Join(dir, "labels.jsonl"), filepath.Join(dir, "preds.jsonl")
	writeJSONL(t, sPath, sv...)
	writeJSONL(t, lPath, lv...)
	writeJSONL(t, pPath, pv...)

	for _, budget := range []string{"20", "6144"} {
		args := []string{script, "--states", sPath, "--labels", lPath, "--predictions", pPath,
			"--mirror-root", fx.root, "--k", "1", "2", "3", "5", "8", "--budget", budget}
		out, err := exec.Command(py, append(args, "--json")...).Output()
		if err != nil {
			t.Fatalf("score.py: %v", err)
		}
		var want map[string]map[string]any
		if err := json.Unmarshal(out, &want); err != nil {
			t.Fatalf("score.py output: %v\n%s", err, out)
		}
		text, err := exec.Command(py, args...).Output()
		if err != nil {
			t.Fatalf("score.py: %v", err)
		}

		gotStates, err := LoadStates(sPath)
		if err != nil {
			t.Fatal(err)
		}
		gotLabels, err := LoadLabels(lPath)
		if err != nil {
			t.Fatal(err)
		}
		known := map[string]bool{}
		for _, s := range gotStates {
			known[s.StateID] = true
		}
		ps, err := LoadPredictions([]string{pPath}, known)
		if err != nil {
			t.Fatal(err)
		}
		if ps.Unknown[pPath] != 1 || ps.UnknownExample[pPath] != "w-9:unknown" {
			t.Errorf("unknown predictions = %v %v, want 1 w-9:unknown", ps.Unknown, ps.UnknownExample)
		}
		src := NewSource(fx.root)
		b := 20
		if budget == "6144" {
			b = 6144
		}
		sc := &Scorer{Source: src, Ks: []int{1, 2, 3, 5, 8}, Budget: b}
		scores, err := sc.Score(gotStates, gotLabels, ps)
		src.Close()
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := WriteJSON(&buf, scores); err != nil {
			t.Fatal(err)
		}
		var got map[string]map[string]any
		if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		approx := cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) <= 1e-9 })
		if diff := cmp.Diff(want, got, approx); diff != "" {
			t.Errorf("budget %s: score.py --json (-want) vs ours (+got):\n%s", budget, diff)
		}
		buf.Reset()
		if err := WriteText(&buf, scores); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(text), buf.String()); diff != "" {
			t.Errorf("budget %s: score.py text (-want) vs ours (+got):\n%s", budget, diff)
		}
	}
}

func TestUnknownCommitAndMirror(t *testing.T) {
	fx := newFixture(t)
	src := NewSource(fx.root)
	defer src.Close()
	err := src.CheckCommit("acme/widget", strings.Repeat("0", 40))
	if err == nil || !strings.Contains(err.Error(), "unknown commit") || !strings.Contains(err.Error(), "acme/widget") {
		t.Errorf("unknown commit: got %v", err)
	}
	err = src.CheckCommit("acme/gadget", fx.c1)
	if err == nil || !strings.Contains(err.Error(), "acme/gadget") || !strings.Contains(err.Error(), filepath.Join(fx.root, "acme+gadget", "repo")) {
		t.Errorf("missing mirror: got %v", err)
	}
	if err := src.CheckCommit("ACME/widget", fx.c1); err != nil {
		t.Errorf("case-insensitive repo name: %v", err)
	}
}

// A cutoff below 1 or a negative budget is an error naming it, not a
// panic or a silent default.
func TestScoreRefusesBadCutoffs(t *testing.T) {
	fx := newFixture(t)
	src := NewSource(fx.root)
	defer src.Close()
	states, labels, preds := fixtureCase(fx)
	byID := map[string]*Label{}
	for i, s := range states {
		byID[s.StateID] = labels[i]
	}
	pm := map[string]*Prediction{}
	for _, p := range preds {
		pm[p.StateID] = p
	}
	for _, tc := range []struct {
		sc   Scorer
		want string
	}{
		{Scorer{Source: src, Ks: []int{1, 0}}, "answer size 0"},
		{Scorer{Source: src, Ks: []int{-1}}, "answer size -1"},
		{Scorer{Source: src, Budget: -5}, "budget -5"},
	} {
		_, err := tc.sc.ScoreMethod("m", states, byID, pm)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ScoreMethod with Ks %v, Budget %d: %v, want an error naming %q", tc.sc.Ks, tc.sc.Budget, err, tc.want)
		}
		_, err = tc.sc.ScoreState(states[0], labels[0], preds[0].Units)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ScoreState with Ks %v, Budget %d: %v, want an error naming %q", tc.sc.Ks, tc.sc.Budget, err, tc.want)
		}
	}
}
