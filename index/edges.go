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
//     path suffix (so "pkg.mod" finds "src/pkg/mod.py"). The edge goes from
//     the importing unit to the first unit of each imported file.

import (
	"context"
	"database/sql"
	"fmt"
	"path"
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
}

// newNameRow holds what resolving u's names into edges reads.
func newNameRow(u *mss.Unit, calls []string) nameRow {
	return nameRow{id: u.ID, path: u.Path, symbol: u.Symbol, defines: u.Defines, refs: u.References,
		calls: calls, imports: u.Imports, selectable: segment.Selectable(u.Symbol, u.Kind),
		sel: segment.Selections(u.Content, u.Language, u.References)}
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
	out, err := readNameRows(context.Background(), ix.db, selections)
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
	res := newResolver(firstUnit)
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
	res := newResolver(files)
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

// resolver maps import strings to repository files.
type resolver struct {
	files  map[string]string   // path -> anything
	suffix map[string][]string // "/"-suffix of a path -> paths
	dirs   map[string][]string // directory -> its files
	// dirSuffix maps a directory's path and each "/"-suffix of it to the
	// directories that end so, in order.
	dirSuffix map[string][]string
}

func newResolver(files map[string]string) *resolver {
	r := &resolver{files: files, suffix: map[string][]string{}, dirs: map[string][]string{}, dirSuffix: map[string][]string{}}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		addSuffixes(r.suffix, p)
		d := path.Dir(p)
		if _, ok := r.dirs[d]; !ok && d != "." {
			r.dirSuffix[d] = append(r.dirSuffix[d], d)
			addSuffixes(r.dirSuffix, d)
		}
		r.dirs[d] = append(r.dirs[d], p)
	}
	return r
}

// addSuffixes appends p to m under each "/"-suffix of p (b/c and c of
// a/b/c).
func addSuffixes(m map[string][]string, p string) {
	for i := 0; i < len(p); i++ {
		if p[i] == '/' {
			m[p[i+1:]] = append(m[p[i+1:]], p)
		}
	}
}

// tsSource gives the TypeScript sources a JavaScript module's name stands
// for in a TypeScript import, by its extension.
var tsSource = map[string][]string{
	".js":  {".ts", ".tsx"},
	".jsx": {".tsx"},
	".mjs": {".mts"},
	".cjs": {".cts"},
}

// lookup finds a file by exact path or, failing that, a unique suffix.
func (r *resolver) lookup(cands ...string) []string {
	for _, c := range cands {
		if _, ok := r.files[c]; ok {
			return []string{c}
		}
	}
	for _, c := range cands {
		if m := r.suffix[c]; len(m) == 1 {
			return m
		}
	}
	return nil
}

func (r *resolver) resolve(from, imp string) []string {
	dir := path.Dir(from)
	switch segment.Language(from) {
	case "python":
		if strings.HasPrefix(imp, ".") {
			n := len(imp) - len(strings.TrimLeft(imp, "."))
			base := dir
			for i := 1; i < n; i++ {
				base = path.Dir(base)
			}
			rest := strings.ReplaceAll(strings.TrimLeft(imp, "."), ".", "/")
			p := path.Join(base, rest)
			if rest == "" {
				return r.lookup(path.Join(base, "__init__.py"))
			}
			return r.lookup(p+".py", p+"/__init__.py")
		}
		p := strings.ReplaceAll(imp, ".", "/")
		return r.lookup(p+".py", p+"/__init__.py")
	case "javascript", "typescript", "tsx":
		if !strings.HasPrefix(imp, ".") {
			return nil
		}
		p := path.Join(dir, imp)
		var cands []string
		// TypeScript's ECMAScript modules import a source by the name it
		// compiles to: ./types.js is types.ts, ./a.mjs is a.mts. From
		// TypeScript that source comes first; from JavaScript the file
		// named.
		ext := path.Ext(p)
		if ts := tsSource[ext]; ts != nil {
			stem := strings.TrimSuffix(p, ext)
			for _, e := range ts {
				cands = append(cands, stem+e)
			}
			if segment.Language(from) == "javascript" {
				cands = append([]string{p}, cands...)
			}
		}
		for _, ext := range []string{"", ".js", ".ts", ".tsx", ".jsx", ".mjs", ".cjs", ".mts", ".cts", "/index.js", "/index.ts", "/index.tsx", "/index.jsx", "/index.mjs", "/index.mts"} {
			cands = append(cands, p+ext)
		}
		for _, c := range cands {
			if _, ok := r.files[c]; ok {
				return []string{c}
			}
		}
		return nil
	case "go":
		parts := strings.Split(imp, "/")
		for k := 0; k < len(parts); k++ {
			if fs, ok := r.dirs[strings.Join(parts[k:], "/")]; ok {
				var out []string
				for _, f := range fs {
					if strings.HasSuffix(f, ".go") && !strings.HasSuffix(f, "_test.go") {
						out = append(out, f)
					}
				}
				return out
			}
		}
		return nil
	case "java":
		// A static import names a member of its class (org.junit.Assert.
		// assertEquals), and an import may name a nested class
		// (java.util.Map.Entry): the file is the outermost class's, a
		// name or two before the end.
		parts := strings.Split(imp, ".")
		for k := len(parts); k >= max(2, len(parts)-2); k-- {
			if m := r.lookup(strings.Join(parts[:k], "/") + ".java"); m != nil {
				return m
			}
		}
		// import com.acme.util.* names a package: the classes of its
		// directory, in every source root that has it (main and test).
		var out []string
		for _, d := range r.dirSuffix[strings.Join(parts, "/")] {
			for _, f := range r.dirs[d] {
				if strings.HasSuffix(f, ".java") {
					out = append(out, f)
				}
			}
		}
		return out
	case "rust":
		parts := strings.Split(strings.SplitN(imp, "{", 2)[0], "::")
		var clean []string
		for _, p := range parts {
			if p != "" && p != "crate" && p != "self" && p != "super" && p != "*" {
				clean = append(clean, p)
			}
		}
		for k := len(clean); k > 0; k-- {
			p := strings.Join(clean[:k], "/")
			if m := r.lookup(p+".rs", p+"/mod.rs"); m != nil {
				return m
			}
		}
		return nil
	case "c", "cpp":
		if m := r.lookup(path.Join(dir, imp)); m != nil {
			return m
		}
		return r.lookup(imp)
	}
	return nil
}
