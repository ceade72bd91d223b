package segment

import (
	"bytes"
	"sort"
)

// A preprocessor conditional can split one definition between its
// branches, each branch opening the same function its own way:
//
//	#ifdef CPPHTTPLIB_NO_EXCEPTIONS
//	inline bool parse_range_header(const std::string &s, Ranges &ranges) {
//	#else
//	inline bool parse_range_header(const std::string &s, Ranges &ranges) try {
//	#endif
//
// or wrap only an opening brace (`extern "C" {` under `#ifdef
// __cplusplus`). The grammars parse each branch as code of its own, so
// the braces no longer pair, and the definition and the hundreds of lines
// after it come out as one "function" named for the first. A compiler
// sees one branch; maskConditionals gives the parser the same view. A
// conditional whose branches leave braces unpaired has its directive
// lines blanked and every branch after its first blanked too (spaces, so
// every offset and line stays where it was); a conditional whose branches
// each pair their braces is left alone, so the definitions of every
// branch stay units of their own. Segment parses the masked text too and
// keeps whichever parse has fewer errors; names and unit text are always
// read from the original source. A conditional that pairs its braces but
// still splits what the grammar reads (two heads over one body in C, an
// expression or a class continued under #ifdef) is reduced the same way
// when it holds a place the grammar did not fit and the file parses
// better for it (Segment).

// condBranch is one branch of a conditional: its first line (the
// directive that opens it) and the net braces its code opens.
type condBranch struct {
	line, braces int
}

// conditional is one #if ... #endif: the rows of its directives (each
// with its continuation rows) and its branches.
type conditional struct {
	directives [][2]int // [first row, last row] of each directive
	branches   []condBranch
	end        int // the row of #endif; -1 while open
}

// shortBranches is the most rows the branches after a C conditional's
// first may hold for it to be reduced where the grammar did not fit.
const shortBranches = 6

// condRows are the rows of a conditional that maskConditionals reduced:
// its opening directive, the directive of its second branch, and its
// #endif.
type condRows struct{ open, second, end int }

// maskConditionals returns text (f's source, or a mask of it: the same
// rows at the same offsets) with the conditionals that leave braces
// unpaired reduced to their first branch, and the rows of each it
// reduced (none: text itself).
func (f *file) maskConditionals(text []byte) ([]byte, []condRows) {
	return f.reduce(text, f.conditionals(text, nil, 0))
}

// conditionals returns the conditionals of text that leave braces
// unpaired and, with errRows (rows on which the grammar did not fit),
// those that are the innermost conditional of such a row and whose
// branches after the first hold at most rest rows, in the order they
// close.
func (f *file) conditionals(text []byte, errRows []bool, rest int) []*conditional {
	row := func(r int) []byte { return text[f.starts[r]:f.ends[r]] }
	var (
		stack []*conditional
		split []*conditional
	)
	// owned marks the rows a closed conditional holds: a conditional
	// closes after the ones nested in it, so the rows it is the innermost
	// of are those not owned yet when it closes.
	owned := make([]bool, f.nlines())
	// add counts n braces opened by code in the innermost open branch.
	add := func(n int) {
		if len(stack) > 0 {
			c := stack[len(stack)-1]
			c.branches[len(c.branches)-1].braces += n
		}
	}
	inComment := false // inside a /* */ comment carried over from a row before
	rawEnd := []byte(nil)
	for r := 0; r < f.nlines(); r++ {
		line := row(r)
		i := 0
		if rawEnd != nil { // inside a raw string literal
			k := bytes.Index(line, rawEnd)
			if k < 0 {
				continue
			}
			i, rawEnd = k+len(rawEnd), nil
		} else if inComment {
			k := bytes.Index(line, []byte("*/"))
			if k < 0 {
				continue
			}
			i, inComment = k+2, false
		} else if first := firstNonSpace(line); first < len(line) && line[first] == '#' {
			last := r
			for last+1 < f.nlines() && continued(row(last)) {
				last++
			}
			word := directiveWord(line[first+1:])
			switch word {
			case "if", "ifdef", "ifndef":
				c := &conditional{directives: [][2]int{{r, last}}, branches: []condBranch{{line: r}}, end: -1}
				stack = append(stack, c)
			case "elif", "elifdef", "elifndef", "else":
				if len(stack) > 0 {
					c := stack[len(stack)-1]
					c.directives = append(c.directives, [2]int{r, last})
					c.branches = append(c.branches, condBranch{line: r})
				}
			case "endif":
				if len(stack) > 0 {
					c := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					c.directives = append(c.directives, [2]int{r, last})
					c.end = r
					unpaired := false
					for _, b := range c.branches {
						unpaired = unpaired || b.braces != 0
					}
					errs := false
					for k := c.directives[0][0]; k <= r; k++ {
						if !owned[k] {
							owned[k] = true
							errs = errs || (errRows != nil && errRows[k])
						}
					}
					// Reduced for a place the grammar did not fit only
					// when that takes no definitions away: the branches
					// after the first are a few rows (another head for
					// one body, a macro defined another way), or none.
					if errs && len(c.branches) > 1 && r-c.branches[1].line-1 > rest {
						errs = false
					}
					if unpaired || errs {
						split = append(split, c)
					}
					// What the enclosing branch holds of it is what
					// the parser will see: its first branch.
					add(c.branches[0].braces)
				}
			}
			r = last
			continue
		}
		n, comment, raw := braceDelta(line[i:])
		add(n)
		inComment, rawEnd = comment, raw
	}
	return split
}

