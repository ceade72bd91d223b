package repobench

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/retrieve"
)

type units map[string][]mss.Unit

func (u units) FileUnits(p string) []mss.Unit { return u[p] }

func TestCacheRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.jsonl")
	src := units{"a.py": {{ID: "a1", Path: "a.py", StartLine: 1, EndLine: 2, Symbol: "f", Content: "def f():\n  pass\n", Tokens: 5}}}
	cands := []mss.Candidate{{Unit: src["a.py"][0], Score: 0.5, Views: map[string]int{"lexical": 1}, Signals: map[string]float64{"prior": 1}}}
	cw, err := CreateCache(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"s1", "s2"} {
		if err := cw.Record(&mss.State{StateID: id}, cands, src, nil); err != nil {
			t.Fatal(err)
		}
	}
	// A state read with an issue template keeps the template's lines it
	// holds, so that a replay reads it as retrieval did.
	tmpl := retrieve.NewIssueTemplate([]string{"Output of `show_versions()`", "Steps to reproduce"})
	s4 := &mss.State{StateID: "s4", Issue: "f fails\n### Output of `show_versions()`\npython 3"}
	if err := cw.Record(s4, cands, src, tmpl); err != nil {
		t.Fatal(err)
	}
	// A second run on the cache while this one holds it is refused.
	if _, err := CreateCache(path); err == nil || !strings.Contains(err.Error(), "another run is writing it; wait for it, or use another --cache") {
		t.Errorf("second writer: %v, want a refusal", err)
	}
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	// A torn last line is dropped when the cache is opened again.
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"kind":"state","state_id":"s3","candi`)
	f.Close()
	cw, err = CreateCache(path)
	if err != nil {
		t.Fatal(err)
	}
	if !cw.Done("s1") || !cw.Done("s2") || cw.Done("s3") {
		t.Errorf("done after reopening: s1 %v s2 %v s3 %v", cw.Done("s1"), cw.Done("s2"), cw.Done("s3"))
	}
	cw.Close()
	c, err := LoadCache(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.States) != 3 {
		t.Fatalf("loaded %d states, want 3", len(c.States))
	}
	if got := c.States["s4"].Template; len(got) != 1 || got[0] != "Output of `show_versions()`" {
		t.Errorf("s4's template lines %q", got)
	}
	if c.Mentions(s4).Code["show_versions"] || !retrieve.Extract(s4).Code["show_versions"] {
		t.Errorf("replayed mentions read the template's line: %v", c.Mentions(s4).Code)
	}
	if diff := cmp.Diff(cands, c.States["s2"].Candidates); diff != "" {
		t.Errorf("candidates (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(src["a.py"], c.States["s1"].FileUnits("a.py")); diff != "" {
		t.Errorf("file units (-want +got):\n%s", diff)
	}
	// A candidate's text is its file unit's, not a second copy of it.
	if cand, file := c.States["s2"].Candidates[0].Unit.Content, c.States["s2"].FileUnits("a.py")[0].Content; unsafe.StringData(cand) != unsafe.StringData(file) {
		t.Error("a loaded candidate holds its own copy of its file unit's text")
	}
	// Names are kept once, however many units hold them.
	if a, b := c.States["s1"].Candidates[0].Unit.Path, c.States["s2"].Candidates[0].Unit.Path; unsafe.StringData(a) != unsafe.StringData(b) {
		t.Error("two loaded candidates hold their own copies of one path")
	}
	data, _ := os.ReadFile(path)
	if n := countLines(data); n != 4 {
		t.Errorf("cache holds %d lines, want 4 (one file record shared by three states)", n)
	}
	os.WriteFile(path, append(data, []byte("{\"kind\":\"other\"}\n")...), 0o644)
	if _, err := LoadCache(path); err == nil {
		t.Error("a record of unknown kind was accepted")
	}
}

