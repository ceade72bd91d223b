package pipeline

import (
	"errors"
	"github.com/missingcomplement/mss/internal/gittest"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/index"
)

func TestLocate(t *testing.T) {
	lines := []string{"a\n", "b\n", "c\n", "a\n", "b\n"}
	tests := []struct {
		want  []string
		start int
		at    int
	}{
		{[]string{"a\n", "b\n"}, 1, 1},
		{[]string{"a\n", "b\n"}, 4, 4},
		{[]string{"a\n", "b\n"}, 3, 4}, // nearest: 4 is 1 away, 1 is 2 away
		{[]string{"b\n", "c\n"}, 5, 2},
		{[]string{"c\n", "d\n"}, 3, -1},
		{nil, 1, -1},
	}
	for _, tc := range tests {
		if got := locate(lines, tc.want, tc.start); got != tc.at {
			t.Errorf("locate(%q, from %d) = %d, want %d", tc.want, tc.start, got, tc.at)
		}
	}
}

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	gittest.WriteTree(t, dir, files)
	return dir
}

func TestTreeFilesConfined(t *testing.T) {
	dir := writeTree(t, map[string]string{"pkg/a.py": "x = 1\n"})
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.py")
	if err := os.WriteFile(secret, []byte("TOKEN = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tf, err := NewTreeFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tf.Close()
	if _, err := tf.ReadFile("pkg/a.py"); err != nil {
		t.Errorf("reading a file inside: %v", err)
	}
	for _, p := range []string{"../" + filepath.Base(outside) + "/secret.py", "/etc/passwd", "pkg/../../x"} {
		if _, err := tf.ReadFile(p); err == nil {
			t.Errorf("reading %q succeeded", p)
		}
	}
	if err := os.Symlink(secret, filepath.Join(dir, "leak.py")); err != nil {
		t.Skip("symlinks unsupported:", err)
	}
	if _, err := tf.ReadFile("leak.py"); err == nil {
		t.Error("reading leak.py through a symlink out of the repository succeeded")
	}
}

func TestVerify(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"a.py": "# moved\n\ndef f():\n    return 1\n\n\ndef g():\n    return 3\n",
	})
	tf, err := NewTreeFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tf.Close()
	units := []mss.Unit{
		{ID: "f", Path: "a.py", StartLine: 1, EndLine: 2, Symbol: "f", Content: "def f():\n    return 1\n"},
		{ID: "g", Path: "a.py", StartLine: 5, EndLine: 6, Symbol: "g", Content: "def g():\n    return 2\n"},
		{ID: "h", Path: "gone.py", StartLine: 1, EndLine: 1, Content: "x\n"},
		{ID: "o", Path: "a.py", StartLine: 8, EndLine: 8, Content: "    return 3\n"},
	}
	obs := mss.ObservedOf(&mss.State{ObservedSpans: []mss.Span{{Path: "a.py", StartLine: 8, EndLine: 8}}})
	got, trace := Verify(tf, units, obs)
	if len(got) != 1 || got[0].ID != "f" || got[0].StartLine != 3 || got[0].EndLine != 4 || got[0].Tokens != mss.TokenCost(got[0].Content) {
		t.Fatalf("kept %+v, want f moved to 3-4", got)
	}
	want := []string{
		"f: moved from line 1 to 3 since indexing",
		"g: dropped: file changed since indexing (re-index pending)",
		"h: dropped: reading gone.py: statat gone.py: no such file or directory",
		"o: dropped: already observed",
	}
	if d := cmp.Diff(want, traceReasons(trace)); d != "" {
		t.Errorf("trace (-want +got):\n%s", d)
	}
}

func TestCommitFiles(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := writeTree(t, map[string]string{"a.py": "one\n"})
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-qm", "c1")
	c1 := git("rev-parse", "HEAD")
	c1 = c1[:len(c1)-1]
	os.WriteFile(filepath.Join(dir, "a.py"), []byte("two\n"), 0o644)
	git("commit", "-qam", "c2")
	cf := NewCommitFiles(filepath.Join(dir, ".git"), c1)
	defer cf.Close()
	data, err := cf.ReadFile("a.py")
	if err != nil || string(data) != "one\n" {
		t.Errorf("a.py at c1 = %q, %v; want %q", data, err, "one\n")
	}
	if _, err := cf.ReadFile("nope.py"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want ErrNotExist", err)
	}
	if _, err := cf.ReadFile("../x"); err == nil {
		t.Error("a path climbing out was read")
	}
}

