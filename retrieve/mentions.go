package retrieve

import (
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/tokenize"
)

// Mentions are the facets a state names in its text (mss.Mentions).
type Mentions = mss.Mentions

// Frame is one stack-trace frame (mss.Frame).
type Frame = mss.Frame

// Weights of mention sources.
const (
	mentionCodeBoost  = 1.0 // identifier with _ or inner capitals or call parens
	mentionFrameBoost = 2.0 // function named by a stack-trace frame
	mentionTickBoost  = 1.0 // identifier inside `backticks`
)

// sourceExt lists file extensions recognized as source paths.
const sourceExt = `py|pyi|pyx|js|jsx|mjs|cjs|ts|tsx|go|rs|java|kt|scala|c|cc|cpp|cxx|h|hh|hpp|hxx|inl|rb|php|cs|swift|m|mm|lua|sh`

var (
	pathRe      = regexp.MustCompile(`(?:[A-Za-z0-9_.~@$-]+[/\\])*[A-Za-z0-9_.$-]+\.(?:` + sourceExt + `)\b`)
	pyFrameRe   = regexp.MustCompile(`File "([^"]+)", line (\d+), in ([A-Za-z_][A-Za-z0-9_<>]*)`)
	ipyFrameRe  = regexp.MustCompile(`([^\s"']+\.py) in ([A-Za-z_][A-Za-z0-9_]*)\(`)
	javaFrameRe = regexp.MustCompile(`at ([A-Za-z0-9_$.]+)\.([A-Za-z0-9_$<>]+)\(([A-Za-z0-9_$]+\.(?:java|kt|scala)):(\d+)\)`)
	jsFrameRe   = regexp.MustCompile(`at (?:(?:new |async )?([A-Za-z0-9_$.<>]+) \()?([^\s()]+\.(?:js|jsx|mjs|cjs|ts|tsx)):(\d+)(?::\d+)?\)?`)
	lineRefRe   = regexp.MustCompile(`([A-Za-z0-9_.~@$/\\-]+\.(?:` + sourceExt + `)):(\d+)`)
	goFuncRe    = regexp.MustCompile(`(?m)^\s*(?:[A-Za-z0-9_.\-/]+\.)?(?:\(\*?([A-Za-z0-9_]+)\)\.)?([A-Za-z0-9_]+)\([^)]*\)\s*$`)
	tickRe      = regexp.MustCompile("`([^`\n]{1,200})`")
	// letterTickRe is code of a one-letter name alone, called or not.
	letterTickRe = regexp.MustCompile(`^\s*([A-Za-z])\s*(?:\([^()]*\))?\s*$`)
	qualRe       = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::)[A-Za-z_][A-Za-z0-9_]*)+`)
)

// Extract finds the mentions in a state's text. It never fails: text that
// matches no pattern simply yields no mention.
func Extract(s *mss.State) *Mentions { return ExtractWith(s, nil) }

// ExtractWith is Extract for a repository whose issue template is t: the
// template's lines are not read (StateText).
func ExtractWith(s *mss.State, t *IssueTemplate) *Mentions {
	_, m := readState(s, t)
	return m
}

// readState reads a state's text once: the text the views read
// (StateText, less the lines of the issue template t), and the mentions in
// it, with what was left out of it (Mentions.Unread).
func readState(s *mss.State, t *IssueTemplate) (string, *Mentions) {
	text, unread := readable(s.Text(), t)
	m := ExtractText(text)
	m.Unread = unread
	return text, m
}

// syntaxParts are the words a dotted or "::" name holds as syntax rather
// than as a name the repository defines.
var syntaxParts = []string{"class", "this", "self", "super", "crate"}

// ExtractText finds the mentions in text.
func ExtractText(text string) *Mentions {
	m := &Mentions{Idents: map[string]float64{}, Code: map[string]bool{}, Called: calledNames(text)}
	counts := map[string]int{}
	boost := map[string]float64{}
	for _, id := range tokenize.Identifiers(text) {
		counts[id]++
		if b := codeLike(id); b > boost[id] {
			boost[id] = b
		}
	}
	for _, t := range tickRe.FindAllStringSubmatch(text, -1) {
		for _, id := range tokenize.Identifiers(t[1]) {
			boost[id] = max(boost[id], mentionTickBoost+codeLike(id))
		}
		// A name of one letter is no term (tokenize), but one written
		// alone as code, `h` or `h()`, is a name all the same: Vue's
		// render function, a test's f and g.
		if g := letterTickRe.FindStringSubmatch(t[1]); g != nil {
			counts[g[1]]++
			boost[g[1]] = max(boost[g[1]], mentionTickBoost)
		}
	}
	seenPath := map[string]bool{}
	addPath := func(p string) {
		p = normPath(p)
		if p == "" || seenPath[p] {
			return
		}
		seenPath[p] = true
		m.Paths = append(m.Paths, p)
	}
	seenFrame := map[Frame]bool{}
	// seenLine keys frames by file name and line, so the generic path:line
	// pass does not repeat a frame a specific format already gave.
	seenLine := map[string]bool{}
	addFrame := func(f Frame) {
		f.Path = normPath(f.Path)
		lk := f.Path[strings.LastIndexByte(f.Path, '/')+1:] + ":" + strconv.Itoa(f.Line)
		if f.Path == "" || seenFrame[f] || f.Func == "" && f.Line > 0 && seenLine[lk] {
			return
		}
		seenFrame[f] = true
		if f.Line > 0 {
			seenLine[lk] = true
		}
		m.Frames = append(m.Frames, f)
		addPath(f.Path)
		if f.Func != "" && !strings.HasPrefix(f.Func, "<") {
			boost[f.Func] = max(boost[f.Func], mentionFrameBoost+codeLike(f.Func))
			if counts[f.Func] == 0 {
				counts[f.Func] = 1
			}
		}
	}
	for _, g := range pyFrameRe.FindAllStringSubmatch(text, -1) {
		line, _ := strconv.Atoi(g[2])
		addFrame(Frame{Path: g[1], Line: line, Func: g[3]})
	}
	for _, g := range ipyFrameRe.FindAllStringSubmatch(text, -1) {
		addFrame(Frame{Path: g[1], Func: g[2]})
	}
	for _, g := range javaFrameRe.FindAllStringSubmatch(text, -1) {
		line, _ := strconv.Atoi(g[4])
		// The class path gives the directory: com.x.Foo + Foo.java.
		dir := g[1]
		if i := strings.LastIndexByte(dir, '.'); i >= 0 {
			dir = dir[:i]
		} else {
			dir = ""
		}
		p := g[3]
		if dir != "" {
			p = strings.ReplaceAll(dir, ".", "/") + "/" + p
		}
		addFrame(Frame{Path: p, Line: line, Func: g[2]})
	}
	for _, g := range jsFrameRe.FindAllStringSubmatch(text, -1) {
		line, _ := strconv.Atoi(g[3])
		fn := g[1]
		if i := strings.LastIndexByte(fn, '.'); i >= 0 {
			fn = fn[i+1:]
		}
		addFrame(Frame{Path: g[2], Line: line, Func: fn})
	}
	// Go panics print the function on one line and file:line on the next.
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		for _, g := range lineRefRe.FindAllStringSubmatch(l, -1) {
			line, _ := strconv.Atoi(g[2])
			fn := ""
			if strings.HasSuffix(g[1], ".go") && i > 0 {
				if f := goFuncRe.FindStringSubmatch(lines[i-1]); f != nil {
					fn = f[2]
				}
			}
			addFrame(Frame{Path: g[1], Line: line, Func: fn})
		}
	}
	for _, p := range pathRe.FindAllString(text, -1) {
		addPath(p)
	}
	seenQual := map[string]bool{}
	for _, q := range qualRe.FindAllString(text, -1) {
		q = strings.ReplaceAll(q, "::", ".")
		if !seenQual[q] {
			seenQual[q] = true
			m.Qualified = append(m.Qualified, q)
		}
		// A dotted name's parts are code, unless it reads like prose
		// ("e.g", a sentence end without a space).
		if parts := strings.Split(q, "."); len(parts) >= 2 && !strings.Contains(q, "..") {
			for _, p := range parts {
				if len(p) >= 2 {
					boost[p] = max(boost[p], mentionCodeBoost*0.5)
				}
			}
		}
	}
	// A name the text's own code binds (`da = xr.DataArray(1)`, `import
	// xarray as xr`) is the writer's, not the repository's: it reads as
	// a plain word, unless a frame names it.
	for id := range boundNames(text) {
		if boost[id] < mentionFrameBoost {
			delete(boost, id)
			delete(m.Called, id)
		}
	}
	// Words a dotted name holds as syntax, not as a name: a receiver
	// (this.x, self.x), a path root (super::x, crate::x) or Java's class
	// literal (Color.class, which would match a CLASS constant).
	for _, w := range syntaxParts {
		delete(boost, w)
	}
	for id, c := range counts {
		m.Idents[id] = (1 + math.Log(float64(c))) * (1 + boost[id])
		if boost[id] > 0 {
			m.Code[id] = true
		}
	}
	return m
}

