package segment

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sitter "github.com/smacker/go-tree-sitter"
)

// TestMaskTree segments every file of a tree whose grammar masks
// function bodies with and without the masks, fails on any difference
// and reports both times:
//
//	MSS_MASK_TREE=/path/to/checkout go test -run MaskTree -v ./segment/
//
// It skips when MSS_MASK_TREE is unset.
func TestMaskTree(t *testing.T) {
	root := os.Getenv("MSS_MASK_TREE")
	if root == "" {
		t.Skip("MSS_MASK_TREE not set")
	}
	var files, masked int
	var plain, fast time.Duration
	for _, f := range treeFiles(t, root) {
		if f.g.mask == nil {
			continue
		}
		files++
		if m, ok := f.g.mask(f.src); ok {
			masked++
			checkSameParse(t, f.g, f.path, m)
		}
		t0 := time.Now()
		want := segmentFile(f.path, f.src, false, parseBudget(len(f.src)))
		t1 := time.Now()
		got := segmentFile(f.path, f.src, true, parseBudget(len(f.src)))
		plain, fast = plain+t1.Sub(t0), fast+time.Since(t1)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s (-source +masked):\n%s", f.path, d)
		}
	}
	t.Logf("%d files, %d masked; segmenting %v from the source, %v masked", files, masked, plain, fast)
}

// maskCaseSets are, per language, sources whose segmentation must not
// change when function bodies are masked, and the sample files of the
// same language.
var maskCaseSets = []struct {
	name  string // the file name they are segmented as
	cases []string
}{
	{"f.py", maskCases},
	{"f.go", goMaskCases},
	{"f.rs", rustMaskCases},
	{"f.java", javaMaskCases},
}

// TestMaskSegmentsAlike: segmenting with and without masked bodies gives
// the same result, for the cases above and the sample files, with either
// line ends.
func TestMaskSegmentsAlike(t *testing.T) {
	for _, set := range maskCaseSets {
		cases := append([]string(nil), set.cases...)
		files, _ := filepath.Glob("testdata/src/*" + filepath.Ext(set.name))
		for _, p := range files {
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			cases = append(cases, string(src))
		}
		// The same with Windows line ends.
		for _, src := range cases[:len(cases):len(cases)] {
			cases = append(cases, strings.ReplaceAll(src, "\n", "\r\n"))
		}
		g := grammarFor(set.name)
		for i, src := range cases {
			if m, ok := g.mask([]byte(src)); ok {
				checkHoles(t, m)
				checkSameParse(t, g, fmt.Sprintf("%s case %d", set.name, i), m)
			}
			want := segmentFile(set.name, []byte(src), false, parseBudget(len(src)))
			got := segmentFile(set.name, []byte(src), true, parseBudget(len(src)))
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("%s case %d (-source +masked):\n%s", set.name, i, d)
			}
		}
	}
}

// checkMasked checks what every mask keeps: a file it does not mask is
// not copied; one it masks keeps its length and every newline, its bytes
// change only to those in allowed, and masking it again changes nothing
// (or finds nothing to mask).
// It returns the masked copy (nil when there is none).
func checkMasked(t *testing.T, mask func([]byte) (masked, bool), src []byte, allowed string) []byte {
	t.Helper()
	m, ok := mask(src)
	got := m.text
	if !ok {
		if got != nil || m.holes != nil {
			t.Fatal("not masked, but a copy or holes returned")
		}
		return nil
	}
	checkHoles(t, m)
	if len(got) != len(src) {
		t.Fatalf("length %d, want %d", len(got), len(src))
	}
	for i := range src {
		if got[i] != src[i] && (src[i] == '\n' || !strings.ContainsRune(allowed, rune(got[i]))) {
			t.Fatalf("byte %d: %q became %q", i, src[i], got[i])
		}
	}
	if again, ok := mask(got); ok && !bytes.Equal(again.text, got) {
		t.Fatalf("masked again (ok %v):\n%s\nfrom\n%s", ok, again.text, got)
	}
	return got
}

// checkHoles checks a masked text's holes: in order, apart, within the
// text, at least minHole bytes, and only spaces and newlines.
func checkHoles(t *testing.T, m masked) {
	t.Helper()
	at := 0
	for _, h := range m.holes {
		if h[0] < at || h[1]-h[0] < minHole || h[1] > len(m.text) {
			t.Fatalf("hole %v after %d in a text of %d bytes", h, at, len(m.text))
		}
		if k := bytes.IndexFunc(m.text[h[0]:h[1]], func(r rune) bool { return r != ' ' && r != '\n' }); k >= 0 {
			t.Fatalf("hole %v holds %q", h, m.text[h[0]+k])
		}
		at = h[1]
	}
}

