package segment

import "bytes"

// Most of a Python file is function bodies, and segmenting never reads
// the statements inside one for what they say: only where they start and
// end matters, when a definition is too big and is cut at its statements
// (statementCuts); names are read by lexing the unit's text. So
// maskPythonBodies replaces bodies by cheap statements over exactly the
// same bytes: "(" where a statement starts, ")" where its last token
// ends, spaces between (newlines kept; "0" for a one-byte statement). The
// body of a function whose unit stays whole becomes one such statement;
// in a function that may be cut, each simple statement is replaced on its
// own, and compound statements' headers, decorators and comments stay as
// they are. So every function's rows and byte extent, every statement a
// cut could fall on, and everything outside function bodies come out of
// the parse as they would from the source.
//
// A file is masked only when it lexes cleanly (strings closed, brackets
// balanced, backslashes only joining lines, indentation of spaces only,
// a carriage return only before a newline). An error inside a masked statement is not seen.

// pyLine is one logical line of Python: physical rows first..last, its
// code from byte start to end (after its last token; a comment after it
// is not code).
type pyLine struct {
	first, last int
	start, end  int
	indent      int  // columns of the first row's leading spaces
	def         bool // a "def" or "async def" header
	colonEnd    bool // its last token at bracket depth 0 is ":"
	compound    bool // starts with a compound statement's keyword or "@"
}

// statementCuts looks inside a function's statement of more than half
// its limits' lines or bytes (for a string, at the rows of its parts); a
// statement that big, or near it, is left as it is.
const (
	maskMaxLines = maxLines/2 - 10
	maskMaxBytes = 4*maxTokens/2 - 200
)

// compoundWords start a compound statement (or one of its clauses): the
// lines that hold a body's blocks together, which masking keeps.
var compoundWords = map[string]bool{"if": true, "elif": true, "else": true, "for": true, "while": true,
	"try": true, "except": true, "finally": true, "with": true, "def": true, "class": true, "async": true,
	"match": true, "case": true}

// maskPythonBodies returns src with the simple statements inside functions
// replaced, and whether it replaced any. The body of a function whose
// unit stays whole (well within the limits at which it would be cut at
// its statements, counting the decorators and comments above it) is
// replaced as one statement, from its first statement to its last.
func maskPythonBodies(src []byte) (masked, bool) {
	lines, ok := pyLogicalLines(src)
	if !ok {
		return masked{}, false
	}
	m := maskCopy{src: src}
	mask := func(start, end int) {
		out := m.blank(start, end)
		if end-start == 1 {
			out[start] = '0'
		} else {
			out[start], out[end-1] = '(', ')'
			m.hole(start+1, end-1)
		}
	}
	inDef := -1 // indentation of the function whose body this is
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if inDef >= 0 && l.indent <= inDef {
			inDef = -1
		}
		if inDef < 0 {
			if !l.def || !l.colonEnd {
				continue
			}
			j := i + 1
			for j < len(lines) && lines[j].indent > l.indent {
				j++
			}
			top := l.start
			for k := i - 1; k >= 0 && src[lines[k].start] == '@' && lines[k].indent == l.indent && lines[k].last == lines[k+1].first-1; k-- {
				top = lines[k].start
			}
			if j > i+1 && wholeRows(src, top, lines[j-1].end, pyComment) {
				mask(lines[i+1].start, lines[j-1].end)
				i = j - 1
				continue
			}
			inDef = l.indent
			continue
		}
		if l.compound || l.colonEnd || l.last-l.first+1 > maskMaxLines || l.end-l.start > maskMaxBytes {
			continue
		}
		mask(l.start, l.end)
	}
	return m.result()
}

// pyComment: comment rows, which attach to the definition below.
var pyComment = commentRow("#")

