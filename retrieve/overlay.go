package retrieve

// An overlay engine answers as soon as a build has changed a few files'
// units, before the stored structures are derived again (which takes as
// long as building an engine from every unit): it reads a stored engine
// derived from an earlier build, the base, in place, and holds in memory
// only the units of the files whose units differ from the base's (a unit's
// id names its path, lines and content), numbered after the base's.
//
// What it answers from, against an engine built from the same units:
//
//   - units, files, name tables and the lexical view are exact: the base's
//     units of changed files are left out, the files' units now are added,
//     and BM25 counts documents, lengths and frequencies over the live
//     units (lexical.Overlay), so every unit scores what it would;
//   - the semantic view reads the base's term vectors and idf, which do not
//     count the changed files' units as they are now; the added units'
//     vectors are made from those;
//   - index edges are the base's, with a changed file's old unit replaced
//     by its unit now of the same symbol (in order); a new symbol has none
//     until the next derivation (the structural view still finds its
//     callers and callees by name);
//   - ties between equal scores break as they would there: the added
//     units, numbered last, are ordered among the base's by path, lines
//     and id (Engine.before).
//
// So an overlay is provisional: a server answers from it while it derives
// the structures again in the background, then swaps in the stored engine.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/index"
	"github.com/missingcomplement/mss/lexical"
)

// overlayMaxShare is the largest share of the base's units an overlay
// replaces or adds; beyond it the semantic view would drift too far, and
// building the engine anew costs little more.
const overlayMaxShare = 0.25

// ErrOverlayTooLarge says too many units changed since the base for an
// overlay (Overlay): build the engine anew instead.
var ErrOverlayTooLarge = errors.New("retrieve: too many units changed for an overlay")

type overlay struct {
	// base is the stored engine read (it also keeps its mapping alive).
	base *Engine
	n    int    // base units; added units are numbered from n on
	dead []bool // by base unit: its file's units changed
	// units and info are the added units, in path and line order.
	units []mss.Unit
	info  []unitInfo
	byID  map[string]int
	// byPath holds every changed file: its units now (none when the file
	// has none left).
	byPath map[string][]int
	// baseName maps a lower-cased file name to the changed files with
	// units that have it.
	baseName map[string][]string
	names    nameMaps // of the added units
	paths    []string // every file with units, sorted
	// remap maps a dead base unit to the added unit of the same file and
	// symbol; adj holds the added units' edges (their old units'), by
	// direction.
	remap map[int]int
	adj   [2]map[int][]edgeTo
	// key places each added unit among the live units as an engine built
	// from them numbers them (Engine.before).
	key []float64
}

