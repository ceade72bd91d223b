package segment

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
)

// identifierTypes are the leaf node types that name something.
var identifierTypes = newSet(
	"identifier", "type_identifier", "field_identifier", "property_identifier",
	"shorthand_property_identifier", "shorthand_property_identifier_pattern",
	"namespace_identifier", "package_identifier", "constant",
)

// nameQuery captures, in one pass of the tree-sitter query engine, the
// identifiers (@ref), calls (@call) and imports (@import) of a grammar.
// Walking the tree node by node from Go costs several cgo calls per node;
// the query crosses into C once per capture.
type nameQuery struct {
	q              *sitter.Query
	ref, call, imp uint32
}

var (
	queriesMu sync.Mutex
	queries   = map[*grammar]*nameQuery{}
)

// query compiles (once) the grammar's name query. Node types the grammar
// does not have are left out, as the query compiler rejects them.
func (g *grammar) query() *nameQuery {
	queriesMu.Lock()
	defer queriesMu.Unlock()
	if q, ok := queries[g]; ok {
		return q
	}
	lang := g.language()
	has := map[string]bool{}
	for i := uint32(0); i < lang.SymbolCount(); i++ {
		if lang.SymbolType(sitter.Symbol(i)) == sitter.SymbolTypeRegular {
			has[lang.SymbolName(sitter.Symbol(i))] = true
		}
	}
	alt := func(types set, capture string) string {
		var names []string
		for t := range types {
			if has[t] {
				names = append(names, "("+t+")")
			}
		}
		if len(names) == 0 {
			return ""
		}
		sort.Strings(names)
		return "[" + strings.Join(names, " ") + "] @" + capture + "\n"
	}
	src := alt(identifierTypes, "ref") + alt(g.calls, "call") + alt(g.imports, "import")
	q, err := sitter.NewQuery([]byte(src), lang)
	if err != nil {
		// The query is built from the grammar's own node types; failing
		// here is a programming error caught by the tests of every grammar.
		panic(fmt.Sprintf("segment: %s name query: %v", g.name, err))
	}
	nq := &nameQuery{q: q, ref: ^uint32(0), call: ^uint32(0), imp: ^uint32(0)}
	for i := uint32(0); i < q.CaptureCount(); i++ {
		switch q.CaptureNameForId(i) {
		case "ref":
			nq.ref = i
		case "call":
			nq.call = i
		case "import":
			nq.imp = i
		}
	}
	queries[g] = nq
	return nq
}

// minNameLen is the shortest name kept as a definition or reference.
const minNameLen = 2

// runDefines returns the names that statements of container starting in
// rows [s, e] define: assignment targets, declared variables, constants,
// fields, macros.
func (w *walker) runDefines(container *sitter.Node, s, e int) []named {
	var out []named
	for i := 0; i < int(container.NamedChildCount()); i++ {
		c := container.NamedChild(i)
		if r := startRow(c); r < s || r > e {
			continue
		}
		w.definedNames(c, 0, &out)
	}
	return out
}

func (w *walker) definedNames(n *sitter.Node, depth int, out *[]named) {
	if depth > 3 {
		return
	}
	src := w.f.src
	add := func(x *sitter.Node) {
		if x == nil {
			return
		}
		switch x.Type() {
		case "identifier", "field_identifier", "type_identifier", "constant", "property_identifier":
			if name := x.Content(src); len(name) >= minNameLen {
				*out = append(*out, named{name, startRow(x)})
			}
		case "pattern_list", "tuple_pattern", "expression_list", "identifier_list":
			for i := 0; i < int(x.NamedChildCount()); i++ {
				c := x.NamedChild(i)
				if c.Type() == "identifier" {
					if name := c.Content(src); len(name) >= minNameLen {
						*out = append(*out, named{name, startRow(c)})
					}
				}
			}
		}
	}
	switch n.Type() {
	case "assignment", "assignment_expression", "augmented_assignment":
		add(n.ChildByFieldName("left"))
		return
	case "package_declaration", "package_clause", "import_declaration", "import_statement", "import_from_statement",
		"future_import_statement", "use_declaration", "preproc_include", "extern_crate_declaration":
		return
	case "call", "call_expression", "argument_list", "arguments", "block", "compound_statement",
		"statement_block", "lambda", "arrow_function", "function_definition", "function_declaration":
		return
	}
	add(n.ChildByFieldName("name"))
	if t := n.Type(); t == "init_declarator" || t == "variable_declarator" || t == "declaration" || t == "field_declaration" {
		if d := n.ChildByFieldName("declarator"); d != nil {
			if nm := declaratorName(d, src); nm != "" && len(nm) >= minNameLen && !strings.Contains(nm, ".") {
				*out = append(*out, named{nm, startRow(d)})
			}
		}
	}
	for i := 0; i < int(n.NamedChildCount()); i++ {
		w.definedNames(n.NamedChild(i), depth+1, out)
	}
}

