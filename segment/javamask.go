package segment

// maskJavaBodies is maskGoBodies for Java: the body of a method or
// constructor whose unit stays whole is blanked between its braces. A
// body is a "{" outside parentheses and outside any body, after the ")"
// that closes a parameter list, or after a throws clause that follows
// one; not a record's header, whose "{" opens a class body, nor an enum
// constant's, whose class body's methods are names the enum defines. Any
// other "{" (a class, an interface, an enum, an initializer block) is
// scanned into. A file that does not lex cleanly (a string, text block,
// character or comment not closed, brackets that do not balance) is not
// masked.
func maskJavaBodies(src []byte) (masked, bool) {
	lx := javaLexer{scanner{src: src, plain: javaPlain}}
	m := maskCopy{src: src}
	depth := 0          // parentheses and brackets
	afterParen := false // the last tokens are ")" and a throws clause
	throws := false     // inside that throws clause
	record := false     // the declaration being read is a record's
	enum := false       // the declaration being read is an enum's
	declStart := -1     // where the declaration being read starts
	// constants[k] says the k-th enclosing body is an enum's, before the
	// ";" that ends its constants.
	var constants []bool
	for lx.i < len(src) {
		if skipped, closed := lx.skip(); skipped {
			if !closed {
				return masked{}, false
			}
			continue
		}
		c := src[lx.i]
		if c == '\n' || c == ' ' || c == '\t' || c == '\r' || c == '\f' {
			lx.i++
			continue
		}
		if declStart < 0 {
			declStart = lx.i
		}
		switch {
		case c == '(' || c == '[':
			depth++
			afterParen = false
		case c == ')' || c == ']':
			depth--
			if depth < 0 {
				return masked{}, false
			}
			afterParen, throws = c == ')' && depth == 0, false
		case c == '{' && depth == 0 && afterParen && !record && !(len(constants) > 0 && constants[len(constants)-1]):
			if !m.body(&lx.scanner, lx.skip, declStart, lx.i, javaComment) {
				return masked{}, false
			}
			afterParen, throws, record, declStart = false, false, false, -1
			continue
		case c == '{' || c == '}' || c == ';':
			if depth == 0 {
				switch {
				case c == '{':
					constants = append(constants, enum)
				case c == '}':
					if len(constants) == 0 {
						return masked{}, false
					}
					constants = constants[:len(constants)-1]
				case c == ';' && len(constants) > 0:
					constants[len(constants)-1] = false
				}
				declStart, record, enum = -1, false, false
			}
			afterParen = false
		case (c == ',' || c == '.' || c == '<' || c == '>' || c == '?') && throws:
			// Inside a throws clause's list of types.
		case codeIdent(c):
			switch w := lx.word(codeIdent); {
			case string(w) == "throws" && afterParen:
				throws = true
			case string(w) == "record" && depth == 0:
				record = true
				afterParen = false
			case string(w) == "enum" && depth == 0:
				enum = true
				afterParen = false
			case !throws:
				afterParen = false
			}
			continue
		default:
			afterParen, throws = false, false
		}
		lx.i++
	}
	if depth != 0 || len(constants) != 0 {
		return masked{}, false
	}
	return m.result()
}

// javaComment: comment rows (and the inside of a block comment) and
// annotations, which attach to the member below.
var javaComment = commentRow("//", "/*", "*", "@")

// javaLexer walks Java source outside comments and literals.
type javaLexer struct{ scanner }

// skip steps over the comment or literal at i, if one starts there,
// reporting whether it did and whether it was closed.
func (lx *javaLexer) skip() (skipped, closed bool) {
	src, i := lx.src, lx.i
	n := len(src)
	switch c := src[i]; {
	case c == '/' && i+1 < n && src[i+1] == '/':
		return stepTo(&lx.i, lineCommentEnd(src, i))
	case c == '/' && i+1 < n && src[i+1] == '*':
		return stepTo(&lx.i, blockCommentEnd(src, i))
	case c == '"' && tripled(src, i):
		// A text block, to its closing """.
		for j := i + 3; j+2 < n; j++ {
			switch {
			case src[j] == '\\':
				j++
			case src[j] == '"' && src[j+1] == '"' && src[j+2] == '"':
				return stepTo(&lx.i, j+3)
			}
		}
		return true, false
	case c == '"' || c == '\'':
		return stepTo(&lx.i, quotedEnd(src, i, false))
	}
	return false, true
}

// javaPlain: the bytes javaLexer.skip steps over none of, brackets
// aside.
var javaPlain = plainBytes("/\"'")
