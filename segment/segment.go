package segment

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/missingcomplement/mss"
	sitter "github.com/smacker/go-tree-sitter"
)

// Size limits. A definition above maxLines or maxTokens is split at
// statement boundaries; module and class runs use the smaller module
// limits; files without a grammar are cut into windows.
const (
	maxLines        = 200
	maxTokens       = 1500
	moduleMaxLines  = 100
	moduleMaxTokens = 1000
	windowLines     = 60
	windowMaxTokens = 1500

	// A file's parses (two for a C header tried as C++) share a budget
	// of parseBase plus parsePerMiB per MiB of source, at most
	// parseTimeout; a file that takes longer is cut into windows. Real
	// source parses at megabytes per second, so the budget leaves a wide
	// margin, while a small garbled input that drives a grammar's error
	// recovery into seconds is cut off early.
	parseBase    = 1 * time.Second
	parsePerMiB  = 8 * time.Second
	parseTimeout = 10 * time.Second

	// maxErrorDensity: a file where more than one non-blank line in this
	// many is in a syntax error is not in the grammar's language (or is
	// a template); it is cut into windows. Lines, not error nodes, are
	// counted: one line of macro arguments the grammar cannot read
	// (rapidjson's RAPIDJSON_STRING_(Null, 'n', 'u', 'l', 'l')) makes an
	// error node of every argument, and fifty such lines must not turn a
	// header of 3,000 well-formed lines into windows.
	maxErrorDensity = 3
)

// MaxUnitLines and MaxUnitTokens are the most one definition's unit
// holds before it is split (maxLines, maxTokens).
const (
	MaxUnitLines  = maxLines
	MaxUnitTokens = maxTokens
)

// Unit kinds.
const (
	KindFunction = "function"
	KindMethod   = "method"
	KindClass    = "class"
	KindType     = "type"
	// KindValue is a named constant whose value is a literal table that
	// spans lines: a JavaScript or TypeScript "const x = {...}" or "[...]".
	KindValue  = "value"
	KindModule = "module"
	KindWindow = "window"
)

// minValueLines: a literal table shorter than this stays module code.
const minValueLines = 3

// Fallback reasons reported in Result.Fallback.
const (
	FallbackNoGrammar    = "no grammar"
	FallbackSyntaxErrors = "syntax errors"
	FallbackParseFailed  = "parse failed"
)

// Result is the segmentation of one file.
type Result struct {
	Units []mss.Unit
	// Calls[i] are the names unit i calls (a subset of its References),
	// sorted; they make "call" edges, the other references "ref" edges.
	Calls [][]string
	// Language is the grammar used ("" for text). For ".h" files it is
	// "cpp" when the C++ grammar fitted better than C.
	Language string
	// Fallback is "" when the file was parsed, otherwise why it was cut
	// into line windows.
	Fallback string
	// OverBudget says that a parse of the file ran past its time budget,
	// though given a second, longer one (Segment): the result hangs on
	// how loaded the machine was, and an index keeps it only until its
	// next build.
	OverBudget bool
}

// File segments one file. path is repository-relative (forward slashes);
// src its bytes. It returns intact units in line order and never fails on
// bad source: files that do not parse, or have no grammar, fall back to
// line windows.
func File(path string, src []byte) []mss.Unit {
	return Segment(path, src).Units
}

// Segment is File with the call names and the path the file took. A
// file any of whose parses runs past its budget (parseBudget) is
// segmented again with retryBudgets times the budget, so that what a
// file becomes does not hang on how loaded the machine is, while a
// garbled file that drives a grammar's error recovery into seconds is
// still cut off.
func Segment(path string, src []byte) *Result {
	res := segmentFile(path, src, true, budgetOf(len(src)))
	if res.OverBudget {
		res = segmentFile(path, src, true, retryBudgets*budgetOf(len(src)))
	}
	return res
}

// budgetOf is parseBudget, but in tests.
var budgetOf = parseBudget

// retryBudgets is how many budgets the second segmenting of a file that
// ran past its budget has.
const retryBudgets = 4

