package segment

import (
	"bytes"
	"unicode/utf8"
)

// maskRustBodies is maskGoBodies for Rust. A function (at any depth: in a
// module, an impl, a trait) whose unit stays whole is blanked between its
// braces, and its signature with it, all but its name and parentheses
// (fnBody); a function that may be cut at its statements is left as it
// is, with everything inside it. A macro_rules! definition whose unit
// stays whole is blanked between the brackets of its rules. A macro's
// call outside function bodies is blanked between its brackets where
// segmenting reads nothing inside it (macroCall), an attribute between
// the parentheses of its arguments, and a use declaration past the first
// name of its path. A run of line comments alone on consecutive rows just
// above an item (doc comments, mostly) is read as one block comment
// (mergeLineComments): one token for the parser, not one a row. A file
// that does not lex cleanly (a string, character or comment not closed,
// brackets that do not balance) is not masked.
func maskRustBodies(src []byte) (masked, bool) {
	lx := rustLexer{scanner{src: src, plain: rustPlain}}
	m := maskCopy{src: src}
	// The line comments met outside functions and macros' rules, to be
	// merged where they run over consecutive rows.
	var comments [][2]int
	inside := false
	skip := func() (bool, bool) {
		i := lx.i
		skipped, closed := lx.skip()
		if skipped && closed && !inside && src[i] == '/' && src[i+1] == '/' {
			comments = append(comments, [2]int{i, lx.i})
		}
		return skipped, closed
	}
	ok := lx.scanWords(skip, rustIdent, func(word []byte, at, depth int) bool {
		switch {
		case string(word) == "macro_rules" && lx.i < len(src) && src[lx.i] == '!':
			// A macro's rules are token trees, blanked as a function's
			// body is when its unit stays whole.
			open, ok := lx.groupOpen()
			if !ok {
				return false
			}
			return m.body(&lx.scanner, lx.skip, at, open, rustComment)
		case string(word) == "use" && (at == 0 || src[at-1] != '$' && src[at-1] != '#'):
			// Not a macro's $use, nor a raw r#use.
			return m.useDecl(&lx)
		case attributeAt(src, at):
			return m.attribute(&lx)
		case lx.i < len(src) && src[lx.i] == '!':
			// Comments inside a call are not merged: they are blanked
			// with it, or read again when it is not.
			inside = true
			defer func() { inside = false }()
			return m.macroCall(&lx, skip, at, depth)
		case string(word) == "fn":
			inside = true
			defer func() { inside = false }()
			sig, open, ok := lx.fnBody()
			if !ok || open < 0 {
				return ok
			}
			return m.body(&lx.scanner, skip, at, open, rustComment, sig...)
		}
		return true
	})
	if !ok {
		return masked{}, false
	}
	m.mergeLineComments(comments, rustItem)
	return m.result()
}

// macroCall masks the call of a macro whose name starts at byte at and
// ends at lx.i, before its "!", when its brackets hold something:
//
//   - small, at most half a module run's rows (50) and half a unit's
//     bytes (3,000), wherever it is: no statement is looked for inside
//     it, however large the definition around it (walker.statementCuts
//     looks inside only what is larger);
//   - at any size, an item of the file itself: outside every bracket,
//     first on its row, after a row that ends an item, a comment or an
//     attribute (or none). Its statement's cut points are the file's
//     items (walker.gaps).
//
// Either way what is inside is a token tree, in which nothing is
// declared (walker.definedNames stops there), and its names are read
// from the source. Otherwise lx is left after the name, for the scan to
// go on inside the call (to the bodies of the functions it holds). It is
// false when the call's brackets do not close.
func (m *maskCopy) macroCall(lx *rustLexer, skip func() (bool, bool), at, depth int) bool {
	src := lx.src
	name := lx.i
	open := spaceEnd(src, name+1)
	if open >= len(src) || src[open] != '(' && src[open] != '[' && src[open] != '{' {
		return true // "!=", or not a call
	}
	close, ok := lx.closeGroup(skip, open)
	if !ok {
		return false
	}
	small := close+1-at <= 4*maxTokens/2 && bytes.Count(src[at:close], []byte{'\n'}) < moduleMaxLines/2
	if close-open < 2 || !small && (depth > 0 || !itemStart(src, at)) {
		lx.i = name
		return true
	}
	m.skipped(open+1, close)
	return true
}

