package segment

import (
	"sort"
	"strings"
)

// minNameLen is the shortest name kept as a definition or reference.
const minNameLen = 2

// runDefines returns the names that statements of a container starting
// in rows [s, e] define: assignment targets, declared variables,
// constants, fields, macros. kids are the container's named children, in
// order, and starts their start rows (statements), so that a container
// cut into many runs is asked for its children once.
func (w *walker) runDefines(kids []*node, starts []int, s, e int) []named {
	var out []named
	for i := sort.SearchInts(starts, s); i < len(kids) && starts[i] <= e; i++ {
		w.definedNames(kids[i], 0, &out)
	}
	return out
}

// statements gives a container's named children and their start rows.
func statements(container *node) ([]*node, []int) {
	kids := namedChildren(container)
	starts := make([]int, len(kids))
	for i, k := range kids {
		starts[i] = startRow(k)
	}
	return kids, starts
}

func (w *walker) definedNames(n *node, depth int, out *[]named) {
	// A leaf defines nothing, nor does anything in a macro's token tree
	// (Rust's: its tokens are never parsed into declarations); neither
	// is worth the calls into the tree that would find it out.
	if depth > 3 || n.ChildCount() == 0 {
		return
	}
	src := w.f.src
	var add func(x *node)
	add = func(x *node) {
		if x == nil {
			return
		}
		switch x.Type() {
		case "identifier", "field_identifier", "type_identifier", "constant", "property_identifier",
			"shorthand_property_identifier_pattern":
			if name := x.Content(src); len(name) >= minNameLen {
				*out = append(*out, named{name, startRow(x)})
			}
		case "pattern_list", "tuple_pattern", "expression_list", "identifier_list":
			for _, c := range namedChildren(x) {
				if c.Type() == "identifier" {
					if name := c.Content(src); len(name) >= minNameLen {
						*out = append(*out, named{name, startRow(c)})
					}
				}
			}
		case "array_pattern", "object_pattern", "rest_pattern":
			// JavaScript's let [a, b] = ... and const {a, b: c, ...d}
			// = ... bind every name the pattern holds.
			for _, c := range namedChildren(x) {
				add(c)
			}
		case "pair_pattern":
			add(x.ChildByFieldName("value"))
		case "assignment_pattern", "object_assignment_pattern":
			add(x.ChildByFieldName("left"))
		}
	}
	t := n.Type()
	if w.g.name == "python" && depth > 0 {
		// Python's if, try, with and for open no scope: what their
		// blocks define is the module's (or the class's), as a function
		// defined only where an import failed is.
		switch t {
		case "function_definition", "class_definition":
			add(n.ChildByFieldName("name"))
			return
		case "block":
			for _, kid := range namedChildren(n) {
				w.definedNames(kid, depth, out)
			}
			return
		}
	}
	switch t {
	case "token_tree":
		return
	case "assignment", "assignment_expression", "augmented_assignment":
		add(n.ChildByFieldName("left"))
		// a = b = 1 assigns both: the right side is an assignment too.
		for r := n.ChildByFieldName("right"); r != nil && r.Type() == t; r = r.ChildByFieldName("right") {
			add(r.ChildByFieldName("left"))
		}
		return
	case "function_item", "function_signature_item":
		// Rust's: its name, and nothing its signature names (a result
		// type's name is not defined here).
		add(n.ChildByFieldName("name"))
		return
	case "package_declaration", "package_clause", "import_declaration", "import_statement", "import_from_statement",
		"future_import_statement", "use_declaration", "preproc_include", "extern_crate_declaration",
		// export { ref, watch } (from './ref') lists names declared
		// elsewhere, in this module or the one it names: a barrel
		// file's index.ts defines none of what it re-exports.
		"export_clause":
		return
	case "call", "call_expression", "argument_list", "arguments", "block", "compound_statement",
		"statement_block", "lambda", "arrow_function", "function_definition", "function_declaration":
		return
	}
	if t == "field_definition" {
		// A JavaScript class field (count = 2, static count = 2).
		add(n.ChildByFieldName("property"))
	}
	if t == "var_spec" || t == "const_spec" {
		// Go's var a, b = 1, 2 declares every name it lists.
		for _, nm := range fieldChildren(n, "name") {
			add(nm)
		}
	} else if t != "preproc_ifdef" && t != "preproc_elifdef" {
		// #ifdef NAME and #ifndef NAME ask whether NAME is defined;
		// they define nothing (the branches may).
		add(n.ChildByFieldName("name"))
	}
	if t == "init_declarator" || t == "variable_declarator" || t == "declaration" || t == "field_declaration" {
		if d := n.ChildByFieldName("declarator"); d != nil {
			if nm := declaratorName(d, src); nm != "" && len(nm) >= minNameLen && !strings.Contains(nm, ".") {
				*out = append(*out, named{nm, startRow(d)})
			}
		}
	}
	// What a transparent node holds (an extern "C" block's declarations,
	// a conditional's branch) is read as if it stood where the node does.
	next := depth + 1
	if w.g.transparent[t] {
		next = depth
	}
	for _, kid := range namedChildren(n) {
		w.definedNames(kid, next, out)
	}
}

// names fills Defines, References, Imports and Calls of the units built
// from spans: definitions and tree-found imports by row, references and
// calls by lexing each unit's text.
func (w *walker) names(spans []span, res *Result) {
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
	imps := make([][]string, n)
	for _, s := range spans {
		for _, d := range s.defs {
			if u := unitOf(d.row); u >= 0 && len(d.name) >= minNameLen {
				if defs[u] == nil {
					defs[u] = map[string]bool{}
				}
				defs[u][d.name] = true
			}
		}
	}
	for _, im := range w.imports {
		if u := unitOf(im.row); u >= 0 {
			imps[u] = append(imps[u], im.name)
		}
	}
	for i := range res.Units {
		u := &res.Units[i]
		refs, calls := lexNames(u.Content, w.g.name, w.packages, w.g.platform)
		u.Defines = sortedKeys(defs[i], nil)
		u.References = without(refs, defs[i])
		res.Calls[i] = without(calls, defs[i])
		u.Imports = uniqueSorted(append(imps[i], lexImports(u.Content, w.g.name)...))
	}
}