// segmentFile is Segment with one time budget for the file's parses, and
// with function bodies masked for the parse where the grammar can
// (grammar.mask), or not (tests compare the two).
func segmentFile(path string, src []byte, mask bool, budget time.Duration) (res *Result) {
	f := newFile(path, src)
	f.budget = budget
	defer func() {
		if res != nil {
			res.OverBudget = f.overBudget
		}
	}()
	g := grammarOf(path, src)
	if g == nil {
		return f.windows("", FallbackNoGrammar)
	}
	if f.nlines() == 0 {
		return &Result{Language: g.name}
	}
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	parse := f.parse
	if mask && g.mask != nil {
		parse = f.parseMasked
	}
	tree, err := parse(ctx, g)
	if err != nil {
		return f.windows(g.name, FallbackParseFailed+": "+err.Error())
	}
	if g == cGrammar && tree.RootNode().HasError() {
		// A ".h" (or C file) that the C grammar does not fit may be C++
		// all the same.
		if t2, err := f.parse(ctx, cppGrammar); err == nil {
			if errorSites(t2.RootNode()) < errorSites(tree.RootNode()) {
				tree.Close()
				tree, g = t2, cppGrammar
			} else {
				t2.Close()
			}
		}
	}
	if (g == cGrammar || g == cppGrammar) && tree.RootNode().HasError() {
		// Macros the grammar cannot expand may be what derails it, and
		// conditionals that split a definition between their branches
		// (maskConditionals); each mask is tried on top of the text that
		// parsed best so far.
		best := errorSites(tree.RootNode())
		var bestText []byte // nil: the source itself
		try := func(text []byte) (chosen bool) {
			// C++ too when the grammar is C, but not C when it is C++:
			// C's error recovery over C++ is the slowest parse of all (two
			// thirds of a large C++ header's), and over the C and C++
			// files of fmt, Catch2, spdlog, yaml-cpp, redis, libuv and
			// cpp-httplib (2,039 files) it never fitted masked C++ better.
			tries := []*grammar{g}
			if g == cGrammar {
				tries = append(tries, cppGrammar)
			}
			f.parseText = masked{text: text}
			for _, tg := range tries {
				t2, err := f.parse(ctx, tg)
				if err != nil {
					continue
				}
				if n := errorSites(t2.RootNode()); n < best {
					tree.Close()
					tree, g, best, bestText = t2, tg, n, text
					f.masked, chosen = true, true
				} else {
					t2.Close()
				}
			}
			f.parseText = masked{}
			return chosen
		}
		if macroText, ok := maskMacros(src); ok {
			try(macroText)
		}
		// bestSoFar is the text that parsed best so far.
		bestSoFar := func() []byte {
			if bestText != nil {
				return bestText
			}
			return src
		}
		if best > 0 {
			if condText, conds := f.maskConditionals(bestSoFar()); conds != nil && try(condText) {
				f.conds = conds
			}
		}
		if best > 0 {
			// A conditional whose branches pair their braces may still
			// split what the grammar reads (a declaration's head two
			// ways over one body, an expression continued under #ifdef):
			// one holding a place the grammar did not fit is reduced to
			// its first branch too, all at once or else one at a time,
			// kept when the file parses better for it. In C++ only a
			// conditional of one branch, whose code is all kept: fewer
			// places the grammar did not fit can be a class read as
			// loose functions there (rapidjson's GenericValue, whose
			// constructor's first head is a template a macro hides).
			base := bestSoFar()
			rest := shortBranches
			if g != cGrammar {
				rest = 0
			}
			cands := f.conditionals(base, f.localErrorRows(tree.RootNode()), rest)
			if len(cands) > 1 {
				if condText, conds := f.reduce(base, cands); try(condText) {
					f.conds = append(f.conds, conds...)
					cands = nil
				}
			}
			for i, c := range cands {
				if i == maxErrorConditionals || best == 0 {
					break
				}
				if condText, conds := f.reduce(base, []*conditional{c}); try(condText) {
					base = condText
					f.conds = append(f.conds, conds...)
				}
			}
			sort.Slice(f.conds, func(i, j int) bool { return f.conds[i].open < f.conds[j].open })
		}
	}
	defer tree.Close()
	if maxErrorDensity*f.errorLines(tree.RootNode()) > f.nonBlankLines() {
		return f.windows(g.name, FallbackSyntaxErrors)
	}
	root, done := flatten(tree)
	defer done()
	res = f.segment(g, root)
	if err := root.t.err; err != nil {
		return f.windows(g.name, FallbackParseFailed+": "+err.Error())
	}
	return res
}

// file holds one file's bytes and line table.
type file struct {
	path string
	src  []byte
	// parseText, when its text is set, is what the next parse reads
	// instead of src (skipping its holes): src with function bodies
	// (grammar.mask) or macro words (maskMacros) blanked, byte for byte
	// aligned.
	parseText  masked
	masked     bool          // the tree in use was parsed from the masked text
	budget     time.Duration // the time the file's parses may take
	overBudget bool          // a parse ran past budget
	conds      []condRows    // conditionals the tree in use was parsed without (maskConditionals)
	starts     []int         // byte offset where each line starts
	ends       []int         // byte offset of each line's end, excluding "\n"
	cum        []int         // cum[i]: bytes of lines before i, each with its "\n"
}

func newFile(path string, src []byte) *file {
	f := &file{path: path, src: src}
	rows := bytes.Count(src, []byte{'\n'}) + 1
	f.starts, f.ends = make([]int, 0, rows), make([]int, 0, rows)
	s := 0
	for {
		k := bytes.IndexByte(src[s:], '\n')
		if k < 0 {
			break
		}
		f.starts = append(f.starts, s)
		f.ends = append(f.ends, s+k)
		s += k + 1
	}
	if s < len(src) {
		f.starts = append(f.starts, s)
		f.ends = append(f.ends, len(src))
	}
	f.cum = make([]int, len(f.starts)+1)
	for i := range f.starts {
		f.cum[i+1] = f.cum[i] + f.ends[i] - f.starts[i] + 1
	}
	return f
}

func (f *file) nlines() int { return len(f.starts) }

// tokens is the cost of lines s..e (0-based, inclusive) with newlines.
func (f *file) tokens(s, e int) int { return mss.BytesCost(f.cum[e+1] - f.cum[s]) }

// blank reports whether line i holds only white space: ASCII, or any
// Unicode space (a line of non-breaking spaces is blank too, as
// strings.TrimSpace sees it).
func (f *file) blank(i int) bool {
	line := f.src[f.starts[i]:f.ends[i]]
	if i == 0 {
		line = mss.TrimByteOrderMark(line)
	}
	for _, b := range line {
		if b >= utf8.RuneSelf {
			return len(bytes.TrimSpace(line)) == 0
		}
		if b != ' ' && b != '\t' && b != '\r' && b != '\f' && b != '\v' {
			return false
		}
	}
	return true
}

func (f *file) nonBlankLines() int {
	n := 0
	for i := range f.starts {
		if !f.blank(i) {
			n++
		}
	}
	return n
}

// trivial reports whether line i only closes something: brackets,
// semicolons, "#endif", "end", optionally followed by a comment; an empty
// call "()" after a closing bracket counts as closing too.
func (f *file) trivial(i int) bool {
	t := strings.TrimSpace(string(f.src[f.starts[i]:f.ends[i]]))
	if strings.HasPrefix(t, "#endif") {
		return true
	}
	if t == "end" {
		return true
	}
	if t == "" || !strings.ContainsAny(t[:1], "})]") {
		return false
	}
	for j, r := range t {
		switch {
		case strings.ContainsRune("})];,", r) || r == ' ' || r == '\t':
		case r == '(' && j > 0: // "}());" and "})();" close an immediately invoked function
		case strings.HasPrefix(t[j:], "//") || strings.HasPrefix(t[j:], "/*") || strings.HasPrefix(t[j:], "#"):
			return true
		default:
			return false
		}
	}
	return true
}

