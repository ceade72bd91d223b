package benchbuild

import (
	"sort"
	"strings"

	"github.com/missingcomplement/mss/segment"
)

// ModuleSymbol names a group of changed lines outside any definition.
const ModuleSymbol = "<module>"

// moduleGap: changed module-level lines at most this many lines apart
// (two unchanged lines between them) form one group.
const moduleGap = 3

// Group is one edited code region, the shape of a certificate group.
type Group struct {
	Path   string   `json:"path"`
	Symbol string   `json:"symbol"`
	Span   [2]int   `json:"span"`
	Lines  [][2]int `json:"lines"`
	// texts of the changes, for the import-only rule; not written.
	changes []Change
}

// def is a definition's whole extent: the units of a definition split for
// size joined again, and a class's extent for lines of its body outside
// its methods.
type def struct {
	start, end int
	symbol     string
	text       string // its first unit's content
}

// FileGroups finds the groups of one file's changes at the base commit,
// with the index's own units: one group per enclosing function, method or
// type (or class body outside its methods), and one module-level group per
// run of nearby changed lines outside any definition. Blank base lines are
// not changed lines: a removed blank line, or an insertion after one, names
// no code. Module-level changed lines that only touch an import or include
// are returned apart, in groups of their own (an import inside a function is
// part of the function's edit).
func FileGroups(p string, src []byte, changes []Change) (groups, importOnlyGroups []Group) {
	res := segment.Segment(p, src)
	defs := definitions(res)
	lines := strings.Split(string(src), "\n")
	nlines := len(lines)
	byDef := map[def][]Change{}
	var order []def
	var module []Change
	for _, c := range changes {
		if c.Line > nlines {
			c.Line = nlines
		}
		if strings.TrimSpace(lines[c.Line-1]) == "" {
			// A blank base line (removed, or followed by an insertion) names
			// no code.
			continue
		}
		d, ok := enclosing(defs, c.Line)
		if !ok {
			module = append(module, c)
			continue
		}
		if _, seen := byDef[d]; !seen {
			order = append(order, d)
		}
		byDef[d] = append(byDef[d], c)
	}
	var all []Group
	for _, d := range order {
		all = append(all, newGroup(p, d.symbol, d.start, d.end, byDef[d]))
	}
	// Module-level changes that only touch an import or include are left
	// out one by one; the rest form runs of nearby lines.
	blocks := importBlocks(src)
	inBlock := func(l int) bool { return blocks[l] }
	var kept, dropped []Change
	for _, c := range module {
		if importOnly([]Change{c}, inBlock) {
			dropped = append(dropped, c)
		} else {
			kept = append(kept, c)
		}
	}
	for _, run := range runs(kept) {
		all = append(all, newGroup(p, ModuleSymbol, run[0].Line, run[len(run)-1].Line, run))
	}
	for _, run := range runs(dropped) {
		importOnlyGroups = append(importOnlyGroups, newGroup(p, ModuleSymbol, run[0].Line, run[len(run)-1].Line, run))
	}
	groups = all
	sortGroups(groups)
	sortGroups(importOnlyGroups)
	return groups, importOnlyGroups
}

// runs cuts line-ordered changes where the next is more than moduleGap
// lines away.
func runs(cs []Change) [][]Change {
	var out [][]Change
	for i := 0; i < len(cs); {
		j := i + 1
		for j < len(cs) && cs[j].Line-cs[j-1].Line <= moduleGap {
			j++
		}
		out = append(out, cs[i:j])
		i = j
	}
	return out
}

func newGroup(p, symbol string, start, end int, cs []Change) Group {
	lines := make([]int, len(cs))
	for i, c := range cs {
		lines[i] = c.Line
	}
	sort.Ints(lines)
	return Group{Path: p, Symbol: symbol, Span: [2]int{start, end}, Lines: Ranges(lines), changes: cs}
}

func sortGroups(gs []Group) {
	sort.SliceStable(gs, func(i, j int) bool {
		a, b := gs[i], gs[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Span[0] != b.Span[0] {
			return a.Span[0] < b.Span[0]
		}
		return a.Span[1] < b.Span[1]
	})
}

// definitions turns a file's units into definitions. Units of a
// definition split for size (the later parts carry the signature as
// Context, which the first part holds) are joined; a class body's runs
// take the class's whole extent.
func definitions(res *segment.Result) []def {
	var defs []def
	classExt := map[string][2]int{}
	for _, u := range res.Units {
		if u.Kind != segment.KindClass {
			continue
		}
		e, ok := classExt[u.Symbol]
		if !ok {
			e = [2]int{u.StartLine, u.EndLine}
		}
		for _, v := range res.Units {
			if v.Symbol == u.Symbol || strings.HasPrefix(v.Symbol, u.Symbol+".") {
				e = [2]int{min(e[0], v.StartLine), max(e[1], v.EndLine)}
			}
		}
		classExt[u.Symbol] = e
	}
	for _, u := range res.Units {
		switch u.Kind {
		case segment.KindModule, segment.KindWindow:
			continue
		case segment.KindClass:
			e := classExt[u.Symbol]
			defs = append(defs, def{start: e[0], end: e[1], symbol: symbolOr(u.Symbol)})
			continue
		}
		// A later part's Context is its definition's signature, which
		// the first part holds; a member's is its class's, which no
		// earlier member of the same name (an overload) holds.
		if n := len(defs); n > 0 && u.Context != "" && defs[n-1].symbol == symbolOr(u.Symbol) && defs[n-1].end < u.StartLine && strings.Contains(defs[n-1].text, u.Context) {
			defs[n-1].end = u.EndLine
			continue
		}
		defs = append(defs, def{start: u.StartLine, end: u.EndLine, symbol: symbolOr(u.Symbol), text: u.Content})
	}
	return defs
}

func symbolOr(s string) string {
	if s == "" {
		return "<anonymous>"
	}
	return s
}

// enclosing finds the innermost definition holding a line. Function and
// type units tile the file with class runs, so a line lies in at most one
// non-class definition; class extents hold their members' lines and are
// the fallback.
func enclosing(defs []def, line int) (def, bool) {
	var best def
	found := false
	for _, d := range defs {
		if d.start <= line && line <= d.end {
			if !found || d.end-d.start < best.end-best.start {
				best, found = d, true
			}
		}
	}
	return best, found
}