// reduce returns text with each of split reduced to its first branch (its
// directive rows and its other branches blanked), and the rows of each.
func (f *file) reduce(text []byte, split []*conditional) ([]byte, []condRows) {
	if len(split) == 0 {
		return text, nil
	}
	out := append([]byte(nil), text...)
	erase := func(from, to int) {
		for r := from; r <= to; r++ {
			for k := f.starts[r]; k < f.ends[r]; k++ {
				if out[k] != '\r' {
					out[k] = ' '
				}
			}
		}
	}
	reduced := make([]condRows, 0, len(split))
	for _, c := range split {
		for _, d := range c.directives {
			erase(d[0], d[1])
		}
		second := c.end
		if len(c.branches) > 1 {
			second = c.branches[1].line
			erase(second, c.end)
		}
		reduced = append(reduced, condRows{open: c.directives[0][0], second: second, end: c.end})
	}
	sort.Slice(reduced, func(i, j int) bool { return reduced[i].open < reduced[j].open })
	return out, reduced
}

// straddle stretches a definition that a reduced conditional splits to
// the whole of the conditional's side it crosses: one that begins in the
// conditional's first branch (after nothing but blank rows) and runs past
// its #endif takes in the opening directive; one that begins before the
// conditional and ends in its first branch (before nothing but blank
// rows) takes in the other branches and the #endif. The definition is
// then one unit with each of its variants, as the source reads.
func (f *file) straddle(s *span, conds []condRows) {
	for _, c := range conds {
		if c.open < s.start && s.start < c.second && s.end > c.end && f.blankRows(c.open+1, s.start-1) {
			s.start = c.open
		}
		if s.start < c.open && c.open < s.end && s.end < c.second && f.blankRows(s.end+1, c.second-1) {
			s.end = c.end
		}
	}
}

// blankRows reports whether rows a..b (none when b < a) are all blank.
func (f *file) blankRows(a, b int) bool {
	for i := a; i <= b; i++ {
		if !f.blank(i) {
			return false
		}
	}
	return true
}

// continued reports whether a directive row goes on to the next row.
func continued(line []byte) bool {
	line = bytes.TrimRight(line, "\r")
	return len(line) > 0 && line[len(line)-1] == '\\'
}

// directiveWord is the word after a directive's "#" (spaces allowed
// between them).
func directiveWord(rest []byte) string {
	rest = bytes.TrimLeft(rest, " \t")
	j := 0
	for j < len(rest) && isIdentByte(rest[j]) {
		j++
	}
	return string(rest[:j])
}

// braceDelta counts the braces one row of code opens less those it
// closes, outside comments and literals, and says whether the row ends
// inside a block comment or a raw string literal (with that literal's
// closing delimiter).
func braceDelta(line []byte) (n int, inComment bool, rawEnd []byte) {
	for i := 0; i < len(line); i++ {
		switch c := line[i]; c {
		case '{':
			n++
		case '}':
			n--
		case '/':
			if i+1 < len(line) && line[i+1] == '/' {
				return n, false, nil
			}
			if i+1 < len(line) && line[i+1] == '*' {
				k := blockCommentEnd(line, i)
				if k < 0 {
					return n, true, nil
				}
				i = k - 1
			}
		case '"':
			if d, ok := rawOpen(line, i); ok {
				end := append(append([]byte(")"), d...), '"')
				k := bytes.Index(line[i+len(d)+2:], end)
				if k < 0 {
					return n, false, end
				}
				i += len(d) + 2 + k + len(end) - 1
				continue
			}
			i = literalStop(line, i)
		case '\'':
			if i > 0 && isIdentByte(line[i-1]) {
				continue // a digit separator (1'000) or a prefix's end (u8'x')
			}
			i = literalStop(line, i)
		}
	}
	return n, false, nil
}

// literalStop is the offset of the quote closing the literal whose quote
// is at i, or the row's last byte when the row does not close it.
func literalStop(line []byte, i int) int {
	if k := quotedEnd(line, i, false); k >= 0 {
		return k - 1
	}
	return len(line) - 1
}

// rawOpen reports whether the quote at i opens a C++ raw string literal
// (R"delim(, with an optional u8, u, U or L before the R) and its
// delimiter.
func rawOpen(line []byte, i int) ([]byte, bool) {
	if i == 0 || line[i-1] != 'R' {
		return nil, false
	}
	p := i - 1
	for _, prefix := range []string{"u8", "u", "U", "L"} {
		if p >= len(prefix) && string(line[p-len(prefix):p]) == prefix {
			p -= len(prefix)
			break
		}
	}
	if p > 0 && isIdentByte(line[p-1]) {
		return nil, false
	}
	k := bytes.IndexByte(line[i+1:], '(')
	if k < 0 || k > 16 {
		return nil, false
	}
	d := line[i+1 : i+1+k]
	if bytes.ContainsAny(d, " \\)\t") {
		return nil, false
	}
	return d, true
}