// names fills Defines, References, Imports and Calls of the units built
// from spans with one walk over the tree.
func (w *walker) names(root *sitter.Node, spans []span, res *Result) {
	f := w.f
	rowUnit := make([]int32, f.nlines())
	for i := range rowUnit {
		rowUnit[i] = -1
	}
	for i, s := range spans {
		for r := s.start; r <= s.end; r++ {
			rowUnit[r] = int32(i)
		}
	}
	unitOf := func(row int) int {
		if row < 0 || row >= len(rowUnit) {
			return -1
		}
		return int(rowUnit[row])
	}
	n := len(spans)
	defs := make([]map[string]bool, n)
	refs := make([]map[string]bool, n)
	calls := make([]map[string]bool, n)
	imps := make([][]string, n)
	addTo := func(m []map[string]bool, u int, name string) {
		if u < 0 || len(name) < minNameLen {
			return
		}
		if m[u] == nil {
			m[u] = map[string]bool{}
		}
		m[u][name] = true
	}
	for _, s := range spans {
		for _, d := range s.defs {
			addTo(defs, unitOf(d.row), d.name)
		}
	}
	src := f.src
	q := w.g.query()
	qc := sitter.NewQueryCursor()
	defer qc.Close()
	qc.Exec(q.q, root)
	for {
		m, ci, ok := qc.NextCapture()
		if !ok {
			break
		}
		c := m.Captures[ci]
		n := c.Node
		start := int(n.StartByte())
		u := unitOf(f.rowOf(start))
		if u < 0 {
			continue
		}
		switch c.Index {
		case q.ref:
			addTo(refs, u, string(src[start:n.EndByte()]))
		case q.call:
			name := calleeName(n, src)
			if name == "" {
				continue
			}
			addTo(calls, u, name)
			if name == "require" && (w.g.name == "javascript" || w.g.name == "typescript" || w.g.name == "tsx") {
				if a := n.ChildByFieldName("arguments"); a != nil && a.NamedChildCount() > 0 && a.NamedChild(0).Type() == "string" {
					imps[u] = append(imps[u], unquote(a.NamedChild(0).Content(src)))
				}
			}
		case q.imp:
			imps[u] = append(imps[u], w.importNames(n)...)
		}
	}
	for i := range res.Units {
		u := &res.Units[i]
		u.Defines = sortedKeys(defs[i], nil)
		u.References = sortedKeys(refs[i], defs[i])
		res.Calls[i] = sortedKeys(calls[i], defs[i])
		u.Imports = uniqueSorted(imps[i])
	}
}