// pyLogicalLines cuts src into Python's logical lines (comment-only and
// blank rows are none). ok is false when the file does not lex cleanly.
func pyLogicalLines(src []byte) (lines []pyLine, ok bool) {
	for rest := src; ; {
		k := bytes.IndexByte(rest, '\r')
		if k < 0 {
			break
		}
		if k+1 == len(rest) || rest[k+1] != '\n' {
			return nil, false // a line ending in a lone carriage return
		}
		rest = rest[k+2:]
	}
	row := 0
	i := 0
	n := len(src)
	for i < n {
		// The start of a row outside any logical line.
		lineStart := i
		for i < n && src[i] == ' ' {
			i++
		}
		if i < n && (src[i] == '\t' || src[i] == '\f') {
			return nil, false
		}
		if i == n {
			break
		}
		if src[i] == '\n' || src[i] == '\r' || src[i] == '#' {
			for i < n && src[i] != '\n' {
				i++
			}
			i++
			row++
			continue
		}
		l := pyLine{first: row, start: i, indent: i - lineStart}
		w := leadWord(src[i:])
		l.compound = src[i] == '@' || compoundWords[string(w)]
		l.def = string(w) == "def" || string(w) == "async" && string(leadWord(skipSpaces(src[i+len(w):]))) == "def"
		depth := 0
		var lastTok byte
	line:
		for i < n {
			c := src[i]
			switch {
			case c == '\n':
				if depth == 0 {
					break line
				}
				row++
				i++
			case c == '\\':
				k := lineEnd(src, i+1)
				if k == 0 {
					return nil, false // a backslash that does not join lines
				}
				row++
				i += 1 + k
			case c == '#':
				for i < n && src[i] != '\n' {
					i++
				}
			case c == '"' || c == '\'':
				j, rows, closed := skipPyString(src, i)
				if !closed {
					return nil, false
				}
				row += rows
				i = j
				lastTok, l.end = '"', j
			case c == ' ' || c == '\t' || c == '\f' || c == '\r':
				i++
			case pyPlain[c]:
				// A run of bytes that neither open nor close anything.
				j := i + 1
				for j < n && pyPlain[src[j]] {
					j++
				}
				if depth == 0 {
					lastTok = src[j-1]
				}
				i, l.end = j, j
			default:
				switch c {
				case '(', '[', '{':
					depth++
				case ')', ']', '}':
					depth--
					if depth < 0 {
						return nil, false
					}
				}
				if depth == 0 || c == '(' || c == '[' || c == '{' {
					lastTok = c
				}
				i++
				l.end = i
			}
		}
		if depth != 0 || i > n || l.end <= l.start {
			return nil, false
		}
		l.last = row
		l.colonEnd = lastTok == ':'
		lines = append(lines, l)
		i++ // the newline
		row++
	}
	return lines, true
}

// pyPlain marks the bytes pyLogicalLines reads past as tokens and
// nothing more: not a newline, backslash, comment, quote, space or
// bracket.
var pyPlain = plainBytes("\n\\#\"' \t\f\r")

// skipPyString skips the string literal whose quote is at src[i] (a
// prefix such as r, b or f was read as a word before it), returning the
// offset after it, the newlines inside it and whether it is closed.
func skipPyString(src []byte, i int) (int, int, bool) {
	q := src[i]
	triple := tripled(src, i)
	rows := 0
	start := i + 1
	if triple {
		start = i + 3
	}
	for j := start; j < len(src); j++ {
		switch src[j] {
		case '\\':
			if k := lineEnd(src, j+1); k > 0 {
				rows++
				j += k
			} else {
				j++
			}
		case '\n':
			if !triple {
				return 0, 0, false
			}
			rows++
		case q:
			if !triple {
				return j + 1, rows, true
			}
			if tripled(src, j) {
				return j + 3, rows, true
			}
		}
	}
	return 0, 0, false
}

// lineEnd is the length of the line end ("\n" or "\r\n") at src[i], 0
// when there is none.
func lineEnd(src []byte, i int) int {
	switch {
	case i < len(src) && src[i] == '\n':
		return 1
	case i+1 < len(src) && src[i] == '\r' && src[i+1] == '\n':
		return 2
	}
	return 0
}

// leadWord is the identifier b starts with (none when b ends with it).
func leadWord(b []byte) []byte {
	k := 0
	for k < len(b) && isIdentByte(b[k]) {
		k++
	}
	if k == len(b) {
		return nil
	}
	return b[:k]
}

func skipSpaces(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	return b
}