// without returns the names not in except, sorted.
func without(names []string, except map[string]bool) []string {
	out := names[:0]
	for _, n := range names {
		if !except[n] {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil
	}
	sort.Strings(out)
	return out
}

// importNames returns the module names an import statement names.
func (w *walker) importNames(n *node) []string {
	src := w.f.src
	var out []string
	switch n.Type() {
	case "import_statement": // python: import a.b as c; js/ts: import x from "m"
		if s := n.ChildByFieldName("source"); s != nil {
			return []string{unquote(s.Content(src))}
		}
		for _, c := range namedChildren(n) {
			switch c.Type() {
			case "dotted_name":
				mod := c.Content(src)
				out = append(out, mod)
				if top, ok := w.stdlibRoot(mod, "."); ok {
					w.addPackage(top) // import os.path binds os
				}
			case "aliased_import":
				if nm := c.ChildByFieldName("name"); nm != nil {
					mod := nm.Content(src)
					out = append(out, mod)
					if _, ok := w.stdlibRoot(mod, "."); ok {
						if a := c.ChildByFieldName("alias"); a != nil {
							w.addPackage(a.Content(src))
						}
					}
				}
			}
		}
	case "import_from_statement":
		mod := ""
		if m := n.ChildByFieldName("module_name"); m != nil {
			mod = m.Content(src)
			out = append(out, mod)
		}
		_, std := w.stdlibRoot(mod, ".")
		for _, c := range fieldChildren(n, "name") {
			if c.Type() == "aliased_import" {
				if a := c.ChildByFieldName("alias"); a != nil && std {
					w.addPackage(a.Content(src))
				}
				c = c.ChildByFieldName("name")
			} else if c != nil && std {
				w.addPackage(c.Content(src)) // from os import path
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
			var specs func(x *node)
			specs = func(x *node) {
				if x.Type() == "import_spec" {
					if p := x.ChildByFieldName("path"); p != nil {
						path := unquote(p.Content(src))
						out = append(out, path)
						name := goPackageName(path)
						if a := x.ChildByFieldName("name"); a != nil {
							name = a.Content(src) // an alias; "_" and "." name nothing
						}
						// Only the standard library's packages are surely
						// not the repository's.
						if _, ok := w.stdlibRoot(path, "/"); ok && name != "_" {
							w.addPackage(name)
						}
					}
					return
				}
				for _, kid := range namedChildren(x) {
					specs(kid)
				}
			}
			specs(n)
		} else { // java
			for _, c := range namedChildren(n) {
				if c.Type() == "scoped_identifier" || c.Type() == "identifier" {
					path := c.Content(src)
					out = append(out, path)
					// A class of the Java platform qualifies what it
					// selects (Objects.equals); a static import of a
					// method names no class.
					if _, ok := w.stdlibRoot(path, "."); ok {
						if cls := path[strings.LastIndexByte(path, '.')+1:]; cls != "" && cls[0] >= 'A' && cls[0] <= 'Z' {
							w.addPackage(cls)
						}
					}
				}
			}
		}
	case "use_declaration":
		// Read from the source, from the path's start to the ";": a
		// masked parse reads only the path's first name.
		if a := n.ChildByFieldName("argument"); a != nil {
			end := int(n.EndByte())
			if end > int(a.StartByte()) && src[end-1] == ';' {
				end--
			}
			out = append(out, strings.Join(strings.Fields(string(src[a.StartByte():max(end, int(a.EndByte()))])), ""))
		}
	case "extern_crate_declaration":
		if nm := n.ChildByFieldName("name"); nm != nil {
			out = append(out, nm.Content(src))
		}
	case "mod_item":
		// mod plan; declares the module in plan.rs (or plan/mod.rs)
		// beside the file, as use self::plan names it; a module with a
		// body (mod tests { … }) is in the file itself.
		if nm := n.ChildByFieldName("name"); nm != nil && n.ChildByFieldName("body") == nil {
			out = append(out, "self::"+nm.Content(src))
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

// stdlibRoot is an import path's first element (elements split by sep),
// and whether it is one of the language's standard library.
func (w *walker) stdlibRoot(path, sep string) (string, bool) {
	first, _, _ := strings.Cut(path, sep)
	return first, w.g.stdlib[first]
}

// addPackage records a name an import of the standard library binds
// (walker.packages); what is no identifier names nothing.
func (w *walker) addPackage(name string) {
	if !isIdent(name) {
		return
	}
	if w.packages == nil {
		w.packages = set{}
	}
	w.packages[name] = true
}

// goPackageName is the name a standard-library import path is used by
// when the import gives none: its last element, less a major version
// (math/rand/v2 is rand).
func goPackageName(path string) string {
	parts := strings.Split(path, "/")
	name := parts[len(parts)-1]
	if len(parts) > 1 && len(name) > 1 && name[0] == 'v' && strings.Trim(name[1:], "0123456789") == "" {
		name = parts[len(parts)-2]
	}
	return name
}

// isIdent says whether s is an ASCII identifier as Go and Java read one
// (no "$").
func isIdent(s string) bool {
	if s == "" || !isIdentStart(s[0]) || s[0] == '$' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdentPart(s[i]) || s[i] == '$' {
			return false
		}
	}
	return true
}
