package index

// Edges are derived, not stored: a unit's references are resolved by name
// against the units that define that name anywhere in the repository, and
// its imports against the repository's files. Resolution is deliberately
// simple and bounded:
//
//   - A name defined in the referring unit's own file resolves there only
//     (a local helper shadows same-named functions elsewhere).
//   - Otherwise every definition counts, unless more than maxFanout units
//     define the name (get, run, __init__): such names carry no signal and
//     would flood the graph, so they make no edge.
//   - A name the unit's text only selects from something (x.name,
//     p->name) resolves only to what such a selection can name
//     (segment.RefersTo): a member or a type, or a top-level definition
//     it is selected from the module of (tokenize.Split), never a
//     function of another file that happens to share the name (st.Split).
//   - A reference that is also a call makes a "call" edge, any other a
//     "ref" edge.
//   - An import resolves to files by the importing language's rules
//     (Python dotted modules and relative imports, JavaScript relative
//     specifiers, Go package directories, Java classes, Rust module paths,
//     C/C++ includes), matching a repository path exactly or by a unique
//     path suffix (so "pkg.mod" finds "src/pkg/mod.py"), and by what the
//     repository's manifests say (resolve.go, manifest.go): a tsconfig's
//     path aliases, a workspace package's or a Cargo crate's name. The
//     edge goes from the importing unit to the first unit of each
//     imported file.

import (
	"context"
	"database/sql"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/segment"
)

// maxFanout is the most definitions a name may have and still make edges.
const maxFanout = 8

// FileImport is one edge of the file-level import graph.
type FileImport struct {
	From string `json:"from"` // importing file
	To   string `json:"to"`   // imported file
}

type nameRow struct {
	id, path, symbol              string
	defines, refs, calls, imports []string
	// selectable: a selection can name what the unit defines
	// (segment.Selectable); sel: the names its text only selects, by
	// lower-cased name.
	selectable bool
	sel        map[string]segment.NameUse
	// text is the unit's text when its file is a manifest the resolver
	// reads (manifestFile), else "".
	text string
}

// newNameRow holds what resolving u's names into edges reads.
func newNameRow(u *mss.Unit, calls []string) nameRow {
	r := nameRow{id: u.ID, path: u.Path, symbol: u.Symbol, defines: u.Defines, refs: u.References,
		calls: calls, imports: u.Imports, selectable: segment.Selectable(u.Symbol, u.Kind),
		sel: segment.Selections(u.Content, u.Language, u.References)}
	if manifestFile(u.Path) {
		r.text = u.Content
	}
	return r
}

// newDeriveInput is what a Deriver reads of units and their name rows.
func newDeriveInput(units []mss.Unit, names []nameRow) *DeriveInput {
	sel := make(map[string]map[string]segment.NameUse, len(names))
	for _, r := range names {
		if r.sel != nil {
			sel[r.id] = r.sel
		}
	}
	return &DeriveInput{Units: units, Edges: edgesOf(names), Selections: sel}
}

// nameRows reads every unit's name row; with selections, also what its
// text only selects (which reads and lexes the units' texts: the edges
// need it, the file imports do not).
func (ix *Index) nameRows(selections bool) ([]nameRow, error) {
	out, err := readNameRows(context.Background(), ix.conn(), selections)
	if err != nil {
		return nil, fmt.Errorf("index %s: names: %w", ix.path, ix.health.note(ix.path, err))
	}
	return out, nil
}

// querier is a database or a transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func readNameRows(ctx context.Context, db querier, selections bool) ([]nameRow, error) {
	content := "''" // no text: no selections
	if selections {
		content = "content"
	}
	// A manifest's text is read either way (newNameRow keeps it).
	content = `CASE WHEN ` + manifestLike + ` THEN content ELSE ` + content + ` END`
	rows, err := db.QueryContext(ctx, `SELECT id, path, symbol, kind, language, `+content+`, defines, refs, calls, imports FROM units ORDER BY path, start_line`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []nameRow
	for rows.Next() {
		var u mss.Unit
		var d, rf, c, im string
		if err := rows.Scan(&u.ID, &u.Path, &u.Symbol, &u.Kind, &u.Language, &u.Content, &d, &rf, &c, &im); err != nil {
			return nil, err
		}
		u.Defines, u.References, u.Imports = splitList(d), splitList(rf), splitList(im)
		out = append(out, newNameRow(&u, splitList(c)))
	}
	return out, rows.Err()
}

// Edges returns the call, reference and import edges between units, in
// the order of their source unit (path, line), then target.
func (ix *Index) Edges() ([]Edge, error) {
	rows, err := ix.nameRows(true)
	if err != nil {
		return nil, err
	}
	return edgesOf(rows), nil
}

