package index

import (
	"bytes"
	"encoding/json"
	"path"
	"sort"
	"strings"
)

// A repository's manifests say how its imports resolve where the
// language's own rules cannot: a TypeScript or JavaScript project's
// compiler options map bare specifiers to its directories (paths and
// baseUrl of tsconfig.json or jsconfig.json), a workspace's packages are
// imported by the names their package.json files give, a Cargo
// workspace's crates by their Cargo.toml names, and a Go module's
// packages by the path its go.mod declares. The index holds these
// files' text as it holds any other file's, and the resolver reads them
// from there.

// manifestFile reports whether the resolver reads p's text.
func manifestFile(p string) bool {
	b := path.Base(p)
	if b == "package.json" || b == "Cargo.toml" || b == "go.mod" {
		return true
	}
	return (strings.HasPrefix(b, "tsconfig") || strings.HasPrefix(b, "jsconfig")) && strings.HasSuffix(b, ".json")
}

// manifestLike is an SQL condition on a unit's path that holds for every
// manifest's (and for some other files': manifestFile decides).
const manifestLike = `(path LIKE '%.json' OR path LIKE '%Cargo.toml' OR path LIKE '%go.mod')`

// manifestTexts joins the texts of rows of manifest files, by path. The
// rows are in path and line order (edgesOf), and a file's units tile it.
func manifestTexts(rows []nameRow) map[string]string {
	out := map[string]string{}
	for _, r := range rows {
		if r.text != "" {
			out[r.path] += r.text
		}
	}
	return out
}

// tsConfig is what resolution reads of a tsconfig.json or jsconfig.json.
type tsConfig struct {
	dir     string   // the file's directory
	baseURL string   // the resolved baseUrl, "" when unset
	paths   []tsPath // longest prefix first
	hasPath bool
	extends []string // the resolved paths of the files it extends, in order
}

// tsPath is one entry of compilerOptions.paths: a pattern with at most
// one "*", and the directories it maps to, resolved against the
// repository root.
type tsPath struct {
	prefix, suffix string
	star           bool
	targets        []string
}

// parseTSConfig reads a tsconfig.json or jsconfig.json, which may hold
// comments and trailing commas; nil when it does not parse.
func parseTSConfig(p, text string) *tsConfig {
	var raw struct {
		Extends         json.RawMessage `json:"extends"`
		CompilerOptions struct {
			BaseURL *string             `json:"baseUrl"`
			Paths   map[string][]string `json:"paths"`
		} `json:"compilerOptions"`
	}
	if json.Unmarshal(plainJSON(text), &raw) != nil {
		return nil
	}
	dir := path.Dir(p)
	c := &tsConfig{dir: dir}
	// extends names a file or, since TypeScript 5.0, a list of them; a
	// package's configuration (@tsconfig/node18) is none of the
	// repository's.
	var exts []string
	if json.Unmarshal(raw.Extends, &exts) != nil {
		var one string
		if json.Unmarshal(raw.Extends, &one) == nil {
			exts = []string{one}
		}
	}
	for _, ext := range exts {
		if !strings.HasPrefix(ext, ".") {
			continue
		}
		if !strings.HasSuffix(ext, ".json") {
			ext += ".json"
		}
		c.extends = append(c.extends, path.Join(dir, ext))
	}
	if b := raw.CompilerOptions.BaseURL; b != nil {
		c.baseURL = path.Join(dir, *b) // never "": dir is at least "."
	}
	if raw.CompilerOptions.Paths != nil {
		c.hasPath = true
		// Targets are relative to baseUrl when it is set, else to the
		// file that gives them.
		root := dir
		if c.baseURL != "" {
			root = c.baseURL
		}
		for pat, ts := range raw.CompilerOptions.Paths {
			if strings.Count(pat, "*") > 1 {
				continue
			}
			e := tsPath{prefix: pat}
			if i := strings.IndexByte(pat, '*'); i >= 0 {
				e = tsPath{prefix: pat[:i], suffix: pat[i+1:], star: true}
			}
			for _, t := range ts {
				e.targets = append(e.targets, path.Join(root, t))
			}
			c.paths = append(c.paths, e)
		}
		// The longest prefix wins, as TypeScript matches; an exact
		// pattern before a wildcard of the same prefix.
		sort.Slice(c.paths, func(i, j int) bool {
			a, b := c.paths[i], c.paths[j]
			if len(a.prefix) != len(b.prefix) {
				return len(a.prefix) > len(b.prefix)
			}
			if a.star != b.star {
				return !a.star
			}
			return a.prefix+a.suffix < b.prefix+b.suffix
		})
	}
	return c
}

// tsOptions are the compiler options resolution reads from a config and
// the files it extends: paths (longest prefix first) and baseUrl ("" when
// none gives it).
type tsOptions struct {
	paths   []tsPath
	baseURL string
}

// options resolves c's options through the files it extends (configs, by
// path): each is c's own, or that of the nearest extended file that
// gives it, depth first from the last of a list, as later files override
// earlier ones.
func (c *tsConfig) options(configs map[string]*tsConfig) *tsOptions {
	o := &tsOptions{}
	if p := c.extended(configs, func(x *tsConfig) bool { return x.hasPath }); p != nil {
		o.paths = p.paths
	}
	if b := c.extended(configs, func(x *tsConfig) bool { return x.baseURL != "" }); b != nil {
		o.baseURL = b.baseURL
	}
	return o
}