// parseBudget is the time the parses of a file of n bytes may take.
func parseBudget(n int) time.Duration {
	return min(parseBase+time.Duration(float64(parsePerMiB)*float64(n)/(1<<20)), parseTimeout)
}

// parsers keeps each grammar's idle parsers (a *sync.Pool per *grammar):
// making a parser costs about what parsing a small file does. A parser
// that halted is not kept.
var parsers sync.Map

func parserPool(g *grammar) *sync.Pool {
	p, _ := parsers.LoadOrStore(g, &sync.Pool{})
	return p.(*sync.Pool)
}

// parserFor gives an idle parser of g, or a new one.
func parserFor(g *grammar) *sitter.Parser {
	if p, ok := parserPool(g).Get().(*sitter.Parser); ok {
		return p
	}
	p := sitter.NewParser()
	p.SetLanguage(g.language())
	return p
}

// Parses left running past their budget. tree-sitter looks at its clock
// only between parse actions, and in error recovery over
// a garbled file one action can take seconds (12 KB of "A<B<C<" as Java
// ran 8 s past a 0.5 s deadline), so a parse over budget is left to finish
// on its own thread while the file falls back to windows. At most
// maxAbandoned are left at once; past that, parses are waited for.
var abandoned atomic.Int32

const (
	maxAbandoned = 4
	parseGrace   = 50 * time.Millisecond
)

func (f *file) parse(ctx context.Context, g *grammar) (*sitter.Tree, error) {
	type result struct {
		tree *sitter.Tree
		err  error
	}
	overBudget := fmt.Errorf("over the time budget of %v", f.budget)
	if ctx.Err() != nil {
		f.overBudget = true
		return nil, overBudget
	}
	limit := 0 // no deadline, no limit
	if deadline, ok := ctx.Deadline(); ok {
		limit = int(max(time.Until(deadline).Microseconds(), 1))
	}
	text := f.src
	var ranges []sitter.Range
	if f.parseText.text != nil {
		text = f.parseText.text
		ranges = includedRanges(text, f.parseText.holes)
	}
	done := make(chan result, 1)
	go func() {
		// tree-sitter keeps to the deadline itself (its timeout is looked
		// at where its cancellation flag is), so that no other thread
		// writes to a parser that may be used again.
		p := parserFor(g)
		p.SetOperationLimit(limit)
		if ranges != nil {
			p.SetIncludedRanges(ranges)
		}
		t, err := p.ParseCtx(context.Background(), nil, text)
		if ranges != nil {
			p.SetIncludedRanges(wholeText)
		}
		if err == nil {
			parserPool(g).Put(p)
		} else {
			p.Close()
		}
		done <- result{t, err}
	}()
	finished := func(r result) (*sitter.Tree, error) {
		if r.err != nil && (ctx.Err() != nil || errors.Is(r.err, sitter.ErrOperationLimit)) {
			f.overBudget = true
			return nil, overBudget // one message, however the deadline was met
		}
		return r.tree, r.err
	}
	select {
	case r := <-done:
		return finished(r)
	case <-ctx.Done():
	}
	select {
	case r := <-done:
		return finished(r)
	case <-time.After(parseGrace):
	}
	if abandoned.Add(1) > maxAbandoned {
		abandoned.Add(-1)
		return finished(<-done)
	}
	go func() {
		if r := <-done; r.tree != nil {
			r.tree.Close()
		}
		abandoned.Add(-1)
	}()
	f.overBudget = true
	return nil, overBudget
}

// parseMasked parses f with its function bodies masked (g.mask), or the
// source itself when it cannot be masked or that parse has a syntax
// error.
func (f *file) parseMasked(ctx context.Context, g *grammar) (*sitter.Tree, error) {
	m, ok := g.mask(f.src)
	if !ok {
		return f.parse(ctx, g)
	}
	f.parseText = m
	tree, err := f.parse(ctx, g)
	f.parseText = masked{}
	if err == nil && !tree.RootNode().HasError() {
		return tree, nil
	}
	if tree != nil {
		tree.Close()
	}
	return f.parse(ctx, g)
}

// wholeText is tree-sitter's default included range: all of a text.
var wholeText = []sitter.Range{{EndByte: math.MaxUint32, EndPoint: sitter.Point{Row: math.MaxUint32, Column: math.MaxUint32}}}

// includedRanges are the ranges of text between its holes (nil when it
// has none), each with its rows and columns, for the parser's included
// ranges.
func includedRanges(text []byte, holes [][2]int) []sitter.Range {
	if len(holes) == 0 {
		return nil
	}
	out := make([]sitter.Range, 0, len(holes)+1)
	var at int          // where the next range starts
	var pt sitter.Point // at's row and column
	// advance gives the point of byte to, at or after the point of from.
	advance := func(p sitter.Point, from, to int) sitter.Point {
		if n := bytes.Count(text[from:to], []byte{'\n'}); n > 0 {
			return sitter.Point{Row: p.Row + uint32(n), Column: uint32(to - (bytes.LastIndexByte(text[from:to], '\n') + from + 1))}
		}
		return sitter.Point{Row: p.Row, Column: p.Column + uint32(to-from)}
	}
	for _, h := range holes {
		end := advance(pt, at, h[0])
		out = append(out, sitter.Range{StartByte: uint32(at), EndByte: uint32(h[0]), StartPoint: pt, EndPoint: end})
		pt, at = advance(end, h[0], h[1]), h[1]
	}
	return append(out, sitter.Range{StartByte: uint32(at), EndByte: uint32(len(text)), StartPoint: pt, EndPoint: advance(pt, at, len(text))})
}

// eachErrorSite calls visit with every place under n a grammar did not
// fit: syntax error nodes and nodes the parser had to invent.
func eachErrorSite(n *sitter.Node, visit func(*sitter.Node)) {
	if !n.HasError() && !n.IsMissing() {
		return
	}
	if n.IsError() || n.IsMissing() {
		visit(n)
	}
	for _, c := range sitterChildren(n) {
		eachErrorSite(c, visit)
	}
}