// useDecl masks a use declaration whose "use" ends at lx.i past the first
// name of its path: its imports are read from the source
// (walker.importNames). Among a macro's tokens (a closing bracket met
// before any ";") it masks nothing. It is false where the source does not
// lex.
func (m *maskCopy) useDecl(lx *rustLexer) bool {
	src := lx.src
	first := spaceEnd(src, lx.i)
	if first == lx.i || first >= len(src) || !rustIdent(src[first]) {
		return true
	}
	lx.i = first
	lx.word(rustIdent)
	from := lx.i
	for lx.i < len(src) && src[lx.i] != ';' {
		if skipped, closed := lx.skip(); skipped {
			if !closed {
				return false
			}
			continue
		}
		switch src[lx.i] {
		case '{', '(', '[':
			if _, ok := lx.closeGroup(lx.skip, lx.i); !ok {
				return false
			}
			continue
		case '}', ')', ']':
			return true
		}
		lx.i++
	}
	if lx.i < len(src) {
		m.skipped(from, lx.i)
	}
	return true
}

// attribute masks the arguments of an attribute whose path's first word
// ends at lx.i, between their parentheses. It is false when they do not
// close.
func (m *maskCopy) attribute(lx *rustLexer) bool {
	src := lx.src
	open := len(src) - len(bytes.TrimLeft(src[lx.i:], " \t"))
	if open >= len(src) || src[open] != '(' {
		return true
	}
	close, ok := lx.closeGroup(lx.skip, open)
	if !ok {
		return false
	}
	m.skipped(open+1, close)
	return true
}

// attributeAt reports whether the word at byte at is the first of an
// attribute: "#[" or "#![" just before it.
func attributeAt(src []byte, at int) bool {
	if at < 2 || src[at-1] != '[' && src[at-1] != ' ' && src[at-1] != '\t' {
		return false // most words
	}
	head := bytes.TrimRight(src[:at], " \t")
	return bytes.HasSuffix(head, []byte("#[")) || bytes.HasSuffix(head, []byte("#!["))
}

// itemStart reports whether the word at byte at is first on its row and
// the row before it that is not blank ends an item, a comment or an
// attribute (";", "}", "]", "*/"), or is a line comment, or there is none.
func itemStart(src []byte, at int) bool {
	row := bytes.LastIndexByte(src[:at], '\n') + 1
	if len(bytes.TrimLeft(src[row:at], " \t")) > 0 {
		return false
	}
	for end := row - 1; end > 0; {
		start := bytes.LastIndexByte(src[:end], '\n') + 1
		prev := bytes.TrimSpace(src[start:end])
		end = start - 1
		if len(prev) == 0 {
			continue
		}
		return bytes.HasPrefix(prev, []byte("//")) || bytes.HasSuffix(prev, []byte("*/")) ||
			bytes.HasSuffix(prev, []byte(";")) || bytes.HasSuffix(prev, []byte("}")) || bytes.HasSuffix(prev, []byte("]"))
	}
	return true
}

// rustComment: comment and attribute rows, which attach to the item
// below them.
var rustComment = commentRow("//", "#[", "#!")

// rustItem: a row that starts an item, or an attribute of one.
var rustItem = commentRow("#[", "pub ", "pub(", "fn ", "struct ", "enum ", "trait ", "impl ", "impl<", "mod ",
	"type ", "const ", "static ", "unsafe ", "async ", "extern ", "union ")

// rustIdent reports whether c can be part of an identifier (any byte of
// a multi-byte character counts).
func rustIdent(c byte) bool { return isIdentPart(c) && c != '$' || c >= 0x80 }

// rustLexer walks Rust source outside comments and literals.
type rustLexer struct{ scanner }

// skip steps over the comment or literal at i, if one starts there,
// reporting whether it did and whether it was closed: line and nested
// block comments, strings (raw, byte and C ones too) and characters. A
// quote that starts no character is a lifetime's, stepped over alone.
func (lx *rustLexer) skip() (skipped, closed bool) {
	src, i := lx.src, lx.i
	n := len(src)
	switch c := src[i]; {
	case c == '/' && i+1 < n && src[i+1] == '/':
		return stepTo(&lx.i, lineCommentEnd(src, i))
	case c == '/' && i+1 < n && src[i+1] == '*':
		depth := 0
		for j := i; j+1 < n; j++ {
			switch {
			case src[j] == '/' && src[j+1] == '*':
				depth++
				j++
			case src[j] == '*' && src[j+1] == '/':
				depth--
				j++
				if depth == 0 {
					lx.i = j + 1
					return true, true
				}
			}
		}
		return true, false
	case c == '"':
		return stepTo(&lx.i, quotedEnd(src, i, true))
	case (c == 'r' || c == 'b' || c == 'c') && (i == 0 || !rustIdent(src[i-1])):
		// r"..", r#".."#, br"..", cr"..": raw strings; b".." and c"..": strings.
		j := i + 1
		if c != 'r' && j < n && src[j] == 'r' {
			j++
		}
		raw := src[j-1] == 'r'
		hashes := 0
		for raw && j < n && src[j] == '#' {
			hashes++
			j++
		}
		if j >= n || src[j] != '"' {
			return false, true
		}
		if !raw {
			lx.i = j
			return lx.skip()
		}
		if e := rawStringEnd(src, j, hashes); e >= 0 {
			lx.i = e
			return true, true
		}
		return true, false
	case c == '\'':
		// A character: an escape, or one character and a closing quote.
		j := i + 1
		if j < n && src[j] == '\\' {
			for j += 2; j < n && src[j] != '\'' && src[j] != '\n'; j++ {
			}
			if j >= n || src[j] != '\'' {
				return true, false
			}
			lx.i = j + 1
			return true, true
		}
		if j < n {
			_, size := utf8.DecodeRune(src[j:])
			j += size
		}
		if j < n && src[j] == '\'' {
			lx.i = j + 1
			return true, true
		}
		lx.i = i + 1 // a lifetime or a label
		return true, true
	}
	return false, true
}

