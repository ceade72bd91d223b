package segment

import (
	"bytes"
	"slices"
	"strings"
)

// A grammar's mask (grammar.mask) hands the parser a copy of a file whose
// function bodies are replaced by cheap code over the same bytes, where
// segmenting would read nothing from them: every definition keeps its
// rows and extent, and unit text and names are always read from the
// source. Segment parses the source itself when the masked parse has a
// syntax error (parseMasked).

// A function this far within the unit limits (three quarters of their
// lines and of their bytes, counting the decorators and comments just
// above it) keeps its unit whole, so nothing inside its body is a cut
// point: its body can be masked whole.
const (
	maskWholeLines = maxLines * 3 / 4
	maskWholeBytes = 4 * maxTokens * 3 / 4
)

// wholeRows reports whether the definition from byte start to byte end,
// with the comment rows directly above it, stays well within the unit
// limits.
func wholeRows(src []byte, start, end int, comment func(row []byte) bool) bool {
	top := bytes.LastIndexByte(src[:start], '\n') + 1 // start of start's row
	for top > 0 {
		prev := bytes.LastIndexByte(src[:top-1], '\n') + 1
		if !comment(src[prev : top-1]) {
			break
		}
		top = prev
	}
	bottom := len(src) // end of end's row
	if k := bytes.IndexByte(src[end:], '\n'); k >= 0 {
		bottom = end + k
	}
	return bottom-top <= maskWholeBytes && bytes.Count(src[top:bottom], []byte{'\n'})+1 <= maskWholeLines
}

// maskCopy is the copy of a file a mask writes, made at its first write,
// and its holes.
type maskCopy struct {
	src, out []byte
	holes    [][2]int
}

// masked is a file's text as a mask leaves it, and its holes: ranges of
// blanked bytes (spaces and newlines) inside a masked body or comment,
// in order, that the parser skips rather than reads (tree-sitter's
// included ranges are the text between them). Skipped or read, blanks
// inside a body give the same tree; skipping them saves about a quarter
// of a masked parse's time (a seventh on Java).
type masked struct {
	text  []byte
	holes [][2]int
}

// hole marks [from, to), blanked already, as one the parser skips; a
// range of fewer than minHole bytes is not worth a range of its own.
func (m *maskCopy) hole(from, to int) {
	if to-from >= minHole {
		m.holes = append(m.holes, [2]int{from, to})
	}
}

// minHole is the shortest hole worth skipping.
const minHole = 16

// blank turns the bytes of [from, to) into spaces, newlines kept, and
// returns the copy.
func (m *maskCopy) blank(from, to int) []byte {
	if m.out == nil {
		m.out = append([]byte(nil), m.src...)
	}
	for rest := m.out[from:to]; len(rest) > 0; {
		row := rest
		if k := bytes.IndexByte(rest, '\n'); k >= 0 {
			row, rest = rest[:k], rest[k+1:]
		} else {
			rest = nil
		}
		for len(row) > 0 {
			row = row[copy(row, spaces[:]):]
		}
	}
	return m.out
}

// spaces is what blank copies over a row.
var spaces = [256]byte(bytes.Repeat([]byte{' '}, 256))

// result is the copy and its holes (in order), and whether there is a
// copy.
func (m *maskCopy) result() (masked, bool) {
	slices.SortFunc(m.holes, func(a, b [2]int) int { return a[0] - b[0] })
	return masked{m.out, m.holes}, m.out != nil
}

// closeGroup finds the bracket that closes the one at open, stepping
// over comments and literals with skip (the lexer's, which reads and
// moves i); it leaves i after it. ok is false when a comment or literal
// is not closed, or the brackets do not balance.
func (s *scanner) closeGroup(skip func() (skipped, closed bool), open int) (close int, ok bool) {
	src := s.src
	s.i = open + 1
	depth := 1
	plain := s.plain
	for s.i < len(src) {
		if plain != nil && plain[src[s.i]] {
			for s.i++; s.i < len(src) && plain[src[s.i]]; s.i++ {
			}
			continue
		}
		if skipped, closed := skip(); skipped {
			if !closed {
				return 0, false
			}
			continue
		}
		switch src[s.i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				s.i++
				return s.i - 1, true
			}
		}
		s.i++
	}
	return 0, false
}

// body masks the body of a brace language's function from start whose
// braces open at open, when its unit stays whole (wholeRows, with the
// comment rows comment says attach to it), and then the parts of its
// signature sig too (ranges before open, in order); it reads up to the
// closing brace with closeGroup, and is false where closeGroup is.
func (m *maskCopy) body(s *scanner, skip func() (bool, bool), start, open int, comment func([]byte) bool, sig ...[2]int) bool {
	close, ok := s.closeGroup(skip, open)
	if !ok {
		return false
	}
	if close-open >= 2 && wholeRows(m.src, start, close, comment) {
		for _, r := range sig {
			m.skipped(r[0], r[1])
		}
		m.skipped(open+1, close)
	}
	return true
}

// skipped blanks [from, to), which the parser then skips (a hole) when
// it is long enough.
func (m *maskCopy) skipped(from, to int) {
	if to > from {
		m.blank(from, to)
		m.hole(from, to)
	}
}

// scanner is where a brace language's lexer is in its source.
type scanner struct {
	src []byte
	i   int
	// plain, when set, marks the bytes that are no bracket and start no
	// comment or literal (the lexer's skip steps over none of them):
	// closeGroup and scanWords pass them by without asking skip (scanWords
	// not a word's, which it reads).
	plain *[256]bool
}

