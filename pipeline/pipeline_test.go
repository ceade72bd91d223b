package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/internal/gittest"
)

func TestLimitsRefuseZero(t *testing.T) {
	if err := DefaultLimits().Check(); err != nil {
		t.Fatal(err)
	}
	for _, l := range []Limits{
		{Budget: 0, MaxUnits: 8, MinUnits: 4, Candidates: 200},
		{Budget: 100, MaxUnits: -1, MinUnits: 4, Candidates: 200},
		{Budget: 100, MaxUnits: 8, MinUnits: 4, Candidates: 0},
	} {
		if err := l.Check(); err == nil {
			t.Errorf("%+v accepted", l)
		}
	}
}

// openTree writes files into a new work tree and opens a pipeline over
// it, closed when the test ends.
func openTree(t *testing.T, files map[string]string) (*Pipeline, string) {
	t.Helper()
	dir := writeTree(t, files)
	p, err := Open(context.Background(), Options{Repo: dir, NoEnv: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p, dir
}

func TestRecoverVerifiesAndWarns(t *testing.T) {
	p, dir := openTree(t, map[string]string{
		"pkg/parse.py": "def parse_header(line):\n    key, value = line.split(':')\n    return key, value\n\n\ndef parse_headers(lines):\n    return dict(parse_header(l) for l in lines)\n",
		"pkg/send.py":  "def encode_request(req):\n    return req.method + ' ' + req.url\n",
	})
	ctx := context.Background()
	st := &mss.State{Issue: "parse_header fails on values containing ':'",
		ObservedSpans: []mss.Span{{Path: "./pkg/nothere.py", StartLine: 1, EndLine: 2}}}
	lim := DefaultLimits()
	if _, err := p.Recover(ctx, &mss.State{}, lim); err == nil {
		t.Error("a card with no text was answered")
	}
	if _, err := p.Recover(ctx, st, Limits{}); err == nil {
		t.Error("zero limits were accepted")
	}
	// An edit above parse_header after indexing: the answer carries the
	// unit at its new lines, with the file's text.
	edited := "# a comment\n# another\n" + "def parse_header(line):\n    key, value = line.split(':')\n    return key, value\n"
	if err := os.WriteFile(filepath.Join(dir, "pkg/parse.py"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	ans, err := p.Recover(ctx, st, lim)
	if err != nil {
		t.Fatal(err)
	}
	// parse_headers, chosen from the index, is gone from the file: left
	// out, and said so.
	if len(ans.Warnings) != 2 || !strings.Contains(ans.Warnings[0], "pkg/nothere.py is not in the index") ||
		ans.Warnings[1] != "pkg/parse.py:6-7 left out: file changed since indexing (re-index pending)" {
		t.Errorf("warnings %q", ans.Warnings)
	}
	found := false
	for _, u := range ans.Units {
		if u.Symbol == "parse_header" {
			found = true
			if u.StartLine != 3 || u.EndLine != 5 {
				t.Errorf("parse_header at %d-%d, want 3-5", u.StartLine, u.EndLine)
			}
		}
		if u.Symbol == "parse_headers" {
			t.Error("parse_headers delivered though the file no longer holds it")
		}
	}
	if !found {
		t.Errorf("parse_header not delivered: %+v", ans.Units)
	}
}

// A span that starts after the last line of its file excludes nothing;
// the answer says so, as it does for a path the index lacks. A span that
// only runs past the end ("read to the end") is not flagged.
func TestWarnsSpanPastEnd(t *testing.T) {
	p, _ := openTree(t, map[string]string{
		"pkg/parse.py": "def parse_header(line):\n    key, value = line.split(':')\n    return key, value\n",
	})
	st := &mss.State{Issue: "parse_header fails on values containing ':'",
		ObservedSpans: []mss.Span{{Path: "pkg/parse.py", StartLine: 2, EndLine: 400}, {Path: "pkg/parse.py", StartLine: 40, EndLine: 60}}}
	ans, err := p.Recover(context.Background(), st, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"observed span pkg/parse.py:40-60 starts after the file's last indexed line (3); it excludes nothing"}
	if strings.Join(ans.Warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings %q, want %q", ans.Warnings, want)
	}
}

// TestRecoverLeavesTheStateAsGiven: Recover reads the caller's state and
// writes nothing to it, so one state may be answered on several
// goroutines at once (go test -race), each answer the same.
func TestRecoverLeavesTheStateAsGiven(t *testing.T) {
	p, _ := openTree(t, map[string]string{
		"pkg/parse.py": "def parse_header(line):\n    key, value = line.split(':')\n    return key, value\n\n\ndef parse_body(text):\n    return text.strip()\n",
	})
	st := &mss.State{Issue: "parse_header fails on values containing ':'", OpenedFiles: []string{"./pkg/parse.py"},
		ObservedSpans: []mss.Span{{Path: "./pkg//parse.py", StartLine: 6, EndLine: 7}}}
	want, err := p.Recover(context.Background(), st, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if st.OpenedFiles[0] != "./pkg/parse.py" || st.ObservedSpans[0].Path != "./pkg//parse.py" {
		t.Errorf("the caller's state was changed: %q, %q", st.OpenedFiles, st.ObservedSpans[0].Path)
	}
	var wg sync.WaitGroup
	answers := make([]*Answer, 4)
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i], _ = p.Recover(context.Background(), st, DefaultLimits())
		}()
	}
	wg.Wait()
	for _, a := range answers {
		if a == nil || !cmp.Equal(a.Units, want.Units) {
			t.Errorf("an answer on another goroutine differs")
		}
	}
}

// A window that cut a function: the answer delivers the function's unread
// rest with the file's text, and never a line the agent read.
func TestRecoverDeliversUnreadRest(t *testing.T) {
	p, _ := openTree(t, map[string]string{
		"pkg/parse.py": "def parse_header(line):\n    # split at the first colon only\n    key, sep, value = line.partition(':')\n    if not sep:\n        raise ValueError(line)\n    return key.strip(), value.strip()\n",
		"pkg/send.py":  "def encode_request(req):\n    return req.method + ' ' + req.url\n",
	})
	st := &mss.State{Issue: "parse_header fails on values containing ':'",
		InformationNeed: "parse_header in pkg/parse.py has been read. Find the other code that must change together with it.",
		ObservedSpans:   []mss.Span{{Path: "pkg/parse.py", StartLine: 1, EndLine: 2}}}
	ans, err := p.Recover(context.Background(), st, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	var rest *mss.Unit
	for i, u := range ans.Units {
		if u.Path == "pkg/parse.py" && u.StartLine <= 2 {
			t.Errorf("delivered %s:%d-%d, which holds lines the agent read", u.Path, u.StartLine, u.EndLine)
		}
		if u.Path == "pkg/parse.py" && u.StartLine == 3 {
			rest = &ans.Units[i]
		}
	}
	want := "    key, sep, value = line.partition(':')\n    if not sep:\n        raise ValueError(line)\n    return key.strip(), value.strip()\n"
	if rest == nil || rest.EndLine != 6 || rest.Content != want || rest.Symbol != "parse_header" {
		t.Fatalf("the unread rest of parse_header (lines 3-6) was not delivered: %+v", ans.Units)
	}
	trace := ""
	for _, s := range ans.Trace {
		if s.UnitID == rest.ID || strings.Contains(s.Reason, "pkg/parse.py:3-6") {
			trace += s.Reason + "\n"
		}
	}
	if !strings.Contains(trace, "unread rest of a unit read in part") {
		t.Errorf("the trace does not say the unit is an unread rest:\n%s", trace)
	}
}

// The unread rest of a function whose last lines were read joins the
// chosen import above it, on the side not read, and never reaches the
// lines read below it.
func TestRecoverGrowsUnreadRest(t *testing.T) {
	file := "import re\n\ndef parse_header(line):\n    key, sep, value = line.partition(':')\n    if not re.match(r'\\w+', key):\n        raise ValueError(line)\n    # strip both sides\n    return key.strip(), value.strip()\n"
	p, _ := openTree(t, map[string]string{
		"pkg/parse.py": file,
		"pkg/send.py":  "def encode_request(req):\n    return req.method + ' ' + req.url\n",
	})
	st := &mss.State{Issue: "parse_header fails on values containing ':'",
		InformationNeed: "The end of parse_header in pkg/parse.py has been read. Find the rest of it.",
		ObservedSpans:   []mss.Span{{Path: "pkg/parse.py", StartLine: 7, EndLine: 8}}}
	lim := DefaultLimits()
	lim.MinUnits = 1 // a join may leave one unit
	ans, err := p.Recover(context.Background(), st, lim)
	if err != nil {
		t.Fatal(err)
	}
	var got *mss.Unit
	for i, u := range ans.Units {
		if u.Path == "pkg/parse.py" {
			got = &ans.Units[i]
		}
	}
	lines := strings.SplitAfter(file, "\n")
	if want := strings.Join(lines[:6], ""); got == nil || got.StartLine != 1 || got.EndLine != 6 || got.Content != want {
		t.Fatalf("want pkg/parse.py:1-6, the import and the unread rest of parse_header, got %+v", ans.Units)
	}
	trace := ""
	for _, s := range ans.Trace {
		if s.Stage == "expand" {
			trace += s.Reason + "\n"
		}
	}
	if !strings.Contains(trace, "chosen too and next to it") {
		t.Errorf("the trace does not say the two were joined:\n%s", trace)
	}
}

// A chosen unit whose text changed since indexing is left out, and the
// answer says so in its warnings, not only in its trace.
func TestWarnsDroppedUnit(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"pkg/parse.py": "def parse_header(line):\n    key, value = line.split(':')\n    return key, value\n",
	})
	ctx := context.Background()
	p, err := Open(ctx, Options{Repo: dir, NoEnv: true})
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	edited := "def parse_header(line):\n    key, value = line.split(':', 1)\n    return key, value\n"
	if err := os.WriteFile(filepath.Join(dir, "pkg/parse.py"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err = Open(ctx, Options{DB: filepath.Join(dir, ".mss", "index.db"), NoEnv: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ans, err := p.Recover(ctx, &mss.State{Issue: "parse_header fails on values containing ':'"}, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if len(ans.Units) != 0 {
		t.Errorf("units %+v, want none (the only unit changed)", ans.Units)
	}
	want := []string{"pkg/parse.py:1-3 left out: file changed since indexing (re-index pending)"}
	if strings.Join(ans.Warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings %q, want %q", ans.Warnings, want)
	}
}

func TestPoolPipeline(t *testing.T) {
	pool := []mss.Unit{
		{ID: "p1", Path: "a.py", StartLine: 1, EndLine: 2, Symbol: "parse_header", Content: "def parse_header(line):\n    return line.split(':')\n"},
		{ID: "p2", Path: "b.py", StartLine: 1, EndLine: 2, Symbol: "send", Content: "def send(req):\n    return req\n"},
	}
	ctx := context.Background()
	for _, units := range [][]mss.Unit{pool, nil} {
		p, err := OpenPool(units, Options{})
		if err != nil {
			t.Fatal(err)
		}
		ans, err := p.Recover(ctx, &mss.State{Issue: "parse_header splits on every ':'", ObservedEvidenceIDs: []string{"p2"}}, DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range ans.Units {
			if u.ID == "p2" {
				t.Error("an observed pool unit was delivered")
			}
		}
		if len(units) > 0 && (len(ans.Units) == 0 || ans.Units[0].ID != "p1") {
			t.Errorf("pool answer %+v, want p1 first", ans.Units)
		}
	}
}

// TestOverlayAfterEdit: after an edit, a pipeline with Overlay
// overlays the structures the index kept, over the work tree or over the
// index alone; one that does not derives them (Repo) or builds the engine
// from the units (DB).
func TestOverlayAfterEdit(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"pkg/parse.py":  "def parse_header(line):\n    key, value = line.split(':')\n    return key, value\n",
		"pkg/shades.py": gittest.Filler(40),
	})
	ctx := context.Background()
	open := func(o Options) *Pipeline {
		t.Helper()
		o.NoEnv = true
		p, err := Open(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		return p
	}
	if p := open(Options{Repo: dir}); !p.Engine().Stored() {
		t.Fatal("a new index's engine is not the stored one")
	}
	edit := func(name string) {
		f, err := os.OpenFile(filepath.Join(dir, "pkg/parse.py"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		f.WriteString("\n\ndef " + name + "(x):\n    return x\n")
	}
	edit("split_header")
	p := open(Options{Repo: dir, Overlay: true})
	if !p.Engine().Overlaid() || p.Meta().Derived != "" || p.Meta().Base == "" {
		t.Fatalf("deferred: overlaid %v, derived %q, base %q", p.Engine().Overlaid(), p.Meta().Derived, p.Meta().Base)
	}
	dbPath := filepath.Join(dir, ".mss", "index.db")
	if p := open(Options{DB: dbPath, Overlay: true}); !p.Engine().Overlaid() {
		t.Error("the index alone, deferring: not overlaid")
	}
	if p := open(Options{DB: dbPath}); p.Engine().Overlaid() || p.Engine().Stored() {
		t.Error("the index alone, exact: want the engine built from the units")
	}
	edit("join_header")
	if p := open(Options{Repo: dir}); !p.Engine().Stored() || p.Meta().Base != "" {
		t.Errorf("exact after an edit: stored %v, base %q; want the structures derived again", p.Engine().Stored(), p.Meta().Base)
	}
}

// What an issue template adds is left out of the query, and the trace
// says so; the warnings do not (nothing is wrong with the card).
func TestTraceSaysWhatWasLeftOut(t *testing.T) {
	p, _ := openTree(t, map[string]string{
		"pkg/parse.py": "def parse_header(line):\n    key, value = line.split(':')\n    return key, value\n",
	})
	st := &mss.State{Issue: "parse_header fails on values containing ':'\n<!-- Thanks for reporting!\nPlease fill in: -->\n" +
		"attrs==19.3.0\npluggy==0.13.1\npy==1.8.1\npytest==5.3.2\nsix==1.13.0\n"}
	ans, err := p.Recover(context.Background(), st, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	got := querySteps(ans)
	want := []string{"left out of the query: an HTML comment of 2 lines", "left out of the query: an environment listing of 5 lines"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || len(ans.Warnings) != 0 {
		t.Errorf("query steps %q (want %q), warnings %q", got, want, ans.Warnings)
	}
	if len(ans.Units) == 0 || ans.Units[0].Symbol != "parse_header" {
		t.Errorf("units %+v", ans.Units)
	}
}

func TestIssueTemplateLeftOut(t *testing.T) {
	dir := writeTree(t, map[string]string{
		".github/ISSUE_TEMPLATE/bug_report.md": "---\nname: Bug report\n---\n#### Output of ``pkg.show_versions()``\n",
		"pkg/versions.py":                      "def show_versions():\n    print('python', 3)\n",
		"pkg/stats.py":                         "def quantile(values, q):\n    return sorted(values)[int(q * len(values))]\n",
	})
	// A template read through a link that leaves the tree is not read.
	outside := filepath.Join(t.TempDir(), "evil.md")
	if err := os.WriteFile(outside, []byte("quantile ignores q\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, ".github/ISSUE_TEMPLATE/evil.md")); err != nil {
		t.Fatal(err)
	}
	p, err := Open(context.Background(), Options{Repo: dir, NoEnv: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if got := p.IssueTemplate().Lines(); strings.Join(got, "|") != "Output of ``pkg.show_versions()``" {
		t.Errorf("template lines %q", got)
	}
	st := &mss.State{Issue: "quantile ignores q\n\n#### Output of ``pkg.show_versions()``\n\npython 3"}
	ans, err := p.Recover(context.Background(), st, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	steps := querySteps(ans)
	if want := "left out of the query: 1 line of the repository's issue template"; strings.Join(steps, "\n") != want {
		t.Errorf("query steps %q, want %q", steps, want)
	}
	if len(ans.Units) == 0 || ans.Units[0].Symbol != "quantile" {
		t.Errorf("units %+v", ans.Units)
	}
	q, err := p.Candidates(context.Background(), st, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if q.Mentions.Code["show_versions"] {
		t.Errorf("the template's name is a mention: %v", q.Mentions.Code)
	}
}

// querySteps are the reasons of an answer's "query" trace steps: what was
// left out of the state's text.
func querySteps(ans *Answer) []string {
	var out []string
	for _, s := range ans.Trace {
		if s.Stage == "query" {
			out = append(out, s.Reason)
		}
	}
	return out
}

// TestSubdirectoryOfWorkTree: a repository named as a subdirectory of a
// git work tree is that directory: its files alone are indexed, by paths
// relative to it, into its own .mss, and every answer is read and
// verified there; the history view reads the work tree's commits by the
// same paths.
func TestSubdirectoryOfWorkTree(t *testing.T) {
	top := t.TempDir()
	gittest.Run(t, top, "init", "-q")
	gittest.WriteTree(t, top, map[string]string{
		".github/ISSUE_TEMPLATE/bug.md": "---\nname: Bug\n---\n### Steps\n",
		"app/pkg/parse.py":              "def parse_header(line):\n    key, value = line.split(':')\n    return key, value\n",
		"app/pkg/fold.py":               "def fold_header(line):\n    return line.strip()\n",
		"lib/parse.py":                  "def parse_header(line):\n    return line\n",
	})
	gittest.Run(t, top, "add", "-A")
	gittest.Run(t, top, "commit", "-q", "-m", "first")
	gittest.WriteTree(t, top, map[string]string{
		"app/pkg/parse.py": "def parse_header(line):\n    key, value = line.split(':', 1)\n    return key, value\n",
		"app/pkg/fold.py":  "def fold_header(line):\n    return line.strip().lower()\n",
	})
	gittest.Run(t, top, "commit", "-q", "-a", "-m", "headers: split once, fold case")
	app := filepath.Join(top, "app")
	p, err := Open(context.Background(), Options{Repo: app, NoEnv: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := os.Stat(filepath.Join(app, ".mss", "index.db")); err != nil {
		t.Errorf("no index in the subdirectory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(top, ".mss")); err == nil {
		t.Error("an index was written outside the subdirectory named")
	}
	st := &mss.State{Issue: "`parse_header` splits a value containing ':'",
		ObservedSpans: []mss.Span{{Path: "pkg/parse.py", StartLine: 1, EndLine: 3}}}
	ans, err := p.Recover(context.Background(), st, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if len(ans.Warnings) != 0 {
		t.Errorf("warnings %q", ans.Warnings)
	}
	var paths []string
	for _, u := range ans.Units {
		paths = append(paths, u.Path)
		if strings.HasPrefix(u.Path, "lib/") || strings.HasPrefix(u.Path, "app/") || strings.HasPrefix(u.Path, "..") {
			t.Errorf("unit %s is not a path of the subdirectory's own", u.ID)
		}
	}
	if strings.Join(paths, " ") != "pkg/fold.py" {
		t.Errorf("units of %v, want the unread pkg/fold.py", paths)
	}
	q, err := p.Candidates(context.Background(), st, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	history := false
	for _, c := range q.Candidates {
		history = history || c.Unit.Path == "pkg/fold.py" && c.Signals["history"] > 0
	}
	if !history {
		t.Errorf("the history view did not tie pkg/fold.py to the file read: %+v", q.Candidates)
	}
}

// TestWarnsUnknownEvidenceID: an observed evidence id that is no unit of
// the index excludes nothing, and the answer says so, as it does for a
// path the index lacks; a known id excludes its unit, unwarned.
func TestWarnsUnknownEvidenceID(t *testing.T) {
	p, _ := openTree(t, map[string]string{
		"pkg/parse.py": "def parse_header(line):\n    key, value = line.split(':')\n    return key, value\n",
	})
	ctx := context.Background()
	st := &mss.State{Issue: "`parse_header` fails on values containing ':'"}
	q, err := p.Candidates(ctx, st, DefaultLimits())
	if err != nil || len(q.Candidates) == 0 {
		t.Fatalf("candidates: %v, %d", err, len(q.Candidates))
	}
	known := q.Candidates[0].Unit.ID
	st.ObservedEvidenceIDs = []string{known, "0123456789abcdef", "0123456789abcdef"}
	ans, err := p.Recover(ctx, st, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if want := `observed evidence id "0123456789abcdef" is no unit of the index (a grown unit's, or one from before an edit); it excludes nothing: send its lines in observed_spans`; len(ans.Warnings) != 1 || ans.Warnings[0] != want {
		t.Errorf("warnings %q, want [%q]", ans.Warnings, want)
	}
	for _, u := range ans.Units {
		if u.ID == known {
			t.Errorf("the unit of the known id %s was delivered", known)
		}
	}
}

// TestObservedWhileIndexLags checks that spans the agent read in a file
// edited since indexing are read in the file's lines now: the unit the
// agent read is not delivered, and the unit that sits at those lines in
// the index, which the agent has not read, still is.
func TestObservedWhileIndexLags(t *testing.T) {
	p, dir := openTree(t, map[string]string{
		"pkg/parse.py": "def parse_header(line):\n    key, value = line.split(':')\n    return key, value\n\n\ndef parse_headers(lines):\n    return dict(parse_header(l) for l in lines)\n",
	})
	edited := "# one\n# two\n# three\n# four\n# five\n" +
		"def parse_header(line):\n    key, value = line.split(':')\n    return key, value\n\n\ndef parse_headers(lines):\n    return dict(parse_header(l) for l in lines)\n"
	if err := os.WriteFile(filepath.Join(dir, "pkg/parse.py"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	st := &mss.State{Issue: "parse_headers fails on values containing ':' that parse_header splits",
		ObservedSpans: []mss.Span{{Path: "pkg/parse.py", StartLine: 6, EndLine: 8}}}
	ans, err := p.Recover(context.Background(), st, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range ans.Units {
		got = append(got, fmt.Sprintf("%s %d-%d", u.Symbol, u.StartLine, u.EndLine))
	}
	if want := []string{"parse_headers 11-12"}; !slices.Equal(got, want) {
		t.Errorf("units %q, want %q (trace %+v)", got, want, ans.Trace)
	}
	if st.ObservedSpans[0].StartLine != 6 {
		t.Errorf("the state's span was changed to %+v", st.ObservedSpans[0])
	}
}