// checkSameParse checks that the parser reads a masked text to the same
// tree when it skips its holes as when it reads them: every node of the
// same type, over the same bytes, rows and columns.
func checkSameParse(t *testing.T, g *grammar, name string, m masked) {
	t.Helper()
	parse := func(ranges []sitter.Range) *sitter.Tree {
		p := sitter.NewParser()
		defer p.Close()
		p.SetLanguage(g.language())
		if ranges != nil {
			p.SetIncludedRanges(ranges)
		}
		tree, err := p.ParseCtx(context.Background(), nil, m.text)
		if err != nil {
			t.Fatal(err)
		}
		return tree
	}
	want, got := parse(nil), parse(includedRanges(m.text, m.holes))
	defer want.Close()
	defer got.Close()
	if d := cmp.Diff(nodeLines(want.RootNode()), nodeLines(got.RootNode())); d != "" {
		t.Errorf("%s: the parse skipping %d holes differs (-read +skipped):\n%s", name, len(m.holes), d)
	}
}

// nodeLines lists a tree's nodes, one line each: type, bytes and points.
func nodeLines(n *sitter.Node) []string {
	var out []string
	var walk func(n *sitter.Node, depth int)
	walk = func(n *sitter.Node, depth int) {
		out = append(out, fmt.Sprintf("%*s%s %d-%d %v-%v", depth, "", n.Type(), n.StartByte(), n.EndByte(), n.StartPoint(), n.EndPoint()))
		for _, c := range sitterChildren(n) {
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return out
}

// blankText is s with every character but a newline a space: a body as
// the brace languages' masks leave it.
func blankText(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' {
			return r
		}
		return ' '
	}, s)
}

// checkMaskedAs: mask masks src, into want.
func checkMaskedAs(t *testing.T, mask func([]byte) (masked, bool), src, want string) {
	t.Helper()
	got, ok := mask([]byte(src))
	if !ok {
		t.Fatal("nothing masked")
	}
	checkHoles(t, got)
	if d := cmp.Diff(want, string(got.text)); d != "" {
		t.Fatalf("masked (-want +got):\n%s", d)
	}
}

// checkRefuses checks that a mask leaves each source unmasked.
func checkRefuses(t *testing.T, mask func([]byte) (masked, bool), srcs []string) {
	t.Helper()
	for _, src := range srcs {
		if got, ok := mask([]byte(src)); ok {
			t.Errorf("%q masked as %q", src, got.text)
		}
	}
}

// TestPlainBytes: no byte a lexer's plain table marks is a bracket, or
// one its skip steps over, before or after any byte: closeGroup and
// scanWords may pass them by without asking.
func TestPlainBytes(t *testing.T) {
	lexers := []struct {
		name  string
		plain *[256]bool
		skip  func(src []byte, i int) bool
	}{
		{"go", goPlain, func(src []byte, i int) bool {
			lx := goLexer{scanner: scanner{src: src, i: i}}
			skipped, _ := lx.skip()
			return skipped
		}},
		{"rust", rustPlain, func(src []byte, i int) bool {
			lx := rustLexer{scanner{src: src, i: i}}
			skipped, _ := lx.skip()
			return skipped
		}},
		{"java", javaPlain, func(src []byte, i int) bool {
			lx := javaLexer{scanner{src: src, i: i}}
			skipped, _ := lx.skip()
			return skipped
		}},
	}
	for _, lx := range lexers {
		for c := range 256 {
			if !lx.plain[c] {
				continue
			}
			if strings.ContainsRune("()[]{}", rune(c)) {
				t.Errorf("%s: bracket %q marked plain", lx.name, byte(c))
			}
			for prev := range 256 {
				for _, next := range []byte("/*\"'`#x \n\\") {
					src := []byte{byte(prev), byte(c), next, '"', '#', '\'', 'x', '\'', '"', '*', '/', '\n'}
					if lx.skip(src, 1) {
						t.Fatalf("%s: skip steps over %q (after %q, before %q), marked plain", lx.name, byte(c), byte(prev), next)
					}
				}
			}
		}
	}
}