// plainBytes marks every byte but brackets and those of starts (a
// lexer's, or pyLogicalLines' own).
func plainBytes(starts string) *[256]bool {
	var t [256]bool
	for c := range t {
		t[c] = !strings.ContainsRune("()[]{}"+starts, rune(c))
	}
	return &t
}

// word reads the identifier at i, ident saying which bytes make one: the
// source's bytes, not a copy.
func (s *scanner) word(ident func(byte) bool) []byte {
	j := s.i
	for j < len(s.src) && ident(s.src[j]) {
		j++
	}
	w := s.src[s.i:j]
	s.i = j
	return w
}

// scanWords walks the source from i, stepping over comments and literals
// with skip and counting the brackets open, and calls visit at each word
// (ident saying which bytes make one) with where it starts and the
// brackets open there; visit reads on from after the word and may move i
// past what it reads. It is false when visit is, when a comment or
// literal is not closed, or when the brackets do not balance.
func (s *scanner) scanWords(skip func() (skipped, closed bool), ident func(byte) bool, visit func(word []byte, at, depth int) bool) bool {
	src := s.src
	depth := 0
	for s.i < len(src) {
		if c := src[s.i]; s.plain != nil && s.plain[c] && !ident(c) {
			s.i++
			continue
		}
		if skipped, closed := skip(); skipped {
			if !closed {
				return false
			}
			continue
		}
		c := src[s.i]
		switch {
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
			if depth < 0 {
				return false
			}
		case ident(c) && (s.i == 0 || !ident(src[s.i-1])):
			at := s.i
			if !visit(s.word(ident), at, depth) {
				return false
			}
			continue
		}
		s.i++
	}
	return depth == 0
}

// The lexers of the brace languages share these steps; each returns the
// offset after what it steps over, or -1 when that is not closed.

// lineCommentEnd: the "//" comment at i, up to its newline.
func lineCommentEnd(src []byte, i int) int {
	if k := bytes.IndexByte(src[i:], '\n'); k >= 0 {
		return i + k
	}
	return len(src)
}

// blockCommentEnd: the "/*" comment at i, to its "*/" (not nested).
func blockCommentEnd(src []byte, i int) int {
	if k := bytes.Index(src[i+2:], []byte("*/")); k >= 0 {
		return i + 2 + k + 2
	}
	return -1
}

// quotedEnd: the string or character literal whose quote is at i, closed
// by the same quote, on its line unless acrossLines; a backslash escapes
// the byte after it.
func quotedEnd(src []byte, i int, acrossLines bool) int {
	q := src[i]
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '\n':
			if !acrossLines {
				return -1
			}
		case q:
			return j + 1
		}
	}
	return -1
}

// codeIdent reports whether c can be part of a Go or Java identifier or
// number (any byte of a multi-byte character counts: a letter, for all
// it matters here).
func codeIdent(c byte) bool { return isIdentPart(c) || c >= 0x80 }

// commentRow makes the test wholeRows asks for: whether a row, past its
// indentation, starts with one of prefixes (a comment, an attribute, an
// annotation: what attaches to the definition below it).
func commentRow(prefixes ...string) func(row []byte) bool {
	return func(row []byte) bool {
		row = bytes.TrimLeft(row, " \t")
		for _, p := range prefixes {
			if bytes.HasPrefix(row, []byte(p)) {
				return true
			}
		}
		return false
	}
}

// stepTo moves *i to end and reports the step as skip does: skipped, and
// closed unless end is -1.
func stepTo(i *int, end int) (skipped, closed bool) {
	if end < 0 {
		return true, false
	}
	*i = end
	return true, true
}

// mergeLineComments turns each run of "//" comments alone on consecutive
// rows (comments, each [start, end) of its "//" to its newline) into one
// block comment over the same bytes: "/*" where the first starts, "*/"
// where the last ends, spaces between (newlines kept). A parser reads
// the run as one token rather than one a row; the rows it spans, all
// that segmenting reads of a comment, are the same.
func (m *maskCopy) mergeLineComments(comments [][2]int, before func(row []byte) bool) {
	src := m.src
	alone := func(c [2]int) bool {
		row := bytes.LastIndexByte(src[:c[0]], '\n') + 1
		return len(bytes.TrimLeft(src[row:c[0]], " \t")) == 0
	}
	for i := 0; i < len(comments); i++ {
		if !alone(comments[i]) {
			continue
		}
		// j is the run's last comment: each after i alone on the row after
		// the one before it.
		j := i
		for j+1 < len(comments) && bytes.Count(src[comments[j][1]:comments[j+1][0]], []byte{'\n'}) == 1 &&
			alone(comments[j+1]) {
			j++
		}
		next := comments[j][1] + 1 // the row after the run
		nextEnd := len(src)
		if k := bytes.IndexByte(src[min(next, len(src)):], '\n'); k >= 0 {
			nextEnd = next + k
		}
		if j > i && next < len(src) && before(src[next:nextEnd]) {
			first, end := comments[i][0], comments[j][1]
			if src[end-1] == '\r' {
				end--
			}
			out := m.blank(first, end)
			out[first], out[first+1] = '/', '*'
			out[end-2], out[end-1] = '*', '/'
			m.hole(first+2, end-2)
		}
		i = j
	}
}