// TestVerifyRefusesLinesThatDisagree: a unit whose line range does not
// hold as many lines as its text (a damaged cache, another tool's unit) is
// dropped, naming both, and never read past its file's end.
func TestVerifyRefusesLinesThatDisagree(t *testing.T) {
	dir := writeTree(t, map[string]string{"a.py": "def f():\n    return 1\n\n\ndef g():\n    return 2\n"})
	tf, err := NewTreeFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tf.Close()
	f := "def f():\n    return 1\n"
	units := []mss.Unit{
		{ID: "past", Path: "a.py", StartLine: 1, EndLine: 1_000_000_000, Content: f},
		{ID: "inverted", Path: "a.py", StartLine: 5, EndLine: 1, Content: f},
		{ID: "negative", Path: "a.py", StartLine: -5, EndLine: -4, Content: f},
		{ID: "ok", Path: "a.py", StartLine: 1, EndLine: 2, Content: f},
	}
	got, trace := Verify(tf, units, mss.ObservedOf(nil))
	if len(got) != 1 || got[0].ID != "ok" {
		t.Fatalf("kept %+v, want only ok", got)
	}
	want := []string{
		"past: dropped: lines 1-1000000000 do not hold its 2 lines of text",
		"inverted: dropped: lines 5-1 do not hold its 2 lines of text",
		"negative: dropped: lines -5--4 do not hold its 2 lines of text",
	}
	if d := cmp.Diff(want, traceReasons(trace)); d != "" {
		t.Errorf("trace (-want +got):\n%s", d)
	}
}

func TestVerifyKeepsLineEndings(t *testing.T) {
	dir := writeTree(t, map[string]string{"a.java": "class A {\r\n  int x;\r\n}\r\n"})
	tf, err := NewTreeFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tf.Close()
	for _, content := range []string{"class A {\r\n  int x;\r\n}\r\n", "class A {\n  int x;\n}\n"} {
		got, trace := Verify(tf, []mss.Unit{{ID: "a", Path: "a.java", StartLine: 1, EndLine: 3, Content: content}}, mss.ObservedOf(nil))
		if len(got) != 1 || got[0].Content != "class A {\r\n  int x;\r\n}\r\n" || got[0].Tokens != 6 {
			t.Errorf("indexed as %q: got %+v, trace %v; want the file's bytes, 6 tokens", content, got, trace)
		}
	}
}

// TestVerifyContext: a later part of a split definition is delivered
// with its definition's signature, checked against the file and numbered
// there (the nearest above it, though the part moved); a signature the
// file does not hold above the part, or that the state has read, is not
// delivered, and a name taken from a signature no longer there is cut to
// what the unit's own text holds.
func TestVerifyContext(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"a.py": "def long(a,\n         b):\n    x = 1\n    y = 2\n    return x\n",
		"b.py": "def other():\n    pass\n\n\ndef long(a,\n         b):\n    x = 1\n    y = 2\n    return x\n",
		"c.py": "def long(a,\n         b):\n    x = 1\n    y = 2\n    return x\n",
		"d.py": "class Beta:\n    def compute_total(self, items):\n        return sum(items)\n",
	})
	tf, err := NewTreeFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tf.Close()
	sig := "def long(a,\n         b):\n"
	units := []mss.Unit{
		{ID: "a", Path: "a.py", StartLine: 4, EndLine: 5, Content: "    y = 2\n    return x\n", Context: sig},
		// indexed before two functions were added above it
		{ID: "b", Path: "b.py", StartLine: 4, EndLine: 5, Content: "    y = 2\n    return x\n", Context: sig},
		{ID: "gone", Path: "a.py", StartLine: 3, EndLine: 3, Content: "    x = 1\n", Context: "def short():\n"},
		{ID: "read", Path: "c.py", StartLine: 4, EndLine: 5, Content: "    y = 2\n    return x\n", Context: sig},
		// indexed before class Alpha was renamed Beta
		{ID: "renamed", Path: "d.py", StartLine: 2, EndLine: 3, Content: "    def compute_total(self, items):\n        return sum(items)\n",
			Context: "class Alpha:\n", Symbol: "Alpha.compute_total", Symbols: []string{"Alpha.compute_total"}},
		{ID: "part", Path: "d.py", StartLine: 3, EndLine: 3, Content: "        return sum(items)\n",
			Context: "class Alpha:\n", Symbol: "Alpha.compute_total", Symbols: []string{"Alpha.compute_total"}},
	}
	obs := mss.ObservedOf(&mss.State{ObservedSpans: []mss.Span{{Path: "c.py", StartLine: 2, EndLine: 2}}})
	got, trace := Verify(tf, units, obs)
	type ctx struct {
		ID, Context string
		Line        int
		Symbol      string
		Symbols     []string
	}
	var gotCtx []ctx
	for _, u := range got {
		gotCtx = append(gotCtx, ctx{u.ID, u.Context, u.ContextLine, u.Symbol, u.Symbols})
	}
	want := []ctx{{"a", sig, 1, "", nil}, {"b", sig, 5, "", nil}, {"gone", "", 0, "", nil}, {"read", "", 0, "", nil},
		{"renamed", "", 0, "compute_total", []string{"compute_total"}}, {"part", "", 0, "", nil}}
	if d := cmp.Diff(want, gotCtx); d != "" {
		t.Errorf("contexts (-want +got):\n%s", d)
	}
	wantTrace := []string{
		"b: moved from line 4 to 8 since indexing",
		"gone: its definition's signature is not above it: delivered without it",
		`renamed: its definition's signature is not above it: delivered without it, named "compute_total" by its own text (indexed as "Alpha.compute_total")`,
		`part: its definition's signature is not above it: delivered without it, and without the name it gave (indexed as "Alpha.compute_total")`,
	}
	if d := cmp.Diff(wantTrace, traceReasons(trace)); d != "" {
		t.Errorf("trace (-want +got):\n%s", d)
	}
}