// localErrorRows marks the rows of the places the grammar did not fit
// that span few rows (localError): not an error node holding a whole
// namespace of well-formed code.
func (f *file) localErrorRows(root *sitter.Node) []bool {
	on := make([]bool, f.nlines())
	eachErrorSite(root, func(n *sitter.Node) {
		a, b := int(n.StartPoint().Row), int(n.EndPoint().Row)
		if b-a > localError {
			b = a
		}
		for r := a; r <= b && r < len(on); r++ {
			on[r] = true
		}
	})
	return on
}

// maxErrorConditionals is the most conditionals holding a place the
// grammar did not fit that one file's segmenting tries to reduce, a parse
// each.
const maxErrorConditionals = 8

// localError is the most rows a place the grammar did not fit spans for
// all of them to count as where it is.
const localError = 20

// errorSites counts the places a grammar did not fit.
func errorSites(n *sitter.Node) int {
	total := 0
	eachErrorSite(n, func(*sitter.Node) { total++ })
	return total
}

// errorLines counts the non-blank lines on which a place the grammar did
// not fit begins. Not the lines an error node spans: where a macro
// derails the grammar, tree-sitter may hold a whole namespace of
// well-formed code in one error node, which segmenting looks through.
func (f *file) errorLines(root *sitter.Node) int {
	on := make([]bool, f.nlines())
	eachErrorSite(root, func(n *sitter.Node) {
		if r := int(n.StartPoint().Row); r < len(on) {
			on[r] = true
		}
	})
	n := 0
	for i, e := range on {
		if e && !f.blank(i) {
			n++
		}
	}
	return n
}

// sitterChildren returns n's children in one pass of a tree cursor:
// tree-sitter's ts_node_child(i) walks from the first child on every
// call, so indexing children in a loop is quadratic, and a node with
// thousands of children (an ERROR node over a garbled file) took seconds.
func sitterChildren(n *sitter.Node) []*sitter.Node {
	c := sitter.NewTreeCursor(n)
	defer c.Close()
	if !c.GoToFirstChild() {
		return nil
	}
	var out []*sitter.Node
	for {
		out = append(out, c.CurrentNode())
		if !c.GoToNextSibling() {
			return out
		}
	}
}

func startRow(n *node) int { return int(n.StartPoint().Row) }

// endRow is the last row holding a byte of n: a node ending at column 0
// ends on the row before (it took the newline with it).
func endRow(n *node) int {
	s, e := n.StartPoint(), n.EndPoint()
	if e.Column == 0 && e.Row > s.Row {
		return int(e.Row) - 1
	}
	return int(e.Row)
}

// rows are the first and last rows of n that are not blank (n's own
// first and last when every row is). Tree-sitter puts a node it had to
// make up (MISSING) where the parse needed it, which can be before the
// white space ahead of the code, so a node can start, or end, on a blank
// line.
func (f *file) rows(n *node) (int, int) {
	s, e := startRow(n), endRow(n)
	a, b := s, e
	for a < b && f.blank(a) {
		a++
	}
	for b > a && f.blank(b) {
		b--
	}
	if f.blank(a) {
		return s, e
	}
	return a, b
}

// span is a unit in the making: rows are 0-based and inclusive.
type span struct {
	start, end   int
	kind, symbol string
	node         *node   // definition node whose statements are cut points
	cuts         []int   // for runs: rows where a statement starts
	module       bool    // run: use the module limits
	trivial      bool    // run of closing lines, joins the unit before
	context      string  // signature of the definition a later part belongs to, or of a member's class
	head         string  // a class's header run: the class's signature, which its later parts are read under
	stmts        []*node // for runs: the statements that start in it, comments aside
	defs         []named
}

type named struct {
	name string
	row  int
}

// windows cuts the whole file into line windows.
func (f *file) windows(lang, reason string) *Result {
	r := &Result{Language: lang, Fallback: reason}
	if f.nlines() == 0 {
		return r
	}
	var cuts []int
	for i := 1; i < f.nlines(); i++ {
		if f.blank(i-1) && !f.blank(i) {
			cuts = append(cuts, i)
		}
	}
	var spans []span
	for _, p := range f.pack(0, f.nlines()-1, cuts, windowLines, windowMaxTokens) {
		spans = append(spans, span{start: p[0], end: p[1], kind: KindWindow})
	}
	r.Units = f.units(spans, lang)
	r.Calls = make([][]string, len(r.Units))
	return r
}

// walker collects the definition spans of one parsed file.
type walker struct {
	f       *file
	g       *grammar
	imports []named // modules named by import statements met in the walk
	// packages are the names a file's imports of the standard library
	// bind (strings in Go's strings.Split, Objects in Java's
	// Objects.equals): a name selected from one is not the file's own.
	packages set
}

