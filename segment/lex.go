package segment

import (
	"regexp"
	"slices"
	"strings"
)

// References and calls are found by a small lexer over each unit's text
// rather than from the syntax tree: crossing from Go into tree-sitter once
// per identifier node cost as much as parsing itself. The lexer skips
// comments and string literals the way each language family writes them,
// drops keywords, and counts an identifier followed by "(" (or "!(" for a
// Rust macro) as a call. Identifiers starting with a digit never occur;
// names shorter than minNameLen are dropped as elsewhere.

// lexFamily says how comments and strings are written.
type lexFamily int

const (
	familyC      lexFamily = iota // // and /* */ comments; "...", '...', `...`
	familyPython                  // # comments; '...', "...", '''...''', """..."""
)

var keywords = map[string]set{
	"python": newSet("False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
		"continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
		"in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield"),
	"go": newSet("break", "case", "chan", "const", "continue", "default", "defer", "else", "fallthrough",
		"for", "func", "go", "goto", "if", "import", "interface", "map", "package", "range", "return", "select",
		"struct", "switch", "type", "var", "nil", "true", "false"),
	"javascript": newSet("break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete",
		"do", "else", "export", "extends", "finally", "for", "function", "if", "import", "in", "instanceof", "new",
		"return", "super", "switch", "this", "throw", "try", "typeof", "var", "void", "while", "with", "yield",
		"let", "static", "null", "undefined", "true", "false", "enum", "implements", "private", "public",
		"protected", "interface"),
	"java": newSet("abstract", "assert", "boolean", "break", "byte", "case", "catch", "char", "class", "const",
		"continue", "default", "do", "double", "else", "enum", "extends", "final", "finally", "float", "for",
		"goto", "if", "implements", "import", "instanceof", "int", "interface", "long", "native", "new", "package",
		"private", "protected", "public", "return", "short", "static", "strictfp", "super", "switch",
		"synchronized", "this", "throw", "throws", "transient", "try", "void", "volatile", "while", "true",
		"false", "null", "var", "record", "yield"),
	"rust": newSet("as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
		"false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
		"return", "self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
		"while", "union"),
	"c": newSet("auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum",
		"extern", "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return",
		"short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void",
		"volatile", "while", "define", "include", "ifdef", "ifndef", "endif", "elif", "undef", "pragma",
		"defined", "NULL", "bool", "true", "false"),
}

func init() {
	keywords["typescript"] = keywords["javascript"]
	keywords["tsx"] = keywords["javascript"]
	cpp := newSet("alignas", "alignof", "catch", "class", "constexpr", "const_cast", "decltype", "delete",
		"dynamic_cast", "explicit", "export", "friend", "mutable", "namespace", "new", "noexcept", "nullptr",
		"operator", "override", "private", "protected", "public", "reinterpret_cast", "static_assert",
		"static_cast", "template", "this", "throw", "try", "typeid", "typename", "using", "virtual", "final",
		"concept", "requires", "co_await", "co_return", "co_yield")
	for k := range keywords["c"] {
		cpp[k] = true
	}
	keywords["cpp"] = cpp
}

// nameSet tells whether a name is in a list already, reading the list
// while it is short and a set of its names once it is not (most units
// name a few dozen names at most, and a map for each unit cost more than
// reading them).
type nameSet struct{ seen set }

// nameScan is the length of list up to which it is read through.
const nameScan = 32

// add reports whether word is new to list, recording it once the list is
// past nameScan (the caller appends it to the list).
func (s *nameSet) add(list []string, word string) bool {
	if len(list) < nameScan {
		return !slices.Contains(list, word)
	}
	if s.seen == nil {
		s.seen = newSet(list...)
	}
	if s.seen[word] {
		return false
	}
	s.seen[word] = true
	return true
}

// lexNames returns the identifiers and the called names of text, each
// once, in order of first appearance. A name of packages (what the file
// imports from the standard library) or of platform (what the language's
// files use unimported) followed by a dot is a qualifier: the names it
// selects (Split of strings.Split, path and join of os.path.join) are not
// the text's own.
func lexNames(text, lang string, packages, platform set) (refs, calls []string) {
	kw := keywords[lang]
	var seenRef, seenCall nameSet
	n := len(text)
	eachName(text, lang, func(i, j int) int {
		word, next := text[i:j], j
		if next+1 < n && text[next] == '.' && (packages[word] || platform[word]) {
			// What it selects is the package's, down a chain of
			// selections (os.path.join, System.out.println); the
			// package stays a name the text uses (what ties it to
			// the import).
			for next+1 < n && text[next] == '.' && isIdentStart(text[next+1]) {
				next += 2
				for next < n && isIdentPart(text[next]) {
					next++
				}
			}
		}
		if len(word) < minNameLen || kw[word] {
			return next
		}
		if seenRef.add(refs, word) {
			refs = append(refs, word)
		}
		k := j
		if lang == "rust" && k < n && text[k] == '!' {
			k++
		}
		for k < n && (text[k] == ' ' || text[k] == '\t') {
			k++
		}
		if k < n && text[k] == '(' && seenCall.add(calls, word) {
			calls = append(calls, word)
		}
		return next
	})
	return refs, calls
}