// Overlay returns an engine over the units ix holds now that reads the
// stored engine base (FromIndex over an earlier build of the same index)
// for every file whose units did not change since (see above). It fails
// with ErrOverlayTooLarge when more than a quarter as many units changed
// as base has.
func Overlay(ctx context.Context, base *Engine, ix *index.Index, opts Options) (*Engine, error) {
	if !base.Stored() {
		return nil, errors.New("retrieve: an overlay needs a stored engine as its base")
	}
	refs, err := ix.UnitRefs(ctx)
	if err != nil {
		return nil, fmt.Errorf("retrieve: %w", err)
	}
	m := base.m
	x := &overlay{base: base, n: m.n, dead: make([]bool, m.n), byPath: map[string][]int{},
		baseName: map[string][]string{}, names: newNameMaps()}
	var changed []string
	now := make(map[string]bool, m.paths.Len())
	moved := 0
	for i := 0; i < len(refs); {
		j := i
		for j < len(refs) && refs[j].Path == refs[i].Path {
			j++
		}
		path := refs[i].Path
		now[path] = true
		first, old := m.span(path)
		same := old == j-i
		for k := 0; same && k < old; k++ {
			id, _ := m.str(m.word(first+k, 3))
			same = id == refs[i+k].ID
		}
		if !same {
			changed = append(changed, path)
			moved += old + j - i
		}
		i = j
	}
	for k := range m.paths.Len() {
		if p := m.paths.Key(k); !now[p] {
			changed = append(changed, strings.Clone(p))
			_, old := m.span(p)
			moved += old
		}
	}
	if float64(moved) > overlayMaxShare*float64(m.n) {
		return nil, fmt.Errorf("%w (%d of %d)", ErrOverlayTooLarge, moved, m.n)
	}
	sort.Strings(changed)
	for _, path := range changed {
		for _, o := range m.unitsOf(path) {
			x.dead[o] = true
		}
		us, err := ix.FileUnits(path)
		if err != nil {
			return nil, fmt.Errorf("retrieve: %w", err)
		}
		idx := make([]int, len(us))
		for k := range us {
			idx[k] = x.n + len(x.units)
			x.units = append(x.units, us[k])
		}
		x.byPath[path] = idx
		if len(us) > 0 {
			base := strings.ToLower(path[strings.LastIndexByte(path, '/')+1:])
			x.baseName[base] = append(x.baseName[base], path)
		}
	}
	x.tables()
	x.edges(changed)
	x.orderKeys()

	e := &Engine{opts: indexOptions(ix, opts), m: m, x: x, src: ix}
	e.off = offViews(e.opts)
	content, symbol := tokenizeUnits(x.units, nil)
	if e.lex, err = lexical.Overlay(base.lex, x.dead, buildLexical(x.units, content, symbol)); err != nil {
		return nil, fmt.Errorf("retrieve: %w", err)
	}
	e.n = e.lex.Len() // the live units
	if base.sem != nil {
		if e.sem, err = x.semantic(base.sem, content, symbol); err != nil {
			return nil, err
		}
	}
	e.openHistory()
	e.setEmbedder()
	return e, nil
}

// before reports whether unit i comes before unit j in the order an engine
// built from the units it holds numbers them (path, lines, id): their
// indices, or for an overlay's added units, their place among the base's.
// It breaks ties between equal scores, so an overlay ranks as that engine
// does.
func (e *Engine) before(i, j int) bool {
	if e.x == nil {
		return i < j
	}
	ki, kj := float64(i), float64(j)
	if i >= e.x.n {
		ki = e.x.key[i-e.x.n]
	}
	if j >= e.x.n {
		kj = e.x.key[j-e.x.n]
	}
	return ki < kj
}

// Overlaid reports an engine made by Overlay.
func (e *Engine) Overlaid() bool { return e.x != nil }

// tables fills the added units' facts and name tables, and the list of
// every file with units.
func (x *overlay) tables() {
	x.info = make([]unitInfo, len(x.units))
	x.byID = make(map[string]int, len(x.units))
	for k := range x.units {
		u, in := &x.units[k], &x.info[k]
		*in = unitFacts(u, nil)
		in.class = Classify(u.Path)
		i := x.n + k
		if _, dup := x.byID[u.ID]; !dup {
			x.byID[u.ID] = i
		}
		x.names.addDefined(i, in)
		x.names.addReferenced(i, in)
	}
	m := x.base.m
	for k := range m.paths.Len() {
		p := m.paths.Key(k)
		if us, ok := x.byPath[p]; !ok || len(us) > 0 {
			x.paths = append(x.paths, strings.Clone(p)) // Paths hands them out
		}
	}
	for p, us := range x.byPath {
		if len(us) > 0 && m.paths.Find(p) < 0 {
			x.paths = append(x.paths, p)
		}
	}
	sort.Strings(x.paths)
}