// traceReasons gives each trace step as "unit: reason".
func traceReasons(trace []mss.TraceStep) []string {
	var out []string
	for _, s := range trace {
		out = append(out, s.UnitID+": "+s.Reason)
	}
	return out
}

// TestVerifyNamesDamagedCopy: a unit whose text its file does not hold is
// the index's damage when the file is the one indexed (its blob id is the
// one recorded), and an edit since indexing otherwise.
func TestVerifyNamesDamagedCopy(t *testing.T) {
	src := "import math\n\n\ndef area(r):\n    return math.pi * r * r\n"
	dir := writeTree(t, map[string]string{"calc.py": src, "edited.py": src})
	tf, err := NewTreeFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tf.Close()
	copied := "def area(r):\n    return MATH_PI * r * r\n"
	units := []mss.Unit{
		{ID: "damaged", Path: "calc.py", StartLine: 4, EndLine: 5, Content: copied},
		{ID: "stale", Path: "edited.py", StartLine: 4, EndLine: 5, Content: copied},
	}
	recorded := func(p string) string {
		if p == "calc.py" {
			return index.BlobID([]byte(src))
		}
		return index.BlobID([]byte("what was indexed before the edit\n"))
	}
	got, trace := VerifyRecorded(tf, recorded, units, mss.ObservedOf(nil))
	if len(got) != 0 {
		t.Fatalf("kept %+v", got)
	}
	want := []string{
		"damaged: dropped: " + DamagedCopy,
		"stale: dropped: file changed since indexing (re-index pending)",
	}
	if d := cmp.Diff(want, traceReasons(trace)); d != "" {
		t.Errorf("trace (-want +got):\n%s", d)
	}
}

// TestLeftOutWarning: the warning for a unit left out is one line,
// whatever its file's name or the reason hold, and plain when they hold
// nothing to escape.
func TestLeftOutWarning(t *testing.T) {
	for _, c := range []struct{ path, why, want string }{
		{"a.py", "file changed since indexing", "a.py:1-2 left out: file changed since indexing"},
		{"new\nline.py", "reading new\nline.py: gone", `"new\nline.py":1-2 left out: "reading new\nline.py: gone"`},
		{"\x1b[31mred.py", "x", `"\x1b[31mred.py":1-2 left out: x`},
	} {
		if got := LeftOutWarning(mss.Unit{Path: c.path, StartLine: 1, EndLine: 2}, c.why); got != c.want {
			t.Errorf("LeftOutWarning(%q, %q) = %q, want %q", c.path, c.why, got, c.want)
		}
	}
}
