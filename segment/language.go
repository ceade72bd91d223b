package segment

import (
	"path"
	"regexp"
	"slices"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/cpp"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

// grammar describes how one language's syntax tree maps onto units. Node
// type names are the tree-sitter grammar's.
type grammar struct {
	name     string
	language func() *sitter.Language

	// funcs are function-like definitions: one unit each ("function", or
	// "method" inside a class).
	funcs set
	// classes are containers whose member definitions become their own
	// units; the remaining lines (header, fields) become "class" units.
	classes set
	// types are type definitions kept whole as one "type" unit (Go type
	// declarations, Rust structs, TypeScript interfaces).
	types set
	// transparent nodes (namespaces, preprocessor conditionals, extern
	// blocks, modules) are looked through: their definitions are found
	// inside, their other lines belong to the enclosing run.
	transparent set
	// wrappers carry one definition and belong to it (decorators, export,
	// templates): the unit spans the wrapper, kind and name come from the
	// definition inside.
	wrappers set
	// attach are nodes that belong to the definition that directly follows
	// them: comments, attributes, decorators.
	attach set
	// imports are import statements; their module names go to Imports.
	imports set
	// mask, when set, masks the file's function bodies for the parse
	// (see mask.go).
	mask func(src []byte) (masked, bool)
	// platform are the names of the platform a file uses without
	// importing them (java.lang's classes, JavaScript's global objects):
	// what one selects (Math.max) is not the unit's reference (see
	// lexNames).
	platform set
	// stdlib are the first elements of the standard library's import
	// paths (Go's, Python's, Java's java and javax): what a file imports
	// from one qualifies what it selects (walker.importNames).
	stdlib set
	// testMark, when set, matches a line of the attributes that open a
	// definition and make it test code wherever its file is (Rust's
	// #[test] functions and #[cfg(test)] modules beside the source they
	// test); see TestCode.
	testMark *regexp.Regexp
	// attrLine matches a line that is an attribute or decorator alone,
	// part of what opens a definition (TestCode reads past them).
	attrLine *regexp.Regexp
	// macroTests: a macro in capitals with a body at the top of a file
	// is a test, a unit of its own named by the macro's head (C and C++:
	// TEST(Suite, Name) { … }, TEST_CASE("name") { … }; testmacro.go).
	macroTests bool
}

type set map[string]bool

func newSet(names ...string) set {
	s := set{}
	for _, n := range names {
		s[n] = true
	}
	return s
}

var (
	pythonGrammar = &grammar{
		name:        "python",
		language:    python.GetLanguage,
		funcs:       newSet("function_definition"),
		classes:     newSet("class_definition"),
		types:       newSet(),
		wrappers:    newSet("decorated_definition"),
		attach:      newSet("comment"),
		imports:     newSet("import_statement", "import_from_statement", "future_import_statement"),
		transparent: newSet("ERROR"),
		mask:        maskPythonBodies,
		stdlib:      pyStdlib,
	}
	goGrammar = &grammar{
		name:        "go",
		language:    golang.GetLanguage,
		funcs:       newSet("function_declaration", "method_declaration"),
		classes:     newSet(),
		types:       newSet("type_declaration"),
		transparent: newSet("ERROR"),
		wrappers:    newSet(),
		attach:      newSet("comment"),
		imports:     newSet("import_declaration"),
		mask:        maskGoBodies,
		stdlib:      goStdRoots,
	}
	jsFuncs   = []string{"function_declaration", "generator_function_declaration", "method_definition", "function_signature", "abstract_method_signature"}
	jsImports = []string{"import_statement", "export_statement"}
	// jsGlobals are the global objects of the language and of Node.
	jsGlobals = newSet("Array", "BigInt", "Boolean", "Buffer", "Date", "Error", "Intl", "JSON", "Map", "Math",
		"Number", "Object", "Promise", "Proxy", "Reflect", "RegExp", "Set", "String", "Symbol", "WeakMap", "WeakSet",
		"console", "globalThis", "process")
	javascriptGrammar = &grammar{
		name:        "javascript",
		language:    javascript.GetLanguage,
		funcs:       newSet(jsFuncs...),
		classes:     newSet("class_declaration", "class"),
		types:       newSet(),
		transparent: newSet("ERROR"),
		wrappers:    newSet("export_statement"),
		attach:      newSet("comment", "decorator"),
		imports:     newSet(jsImports...),
		platform:    jsGlobals,
	}
	typescriptGrammar = &grammar{
		name:        "typescript",
		language:    typescript.GetLanguage,
		funcs:       newSet(jsFuncs...),
		classes:     newSet("class_declaration", "abstract_class_declaration", "class"),
		types:       newSet("interface_declaration", "type_alias_declaration", "enum_declaration"),
		transparent: newSet("ERROR", "internal_module", "module", "ambient_declaration", "statement_block"),
		wrappers:    newSet("export_statement"),
		attach:      newSet("comment", "decorator"),
		imports:     newSet(jsImports...),
		platform:    jsGlobals,
	}
	javaGrammar = &grammar{
		name:        "java",
		language:    java.GetLanguage,
		funcs:       newSet("method_declaration", "constructor_declaration", "compact_constructor_declaration"),
		classes:     newSet("class_declaration", "interface_declaration", "enum_declaration", "record_declaration", "annotation_type_declaration"),
		types:       newSet(),
		transparent: newSet("ERROR", "enum_body_declarations"),
		wrappers:    newSet(),
		attach:      newSet("line_comment", "block_comment"),
		imports:     newSet("import_declaration"),
		mask:        maskJavaBodies,
		platform: newSet("Boolean", "Byte", "Character", "Class", "Double", "Float", "Integer", "Long",
			"Math", "Object", "Runtime", "Short", "StrictMath", "String", "StringBuilder", "System", "Thread"),
		stdlib: newSet("java", "javax"),
	}
	rustGrammar = &grammar{
		name:        "rust",
		language:    rust.GetLanguage,
		funcs:       newSet("function_item", "function_signature_item", "macro_definition"),
		classes:     newSet("impl_item", "trait_item"),
		types:       newSet("struct_item", "enum_item", "union_item", "type_item"),
		transparent: newSet("ERROR", "mod_item", "foreign_mod_item", "declaration_list"),
		wrappers:    newSet(),
		attach:      newSet("line_comment", "block_comment", "attribute_item"),
		imports:     newSet("use_declaration", "extern_crate_declaration", "mod_item"),
		mask:        maskRustBodies,
		// #[test], #[bench], #[tokio::test], #[rstest], #[test_case(..)],
		// and code compiled only for tests: #[cfg(test)], #[cfg(all(test, ..))].
		testMark: regexp.MustCompile(`^\s*#\[\s*(cfg\s*\(\s*(all\s*\(\s*)?test\b|([A-Za-z_]\w*::)*(test|bench|rstest|test_case|quickcheck|proptest)\b)`),
		attrLine: regexp.MustCompile(`^\s*#!?\[.*\]\s*$`),
	}
	cGrammar = &grammar{
		name:        "c",
		language:    c.GetLanguage,
		funcs:       newSet("function_definition"),
		classes:     newSet(),
		types:       newSet("struct_specifier", "union_specifier", "enum_specifier", "type_definition"),
		transparent: newSet("ERROR", "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "linkage_specification", "declaration_list"),
		wrappers:    newSet("declaration"),
		attach:      newSet("comment"),
		imports:     newSet("preproc_include"),
		macroTests:  true,
	}
	cppGrammar = &grammar{
		name:        "cpp",
		language:    cpp.GetLanguage,
		funcs:       newSet("function_definition"),
		classes:     newSet("class_specifier", "struct_specifier", "union_specifier"),
		types:       newSet("enum_specifier", "type_definition"),
		transparent: newSet("ERROR", "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "linkage_specification", "namespace_definition", "declaration_list"),
		wrappers:    newSet("template_declaration", "declaration", "field_declaration"),
		attach:      newSet("comment"),
		imports:     newSet("preproc_include"),
		macroTests:  true,
	}
	// dtsGrammar parses a TypeScript declaration file (.d.ts), which
	// lists an API: its interfaces and declared classes are split into
	// their members, one declaration each (utcOffset of interface Dayjs,
	// as the implementation proto.utcOffset is a unit of its own).
	dtsGrammar = func() *grammar {
		g := *typescriptGrammar
		g.funcs = newSet(append(slices.Clone(jsFuncs), "method_signature")...)
		g.classes = newSet("class_declaration", "abstract_class_declaration", "class", "interface_declaration")
		g.types = newSet("type_alias_declaration", "enum_declaration")
		return &g
	}()
	tsxGrammar = func() *grammar {
		g := *typescriptGrammar
		g.name = "tsx"
		g.language = tsx.GetLanguage
		return &g
	}()
)

// byExt is the grammar of each extension; C and C++ headers' are in
// headerExt.
var byExt = func() map[string]*grammar {
	m := map[string]*grammar{
		".py":   pythonGrammar,
		".pyi":  pythonGrammar,
		".go":   goGrammar,
		".js":   javascriptGrammar,
		".mjs":  javascriptGrammar,
		".cjs":  javascriptGrammar,
		".jsx":  javascriptGrammar,
		".ts":   typescriptGrammar,
		".mts":  typescriptGrammar,
		".cts":  typescriptGrammar,
		".tsx":  tsxGrammar,
		".java": javaGrammar,
		".rs":   rustGrammar,
		".c":    cGrammar,
		".cc":   cppGrammar,
		".cpp":  cppGrammar,
		".cxx":  cppGrammar,
		".c++":  cppGrammar,
		".ipp":  cppGrammar,
		".tpp":  cppGrammar,
		".inl":  cppGrammar,
		".cu":   cppGrammar,
	}
	for e, g := range headerExt {
		m[e] = g
	}
	return m
}()

// headerExt is the grammar of each extension of a C or C++ header, whose
// declarations a source file defines.
var headerExt = map[string]*grammar{
	".h":   cGrammar, // C++ when its code is (usesCpp), or when C does not fit
	".hh":  cppGrammar,
	".hpp": cppGrammar,
	".hxx": cppGrammar,
	".h++": cppGrammar,
	".cuh": cppGrammar,
}

// byName holds each grammar by its name.
var byName = func() map[string]*grammar {
	m := map[string]*grammar{}
	for _, g := range byExt {
		m[g.name] = g
	}
	return m
}()

func grammarFor(p string) *grammar {
	return byExt[strings.ToLower(path.Ext(p))]
}

// grammarOf is the grammar a file is parsed with first: its name's,
// but C++ for a ".h" file whose code is C++ (usesCpp).
func grammarOf(p string, src []byte) *grammar {
	g := grammarFor(p)
	if g == typescriptGrammar && DeclarationFile(p) {
		return dtsGrammar
	}
	if g == cGrammar && strings.EqualFold(path.Ext(p), ".h") && usesCpp(src) {
		return cppGrammar
	}
	return g
}

// DeclarationFile reports a type declaration file, which restates the
// names an implementation defines: TypeScript's x.d.ts, x.d.mts and
// x.d.cts, and Python's stubs, x.pyi. Case is ignored.
func DeclarationFile(p string) bool {
	b := strings.ToLower(path.Base(p))
	return strings.HasSuffix(b, ".d.ts") || strings.HasSuffix(b, ".d.mts") || strings.HasSuffix(b, ".d.cts") ||
		strings.HasSuffix(b, ".pyi")
}

// HeaderFile reports a C or C++ header (headerExt), whose declarations a
// source file defines: x.h, x.hh, x.hpp, x.hxx, x.h++, x.cuh. Case is
// ignored.
func HeaderFile(p string) bool {
	_, ok := headerExt[strings.ToLower(path.Ext(p))]
	return ok
}

// Language names the grammar that segments path: "python", "go",
// "javascript", "typescript", "tsx", "java", "rust", "c", "cpp"; or "" for a
// file segmented as plain text.
func Language(p string) string {
	if g := grammarFor(p); g != nil {
		return g.name
	}
	return ""
}

// TestCode reports whether a unit's text is test code by what opens it,
// in a language that writes tests beside the code they test: one of the
// attribute lines before its first line of code (comments and blank lines
// between are read past) marks it, as Rust's #[test] marks a test
// function and #[cfg(test)] a module of tests. It is false for a
// language whose tests only their files' names tell (see
// retrieve.Classify), and for a unit that merely holds such a line below
// its first line of code.
func TestCode(text, lang string) bool {
	g := byName[lang]
	if g == nil || g.testMark == nil {
		return false
	}
	block := false // inside a /* */ comment
	for line := range strings.Lines(text) {
		t := strings.TrimSpace(line)
		switch {
		case block:
			block = !strings.Contains(t, "*/")
		case t == "" || strings.HasPrefix(t, "//"):
		case strings.HasPrefix(t, "/*"):
			block = !strings.Contains(t[2:], "*/")
		case g.testMark.MatchString(t):
			return true
		case g.attrLine.MatchString(t):
		default:
			return false
		}
	}
	return false
}

// Languages lists the languages File parses, sorted.
func Languages() []string {
	return []string{"c", "cpp", "go", "java", "javascript", "python", "rust", "tsx", "typescript"}
}

// usesCpp reports whether a file's code, outside comments, string and
// character literals and attributes, uses syntax C does not have: a scope
// ("std::string", "::f"), a namespace, a template, a class, or an access
// label (public:, private:, protected:). A ".h" file that does is parsed
// as C++ alone: the C grammar's error recovery over C++ is the slowest
// parse there is, and then loses to C++.
func usesCpp(src []byte) bool {
	n := len(src)
	// next skips spaces and tabs from i.
	next := func(i int) int { return i + firstNonSpace(src[i:]) }
	// past gives the index just past the first a followed by b at or
	// after i (past the end when there is none).
	past := func(i int, a, b byte) int {
		for i+1 < n && !(src[i] == a && src[i+1] == b) {
			i++
		}
		return i + 2
	}
	for i := 0; i < n; {
		c := src[i]
		switch {
		case c == '/' && i+1 < n && src[i+1] == '/':
			for i < n && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < n && src[i+1] == '*':
			i = past(i+2, '*', '/')
		case c == '"' || c == '\'':
			i++
			for i < n && src[i] != c && src[i] != '\n' {
				if src[i] == '\\' {
					i++
				}
				i++
			}
			i++
		case c == '[' && i+1 < n && src[i+1] == '[':
			// An attribute, which C23 writes as C++ does ([[gnu::pure]]).
			i = past(i+2, ']', ']')
		case c == ':' && i+2 < n && src[i+1] == ':' && (isIdentByte(src[i+2]) || src[i+2] == '~'):
			// A scope (std::string, ::f, A::~A), not an asm statement's
			// empty operand lists ("" ::: "memory").
			return true
		case isIdentByte(c):
			s := i
			for i < n && isIdentByte(src[i]) {
				i++
			}
			if s > 0 && isIdentByte(src[s-1]) {
				continue
			}
			switch string(src[s:i]) {
			case "namespace":
				if j := next(i); j < n && (src[j] == '{' || isIdentByte(src[j])) {
					return true
				}
			case "template":
				if j := next(i); j < n && src[j] == '<' {
					return true
				}
			case "class":
				j := next(i)
				k := j
				for k < n && isIdentByte(src[k]) {
					k++
				}
				if k > j {
					if k = next(k); k < n && (src[k] == '{' || src[k] == ':' && (k+1 >= n || src[k+1] != ':')) {
						return true
					}
				}
			case "public", "private", "protected":
				if j := next(i); j < n && src[j] == ':' && (j+1 >= n || src[j+1] != ':') {
					return true
				}
			}
		default:
			i++
		}
	}
	return false
}

// pyStdlib are the top-level modules of Python's standard library
// (sys.stdlib_module_names, less the private ones): what a file imports
// from one qualifies what it selects (os.path.join, Path.cwd).
var pyStdlib = newSet(
	"abc", "aifc", "antigravity", "argparse", "array", "ast", "asynchat", "asyncio", "asyncore", "atexit",
	"audioop", "base64", "bdb", "binascii", "bisect", "builtins", "bz2", "cProfile", "calendar", "cgi", "cgitb",
	"chunk", "cmath", "cmd", "code", "codecs", "codeop", "collections", "colorsys", "compileall", "concurrent",
	"configparser", "contextlib", "contextvars", "copy", "copyreg", "crypt", "csv", "ctypes", "curses",
	"dataclasses", "datetime", "dbm", "decimal", "difflib", "dis", "distutils", "doctest", "email", "encodings",
	"ensurepip", "enum", "errno", "faulthandler", "fcntl", "filecmp", "fileinput", "fnmatch", "fractions",
	"ftplib", "functools", "gc", "genericpath", "getopt", "getpass", "gettext", "glob", "graphlib", "grp",
	"gzip", "hashlib", "heapq", "hmac", "html", "http", "idlelib", "imaplib", "imghdr", "imp", "importlib",
	"inspect", "io", "ipaddress", "itertools", "json", "keyword", "lib2to3", "linecache", "locale", "logging",
	"lzma", "mailbox", "mailcap", "marshal", "math", "mimetypes", "mmap", "modulefinder", "msilib", "msvcrt",
	"multiprocessing", "netrc", "nis", "nntplib", "nt", "ntpath", "nturl2path", "numbers", "opcode", "operator",
	"optparse", "os", "ossaudiodev", "pathlib", "pdb", "pickle", "pickletools", "pipes", "pkgutil", "platform",
	"plistlib", "poplib", "posix", "posixpath", "pprint", "profile", "pstats", "pty", "pwd", "py_compile",
	"pyclbr", "pydoc", "pydoc_data", "pyexpat", "queue", "quopri", "random", "re", "readline", "reprlib",
	"resource", "rlcompleter", "runpy", "sched", "secrets", "select", "selectors", "shelve", "shlex", "shutil",
	"signal", "site", "smtpd", "smtplib", "sndhdr", "socket", "socketserver", "spwd", "sqlite3", "sre_compile",
	"sre_constants", "sre_parse", "ssl", "stat", "statistics", "string", "stringprep", "struct", "subprocess",
	"sunau", "symtable", "sys", "sysconfig", "syslog", "tabnanny", "tarfile", "telnetlib", "tempfile",
	"termios", "textwrap", "this", "threading", "time", "timeit", "tkinter", "token", "tokenize", "tomllib",
	"trace", "traceback", "tracemalloc", "tty", "turtle", "turtledemo", "types", "typing", "unicodedata",
	"unittest", "urllib", "uu", "uuid", "venv", "warnings", "wave", "weakref", "webbrowser", "winreg",
	"winsound", "wsgiref", "xdrlib", "xml", "xmlrpc", "zipapp", "zipfile", "zipimport", "zlib", "zoneinfo")

// goStdRoots are the first elements of the Go standard library's import
// paths (go list std, less cmd, internal and vendor).
var goStdRoots = newSet("archive", "bufio", "bytes", "cmp", "compress", "container", "context", "crypto",
	"database", "debug", "embed", "encoding", "errors", "expvar", "flag", "fmt", "go", "hash", "html", "image",
	"index", "io", "iter", "log", "maps", "math", "mime", "net", "os", "path", "plugin", "reflect", "regexp",
	"runtime", "slices", "sort", "strconv", "strings", "structs", "sync", "syscall", "testing", "text", "time",
	"unicode", "unique", "unsafe", "weak")
