package index

import (
	"path"
	"sort"
	"strings"

	"github.com/missingcomplement/mss/segment"
)

// resolver maps import strings to repository files.
type resolver struct {
	files  map[string]string   // path -> anything
	suffix map[string][]string // "/"-suffix of a path -> paths
	dirs   map[string][]string // directory -> its files
	// dirSuffix maps a directory's path and each "/"-suffix of it to the
	// directories that end so, in order.
	dirSuffix map[string][]string

	// From the manifests (manifest.go): the TypeScript or JavaScript
	// compiler options of each directory whose config gives paths or a
	// baseUrl (itself or through the files it extends); the workspace's
	// packages by name; each crate's root file by the crate's name and by
	// its manifest's directory.
	tsOptionsAt map[string]*tsOptions
	packages    map[string]*jsPackage
	crates      map[string]string
	crateAt     map[string]string
	// goMods are the Go modules go.mod files declare, the longest path
	// first.
	goMods []goModule
}

// newResolver resolves imports to files, the keys of files, by the
// languages' rules and the manifests' texts (by path).
func newResolver(files map[string]string, manifests map[string]string) *resolver {
	r := &resolver{files: files, suffix: map[string][]string{}, dirs: map[string][]string{}, dirSuffix: map[string][]string{},
		tsOptionsAt: map[string]*tsOptions{}, packages: map[string]*jsPackage{},
		crates: map[string]string{}, crateAt: map[string]string{}}
	tsConfigs, tsConfigAt := map[string]*tsConfig{}, map[string]*tsConfig{}
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
	mpaths := make([]string, 0, len(manifests))
	for p := range manifests {
		mpaths = append(mpaths, p)
	}
	sort.Strings(mpaths)
	for _, p := range mpaths {
		text := manifests[p]
		switch b := path.Base(p); {
		case b == "package.json":
			// Of two packages of one name, the one nearer the root.
			if pk := parsePackageJSON(p, text); pk != nil {
				if old, ok := r.packages[pk.name]; !ok || depth(pk.dir) < depth(old.dir) {
					r.packages[pk.name] = pk
				}
			}
		case b == "go.mod":
			if m := goModulePath(text); m != "" {
				r.goMods = append(r.goMods, goModule{m, path.Dir(p)})
			}
		case b == "Cargo.toml":
			name, root, ok := cargoCrate(p, text)
			if !ok {
				continue
			}
			d := path.Dir(p)
			if root == "" {
				root = path.Join(d, "src/lib.rs")
				if _, ok := files[root]; !ok {
					root = path.Join(d, "src/main.rs")
				}
			}
			if _, ok := files[root]; !ok {
				continue
			}
			r.crateAt[d] = root
			if old, ok := r.crates[name]; !ok || depth(root) < depth(old) {
				r.crates[name] = root
			}
		default:
			if c := parseTSConfig(p, text); c != nil {
				tsConfigs[p] = c
				// tsconfig.json, the compiler's own, is the directory's;
				// else jsconfig.json.
				if b == "tsconfig.json" || b == "jsconfig.json" && tsConfigAt[c.dir] == nil {
					tsConfigAt[c.dir] = c
				}
			}
		}
	}
	for dir, c := range tsConfigAt {
		if o := c.options(tsConfigs); o.paths != nil || o.baseURL != "" {
			r.tsOptionsAt[dir] = o
		}
	}
	sort.SliceStable(r.goMods, func(i, j int) bool { return len(r.goMods[i].path) > len(r.goMods[j].path) })
	return r
}

// depth is the number of directories above p.
func depth(p string) int {
	if p == "." {
		return 0
	}
	return strings.Count(p, "/") + 1
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
		if strings.HasPrefix(imp, ".") {
			return r.jsFile(path.Join(dir, imp), from)
		}
		return r.jsBare(from, imp)
	case "go":
		return r.goPackage(imp)
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
		return r.rust(from, imp)
	case "c", "cpp":
		if m := r.lookup(path.Join(dir, imp)); m != nil {
			return m
		}
		if m := r.lookup(imp); m != nil {
			return m
		}
		return nearest(dir, r.suffix[imp])
	}
	return nil
}