// edgesOf resolves the names of rows (in path, line order) into edges.
// The rows are resolved in contiguous parts, one per core, whose edges
// are laid out in row order: the result does not depend on the split.
// Each part counts its edges first, so that all are written once, in
// place, into one list.
func edgesOf(rows []nameRow) []Edge {
	defs := map[string][]int{}
	for i, r := range rows {
		for _, d := range r.defines {
			defs[d] = append(defs[d], i)
		}
	}
	firstUnit := map[string]string{}
	for _, r := range rows {
		if _, ok := firstUnit[r.path]; !ok {
			firstUnit[r.path] = r.id
		}
	}
	res := newResolver(firstUnit, manifestTexts(rows))
	parts := min(runtime.GOMAXPROCS(0), max(1, len(rows)/1024))
	inParts := func(f func(k, lo, hi int)) {
		var wg sync.WaitGroup
		for k := range parts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				f(k, k*len(rows)/parts, (k+1)*len(rows)/parts)
			}()
		}
		wg.Wait()
	}
	counts := make([]int, parts+1)
	inParts(func(k, lo, hi int) {
		n := 0
		eachRowEdge(rows, lo, hi, defs, firstUnit, res, func(Edge) { n++ })
		counts[k+1] = n
	})
	for k := range parts {
		counts[k+1] += counts[k]
	}
	out := make([]Edge, counts[parts])
	inParts(func(k, lo, hi int) {
		part := out[counts[k]:counts[k]:counts[k+1]]
		eachRowEdge(rows, lo, hi, defs, firstUnit, res, func(e Edge) { part = append(part, e) })
	})
	return out
}

// eachRowEdge calls emit with each edge of rows[lo:hi], in order.
func eachRowEdge(rows []nameRow, lo, hi int, defs map[string][]int, firstUnit map[string]string, res *resolver, emit func(Edge)) {
	var local, kept []int
	var seen []string
	calls := map[string]bool{} // a long list's calls
	for i := lo; i < hi; i++ {
		r := &rows[i]
		long := len(r.calls) > 16
		if long {
			clear(calls)
			for _, c := range r.calls {
				calls[c] = true
			}
		}
		for _, name := range r.refs {
			targets := defs[name]
			if use, ok := r.sel[strings.ToLower(name)]; ok {
				targets = refersTo(use, rows, targets, &kept)
			}
			local = local[:0]
			for _, t := range targets {
				if rows[t].path == r.path && t != i {
					local = append(local, t)
				}
			}
			if len(local) > 0 {
				targets = local
			} else if len(targets) > maxFanout {
				continue
			}
			kind := EdgeRef
			if long && calls[name] || !long && slices.Contains(r.calls, name) {
				kind = EdgeCall
			}
			for _, t := range targets {
				if t != i {
					emit(Edge{From: r.id, To: rows[t].id, Kind: kind})
				}
			}
		}
		seen = seen[:0]
		for _, imp := range r.imports {
			for _, p := range res.resolve(r.path, imp) {
				if to := firstUnit[p]; !slices.Contains(seen, to) && p != r.path {
					seen = append(seen, to)
					emit(Edge{From: r.id, To: to, Kind: EdgeImport})
				}
			}
		}
	}
}

// refersTo keeps the targets (rows defining a name) a selection of the
// name can refer to, in kept's storage.
func refersTo(use segment.NameUse, rows []nameRow, targets []int, kept *[]int) []int {
	*kept = (*kept)[:0]
	for _, t := range targets {
		if segment.RefersTo(use, rows[t].path, rows[t].symbol, rows[t].selectable) {
			*kept = append(*kept, t)
		}
	}
	return *kept
}

// FileImports returns the file-level import graph, sorted.
func (ix *Index) FileImports() ([]FileImport, error) {
	rows, err := ix.nameRows(false)
	if err != nil {
		return nil, err
	}
	files := map[string]string{}
	for _, r := range rows {
		files[r.path] = r.id
	}
	res := newResolver(files, manifestTexts(rows))
	seen := map[FileImport]bool{}
	var out []FileImport
	for _, r := range rows {
		for _, imp := range r.imports {
			for _, p := range res.resolve(r.path, imp) {
				fi := FileImport{r.path, p}
				if p != r.path && !seen[fi] {
					seen[fi] = true
					out = append(out, fi)
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].From != out[j].From {
			return out[i].From < out[j].From
		}
		return out[i].To < out[j].To
	})
	return out, nil
}