// TestCacheFormat: a state record of another format (a cache retrieved
// before candidates carried the title's score has none) is refused by
// name, line and field, when the cache is loaded and when it is extended,
// and the file is left as it was.
func TestCacheFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.jsonl")
	old := `{"kind":"file","key":"k1","units":[{"id":"a1","path":"a.py","start_line":1,"end_line":2}]}` + "\n" +
		`{"kind":"state","state_id":"s1","candidates":[],"files":{"a.py":"k1"}}` + "\n"
	writeFile(t, path, old)
	want := path + ":2: field format: candidates of format 0, want 3"
	if _, err := LoadCache(path); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("LoadCache: %v, want an error starting %q", err, want)
	}
	if cw, err := CreateCache(path); err == nil || !strings.HasPrefix(err.Error(), want) {
		if err == nil {
			cw.Close()
		}
		t.Errorf("CreateCache: %v, want an error starting %q", err, want)
	}
	if got, _ := os.ReadFile(path); string(got) != old {
		t.Errorf("cache changed to %q", got)
	}
}

// A cache whose units are not a file's lines (damaged, or written by
// hand) is refused by line and field rather than replayed.
func TestCacheRefusesBadUnits(t *testing.T) {
	file := `{"kind":"file","key":"k1","units":[{"id":"a1","path":"a.py","start_line":1,"end_line":2}]}` + "\n"
	state := func(unit string) string {
		return fmt.Sprintf(`{"kind":"state","format":%d,"state_id":"s1","candidates":[{"unit":{"id":"a1","path":"a.py","start_line":1,"end_line":2},"score":1},{"unit":%s,"score":0.5}],"files":{"a.py":"k1"}}`, CacheFormat, unit) + "\n"
	}
	for _, tc := range []struct{ data, want string }{
		{file + state(`{"id":"x","path":"a.py","start_line":300,"end_line":250}`), ":2: field candidates[1].unit: lines 300-250, want 1 <= start_line <= end_line"},
		{file + state(`{"id":"x","path":"a.py","start_line":-5,"end_line":2}`), ":2: field candidates[1].unit: lines -5-2"},
		{file + state(`{"id":"x","start_line":1,"end_line":2}`), ":2: field candidates[1].unit.path: empty"},
		{`{"kind":"file","key":"k1","units":[{"id":"a1","path":"a.py","start_line":0,"end_line":2}]}` + "\n", ":1: field units[0]: lines 0-2"},
		// A value of the wrong type is named by its place in the record,
		// not by Go's types.
		{file + state(`{"id":"x","path":"a.py","start_line":"1","end_line":2}`), ":2: field candidates[1].unit.start_line: got JSON string, want int"},
		{file + strings.Replace(state(`{"id":"x","path":"a.py","start_line":1,"end_line":2}`), `"score":0.5`, `"score":"high"`, 1), ":2: field candidates[1].score: got JSON string, want float64"},
		{`{"kind":"file","key":"k1","units":[{"id":"a1","path":"a.py","start_line":1,"end_line":2},{"id":"a2","path":"a.py","start_line":3,"end_line":true}]}` + "\n", ":1: field units[1].end_line: got JSON bool, want int"},
		// What no retrieval records: a negative token count, a null list
		// (read as none), a view or signal retrieval does not have, a
		// rank below 1.
		{file + state(`{"id":"x","path":"a.py","start_line":1,"end_line":2,"tokens":-7}`), ":2: field candidates[1].unit.tokens: -7; want a count of 0 or more"},
		{`{"kind":"file","key":"k1","units":[{"id":"a1","path":"a.py","start_line":1,"end_line":2,"tokens":-1}]}` + "\n", ":1: field units[0].tokens: -1; want a count of 0 or more"},
		{`{"kind":"file","key":"k1","units":null}` + "\n", ":1: field units: null"},
		{file + fmt.Sprintf(`{"kind":"state","format":%d,"state_id":"s1","candidates":null,"files":{"a.py":"k1"}}`, CacheFormat) + "\n", ":2: field candidates: null"},
		{file + fmt.Sprintf(`{"kind":"state","format":%d,"state_id":"s1","candidates":[],"files":null}`, CacheFormat) + "\n", ":2: field files: null"},
		{file + strings.Replace(state(`{"id":"x","path":"a.py","start_line":1,"end_line":2}`), `"score":0.5`, `"score":0.5,"views":{"lexical":2,"entity":-3}`, 1), ":2: field candidates[1].views.entity: rank -3; want a place of 1 or more"},
		{file + strings.Replace(state(`{"id":"x","path":"a.py","start_line":1,"end_line":2}`), `"score":0.5`, `"score":0.5,"views":{"lexical":0}`, 1), ":2: field candidates[1].views.lexical: rank 0"},
		{file + strings.Replace(state(`{"id":"x","path":"a.py","start_line":1,"end_line":2}`), `"score":0.5`, `"score":0.5,"views":{"lexcal":1}`, 1), ":2: field candidates[1].views.lexcal: no view of retrieval's"},
		{file + strings.Replace(state(`{"id":"x","path":"a.py","start_line":1,"end_line":2}`), `"score":0.5`, `"score":0.5,"signals":{"lexical":3.5,"rrf:lexical":0.04,"rrf:lexcal":0.04}`, 1), ":2: field candidates[1].signals.rrf:lexcal: no signal retrieval writes"},
		{file + strings.Replace(state(`{"id":"x","path":"a.py","start_line":1,"end_line":2}`), `"score":0.5`, `"score":0.5,"signals":{"priors":1}`, 1), ":2: field candidates[1].signals.priors: no signal retrieval writes"},
	} {
		path := filepath.Join(t.TempDir(), "c.jsonl")
		writeFile(t, path, tc.data)
		if _, err := LoadCache(path); err == nil || !strings.Contains(err.Error(), path+tc.want) {
			t.Errorf("LoadCache: %v, want an error containing %q", err, tc.want)
		}
	}
	path := filepath.Join(t.TempDir(), "c.jsonl")
	writeFile(t, path, file+state(`{"id":"b","path":"a.py","start_line":2,"end_line":2}`))
	if _, err := LoadCache(path); err != nil {
		t.Errorf("a good cache: %v", err)
	}
	// Every view and signal retrieval records is read; a file of no units
	// and a state of no candidates leave their lists out.
	signals := `{"lexical":3,"rrf:lexical":0.04,"semantic":0.2,"rrf:semantic":0.02,"entity":1,"rrf:entity":0.1,"structural":1,"rrf:structural":0.01,"history":1,"rrf:history":0.01,"recency":1,"rrf:recency":0.01,"embedding":0.5,"rrf:embedding":0.02,"prior":1,"title":2,"fused":0.3,"fused_rank":2,"order":-1.5,"rest":1}`
	views := `{"lexical":1,"semantic":2,"entity":3,"structural":4,"history":5,"recency":6,"embedding":7}`
	good := file + strings.Replace(state(`{"id":"b","path":"a.py","start_line":2,"end_line":2,"tokens":3}`), `"score":0.5`, `"score":0.5,"views":`+views+`,"signals":`+signals, 1) +
		`{"kind":"file","key":"k2"}` + "\n" + fmt.Sprintf(`{"kind":"state","format":%d,"state_id":"s2"}`, CacheFormat) + "\n"
	writeFile(t, path, good)
	if _, err := LoadCache(path); err != nil {
		t.Errorf("a cache of every view and signal: %v", err)
	}
}