// orderKeys places the added units where an engine built from the live
// units would number them, ordered by path, lines and id: the units of the
// changed files, in that order, between the last base unit before their
// path and the first after it (their own old units, which are dead, or the
// next path's). Ties between equal scores then break as they would there.
func (x *overlay) orderKeys() {
	m := x.base.m
	x.key = make([]float64, len(x.units))
	paths := make([]string, 0, len(x.byPath))
	for p, idx := range x.byPath {
		if len(idx) > 0 {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	// at: the base unit the added unit goes just before; it does not
	// decrease along paths in order, so a gap's units are consecutive.
	var at, order []int
	for _, path := range paths {
		first, n := m.span(path)
		if n == 0 {
			k := sort.Search(m.paths.Len(), func(k int) bool { return m.paths.Key(k) > path })
			first = m.n
			if k < m.paths.Len() {
				first, _ = m.span(m.paths.Key(k))
			}
		}
		us := slices.Clone(x.byPath[path])
		slices.SortFunc(us, func(a, b int) int {
			ua, ub := &x.units[a-x.n], &x.units[b-x.n]
			if c := cmp.Compare(ua.StartLine, ub.StartLine); c != 0 {
				return c
			}
			if c := cmp.Compare(ua.EndLine, ub.EndLine); c != 0 {
				return c
			}
			return strings.Compare(ua.ID, ub.ID)
		})
		for _, i := range us {
			at, order = append(at, first), append(order, i)
		}
	}
	for g := 0; g < len(order); {
		h := g
		for h < len(order) && at[h] == at[g] {
			h++
		}
		for k := g; k < h; k++ {
			x.key[order[k]-x.n] = float64(at[g]) - 1 + float64(k-g+1)/float64(h-g+1)
		}
		g = h
	}
}

// edges gives each changed file's old units' edges to its units now of
// the same symbol, matched in line order.
func (x *overlay) edges(changed []string) {
	m := x.base.m
	if !m.edges {
		return
	}
	x.remap = map[int]int{}
	for _, path := range changed {
		bySym := map[string][]int{}
		for _, j := range x.byPath[path] {
			q := x.info[j-x.n].qual
			bySym[q] = append(bySym[q], j)
		}
		for _, o := range m.unitsOf(path) {
			q := m.facts(o).qual
			if l := bySym[q]; len(l) > 0 {
				x.remap[o], bySym[q] = l[0], l[1:]
			}
		}
	}
	for d := range x.adj {
		x.adj[d] = map[int][]edgeTo{}
		for o, j := range x.remap {
			x.adj[d][j] = x.live(m.adjacent(edgeDir(d), o))
		}
	}
}

// live replaces the dead ends of base edges by their units now, dropping
// those without one.
func (x *overlay) live(es []edgeTo) []edgeTo {
	out := es[:0]
	for _, t := range es {
		if x.dead[t.unit] {
			j, ok := x.remap[t.unit]
			if !ok {
				continue
			}
			t.unit = j
		}
		out = append(out, t)
	}
	return out
}

// list is a base name table's live units, then the added ones.
func (x *overlay) list(base []int, added []int) []int {
	out := base[:0]
	for _, i := range base {
		if !x.dead[i] {
			out = append(out, i)
		}
	}
	return append(out, added...)
}

// semantic gives the added units vectors made of the base's term vectors.
func (x *overlay) semantic(base *semantic, content, symbol []lexical.Counted) (*semantic, error) {
	s := &semantic{docVec: make([][]float32, x.n+len(x.units)), get: base.get}
	for i, v := range base.docVec {
		if !x.dead[i] {
			s.docVec[i] = v
		}
	}
	terms := make([]map[string]int, len(x.units))
	all := map[string]int{}
	for k := range x.units {
		terms[k] = semTerms(content[k], symbol[k])
		for t := range terms[k] {
			all[t] = 1
		}
	}
	known, err := base.lookup(all)
	if err != nil {
		return nil, fmt.Errorf("retrieve: %w", err)
	}
	for k := range x.units {
		s.docVec[x.n+k] = known.vector(terms[k])
	}
	return s, nil
}

// basePaths lists the files now named base, sorted.
func (x *overlay) basePaths(base string, old []string) []string {
	var out []string
	for _, p := range old {
		if _, ok := x.byPath[p]; !ok {
			out = append(out, p)
		}
	}
	out = append(out, x.baseName[base]...)
	slices.Sort(out)
	return out
}