func (f *file) segment(g *grammar, root *node) *Result {
	w := &walker{f: f, g: g}
	kids := w.members(root, "", false)
	for i := range kids {
		f.straddle(&kids[i], f.conds)
	}
	all := append(kids, w.gaps(0, f.nlines()-1, kids, root, KindModule, "", true)...)
	sort.SliceStable(all, func(i, j int) bool { return all[i].start < all[j].start })

	// Definitions sharing a line are merged: a unit is whole lines.
	merged := make([]span, 0, len(all))
	for _, s := range all {
		if n := len(merged); n > 0 && s.start <= merged[n-1].end {
			p := &merged[n-1]
			if s.end > p.end {
				p.end = s.end
			}
			p.defs = append(p.defs, s.defs...)
			p.trivial = p.trivial && s.trivial
			continue
		}
		merged = append(merged, s)
	}
	// Runs of closing lines join the unit before them.
	tiled := make([]span, 0, len(merged))
	for _, s := range merged {
		if s.trivial && len(tiled) > 0 {
			tiled[len(tiled)-1].end = s.end
			continue
		}
		s.trivial = false
		tiled = append(tiled, s)
	}
	// Big units are split at statement boundaries.
	final := make([]span, 0, len(tiled))
	for _, s := range tiled {
		ml, mt := maxLines, maxTokens
		if s.module {
			ml, mt = moduleMaxLines, moduleMaxTokens
		}
		if s.end-s.start+1 <= ml && f.tokens(s.start, s.end) <= mt {
			final = append(final, s)
			continue
		}
		cuts := s.cuts
		if s.node != nil {
			cuts = w.statementCuts(s.node, ml, nil, 0)
		}
		// A later part is read under its definition's signature; a
		// part of a class's run under its class's.
		sig := s.context
		if s.node != nil {
			sig = f.signature(s.node)
		} else if s.head != "" {
			sig = s.head
		}
		for i, p := range f.pack(s.start, s.end, cuts, ml, mt) {
			part := s
			part.start, part.end = p[0], p[1]
			if i > 0 {
				part.context = sig
				if sig == "" {
					// A later part of a run of module statements that
					// starts inside one of them (a long table, a macro's
					// block, a function passed as an argument) is read
					// under that statement's first lines.
					part.context = f.openedIn(s.stmts, part.start)
				}
			}
			final = append(final, part)
		}
	}
	units := f.units(final, g.name)
	res := &Result{Units: units, Language: g.name, Calls: make([][]string, len(units))}
	w.names(final, res)
	return res
}

// members returns the definition spans found among parent's children,
// recursing into classes and transparent containers.
func (w *walker) members(parent *node, prefix string, inClass bool) []span {
	var out []span
	pendStart, pendEnd, lastEnd := -1, -1, -1
	children := namedChildren(parent)
	for i := 0; i < len(children); i++ {
		c := children[i]
		typ := c.Type()
		cs, ce := w.f.rows(c)
		if w.g.attach[typ] {
			switch {
			case cs <= lastEnd:
				// A trailing comment on the previous statement's line.
			case pendStart >= 0 && cs <= pendEnd+1:
				pendEnd = ce
			default:
				pendStart, pendEnd = cs, ce
			}
			continue
		}
		start := cs
		if pendStart >= 0 && pendEnd >= cs-1 {
			start = pendStart
		}
		pendStart, pendEnd = -1, -1
		lastEnd = ce
		kind, inner, name := w.classify(c)
		if kind == "" {
			// A C or C++ test: a macro call and the block it opens.
			if nm, ok := w.macroBlock(children, i); ok {
				body := children[i+1]
				i++
				_, lastEnd = w.f.rows(body)
				out = append(out, span{start: start, end: lastEnd, kind: KindFunction, symbol: nm, node: body})
				continue
			}
		}
		if (kind == "" || kind == "transparent") && w.g.imports[typ] { // Rust's mod plan; is both
			for _, m := range w.importNames(c) {
				w.imports = append(w.imports, named{m, cs})
			}
		}
		sym := joinSymbol(prefix, name)
		def := []named{}
		if name != "" {
			def = append(def, named{lastPart(name), start})
		}
		switch kind {
		case KindFunction:
			k := KindFunction
			if inClass {
				k = KindMethod
			} else if t := w.testMacroName(inner); t != "" {
				sym, def = t, nil // TEST(Suite, Name): a test defines no name of the code's
			}
			out = append(out, span{start: start, end: ce, kind: k, symbol: sym, node: inner, defs: def})
		case KindType, KindValue:
			if inner.Type() == "type_declaration" {
				// Go's type ( A int; B string ) defines every type it
				// lists, not only the first, which names the unit.
				def = w.typeSpecNames(inner, def)
			}
			out = append(out, span{start: start, end: ce, kind: kind, symbol: sym, node: inner, defs: def})
		case KindClass:
			body := inner.ChildByFieldName("body")
			if body == nil {
				body = inner
			}
			kids := w.members(body, sym, true)
			if len(kids) == 0 {
				s := span{start: start, end: ce, kind: KindClass, symbol: sym, node: inner, defs: def}
				stmts, starts := statements(body)
				s.defs = append(s.defs, w.runDefines(stmts, starts, start, ce)...)
				out = append(out, s)
				continue
			}
			gaps := w.gaps(start, ce, kids, body, KindClass, sym, false)
			if len(gaps) > 0 {
				gaps[0].defs = append(def, gaps[0].defs...)
			}
			// A member is read under its class's signature (the
			// innermost class's, set first by the recursion).
			sigStart, sigEnd := w.f.signatureRows(inner)
			sig := w.f.content(sigStart, sigEnd)
			for _, list := range [][]span{kids, gaps} {
				for k := range list {
					if list[k].context == "" && list[k].start > sigEnd {
						list[k].context = sig
					}
				}
			}
			if len(gaps) > 0 && gaps[0].start <= sigEnd {
				gaps[0].head = sig
			}
			out = append(out, kids...)
			out = append(out, gaps...)
		case "transparent":
			out = append(out, w.members(c, prefix, inClass)...)
		case "container":
			// The body of an anonymous module function: its definitions
			// are units, the statements between them module code.
			kids := w.members(inner, prefix, inClass)
			if len(kids) == 0 {
				continue
			}
			out = append(out, kids...)
			out = append(out, w.gaps(start, ce, kids, inner, KindModule, "", true)...)
		}
	}
	return out
}

// gaps turns the lines of [start, end] not covered by kids into runs of
// the given kind; container's children give the statement cut points.
func (w *walker) gaps(start, end int, kids []span, container *node, kind, symbol string, module bool) []span {
	f := w.f
	covered := make([]bool, end-start+1)
	for _, k := range kids {
		for r := max(k.start, start); r <= min(k.end, end); r++ {
			covered[r-start] = true
		}
	}
	stmts, childStarts := statements(container)
	var out []span
	for r := start; r <= end; {
		if covered[r-start] {
			r++
			continue
		}
		s := r
		for r <= end && !covered[r-start] {
			r++
		}
		e := r - 1
		for s <= e && f.blank(s) {
			s++
		}
		for e >= s && f.blank(e) {
			e--
		}
		if s > e {
			continue
		}
		triv := true
		for i := s; i <= e && triv; i++ {
			triv = f.blank(i) || f.trivial(i)
		}
		sp := span{start: s, end: e, kind: kind, symbol: symbol, module: module || kind == KindClass, trivial: triv}
		for k, c := range childStarts {
			if c > s && c <= e {
				sp.cuts = append(sp.cuts, c)
			}
			if c >= s && c <= e && !w.g.attach[stmts[k].Type()] {
				sp.stmts = append(sp.stmts, stmts[k]) // a comment opens nothing
			}
		}
		sp.defs = w.runDefines(stmts, childStarts, s, e)
		out = append(out, sp)
	}
	return out
}