// A key given twice in a record, or a state or file recorded again other
// than it was first, is refused by file and line, when the cache is loaded
// and when it is extended; a record the same as the first, as earlier
// versions wrote on each bench repo --cache rerun, is read once.
func TestCacheRepeats(t *testing.T) {
	file := `{"kind":"file","key":"k1","units":[{"id":"a1","path":"a.py","start_line":1,"end_line":2}]}` + "\n"
	state := func(id string, score float64) string {
		return fmt.Sprintf(`{"kind":"state","format":%d,"state_id":"%s","candidates":[{"unit":{"id":"a1","path":"a.py","start_line":1,"end_line":2},"score":%v}],"files":{"a.py":"k1"}}`, CacheFormat, id, score) + "\n"
	}
	for _, tc := range []struct{ data, want string }{
		{file + strings.Replace(state("s1", 1), `"score":1`, `"score":1,"score":2`, 1), ":2: field candidates[0].score: given twice"},
		{file + strings.Replace(state("s1", 1), `"files":{"a.py":"k1"}`, `"files":{"a.py":"k1","a.py":"k2"}`, 1), ":2: field files.a.py: given twice"},
		{strings.Replace(file, `"key":"k1"`, `"key":"k1","key":"k2"`, 1), ":1: field key: given twice"},
		{file + state("s1", 1) + state("s2", 1) + state("s1", 0.5), `:4: state "s1" recorded again, other than on line 2`},
		{file + state("s1", 1) + strings.Replace(file, `"end_line":2`, `"end_line":3`, 1), `:3: file key "k1" recorded again, other than on line 1`},
	} {
		path := filepath.Join(t.TempDir(), "c.jsonl")
		writeFile(t, path, tc.data)
		if _, err := LoadCache(path); err == nil || !strings.Contains(err.Error(), path+tc.want) {
			t.Errorf("LoadCache: %v, want an error containing %q", err, tc.want)
		}
		if cw, err := CreateCache(path); err == nil || !strings.Contains(err.Error(), path+tc.want) {
			if err == nil {
				cw.Close()
			}
			t.Errorf("CreateCache: %v, want an error containing %q", err, tc.want)
		}
		if got, _ := os.ReadFile(path); string(got) != tc.data {
			t.Errorf("cache changed to %q", got)
		}
	}
	path := filepath.Join(t.TempDir(), "c.jsonl")
	writeFile(t, path, file+state("s1", 1)+file+state("s2", 0.5)+state("s1", 1))
	c, err := LoadCache(path)
	if err != nil {
		t.Fatalf("records repeated as they were: %v", err)
	}
	if len(c.States) != 2 || c.States["s1"].Candidates[0].Score != 1 || c.States["s2"].Candidates[0].Score != 0.5 {
		t.Errorf("states read: %+v", c.States)
	}
	// A state the cache holds is not recorded again.
	cw, err := CreateCache(path)
	if err != nil {
		t.Fatal(err)
	}
	src := units{"a.py": {{ID: "a1", Path: "a.py", StartLine: 1, EndLine: 2}}}
	for _, id := range []string{"s1", "s3"} {
		if err := cw.Record(&mss.State{StateID: id, Issue: "x"}, []mss.Candidate{{Unit: src["a.py"][0], Score: 0.25}}, src, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	if cw.Kept() != 1 {
		t.Errorf("Kept() = %d, want 1 (s1)", cw.Kept())
	}
	if c, err = LoadCache(path); err != nil {
		t.Fatal(err)
	}
	if len(c.States) != 3 || c.States["s1"].Candidates[0].Score != 1 || c.States["s3"].Candidates[0].Score != 0.25 {
		t.Errorf("after recording s1 again and s3: s1 %+v, s3 %+v", c.States["s1"], c.States["s3"])
	}
}

func countLines(b []byte) int {
	n := 0
	for _, c := range b {
		if c == '\n' {
			n++
		}
	}
	return n
}

func TestRefuse(t *testing.T) {
	a := mss.Candidate{Unit: mss.Unit{ID: "a"}, Views: map[string]int{"lexical": 1}, Signals: map[string]float64{"prior": 1}}
	b := mss.Candidate{Unit: mss.Unit{ID: "b"}, Views: map[string]int{"entity": 1}, Signals: map[string]float64{"prior": 1}}
	got := retrieve.Refuse([]mss.Candidate{a, b}, nil, 0)
	if got[0].Unit.ID != "b" { // entity weighs more than lexical by default
		t.Errorf("default fusion: first %s, want b", got[0].Unit.ID)
	}
	got = retrieve.Refuse([]mss.Candidate{a, b}, map[string]float64{"lexical": 3}, 0)
	if got[0].Unit.ID != "a" || got[0].Score != 3.0/(retrieve.RRFK+1) {
		t.Errorf("lexical=3: first %s score %g", got[0].Unit.ID, got[0].Score)
	}
}

func TestFolds(t *testing.T) {
	var states []*mss.State
	for i, n := range []int{5, 4, 3, 2, 1} {
		for j := 0; j < n; j++ {
			states = append(states, &mss.State{StateID: fmt.Sprintf("%d-%d", i, j), Repo: fmt.Sprintf("o/r%d", i)})
		}
	}
	fs := Folds(states, 2)
	if len(fs) != 2 {
		t.Fatalf("%d folds", len(fs))
	}
	// r0 (5) -> fold 0; r1 (4) -> fold 1; r2 (3) -> fold 1; r3 (2) -> fold 0; r4 (1) -> fold 0.
	repos := func(f []*mss.State) map[string]int {
		m := map[string]int{}
		for _, s := range f {
			m[s.Repo]++
		}
		return m
	}
	if diff := cmp.Diff(map[string]int{"o/r0": 5, "o/r3": 2, "o/r4": 1}, repos(fs[0])); diff != "" {
		t.Errorf("fold 1 (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"o/r1": 4, "o/r2": 3}, repos(fs[1])); diff != "" {
		t.Errorf("fold 2 (-want +got):\n%s", diff)
	}
}

func TestPoolCompleteAndDiagnose(t *testing.T) {
	l := &Label{RequiredGroups: []LineGroup{{Path: "a.py", Lines: [][2]int{{10, 10}}}, {Path: "b.py", Lines: [][2]int{{5, 6}}}}}
	c := func(p string, s, e int) mss.Candidate {
		return mss.Candidate{Unit: mss.Unit{Path: p, StartLine: s, EndLine: e}}
	}
	cands := []mss.Candidate{c("a.py", 1, 12), c("x.py", 1, 3), c("b.py", 6, 9)}
	if PoolComplete(l, cands, 2) || !PoolComplete(l, cands, 3) || !PoolComplete(l, cands, 200) {
		t.Error("pool completeness by depth is wrong")
	}
	rows := []StateScore{
		{StateID: "hit", Metrics: map[string]float64{"complete@5": 1}},
		{StateID: "sel", Metrics: map[string]float64{"complete@5": 0}},
		{StateID: "ret", Metrics: map[string]float64{"complete@5": 0}},
	}
	// "sel" shows a.py (covering its group) and x.py: b.py's group was
	// offered but its file not shown. "ret" shows another unit of a.py,
	// and b.py was not offered at all.
	answers := map[string][]PredUnit{
		"hit": {{Path: "a.py", StartLine: 1, EndLine: 12}, {Path: "b.py", StartLine: 6, EndLine: 9}},
		"sel": {{Path: "a.py", StartLine: 1, EndLine: 12}, {Path: "x.py", StartLine: 1, EndLine: 3}},
		"ret": {{Path: "a.py", StartLine: 20, EndLine: 30}},
	}
	d := Diagnose(rows, map[string]*Label{"hit": l, "sel": l, "ret": l}, func(id string) []mss.Candidate {
		if id == "ret" {
			return cands[:2]
		}
		return cands
	}, func(id string) []PredUnit { return answers[id] })
	third := 1.0 / 3
	if d.Complete != third || d.LostSelection != third || d.LostRetrieval != third || d.PoolRecall[200] != 2*third {
		t.Errorf("diagnosis %+v", d)
	}
	// Missed: sel's b.py group (offered, file not shown); ret's a.py group
	// (offered: a candidate overlaps it; file shown) and its b.py group
	// (not offered, and no candidate in b.py).
	if want := (Missed{Groups: 3, OfferedShown: 1, OfferedElsewhere: 1, FileAbsent: 1}); d.Missed != want {
		t.Errorf("missed groups %+v, want %+v", d.Missed, want)
	}
	// Slots: sel's a.py unit covers a new group and its x.py unit none;
	// ret's a.py unit none (the hit's units are not counted).
	if want := (Slots{Units: 3, New: 1, None: 2}); d.Slots != want {
		t.Errorf("slots %+v, want %+v", d.Slots, want)
	}
	// A group no candidate overlaps, in a file the answer shows, or in a
	// file only other candidates are in.
	lc := &Label{RequiredGroups: []LineGroup{{Path: "c.py", Lines: [][2]int{{50, 50}}}}}
	miss := []StateScore{{StateID: "shown", Metrics: map[string]float64{"complete@5": 0}}, {StateID: "offered", Metrics: map[string]float64{"complete@5": 0}}}
	d = Diagnose(miss, map[string]*Label{"shown": lc, "offered": lc}, func(string) []mss.Candidate { return []mss.Candidate{c("c.py", 1, 10)} },
		func(id string) []PredUnit {
			if id == "shown" {
				return []PredUnit{{Path: "c.py", StartLine: 1, EndLine: 10}}
			}
			return []PredUnit{{Path: "x.py", StartLine: 1, EndLine: 3}}
		})
	if want := (Missed{Groups: 2, FileShown: 1, FileOffered: 1}); d.Missed != want {
		t.Errorf("missed groups %+v, want %+v", d.Missed, want)
	}
	if d := Diagnose(rows, map[string]*Label{"hit": l, "sel": l, "ret": l}, func(string) []mss.Candidate { return cands }, nil); d.Missed != (Missed{}) {
		t.Errorf("without answers, missed groups %+v", d.Missed)
	}
	// b.py's group overlapped only by a candidate the state has read: the
	// miss is lost to what was read, not to selection, though the pool
	// (which counts what was read) is complete.
	read := slices.Clone(cands)
	read[2].Observed = true
	d = Diagnose(rows[1:2], map[string]*Label{"sel": l}, func(string) []mss.Candidate { return read }, func(id string) []PredUnit { return answers[id] })
	if d.LostRead != 1 || d.LostSelection != 0 || d.LostRetrieval != 0 || d.PoolRecall[200] != 1 {
		t.Errorf("a group only read: diagnosis %+v", d)
	}
	if want := (Missed{Groups: 1, Read: 1}); d.Missed != want {
		t.Errorf("a group only read: missed groups %+v, want %+v", d.Missed, want)
	}
}

// A last line without its newline is dropped as torn only when it is the
// start of a record mss writes; any other file is refused and left as it
// was, however it ends.
func TestTornLineOnlyOurs(t *testing.T) {
	known := map[string]bool{"s1": true}
	for name, data := range map[string]string{
		"notes, one line":         "precious notes without a newline",
		"notes, two lines":        "precious notes\nwithout a newline",
		"record then notes":       `{"state_id":"s1","method":"m","units":[]}` + "\nprecious tail",
		"notes then torn":         "precious notes\n" + `{"state_id":"s1","met`,
		"other JSON, one line":    `{"name": "not a record"}`,
		"other JSON then torn":    `{"name": "not a record"}` + "\n" + `{"kind":"state","sta`,
		"record of other kind":    `{"kind":"state","state_id":"s1"}` + "\n" + `{"state_id":"s1","met`,
		"record, foreign short":   `{"kind":"file","key":"k"}` + "\n" + `{"n`,
		"record-shaped, one line": `{"state_id":"s1"}`,
		"record-shaped, kind":     `{"kind":"state","state_id":"s1"}`,
		"a brace alone":           `{`,
		"a short start alone":     `{"state_`,
	} {
		dir := t.TempDir()
		pred := filepath.Join(dir, "pred.jsonl")
		cache := filepath.Join(dir, "cache.jsonl")
		writeFile(t, pred, data)
		writeFile(t, cache, data)
		if _, err := Resume(pred, "m", known, func(string) {}); err == nil {
			t.Errorf("%s: Resume accepted it", name)
		}
		if cw, err := CreateCache(cache); err == nil {
			cw.Close()
			t.Errorf("%s: CreateCache accepted it", name)
		}
		for _, p := range []string{pred, cache} {
			if got, _ := os.ReadFile(p); string(got) != data {
				t.Errorf("%s: %s changed to %q", name, filepath.Base(p), got)
			}
		}
	}
}

// A unit counts as new when it overlaps a group no unit before it in its
// answer overlaps, even if it overlaps covered ones too; as a repeat when
// every group it overlaps is covered already.
func TestSlots(t *testing.T) {
	l := &Label{RequiredGroups: []LineGroup{{Path: "a.py", Lines: [][2]int{{10, 10}}}, {Path: "a.py", Lines: [][2]int{{20, 20}}}}}
	var s Slots
	s.add(l, []PredUnit{
		{Path: "a.py", StartLine: 1, EndLine: 12},  // new: the first group
		{Path: "a.py", StartLine: 9, EndLine: 11},  // repeat
		{Path: "z.py", StartLine: 1, EndLine: 30},  // none: another file
		{Path: "a.py", StartLine: 5, EndLine: 25},  // new: the second group, with the first
		{Path: "a.py", StartLine: 19, EndLine: 21}, // repeat
		{Path: "a.py", StartLine: 11, EndLine: 19}, // none: between the groups' lines
	})
	if want := (Slots{Units: 6, New: 2, Repeat: 2, None: 2}); s != want {
		t.Errorf("slots %+v, want %+v", s, want)
	}
}

// A run killed while writing its first record leaves that record's start
// alone in the file: it is dropped, for the predictions and the cache.
func TestTornFirstRecordDropped(t *testing.T) {
	dir := t.TempDir()
	pred := filepath.Join(dir, "pred.jsonl")
	writeFile(t, pred, `{"state_id":"s1","meth`)
	var notices []string
	done, err := Resume(pred, "m", map[string]bool{"s1": true}, func(s string) { notices = append(notices, s) })
	if err != nil || len(done) != 0 || len(notices) != 1 {
		t.Fatalf("Resume: %v, %d done, notices %q", err, len(done), notices)
	}
	if got, _ := os.ReadFile(pred); len(got) != 0 {
		t.Errorf("predictions left %q, want the torn record dropped", got)
	}
	cache := filepath.Join(dir, "cache.jsonl")
	writeFile(t, cache, cacheRecordStart+`"state","sta`)
	cw, err := CreateCache(cache)
	if err != nil {
		t.Fatalf("CreateCache: %v", err)
	}
	cw.Close()
}

// TestCacheLeavesNoEmptyFile checks that a cache this run made and
// recorded nothing in is removed when closed, and that an empty file that
// was there before is left as it was.
func TestCacheLeavesNoEmptyFile(t *testing.T) {
	dir := t.TempDir()
	made := filepath.Join(dir, "new.jsonl")
	cw, err := CreateCache(made)
	if err != nil {
		t.Fatal(err)
	}
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(made); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s after a run that recorded nothing: %v, want it removed", made, err)
	}
	there := filepath.Join(dir, "there.jsonl")
	if err := os.WriteFile(there, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if cw, err = CreateCache(there); err != nil {
		t.Fatal(err)
	}
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(there); err != nil {
		t.Errorf("%s, empty before the run: %v, want it kept", there, err)
	}
}