// jsFile finds the file a relative import names, resolved to p, as seen
// from the importing file from.
func (r *resolver) jsFile(p, from string) []string {
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
}

// jsBare resolves a bare specifier (@vue/shared, lodash/fp, @/util): by
// the compiler options that apply to the importing file (paths, then
// baseUrl), then by the name of a workspace package. A package's own
// module is its source entry (package.json's source, else src/index),
// else the file its module, main or types names, else its index; a
// subpath is looked for in the package's directory, then in its src.
// The code comes before its declarations: main before types.
// Anything else is no file of the repository's.
func (r *resolver) jsBare(from, spec string) []string {
	if o := r.tsOptionsFor(path.Dir(from)); o != nil {
		for _, e := range o.paths {
			if ts := e.match(spec); ts != nil {
				for _, t := range ts {
					if f := r.jsFile(t, from); f != nil {
						return f
					}
				}
				break
			}
		}
		if o.baseURL != "" {
			if f := r.jsFile(path.Join(o.baseURL, spec), from); f != nil {
				return f
			}
		}
	}
	name, sub := spec, ""
	for {
		if pk := r.packages[name]; pk != nil {
			if sub != "" {
				return r.firstJSFile(from, path.Join(pk.dir, sub), path.Join(pk.dir, "src", sub))
			}
			var cands []string
			if pk.source != "" {
				cands = append(cands, pk.source)
			}
			cands = append(cands, path.Join(pk.dir, "src"))
			cands = append(cands, pk.entries...)
			cands = append(cands, path.Join(pk.dir, "index"))
			return r.firstJSFile(from, cands...)
		}
		i := strings.LastIndexByte(name, '/')
		if i <= 0 {
			return nil
		}
		name, sub = name[:i], path.Join(name[i+1:], sub)
	}
}

// firstJSFile is the file of the first of ps that names one.
func (r *resolver) firstJSFile(from string, ps ...string) []string {
	for _, p := range ps {
		if f := r.jsFile(p, from); f != nil {
			return f
		}
	}
	return nil
}

// tsOptionsFor is the compiler options that apply in dir: those of the
// nearest directory at or above it whose config gives paths or a baseUrl.
func (r *resolver) tsOptionsFor(dir string) *tsOptions {
	for {
		if o := r.tsOptionsAt[dir]; o != nil {
			return o
		}
		if dir == "." || dir == "/" {
			return nil
		}
		dir = path.Dir(dir)
	}
}