// extended is the first of c and the files it extends, depth first from
// the last of a list, that has what has asks for; each file is visited
// once, which also ends a cycle.
func (c *tsConfig) extended(configs map[string]*tsConfig, has func(*tsConfig) bool) *tsConfig {
	seen := map[*tsConfig]bool{}
	var find func(c *tsConfig) *tsConfig
	find = func(c *tsConfig) *tsConfig {
		if c == nil || seen[c] {
			return nil
		}
		seen[c] = true
		if has(c) {
			return c
		}
		for i := len(c.extends) - 1; i >= 0; i-- {
			if f := find(configs[c.extends[i]]); f != nil {
				return f
			}
		}
		return nil
	}
	return find(c)
}

// match gives the paths a specifier maps to by e, or nil.
func (e tsPath) match(spec string) []string {
	if !e.star {
		if spec != e.prefix {
			return nil
		}
		return e.targets
	}
	if len(spec) < len(e.prefix)+len(e.suffix) || !strings.HasPrefix(spec, e.prefix) || !strings.HasSuffix(spec, e.suffix) {
		return nil
	}
	mid := spec[len(e.prefix) : len(spec)-len(e.suffix)]
	out := make([]string, len(e.targets))
	for i, t := range e.targets {
		out[i] = path.Clean(strings.Replace(t, "*", mid, 1))
	}
	return out
}

// plainJSON turns JSON with comments and trailing commas (as tsconfig
// files are written) into JSON.
func plainJSON(text string) []byte {
	var b bytes.Buffer
	in := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case in:
			b.WriteByte(c)
			if c == '\\' && i+1 < len(text) {
				i++
				b.WriteByte(text[i])
			} else if c == '"' {
				in = false
			}
		case c == '"':
			in = true
			b.WriteByte(c)
		case c == '/' && i+1 < len(text) && text[i+1] == '/':
			for i < len(text) && text[i] != '\n' {
				i++
			}
			b.WriteByte('\n')
		case c == '/' && i+1 < len(text) && text[i+1] == '*':
			end := strings.Index(text[i+2:], "*/")
			if end < 0 {
				i = len(text)
			} else {
				i += end + 3
			}
			b.WriteByte(' ')
		case c == ',':
			// A comma whose next token closes an object or array is
			// dropped.
			j := i + 1
			for j < len(text) && strings.IndexByte(" \t\r\n", text[j]) >= 0 {
				j++
			}
			if j < len(text) && (text[j] == '}' || text[j] == ']') {
				continue
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.Bytes()
}

// jsPackage is a workspace package: its name and directory, and the
// files its package.json names as its entry: the source, then those of
// module, main and types (or typings), resolved.
type jsPackage struct {
	name, dir, source string
	entries           []string
}

func parsePackageJSON(p, text string) *jsPackage {
	var raw struct {
		Name    string `json:"name"`
		Source  string `json:"source"`
		Types   string `json:"types"`
		Typings string `json:"typings"`
		Module  string `json:"module"`
		Main    string `json:"main"`
	}
	if json.Unmarshal([]byte(text), &raw) != nil || raw.Name == "" {
		return nil
	}
	dir := path.Dir(p)
	pk := &jsPackage{name: raw.Name, dir: dir}
	if raw.Source != "" {
		pk.source = path.Join(dir, raw.Source)
	}
	for _, e := range []string{raw.Module, raw.Main, raw.Types, raw.Typings} {
		if e != "" {
			pk.entries = append(pk.entries, path.Join(dir, e))
		}
	}
	return pk
}

// cargoCrate reads a Cargo.toml's crate: its name as code writes it
// (dashes as underscores) and its root file; ok is false for a manifest
// without a [package] (a workspace's root).
func cargoCrate(p, text string) (name, root string, ok bool) {
	dir := path.Dir(p)
	section, libName, libPath := "", "", ""
	for line := range strings.Lines(text) {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			// [package], [[bin]], [lib] # a comment
			section, _, _ = strings.Cut(strings.TrimLeft(t, "["), "]")
			section = strings.TrimSpace(section)
			continue
		}
		k, v, found := strings.Cut(t, "=")
		if !found {
			continue
		}
		k = strings.TrimSpace(k)
		v = strings.TrimSpace(v)
		// A basic or a literal string ("x" or 'x'); anything else is
		// no name or path.
		if len(v) < 2 || v[0] != '"' && v[0] != '\'' {
			continue
		}
		end := strings.IndexByte(v[1:], v[0])
		if end < 0 {
			continue
		}
		v = v[1 : 1+end]
		switch {
		case section == "package" && k == "name":
			name, ok = v, true
		case section == "lib" && k == "name":
			libName = v
		case section == "lib" && k == "path":
			libPath = v
		}
	}
	if libName != "" {
		name = libName
	}
	if libPath != "" {
		root = path.Join(dir, libPath)
	}
	return strings.ReplaceAll(name, "-", "_"), root, ok && name != ""
}

// goModule is a Go module: its path and its go.mod's directory.
type goModule struct{ path, dir string }

// goModulePath is the module path a go.mod declares, or "".
func goModulePath(text string) string {
	for line := range strings.Lines(text) {
		t := strings.TrimSpace(line)
		if i := strings.Index(t, "//"); i >= 0 {
			t = strings.TrimSpace(t[:i])
		}
		rest, ok := strings.CutPrefix(t, "module")
		if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t' && rest[0] != '"') {
			continue
		}
		return strings.Trim(strings.TrimSpace(rest), "\"`")
	}
	return ""
}