// classify says what a node is: a function, class, type, transparent
// container or plain statement (""), the definition node itself (inside a
// wrapper) and its name.
func (w *walker) classify(n *node) (kind string, inner *node, name string) {
	g := w.g
	typ := n.Type()
	src := w.f.src
	switch {
	case g.funcs[typ]:
		return KindFunction, n, w.defName(n)
	case g.classes[typ]:
		if g.name == "cpp" && n.ChildByFieldName("body") == nil {
			return "", nil, ""
		}
		return KindClass, n, w.defName(n)
	case g.types[typ]:
		if (g.name == "c" || g.name == "cpp") && typ != "type_definition" && n.ChildByFieldName("body") == nil {
			return "", nil, ""
		}
		if typ == "type_definition" {
			// typedef struct {...} name; is a type; typedef int name; is not.
			t := n.ChildByFieldName("type")
			if t == nil || t.ChildByFieldName("body") == nil {
				return "", nil, ""
			}
		}
		return KindType, n, w.defName(n)
	case g.transparent[typ]:
		return "transparent", n, ""
	case g.wrappers[typ]:
		if b := anonymousBody(g, n); b != nil {
			return "container", b, ""
		}
		for _, c := range namedChildren(n) {
			k, in, nm := w.classify(c)
			if k == "transparent" && (c.Type() == "internal_module" || c.Type() == "module") {
				// export namespace X {...}: read through, as namespace
				// X {...} is.
				return "transparent", n, ""
			}
			if k == "transparent" && c.Type() == "ambient_declaration" && c.NamedChildCount() == 1 {
				// export declare class X {...}: the declaration inside.
				k, in, nm = w.classify(c.NamedChild(0))
			}
			if k == KindFunction || k == KindClass || k == KindType || k == KindValue {
				if nm == "" {
					if d := n.ChildByFieldName("declarator"); d != nil {
						nm = declaratorName(d, src)
					}
				}
				return k, in, nm
			}
		}
	case typ == "lexical_declaration" || typ == "variable_declaration":
		// const f = () => ..., var C = class {...}
		if g.name == "javascript" || g.name == "typescript" || g.name == "tsx" {
			if n.NamedChildCount() == 1 {
				d := n.NamedChild(0)
				if v := d.ChildByFieldName("value"); v != nil && d.ChildByFieldName("name") != nil {
					nm := d.ChildByFieldName("name").Content(src)
					switch v.Type() {
					case "arrow_function", "function", "function_expression", "generator_function":
						return KindFunction, v, nm
					case "class":
						return KindClass, v, nm
					case "object", "array":
						// A table bound to a name is looked up by that name.
						if endRow(n)-startRow(n)+1 >= minValueLines {
							return KindValue, n, nm
						}
					}
				}
			}
		}
	case typ == "expression_statement":
		// namespace X {...} in TypeScript is an expression statement.
		if n.NamedChildCount() == 1 && g.transparent[n.NamedChild(0).Type()] {
			return "transparent", n, ""
		}
		if b := anonymousBody(g, n); b != nil {
			return "container", b, ""
		}
		// proto.format = function (...) {...}
		if g.name == "javascript" || g.name == "typescript" || g.name == "tsx" {
			if n.NamedChildCount() == 1 && n.NamedChild(0).Type() == "assignment_expression" {
				a := n.NamedChild(0)
				l, v := a.ChildByFieldName("left"), a.ChildByFieldName("right")
				if l != nil && v != nil {
					switch v.Type() {
					case "arrow_function", "function", "function_expression", "generator_function":
						return KindFunction, v, l.Content(src)
					}
				}
			}
		}
	}
	return "", nil, ""
}

// anonymousBody is the body of the anonymous function that a JavaScript
// or TypeScript module statement wraps its code in: "export default (o, c,
// d) => {...}" (a Day.js plugin) or an immediately invoked "(function ()
// {...})()", when the body returns nothing. Such a function is the
// module, not one definition: the definitions in its body are what a
// reader looks for. nil otherwise.
func anonymousBody(g *grammar, n *node) *node {
	if g.name != "javascript" && g.name != "typescript" && g.name != "tsx" {
		return nil
	}
	if n.Type() != "export_statement" && n.Type() != "expression_statement" {
		return nil
	}
	var fn *node
	if n.Type() == "export_statement" {
		if v := n.ChildByFieldName("value"); v != nil {
			fn = v
		} else if d := n.ChildByFieldName("declaration"); d != nil && d.Type() == "function_declaration" {
			return nil // a named function is one definition
		}
	} else if n.NamedChildCount() == 1 {
		// (function () {...})() or (function () {...}())
		call := unparen(n.NamedChild(0))
		if call == nil || call.Type() != "call_expression" {
			return nil
		}
		fn = call.ChildByFieldName("function")
	}
	if fn = unparen(fn); fn == nil {
		return nil
	}
	switch fn.Type() {
	case "arrow_function", "function", "function_expression":
		if fn.ChildByFieldName("name") != nil {
			return nil
		}
		b := fn.ChildByFieldName("body")
		if b == nil || b.Type() != "statement_block" {
			return nil
		}
		// A body that returns a value (a component returning markup, a
		// factory returning its object) computes something: it is one
		// function. A body that only defines and assigns is a module.
		for _, st := range namedChildren(b) {
			if st.Type() == "return_statement" {
				return nil
			}
		}
		return b
	}
	return nil
}