// calleeName is the last name of a call's callee: f, obj.f, pkg::f, new C.
func calleeName(n *sitter.Node, src []byte) string {
	var c *sitter.Node
	for _, field := range []string{"function", "constructor", "macro", "name", "type"} {
		if c = n.ChildByFieldName(field); c != nil {
			break
		}
	}
	for i := 0; c != nil && i < 8; i++ {
		switch c.Type() {
		case "identifier", "field_identifier", "property_identifier", "type_identifier":
			return c.Content(src)
		case "attribute":
			c = c.ChildByFieldName("attribute")
		case "member_expression":
			c = c.ChildByFieldName("property")
		case "field_expression":
			c = c.ChildByFieldName("field")
		case "selector_expression":
			c = c.ChildByFieldName("field")
		case "scoped_identifier", "qualified_identifier", "scoped_type_identifier":
			c = c.ChildByFieldName("name")
		case "generic_function", "template_function", "generic_type":
			if f := c.ChildByFieldName("function"); f != nil {
				c = f
			} else {
				c = c.ChildByFieldName("name")
			}
		default:
			return ""
		}
	}
	return ""
}

// importNames returns the module names an import statement names.
func (w *walker) importNames(n *sitter.Node) []string {
	src := w.f.src
	var out []string
	switch n.Type() {
	case "import_statement": // python: import a.b as c; js/ts: import x from "m"
		if s := n.ChildByFieldName("source"); s != nil {
			return []string{unquote(s.Content(src))}
		}
		for i := 0; i < int(n.NamedChildCount()); i++ {
			c := n.NamedChild(i)
			switch c.Type() {
			case "dotted_name":
				out = append(out, c.Content(src))
			case "aliased_import":
				if nm := c.ChildByFieldName("name"); nm != nil {
					out = append(out, nm.Content(src))
				}
			}
		}
	case "import_from_statement":
		mod := ""
		if m := n.ChildByFieldName("module_name"); m != nil {
			mod = m.Content(src)
			out = append(out, mod)
		}
		for i := 0; i < int(n.ChildCount()); i++ {
			if n.FieldNameForChild(i) != "name" {
				continue
			}
			c := n.Child(i)
			if c.Type() == "aliased_import" {
				c = c.ChildByFieldName("name")
			}
			if c != nil {
				sep := "."
				if strings.HasSuffix(mod, ".") {
					sep = ""
				}
				out = append(out, mod+sep+c.Content(src))
			}
		}
	case "export_statement":
		if s := n.ChildByFieldName("source"); s != nil {
			out = append(out, unquote(s.Content(src)))
		}
	case "import_declaration":
		if w.g.name == "go" {
			var specs func(x *sitter.Node)
			specs = func(x *sitter.Node) {
				if x.Type() == "import_spec" {
					if p := x.ChildByFieldName("path"); p != nil {
						out = append(out, unquote(p.Content(src)))
					}
					return
				}
				for i := 0; i < int(x.NamedChildCount()); i++ {
					specs(x.NamedChild(i))
				}
			}
			specs(n)
		} else { // java
			for i := 0; i < int(n.NamedChildCount()); i++ {
				c := n.NamedChild(i)
				if c.Type() == "scoped_identifier" || c.Type() == "identifier" {
					out = append(out, c.Content(src))
				}
			}
		}
	case "use_declaration":
		if a := n.ChildByFieldName("argument"); a != nil {
			out = append(out, strings.Join(strings.Fields(a.Content(src)), ""))
		}
	case "extern_crate_declaration":
		if nm := n.ChildByFieldName("name"); nm != nil {
			out = append(out, nm.Content(src))
		}
	case "preproc_include":
		if p := n.ChildByFieldName("path"); p != nil {
			out = append(out, unquote(p.Content(src)))
		}
	}
	return out
}

func unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 {
		switch {
		case s[0] == '"' && s[len(s)-1] == '"', s[0] == '\'' && s[len(s)-1] == '\'',
			s[0] == '`' && s[len(s)-1] == '`', s[0] == '<' && s[len(s)-1] == '>':
			return s[1 : len(s)-1]
		}
	}
	return s
}

func sortedKeys(m map[string]bool, except map[string]bool) []string {
	var out []string
	for k := range m {
		if !except[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func uniqueSorted(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	sort.Strings(s)
	out := s[:1]
	for _, x := range s[1:] {
		if x != out[len(out)-1] && x != "" {
			out = append(out, x)
		}
	}
	if out[0] == "" {
		out = out[1:]
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