// eachName calls fn with the bounds [i, j) of each identifier of text
// outside comments and string literals, as the language family writes
// them; fn returns where the scan goes on (j, or past what it skips).
func eachName(text, lang string, fn func(i, j int) int) {
	eachNameIn(text, 0, len(text), lang, fn)
}

// eachNameIn is eachName over text[lo:hi]; fn gets bounds in text. The
// code a string interpolates (a template literal's ${...}, an f-string's
// {...}) is read as code.
func eachNameIn(text string, lo, hi int, lang string, fn func(i, j int) int) {
	fam := familyC
	if lang == "python" {
		fam = familyPython
	}
	code := func(a, b int) { eachNameIn(text, a, b, lang, fn) }
	n := hi
	for i := lo; i < n; {
		c := text[i]
		switch {
		case isIdentStart(c):
			j := i + 1
			for j < n && isIdentPart(text[j]) {
				j++
			}
			if e := prefixedString(text, i, j, lang, code); e >= 0 {
				i = e
				continue
			}
			i = fn(i, j)
		case c >= '0' && c <= '9':
			j := i + 1
			for j < n && isIdentPart(text[j]) {
				j++
			}
			i = j
		case c >= 0x80:
			// Non-ASCII letters: part of no name this lexer tracks.
			i++
		default:
			if e, _ := literalEnd(text, i, lang, fam, code); e >= 0 {
				i = e
			} else {
				i++
			}
		}
	}
}

// literalEnd returns the index after the comment or the string literal
// that opens at i, and whether it is a comment; -1 when none opens there.
// A string's prefix (r"...", R"(...)") is a word: prefixedString finds
// those. code, unless nil, gets the bounds of each ${...} a template
// literal interpolates.
func literalEnd(text string, i int, lang string, fam lexFamily, code func(a, b int)) (int, bool) {
	n := len(text)
	switch c := text[i]; {
	case fam == familyPython && c == '#',
		fam == familyC && c == '/' && i+1 < n && text[i+1] == '/':
		return skipLine(text, i), true
	case fam == familyC && c == '/' && i+1 < n && text[i+1] == '*':
		if e := strings.Index(text[i+2:], "*/"); e >= 0 {
			return i + e + 4, true
		}
		return n, true
	case c == '`' && templates(lang):
		return templateEnd(text, i, lang, code), false
	case c == '"' || c == '`' || (c == '\'' && (fam == familyPython || charLiteral(text, i, lang))):
		return skipString(text, i, lang), false
	}
	return -1, false
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '$'
}
func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

func isStringPrefix(w string) bool {
	for _, r := range strings.ToLower(w) {
		if r != 'r' && r != 'b' && r != 'f' && r != 'u' {
			return false
		}
	}
	return true
}

func skipLine(text string, i int) int {
	if e := strings.IndexByte(text[i:], '\n'); e >= 0 {
		return i + e + 1
	}
	return len(text)
}

// charLiteral reports whether the quote at i opens a character literal
// rather than, in Rust, a lifetime ('a) or a label.
func charLiteral(text string, i int, lang string) bool {
	if lang != "rust" {
		return true
	}
	// 'x' or '\n' or '\u{...}': a closing quote comes soon.
	j := i + 1
	if j < len(text) && text[j] == '\\' {
		return true
	}
	for k := j; k < len(text) && k <= j+4; k++ {
		if text[k] == '\'' {
			return k > j
		}
	}
	return false
}

// skipString returns the index after the string literal whose opening
// quote is at i. A string ends at its closing quote, or at the end of its
// line where the language ends an unclosed one there. Python's
// triple-quoted strings and Java's text blocks ("""), Rust's strings,
// JavaScript's template literals and Go's raw strings run across lines;
// Go's raw strings know no escapes.
func skipString(text string, i int, lang string) int {
	q := text[i]
	n := len(text)
	if (lang == "python" || lang == "java" && q == '"') && tripled(text, i) {
		delim := text[i : i+3]
		if e := strings.Index(text[i+3:], delim); e >= 0 {
			return i + 3 + e + 3
		}
		return n
	}
	multiline := q == '`' || lang == "rust" && q == '"'
	for j := i + 1; j < n; j++ {
		switch text[j] {
		case '\\':
			if q != '`' || lang != "go" {
				j++
			}
		case q:
			return j + 1
		case '\n':
			if !multiline {
				return j + 1
			}
		}
	}
	return n
}

