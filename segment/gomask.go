package segment

import "bytes"

// maskGoBodies is maskPythonBodies for Go: the body of a function or
// method whose unit stays whole (wholeRows) is blanked between its
// braces, newlines kept, which leaves an empty block over the same bytes.
// Nothing inside a Go function body is read from the tree (names are
// lexed from the unit's text), so the parse gives the same units. A body
// that may be cut at its statements is left as it is. A file that does
// not lex cleanly (a string, rune or comment not closed, braces that do
// not balance) is not masked.
func maskGoBodies(src []byte) (masked, bool) {
	lx := goLexer{scanner: scanner{src: src, plain: goPlain}}
	m := maskCopy{src: src}
	ok := lx.scanWords(lx.skip, codeIdent, func(word []byte, at, depth int) bool {
		if depth != 0 || string(word) != "func" {
			return true
		}
		open, ok := lx.signature()
		if !ok || open < 0 {
			return ok
		}
		return m.body(&lx.scanner, lx.skip, at, open, goDocComment)
	})
	if !ok {
		return masked{}, false
	}
	return m.result()
}

// goDocComment: the rows of a doc comment.
var goDocComment = commentRow("//")

// goLexer walks Go source outside comments and literals.
type goLexer struct {
	scanner
	nl bool // the last comment skipped spans lines
}

// skip steps over the comment or literal at i, if one starts there,
// reporting whether it did and whether it was closed. A block comment
// spanning lines counts as a newline (nl).
func (lx *goLexer) skip() (skipped, closed bool) {
	src, i := lx.src, lx.i
	lx.nl = false
	switch {
	case src[i] == '/' && i+1 < len(src) && src[i+1] == '/':
		return stepTo(&lx.i, lineCommentEnd(src, i))
	case src[i] == '/' && i+1 < len(src) && src[i+1] == '*':
		end := blockCommentEnd(src, i)
		lx.nl = end >= 0 && bytes.IndexByte(src[i:end], '\n') >= 0
		return stepTo(&lx.i, end)
	case src[i] == '`':
		if k := bytes.IndexByte(src[i+1:], '`'); k >= 0 {
			return stepTo(&lx.i, i+1+k+1)
		}
		return true, false
	case src[i] == '"' || src[i] == '\'':
		return stepTo(&lx.i, quotedEnd(src, i, false))
	}
	return false, true
}

// signature reads a function's signature after "func" up to the brace
// that opens its body (-1 when a newline outside brackets ends it first:
// a function type, or a declaration without a body).
func (lx *goLexer) signature() (open int, ok bool) {
	src := lx.src
	depth := 0
	var last []byte // the last word read
	for lx.i < len(src) {
		if skipped, closed := lx.skip(); skipped {
			if !closed {
				return 0, false
			}
			if lx.nl && depth == 0 {
				return -1, true
			}
			continue
		}
		c := src[lx.i]
		switch {
		case c == '\n' && depth == 0:
			return -1, true
		case c == '{' && depth == 0 && string(last) != "struct" && string(last) != "interface":
			lx.i++
			return lx.i - 1, true
		case c == '(' || c == '[' || c == '{':
			depth++
			last = nil
		case c == ')' || c == ']' || c == '}':
			depth--
			if depth < 0 {
				return 0, false
			}
			last = nil
		case codeIdent(c):
			last = lx.word(codeIdent)
			continue
		case c != ' ' && c != '\t' && c != '\r':
			last = nil
		}
		lx.i++
	}
	return -1, true
}

// goPlain: the bytes goLexer.skip steps over none of, brackets aside.
var goPlain = plainBytes("/`\"'")