// rust resolves a use path (crate::a::b, super::x, rand_core::block::
// BlockRng) to the file of the deepest module it names: from the
// importing file's crate root, its own module, a parent module, or the
// root of a crate of the workspace named first, each module found as
// name.rs or name/mod.rs below the module before it. A path that starts
// with none of those is looked for by path suffix.
func (r *resolver) rust(from, imp string) []string {
	var parts []string
	for _, p := range strings.Split(strings.SplitN(imp, "{", 2)[0], "::") {
		if p = strings.TrimSpace(p); p != "" && p != "*" {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return nil
	}
	root := r.crateRootOf(from)
	var file, children string
	switch {
	case parts[0] == "crate" && root != "":
		file, children, parts = root, path.Dir(root), parts[1:]
	case parts[0] == "self":
		file, children, parts = from, rustChildren(from), parts[1:]
	case parts[0] == "super":
		file, children = from, rustChildren(from)
		for len(parts) > 0 && parts[0] == "super" {
			children = path.Dir(children)
			file, parts = r.rustModule(children, root), parts[1:]
			if file == "" {
				return nil
			}
		}
	case r.crates[parts[0]] != "":
		file = r.crates[parts[0]]
		children, parts = path.Dir(file), parts[1:]
	default:
		return r.rustSuffix(parts)
	}
	for _, seg := range parts {
		c := path.Join(children, seg)
		if _, ok := r.files[c+".rs"]; ok {
			file, children = c+".rs", c
		} else if _, ok := r.files[c+"/mod.rs"]; ok {
			file, children = c+"/mod.rs", c
		} else {
			break
		}
	}
	return []string{file}
}

// rustSuffix resolves a use path by its modules' path suffix: the
// longest prefix of parts that names a file a/b.rs or a/b/mod.rs
// somewhere in the repository, and only there.
func (r *resolver) rustSuffix(parts []string) []string {
	var clean []string
	for _, p := range parts {
		if p != "crate" && p != "self" && p != "super" {
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
}

// crateRootOf is the root file of the crate whose manifest is nearest
// above f, or "".
func (r *resolver) crateRootOf(f string) string {
	for d := path.Dir(f); ; d = path.Dir(d) {
		if root, ok := r.crateAt[d]; ok {
			return root
		}
		if d == "." || d == "/" {
			return ""
		}
	}
}

// rustChildren is the directory of the modules a Rust file declares:
// its own for a crate root or a mod.rs, else the one its name gives
// (src/a/b.rs declares src/a/b/c.rs).
func rustChildren(f string) string {
	switch path.Base(f) {
	case "mod.rs", "lib.rs", "main.rs":
		return path.Dir(f)
	}
	return strings.TrimSuffix(f, ".rs")
}

// rustModule is the file of the module whose children live in dir: the
// crate root when dir is the root's, else dir.rs or dir/mod.rs; "" when
// none is a file.
func (r *resolver) rustModule(dir, root string) string {
	if root != "" && dir == path.Dir(root) {
		return root
	}
	for _, c := range []string{dir + ".rs", dir + "/mod.rs", dir + "/lib.rs", dir + "/main.rs"} {
		if _, ok := r.files[c]; ok {
			return c
		}
	}
	return ""
}

// goPackage resolves a Go import path to its package's files (not its
// tests). Under a module a go.mod declares, the path names a directory
// below the module's; where no go.mod is known, the longest suffix of the
// path that is a directory. With modules known, a path under none of them
// is another module's (the standard library's, a dependency's), and no
// file of the repository.
func (r *resolver) goPackage(imp string) []string {
	dir, found := "", false
	for _, m := range r.goMods {
		if imp == m.path {
			dir, found = m.dir, true
		} else if rest, ok := strings.CutPrefix(imp, m.path+"/"); ok {
			dir, found = path.Join(m.dir, rest), true
		}
		if found {
			break
		}
	}
	if !found {
		if len(r.goMods) > 0 {
			return nil
		}
		parts := strings.Split(imp, "/")
		for k := 0; k < len(parts) && !found; k++ {
			if _, ok := r.dirs[strings.Join(parts[k:], "/")]; ok {
				dir, found = strings.Join(parts[k:], "/"), true
			}
		}
	}
	var out []string
	for _, f := range r.dirs[dir] {
		if strings.HasSuffix(f, ".go") && !strings.HasSuffix(f, "_test.go") {
			out = append(out, f)
		}
	}
	return out
}

// nearest is the one of paths whose directory shares the most leading
// directories with dir (libgit2's src/cli/unix/sighandler.c includes the
// common.h of src/cli/, not that of src/libgit2/ or include/git2/), or
// nil when none shares more than the others.
func nearest(dir string, paths []string) []string {
	best, bestN, tied := "", -1, false
	for _, p := range paths {
		n := sharedDirs(dir, path.Dir(p))
		switch {
		case n > bestN:
			best, bestN, tied = p, n, false
		case n == bestN:
			tied = true
		}
	}
	if best == "" || tied {
		return nil
	}
	return []string{best}
}

// sharedDirs counts the leading directories a and b share.
func sharedDirs(a, b string) int {
	if a == "." || b == "." {
		return 0
	}
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	n := 0
	for n < len(as) && n < len(bs) && as[n] == bs[n] {
		n++
	}
	return n
}