// fnBody reads a function's signature after "fn" up to the brace that
// opens its body, outside the signature's brackets, or to the ";" that
// ends a declaration without one (open -1). "fn" not followed by a name
// is a function pointer type (open -1). sig are the parts of the
// signature segmenting reads nothing of, to be blanked: its generics,
// the inside of its parameters' parentheses, and what follows them (the
// result type, a where clause); none when the signature is not
// "name<...>(...)".
func (lx *rustLexer) fnBody() (sig [][2]int, open int, ok bool) {
	src := lx.src
	for lx.i < len(src) && (src[lx.i] == ' ' || src[lx.i] == '\t') {
		lx.i++
	}
	if lx.i >= len(src) || !rustIdent(src[lx.i]) {
		return nil, -1, true
	}
	for lx.i < len(src) && rustIdent(src[lx.i]) {
		lx.i++
	}
	nameEnd := lx.i
	params, closeParams := -1, -1
	if p, ok := lx.generics(); ok && p < len(src) && src[p] == '(' {
		params = p
	}
	lx.i = nameEnd
	depth := 0
	for lx.i < len(src) {
		if skipped, closed := lx.skip(); skipped {
			if !closed {
				return nil, 0, false
			}
			continue
		}
		switch src[lx.i] {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
			if depth < 0 {
				return nil, 0, false
			}
			if depth == 0 && params >= 0 && lx.i > params && closeParams < 0 && src[lx.i] == ')' {
				closeParams = lx.i
			}
		case '{':
			if depth == 0 {
				lx.i++
				return signature(nameEnd, params, closeParams, lx.i-1), lx.i - 1, true
			}
			depth++
		case '}':
			depth--
			if depth < 0 {
				return nil, 0, false
			}
		case ';':
			if depth == 0 {
				return signature(nameEnd, params, closeParams, lx.i), -1, true
			}
		}
		lx.i++
	}
	return nil, -1, true
}

// signature gives the ranges of a signature to blank (see fnBody): from
// the name's end to the parameters' parenthesis, inside the parentheses,
// and from their close to end.
func signature(nameEnd, params, closeParams, end int) [][2]int {
	if params < 0 || closeParams < params {
		return nil
	}
	return [][2]int{{nameEnd, params}, {params + 1, closeParams}, {closeParams + 1, end}}
}

// generics steps over the spaces after a function's name and its generic
// parameters, if any ("<...>", where a "->" closes no bracket), and
// gives where it stopped: where the parameters' parenthesis should be.
func (lx *rustLexer) generics() (int, bool) {
	src := lx.src
	lx.i = spaceEnd(src, lx.i)
	if lx.i >= len(src) || src[lx.i] != '<' {
		return lx.i, true
	}
	angle := 0
	for lx.i < len(src) {
		if skipped, closed := lx.skip(); skipped {
			if !closed {
				return 0, false
			}
			continue
		}
		switch src[lx.i] {
		case '<':
			angle++
		case '>':
			if src[lx.i-1] != '-' {
				angle--
			}
		case '{', '}', ';':
			return 0, false
		}
		lx.i++
		if angle == 0 {
			break
		}
	}
	lx.i = spaceEnd(src, lx.i)
	return lx.i, true
}

// groupOpen steps to the next bracket that opens a group (a macro's
// rules) and gives its offset.
func (lx *rustLexer) groupOpen() (open int, ok bool) {
	src := lx.src
	for lx.i < len(src) && src[lx.i] != '(' && src[lx.i] != '[' && src[lx.i] != '{' {
		if skipped, closed := lx.skip(); skipped {
			if !closed {
				return 0, false
			}
			continue
		}
		lx.i++
	}
	return lx.i, lx.i < len(src)
}

// spaceEnd is the offset of the first byte from i on that is no space,
// tab or line end (len(src) when there is none).
func spaceEnd(src []byte, i int) int {
	return len(src) - len(bytes.TrimLeft(src[i:], " \t\r\n"))
}

// rustPlain: the bytes rustLexer.skip steps over none of, brackets
// aside (a raw, byte or C string starts with r, b or c).
var rustPlain = plainBytes("/\"'rbc")