func unparen(n *node) *node {
	for n != nil && n.Type() == "parenthesized_expression" && n.NamedChildCount() == 1 {
		n = n.NamedChild(0)
	}
	return n
}

// defName is the name a definition node declares, dotted when qualified.
func (w *walker) defName(n *node) string {
	src := w.f.src
	switch n.Type() {
	case "method_declaration":
		if w.g.name == "go" {
			name := ""
			if nm := n.ChildByFieldName("name"); nm != nil {
				name = nm.Content(src)
			}
			if r := n.ChildByFieldName("receiver"); r != nil {
				if t := firstOfType(r, "type_identifier"); t != nil {
					return t.Content(src) + "." + name
				}
			}
			return name
		}
	case "type_declaration":
		for _, kid := range namedChildren(n) {
			if nm := kid.ChildByFieldName("name"); nm != nil {
				return nm.Content(src)
			}
		}
		return ""
	case "impl_item":
		if t := n.ChildByFieldName("type"); t != nil {
			return rustImplName(t, src)
		}
	case "function_definition":
		if w.g.name == "c" || w.g.name == "cpp" {
			// The function declarator: the definition's own, which
			// holds the parameter list the body follows, else wherever
			// macros left it (under an error node before the body). A
			// macro call the grammar took for a declarator can come
			// first: "static HT_HEAD(map, entry) errors = …;" before
			// "const char *evutil_socket_error_to_string(int errcode) {".
			var fd *node
			if d := n.ChildByFieldName("declarator"); d != nil {
				fd = findFuncDeclarator(d, 0)
			}
			if fd == nil {
				fd = findFuncDeclarator(n, 0)
			}
			if fd != nil {
				if d := fd.ChildByFieldName("declarator"); d != nil {
					return declaratorName(d, src)
				}
			}
			if d := n.ChildByFieldName("declarator"); d != nil {
				return declaratorName(d, src)
			}
		}
	case "type_definition":
		if d := n.ChildByFieldName("declarator"); d != nil {
			return declaratorName(d, src)
		}
	}
	if nm := n.ChildByFieldName("name"); nm != nil {
		return dotted(nm.Content(src))
	}
	return ""
}

// typeSpecNames adds to def the names of a Go type declaration's specs
// after its first, whose name def holds: a grouped declaration defines
// each.
func (w *walker) typeSpecNames(n *node, def []named) []named {
	first := true
	for _, kid := range namedChildren(n) {
		nm := kid.ChildByFieldName("name")
		if nm == nil {
			continue // a comment
		}
		if !first {
			def = append(def, named{nm.Content(w.f.src), startRow(nm)})
		}
		first = false
	}
	return def
}

// operatorAt is where the keyword operator begins in a C++ name, or -1:
// a word of its own ("Pair<T>::operator<", "operator bool"), not part of
// a name ("apply_operator", "operators").
func operatorAt(s string) int {
	ident := func(c byte) bool {
		return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
	}
	for off := 0; ; {
		i := strings.Index(s[off:], "operator")
		if i < 0 {
			return -1
		}
		i += off
		end := i + len("operator")
		if (i == 0 || !ident(s[i-1])) && (end == len(s) || !ident(s[end])) {
			return i
		}
		off = end
	}
}

// rustImplName names a Rust impl block by the type it implements for: a
// path's last word, as dotted gives it ("Vec<T>" is "Vec"), through
// references and pointers ("&'a str" is "str"); a tuple, array, slice or
// function type, which has no name, by its text without spaces
// ("(A,B)", "[T;N]", "fn(u8,u16)"), not its last word.
func rustImplName(t *node, src []byte) string {
	for i := 0; i < 8 && (t.Type() == "reference_type" || t.Type() == "pointer_type"); i++ {
		inner := t.ChildByFieldName("type")
		if inner == nil {
			break
		}
		t = inner
	}
	switch t.Type() {
	case "tuple_type", "array_type", "function_type", "unit_type":
		return strings.Join(strings.Fields(t.Content(src)), "")
	}
	return dotted(t.Content(src))
}

// dotted turns a qualified name into a symbol path: template arguments
// dropped, "::" made ".", so "buffer<T>::grow" is "buffer.grow". An
// operator's name keeps what follows "operator" ("operator<",
// "operator()"), spaces dropped, and a conversion operator's parameter
// list and qualifiers are cut ("Pair<T, U>::operator bool() const" is
// "Pair.operatorbool").
func dotted(s string) string {
	op := ""
	if i := operatorAt(s); i >= 0 {
		s, op = s[:i], strings.Join(strings.Fields(s[i:]), "")
		if j := paramsAt(op); j > len("operator") {
			op = op[:j] // "operatorbool()const": the parameters, not the name
		}
	}
	var b strings.Builder
	outsideAngles(s, func(_ int, r rune) bool {
		b.WriteRune(r)
		return true
	})
	s = strings.ReplaceAll(b.String(), "::", ".")
	if op != "" && s != "" && !strings.HasSuffix(s, ".") {
		return op // "const Char* operator" was a return type
	}
	// Macros can put words before the name ("FMT_API detail::f"): the
	// name is the last word.
	if f := strings.Fields(s); len(f) > 0 {
		s = f[len(f)-1]
	}
	return s + op
}

// paramsAt is the index in op (an operator's name, "operator" and what
// follows it, without spaces) where its parameters begin, or -1: the
// first "(" after a symbol ("operator<(constPair&o)"), the first outside
// angle brackets after a type ("operatorAction<R(int)>()").
func paramsAt(op string) int {
	if rest := strings.TrimPrefix(op, "operator"); rest == "" || !isIdentByte(rest[0]) && rest[0] != ':' {
		return strings.Index(op, "(")
	}
	at := -1
	outsideAngles(op, func(i int, r rune) bool {
		if r == '(' {
			at = i
		}
		return at < 0
	})
	return at
}