// prefixedString returns the index after the string literal that the
// word at [i, j) opens as its prefix, or -1 when it opens none: Python's
// r"…", b'…', f"…" and their mixes; Rust's byte and C strings (b"…",
// c"…") and raw strings (r"…", r#"…"#, br"…", cr"…"), which run to the
// quote followed by as many # as opened them; C++'s raw strings
// (R"d(…)d", with an encoding prefix or none). code, unless nil, gets
// the bounds of each replacement field's expression of a Python
// f-string.
func prefixedString(text string, i, j int, lang string, code func(a, b int)) int {
	n := len(text)
	if j >= n || j-i > 3 {
		return -1
	}
	word := text[i:j]
	switch lang {
	case "python":
		if (text[j] == '\'' || text[j] == '"') && isStringPrefix(word) {
			e := skipString(text, j, lang)
			if code != nil && strings.ContainsAny(word, "fF") {
				q := 1
				if tripled(text, j) {
					q = 3
				}
				replacementFields(text, j+q, max(j+q, e-q), code)
			}
			return e
		}
	case "rust":
		switch word {
		case "b", "c":
			if text[j] == '"' {
				return skipString(text, j, lang)
			}
		case "r", "br", "cr":
			k := j
			for k < n && text[k] == '#' {
				k++
			}
			if k >= n || text[k] != '"' {
				return -1
			}
			if e := rawStringEnd(text, k, k-j); e >= 0 {
				return e
			}
			return n
		}
	case "cpp":
		switch word {
		case "R", "u8R", "uR", "UR", "LR":
			if text[j] != '"' {
				return -1
			}
			open := strings.IndexByte(text[j+1:min(n, j+18)], '(')
			if open < 0 || strings.ContainsAny(text[j+1:j+1+open], " \\)\t\n") {
				return -1
			}
			closing := ")" + text[j+1:j+1+open] + `"`
			if e := strings.Index(text[j+2+open:], closing); e >= 0 {
				return j + 2 + open + e + len(closing)
			}
			return n
		}
	}
	return -1
}

// templates reports whether lang's backtick strings are template
// literals, whose ${...} hold code.
func templates(lang string) bool {
	return lang == "javascript" || lang == "typescript" || lang == "tsx"
}

// templateEnd returns the index after the template literal whose backtick
// is at i, calling code (unless nil) with the bounds of each ${...}
// substitution's expression.
func templateEnd(text string, i int, lang string, code func(a, b int)) int {
	n := len(text)
	for j := i + 1; j < n; j++ {
		switch text[j] {
		case '\\':
			j++
		case '`':
			return j + 1
		case '$':
			if j+1 < n && text[j+1] == '{' {
				e := exprEnd(text, j+2, lang)
				if code != nil {
					code(j+2, e)
				}
				j = e
			}
		}
	}
	return n
}

// replacementFields calls code with the bounds of each replacement field's
// expression ({...}; {{ and }} are braces) in the f-string text[a:b].
func replacementFields(text string, a, b int, code func(a, b int)) {
	for k := a; k < b; k++ {
		if text[k] != '{' {
			continue
		}
		if k+1 < b && text[k+1] == '{' {
			k++
			continue
		}
		e := min(exprEnd(text, k+1, "python"), b)
		code(k+1, e)
		k = e
	}
}

// exprEnd returns the index of the brace that closes an interpolated
// expression starting at a (len(text) if none does), stepping over the
// brackets, strings and template literals inside it.
func exprEnd(text string, a int, lang string) int {
	depth := 0
	for j := a; j < len(text); j++ {
		switch c := text[j]; {
		case c == '{':
			depth++
		case c == '}':
			if depth == 0 {
				return j
			}
			depth--
		case c == '`' && templates(lang):
			j = templateEnd(text, j, lang, nil) - 1
		case c == '"' || c == '\'':
			j = skipString(text, j, lang) - 1
		}
	}
	return len(text)
}

// tripled reports whether the quote at i opens a triple-quoted string
// (three of it).
func tripled[T string | []byte](src T, i int) bool {
	return i+2 < len(src) && src[i+1] == src[i] && src[i+2] == src[i]
}

// rawStringEnd returns the index after the Rust raw string whose opening
// quote, after hashes #, is at open: past the first quote followed by as
// many # (-1 when none closes it).
func rawStringEnd[T string | []byte](src T, open, hashes int) int {
	for k := open + 1; k < len(src); k++ {
		if src[k] != '"' {
			continue
		}
		m := 0
		for m < hashes && k+1+m < len(src) && src[k+1+m] == '#' {
			m++
		}
		if m == hashes {
			return k + 1 + hashes
		}
	}
	return -1
}