// bindRe finds the names a line of code binds: an assignment's target
// (`x = ...`, `let x = ...`, `x := ...`; not `x == ...`, nor a keyword
// argument on a line of its own, `keep_attrs=True,`, which is written
// without spaces), the alias of an import statement (`import numpy as
// np`, `from a import b as c`) and a for loop's variable. A line may
// start with an interpreter's prompt (`>>> `, `... `, `In [1]: `).
var bindRe = regexp.MustCompile(`(?m)^\s*(?:(?:>>>|\.\.\.|In \[\d+\]:)\s+)?(?:(?:let|const|var|auto)\s+)?([A-Za-z_][A-Za-z0-9_]*)\s+(?::=|=(?:[^=]|$))` +
	`|(?m)^\s*(?:(?:>>>|\.\.\.|In \[\d+\]:)\s+)?(?:from\s+\S+\s+)?import\b[^\n]*?\bas\s+([A-Za-z_][A-Za-z0-9_]*)` +
	`|\bfor\s+([A-Za-z_][A-Za-z0-9_]*)\s+in\b`)

// boundNames are the names text's code binds (bindRe).
func boundNames(text string) map[string]bool {
	out := map[string]bool{}
	for _, g := range bindRe.FindAllStringSubmatch(text, -1) {
		for _, n := range g[1:] {
			if n != "" {
				out[n] = true
			}
		}
	}
	return out
}

// codeLike scores how much an identifier looks like code rather than prose.
func codeLike(id string) float64 {
	t := strings.Trim(id, "_")
	if t == "" {
		return 0
	}
	if strings.Contains(t, "_") || id != t {
		return mentionCodeBoost
	}
	// An inner capital (camelCase, PascalCase beyond the first letter).
	for i := 1; i < len(t); i++ {
		if t[i] >= 'A' && t[i] <= 'Z' && t[i-1] >= 'a' && t[i-1] <= 'z' {
			return mentionCodeBoost
		}
	}
	return 0
}

// normPath turns a mentioned path into a forward-slash relative form.
func normPath(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	p = strings.TrimLeft(p, "./~")
	if i := strings.Index(p, "site-packages/"); i >= 0 {
		p = p[i+len("site-packages/"):]
	}
	return p
}

// sortedKeys returns the keys of a map in sorted order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// issueTitle is the first line of the state's issue that is not blank:
// a filed issue's title, a commit message's subject.
func issueTitle(s *mss.State) string {
	for l := range strings.Lines(s.Issue) {
		if t := strings.TrimSpace(l); t != "" {
			return t
		}
	}
	return ""
}