// outsideAngles calls f with each rune of s outside angle brackets (the
// brackets left out) and its index, while f returns true.
func outsideAngles(s string, f func(i int, r rune) bool) {
	depth := 0
	for i, r := range s {
		switch {
		case r == '<':
			depth++
		case r == '>' && depth > 0:
			depth--
		case depth == 0:
			if !f(i, r) {
				return
			}
		}
	}
}

// declaratorName follows a C/C++ declarator chain to the declared name.
func declaratorName(d *node, src []byte) string {
	for i := 0; d != nil && i < 16; i++ {
		switch d.Type() {
		case "identifier", "field_identifier", "type_identifier", "qualified_identifier",
			"destructor_name", "operator_name", "template_function", "primitive_type",
			// A conversion operator ("operator bool() const") is named
			// by what it converts to, as one defined outside its class.
			"operator_cast":
			return dotted(d.Content(src))
		}
		next := d.ChildByFieldName("declarator")
		if next == nil && d.NamedChildCount() > 0 {
			next = d.NamedChild(0)
		}
		d = next
	}
	return ""
}

// findFuncDeclarator finds the function_declarator of a C/C++ function
// definition outside its body, also under error nodes macros cause: n
// itself, or one under it (depth is n's, at most 5 below where the
// search began).
func findFuncDeclarator(n *node, depth int) *node {
	if n.Type() == "function_declarator" {
		return n
	}
	if depth > 4 {
		return nil
	}
	body := n.ChildByFieldName("body")
	for _, c := range namedChildren(n) {
		if body != nil && c == body {
			continue
		}
		if f := findFuncDeclarator(c, depth+1); f != nil {
			return f
		}
	}
	return nil
}

func firstOfType(n *node, typ string) *node {
	if n.Type() == typ {
		return n
	}
	for _, kid := range namedChildren(n) {
		if r := firstOfType(kid, typ); r != nil {
			return r
		}
	}
	return nil
}

func joinSymbol(prefix, name string) string {
	switch {
	case name == "":
		return prefix
	case prefix == "":
		return name
	}
	return prefix + "." + name
}

func lastPart(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// units turns spans into units with content, hash and id.
func (f *file) units(spans []span, lang string) []mss.Unit {
	out := make([]mss.Unit, 0, len(spans))
	for _, s := range spans {
		content := f.content(s.start, s.end)
		sum := f.contentHash(s.start, s.end)
		hash := hex.EncodeToString(sum[:])
		out = append(out, mss.Unit{
			ID:        UnitID(f.path, s.start+1, s.end+1, hash),
			Path:      f.path,
			StartLine: s.start + 1,
			EndLine:   s.end + 1,
			Symbol:    s.symbol,
			Kind:      s.kind,
			Language:  lang,
			Content:   content,
			Hash:      hash,
			Tokens:    mss.TokenCost(content),
			Context:   s.context,
		})
	}
	return out
}

// openedIn gives the signature of the statement of stmts that row lies
// inside of, past its first row, or "" when none does.
func (f *file) openedIn(stmts []*node, row int) string {
	for _, st := range stmts {
		if startRow(st) < row && row <= endRow(st) {
			return f.signature(st)
		}
	}
	return ""
}

// maxSignatureLines bounds the signature kept as context of split parts
// and of a class's members.
const maxSignatureLines = 4

// signature is a definition's header: its lines from its first up to the
// line before its body (at most maxSignatureLines), or its first line.
func (f *file) signature(n *node) string {
	return f.content(f.signatureRows(n))
}

// signatureRows are the first and last rows of n's signature: the row
// its body opens on is one of them when code stands before the body on
// it (`    implements Runnable {`).
func (f *file) signatureRows(n *node) (s, e int) {
	s, e = startRow(n), startRow(n)
	if body := n.ChildByFieldName("body"); body != nil && startRow(body) > s {
		e = startRow(body) - 1
		line := f.src[f.starts[e+1]:f.ends[e+1]]
		if col := int(body.StartPoint().Column); col <= len(line) && len(bytes.TrimSpace(line[:col])) > 0 {
			e++
		}
	}
	if e-s+1 > maxSignatureLines {
		e = s + maxSignatureLines - 1
	}
	return s, e
}

// contentHash is the SHA-256 of content(s, e), hashed from the source.
func (f *file) contentHash(s, e int) [sha256.Size]byte {
	text, newline := f.lines(s, e)
	if !newline {
		return sha256.Sum256(text)
	}
	h := sha256.New()
	h.Write(text)
	h.Write([]byte{'\n'})
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// content is rows s..e, each followed by "\n".
func (f *file) content(s, e int) string {
	text, newline := f.lines(s, e)
	if newline {
		return string(text) + "\n"
	}
	return string(text)
}

// lines are the bytes of lines s to e, and whether the last of them lacks
// the newline a unit's content ends in (the file's last line).
func (f *file) lines(s, e int) (text []byte, newline bool) {
	end := f.ends[e]
	if end < len(f.src) {
		return f.src[f.starts[s] : end+1], false
	}
	return f.src[f.starts[s]:end], true
}

// Identify sets the hash, token cost and id of a unit cut from the index's
// units (grown over its neighbours, or the unread rest of one), from its
// path, lines and Content, as the index sets them for its own units.
func Identify(u *mss.Unit) {
	sum := sha256.Sum256([]byte(u.Content))
	u.Hash = hex.EncodeToString(sum[:])
	u.Tokens = mss.TokenCost(u.Content)
	u.ID = UnitID(u.Path, u.StartLine, u.EndLine, u.Hash)
}

// UnitID is the stable id of a unit: the first 16 hex digits of the
// SHA-256 of its path, 1-based line range and content hash.
func UnitID(path string, start, end int, hash string) string {
	b := make([]byte, 0, len(path)+len(hash)+24)
	b = append(append(b, path...), 0)
	b = append(strconv.AppendInt(b, int64(start), 10), 0)
	b = append(strconv.AppendInt(b, int64(end), 10), 0)
	sum := sha256.Sum256(append(b, hash...))
	return hex.EncodeToString(sum[:8])
}