// Python imports are found by line, so that imports inside functions
// (common for avoiding import cycles) count too.
var (
	pyFromImport = regexp.MustCompile(`(?m)^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+\(?([\w., \t]*)`)
	pyImport     = regexp.MustCompile(`(?m)^[ \t]*import[ \t]+([\w., \t]+)`)
	jsRequire    = regexp.MustCompile(`\brequire\(\s*['"]([^'"\n]+)['"]\s*\)`)
)

// linesWith returns the lines of text that hold sub, in order, each
// without its newline.
func linesWith(text, sub string) []string {
	var out []string
	for from := 0; ; {
		k := strings.Index(text[from:], sub)
		if k < 0 {
			return out
		}
		at := from + k
		start := strings.LastIndexByte(text[:at], '\n') + 1
		end := len(text)
		if e := strings.IndexByte(text[at:], '\n'); e >= 0 {
			end = at + e
		}
		out = append(out, text[start:end])
		if end == len(text) {
			return out
		}
		from = end + 1
	}
}

// appendFromImport appends the module of a pyFromImport match and each
// name it imports from it.
func appendFromImport(out, m []string) []string {
	mod := m[1]
	out = append(out, mod)
	for _, name := range strings.Split(m[2], ",") {
		f := strings.Fields(name)
		if len(f) == 0 || f[0] == "*" {
			continue
		}
		sep := "."
		if strings.HasSuffix(mod, ".") {
			sep = ""
		}
		out = append(out, mod+sep+f[0])
	}
	return out
}

// appendImport appends the modules of a pyImport match.
func appendImport(out, m []string) []string {
	for _, part := range strings.Split(m[1], ",") {
		if f := strings.Fields(part); len(f) > 0 {
			out = append(out, f[0])
		}
	}
	return out
}

// lexImports returns the modules text imports, for languages whose imports
// are found by text (Python; JavaScript's require).
func lexImports(text, lang string) []string {
	var out []string
	switch lang {
	case "python":
		// Neither pattern reaches past a line's end, so they are run on
		// the lines that hold "import" only, which is what they would
		// match in the whole text, in the same order.
		lines := linesWith(text, "import")
		for _, l := range lines {
			for _, m := range pyFromImport.FindAllStringSubmatch(l, -1) {
				out = appendFromImport(out, m)
			}
		}
		for _, l := range lines {
			for _, m := range pyImport.FindAllStringSubmatch(l, -1) {
				out = appendImport(out, m)
			}
		}
	case "javascript", "typescript", "tsx":
		if !strings.Contains(text, "require(") {
			return nil
		}
		for _, m := range jsRequire.FindAllStringSubmatch(text, -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// CommentShare is the share of a unit's text, in bytes other than white
// space, that is comment: line and block comments, and in Python the
// triple-quoted strings that open a statement (docstrings); in the C
// family a line opening with "* " or "*/" is a block comment's. 0 for a
// language the lexer does not know, or an empty text.
func CommentShare(text, lang string) float64 {
	if _, ok := keywords[lang]; !ok {
		return 0
	}
	fam := familyC
	if lang == "python" {
		fam = familyPython
	}
	var total, comment int
	count := func(s string, isComment bool) {
		for k := 0; k < len(s); k++ {
			if c := s[k]; c != ' ' && c != '\t' && c != '\n' && c != '\r' {
				total++
				if isComment {
					comment++
				}
			}
		}
	}
	n := len(text)
	lineStart := true // only white space since the last newline
	for i := 0; i < n; {
		c := text[i]
		j := i + 1
		isComment := false
		switch {
		case fam == familyC && lineStart && c == '*' && (i+1 == n || text[i+1] == ' ' || text[i+1] == '\t' || text[i+1] == '\n' || text[i+1] == '/'):
			// A block comment's continuation line (" * text", " */"): a
			// unit cut from inside a long doc comment opens with them.
			j, isComment = skipLine(text, i), true
		case isIdentPart(c):
			for j < n && isIdentPart(text[j]) {
				j++
			}
			// A prefixed string (r"...", br#"..."#, R"(...)"); in Python
			// a docstring when it opens a statement.
			if e := prefixedString(text, i, j, lang, nil); e >= 0 {
				isComment = fam == familyPython && lineStart && tripled(text, j)
				j = e
			}
		default:
			// A comment, or a string: in Python a docstring when it
			// opens a statement.
			if e, commented := literalEnd(text, i, lang, fam, nil); e >= 0 {
				j, isComment = e, commented || fam == familyPython && lineStart && tripled(text, i)
			}
		}
		count(text[i:j], isComment)
		switch {
		case j > i && text[j-1] == '\n':
			lineStart = true
		case c != ' ' && c != '\t' && c != '\r':
			lineStart = c == '\n'
		}
		i = j
	}
	if total == 0 {
		return 0
	}
	return float64(comment) / float64(total)
}
