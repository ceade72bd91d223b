package segment

import "bytes"

// C and C++ sources lean on macros that the grammars cannot expand:
// FMT_BEGIN_NAMESPACE opens a namespace brace the parser never sees,
// FMT_CONSTEXPR or UV_EXTERN stand where a declaration specifier goes,
// FMT_NOEXCEPT after a parameter list, FMT_ENABLE_IF(...) for a template
// parameter, FMT_PRAGMA_GCC(...) for a statement. Each derails the parse
// of the definitions around it, and a header can end up as one
// "function" spanning hundreds of lines. maskMacros blanks such macros
// (spaces for bytes, every line break kept, so every offset and line
// stays where it was) and Segment parses the masked text too, keeping
// whichever parse has fewer errors; names and unit text are always read
// from the original source.

// maskMacros returns src with likely annotation macros blanked, and
// whether it blanked any. A macro word is an all-capitals identifier with
// an underscore, at least four bytes, on a line that is not a
// preprocessor directive or its continuation. It is blanked when it is
// not called (no "(" after it) and stands alone on its line, or before a
// word in a specifier position ("FMT_API void f();", "FMT_CONSTEXPR
// inline auto") or a calling convention's ("int CJSON_CDECL main(void)"),
// or before a brace, colon or semicolon after a parameter list ("f()
// FMT_NOEXCEPT {"), or after a parameter's type and name ("value(int x
// FMT_BUILTIN)"); or when it stands for constexpr ("if FMT_CONSTEXPR20
// (x)"). A macro called is blanked, parentheses and all, as a statement
// of its own line with no semicolon, between statements or declarations
// ("FMT_PRAGMA_GCC(push_options)"; not before a block, which makes it a
// definition's head, nor before an operator that goes on with it, nor
// a handler after a block: "SPDLOG_LOGGER_CATCH(loc)"), as an
// annotation after a function's parameter list ("int Read()
// LOCKS_EXCLUDED(mu_) {", annotationCall), and as a template parameter,
// with its comma (maskTemplateMacros).
func maskMacros(src []byte) ([]byte, bool) {
	var out []byte
	directive := false // the previous line was a directive ending in "\"
	ended := true      // the code before the line ends a statement or opens or closes a block
	closed := false    // it closes a block
	var head []byte    // the code since the last that ended a statement or a block (headOf)
	for s := 0; s < len(src); {
		e := s
		for e < len(src) && src[e] != '\n' {
			e++
		}
		line := src[s:e]
		cont := len(line) > 0 && (line[len(line)-1] == '\\' || (len(line) > 1 && line[len(line)-1] == '\r' && line[len(line)-2] == '\\'))
		first := firstNonSpace(line)
		if directive || (first < len(line) && line[first] == '#') {
			directive = cont
			ended = true
			head = head[:0]
			s = e + 1
			continue
		}
		directive = false
		code := bytes.TrimRight(line, " \t\r")
		if first > len(code) {
			first = len(code) // a line of blanks
		}
		if n := macroStatement(code[first:]); n > 0 && ended && statementNext(src[e:]) && !(closed && handler(code[first:])) {
			// A macro called on a line of its own, as a statement with
			// no semicolon: "FMT_PRAGMA_GCC(push_options)",
			// "RAPIDJSON_DIAG_OFF(padded)".
			out = blank(out, src, s+first, s+first+n)
			s = e + 1
			continue
		}
		isCode := len(code) > first && !hasPrefix(code[first:], "//") && !hasPrefix(code[first:], "/*") && !hasPrefix(code[first:], "*")
		if isCode {
			c := code[len(code)-1]
			ended = c == ';' || c == '{' || c == '}' || c == ':' && !bytes.HasSuffix(code, []byte("::"))
			closed = c == '}'
		}
		for i := first; i < len(line); {
			c := line[i]
			if !isIdentByte(c) {
				i++
				continue
			}
			j := i
			for j < len(line) && isIdentByte(line[j]) {
				j++
			}
			if i > 0 && isIdentByte(line[i-1]) {
				i = j
				continue
			}
			end := j // what is blanked: the word, or the call it makes
			masked := false
			if macroWord(line[i:j]) {
				if k := annotationCall(line, i, j, first, head); k > 0 {
					end, masked = k, true // "int Read() LOCKS_EXCLUDED(mu_) {"
				} else {
					masked = maskable(line, i, j, first)
				}
			}
			if masked {
				out = blank(out, src, s+i, s+end)
			}
			i = end
		}
		if isCode {
			head = headOf(head, code[first:], ended)
		}
		s = e + 1
	}
	out = maskTemplateMacros(src, out)
	if out == nil {
		return src, false
	}
	return out, true
}

// maskTemplateMacros blanks a function-like macro that stands for a
// template parameter, with the comma that parts it from the others:
// "template <typename T, FMT_ENABLE_IF(is_integral<T>::value)>" reads
// as "template <typename T>". out is src's masked copy so far (nil: none
// yet); the copy is returned.
func maskTemplateMacros(src, out []byte) []byte {
	const kw = "template"
	// param blanks the parameter after sep (the list's "<" or a comma)
	// when it is a macro called, and returns the "," or ">" after it.
	param := func(sep int) (int, bool) {
		j := skipBlank(src, sep+1)
		end := macroCall(src, j)
		if end < 0 {
			return 0, false
		}
		after := skipBlank(src, end+1)
		if after >= len(src) || src[after] != ',' && src[after] != '>' {
			return 0, false
		}
		from, to := sep, end // ", MACRO(...)"
		if src[sep] == '<' {
			from = j
			if src[after] == ',' {
				to = after // "MACRO(...),"
			}
		}
		out = blank(out, src, from, to+1)
		return after, true
	}
	for at := 0; ; {
		k := bytes.Index(src[at:], []byte(kw))
		if k < 0 {
			return out
		}
		k += at
		at = k + len(kw)
		if k > 0 && isIdentByte(src[k-1]) || at < len(src) && isIdentByte(src[at]) {
			continue
		}
		lt := skipBlank(src, at)
		if lt >= len(src) || src[lt] != '<' {
			continue
		}
		i := lt + 1
		if next, ok := param(lt); ok {
			i = next
		}
		for depth := 1; i < len(src) && depth > 0; {
			switch src[i] {
			case ',':
				if depth == 1 {
					if next, ok := param(i); ok {
						i = next
						continue
					}
				}
			case '<':
				depth++
			case '>':
				depth--
			case '(':
				if end := closeParenWithin(src, i, maxCall); end > 0 {
					i = end
				} else {
					depth = 0
					continue
				}
			case ';', '{', '}':
				depth = 0
				continue
			}
			i++
		}
		at = i
	}
}

// blank turns the bytes of [from, to) of out, src's masked copy (nil:
// none yet, and one is made), into spaces, every line break kept ("\n",
// and a lone "\r" too), and returns the copy.
func blank(out, src []byte, from, to int) []byte {
	if out == nil {
		out = append([]byte(nil), src...)
	}
	for k := from; k < to; k++ {
		if out[k] != '\n' && out[k] != '\r' {
			out[k] = ' '
		}
	}
	return out
}

// skipBlank returns the offset of the first byte from i that is not a
// blank or a line break.
func skipBlank(src []byte, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
		i++
	}
	return i
}

// macroCall returns the offset of the ")" that closes the call of a
// macro word at src[j:] ("FMT_ENABLE_IF (x)"), or -1 when no macro is
// called there.
func macroCall(src []byte, j int) int {
	n := identLen(src[j:])
	if n == 0 || !macroWord(src[j:j+n]) {
		return -1
	}
	open := skipBlank(src, j+n)
	if open >= len(src) || src[open] != '(' {
		return -1
	}
	return closeParenWithin(src, open, maxCall)
}

// maxCall bounds how far a macro's call, or a parenthesis inside a
// template's parameters, is read for its ")": one that never closes is
// then read at most this far, whatever follows it, and a file of them
// in time linear in its length.
const maxCall = 1024

// closeParenWithin is closeParen reading at most limit bytes from open.
func closeParenWithin(src []byte, open, limit int) int {
	return closeParen(src[:min(len(src), open+limit)], open)
}

// closeParen returns the offset of the ")" that closes the "(" at open,
// past string literals, or -1 when a ";", "{", "}" or character literal
// comes first or the text ends.
func closeParen(src []byte, open int) int {
	depth := 0
	for i := open; i < len(src); i++ {
		switch src[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		case '"':
			// A string argument: "FMT_PRAGMA_GCC(optimize(\"Og\"))".
			for i++; i < len(src) && src[i] != '"' && src[i] != '\n'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
			if i >= len(src) || src[i] != '"' {
				return -1
			}
		case ';', '{', '}', '\'':
			return -1
		}
	}
	return -1
}

func firstNonSpace(line []byte) int {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	return i
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
}

// macroWord: all capitals, digits and underscores, with an underscore
// inside and a letter first, four bytes or more.
func macroWord(w []byte) bool {
	if len(w) < 4 || w[0] < 'A' || w[0] > 'Z' {
		return false
	}
	under := false
	for _, c := range w {
		switch {
		case c == '_':
			under = true
		case c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return under
}

// maskable says whether the macro word line[i:j] stands where the grammar
// cannot take it.
func maskable(line []byte, i, j, first int) bool {
	k := j
	for k < len(line) && (line[k] == ' ' || line[k] == '\t') {
		k++
	}
	rest := line[k:]
	p := bytes.TrimRight(line[:i], " \t") // what comes before the word
	if len(rest) > 0 && rest[0] == '(' {
		// A call or a function-like macro, but for a word that stands
		// for constexpr after if: "if FMT_CONSTEXPR20 (x)".
		return hasSuffixWord(p, "if")
	}
	if i > first {
		if p := line[i-1]; p == '.' || p == '>' && i >= 2 && line[i-2] == '-' || p == ':' {
			return false // a member or a qualified name
		}
	}
	alone := i == first && (len(rest) == 0 || rest[0] == '\r' || hasPrefix(rest, "//") || hasPrefix(rest, "/*"))
	if alone {
		return true
	}
	if len(rest) == 0 {
		return false
	}
	switch c := rest[0]; {
	case k > j && (c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '~'):
		// A specifier position: at the start of the line, or after a
		// template parameter list or another specifier keyword.
		if i == first {
			return true
		}
		if len(p) > 0 && p[len(p)-1] == '>' {
			return true
		}
		for _, kw := range []string{"inline", "static", "constexpr", "extern", "virtual", "explicit", "friend", "struct", "class", "union"} {
			if hasSuffixWord(p, kw) {
				return true
			}
		}
		// After other macro words that open the line, before a type
		// and a name called: "FMT_CONSTEXPR FMT_INLINE auto f(" (not
		// "PCRE2_EXP_DEFN PCRE2_SPTR PCRE2_CALL_CONVENTION", a type).
		if onlyMacroWords(p[first:]) && calledName(skipWord(rest)) {
			return true
		}
		// Between a return type and the name of the function it
		// declares, where a calling convention goes: "int CJSON_CDECL
		// main(void)", "void * JEMALLOC_NOTHROW f(". Not after enum,
		// where it is the type's tag: "enum FOO_KIND f(".
		return len(p) > 0 && (isIdentByte(p[len(p)-1]) || p[len(p)-1] == '*' || p[len(p)-1] == '&') &&
			!hasSuffixWord(p, "enum") && calledName(rest)
	case c == '{' || c == ':' || c == ';' || c == '=':
		// After a parameter list: "f() FMT_NOEXCEPT {", "... const FMT_OVERRIDE;".
		return len(p) > 0 && (p[len(p)-1] == ')' || hasSuffixWord(p, "const"))
	case c == ',' || c == ')':
		// After a parameter's type and name, where an attribute goes:
		// "value(int x FMT_BUILTIN)", "f(void *p UV_UNUSED, int n)".
		return paramName(p)
	}
	return false
}

// An annotation's call and the parameter list before it are read at
// most this far, so that a line of calls that never close, or of
// parentheses nested deep, is read in time linear in its length.
const (
	maxAnnotation = 256
	maxParams     = 1024
)

// headOf gives the code a function's head may have so far, after line,
// a line of code, is read: the lines since the last that ended a
// statement or opened or closed a block, joined by a blank, at most
// maxParams bytes of their end (nothing after a line that ended one).
// head's buffer is reused.
func headOf(head, line []byte, ended bool) []byte {
	if ended {
		return head[:0]
	}
	if len(line) >= maxParams {
		return append(head[:0], line[len(line)-maxParams:]...)
	}
	head = append(append(head, ' '), line...)
	if len(head) > maxParams {
		head = append(head[:0], head[len(head)-maxParams:]...)
	}
	return head
}

// openParen finds, reading b back from its end with depth parentheses
// open, the "(" that opens them all (depth 0 counts from b's last ")"),
// reading at most maxParams bytes; -1 and the depth left when it is not
// in b.
func openParen(b []byte, depth int) (int, int) {
	for k := len(b) - 1; k >= max(0, len(b)-maxParams); k-- {
		switch b[k] {
		case ')':
			depth++
		case '(':
			if depth--; depth == 0 {
				return k, 0
			}
		}
	}
	return -1, depth
}

// annotationCall returns the end of the call of the macro word line[i:j]
// when it annotates a function after its parameter list ("int Read()
// LOCKS_EXCLUDED(mu_) {", "void Compact() EXCLUSIVE_LOCKS_REQUIRED(mutex_);",
// "~MutexLock() UNLOCK_FUNCTION() {", or on a line of its own under
// "bool Matches(const Tuple& args) const"), or 0. head is the code of
// the lines before (headOf), where the list may have opened. The list
// opens after a name that is neither a keyword nor a macro word ("if
// (utf) BACKCHAR(ptr);" and "SECTION(x) SUCCEED();" are statements),
// and, when that name is on an earlier line, after a type or a class;
// the call ends the line or comes before a body, a ";", an initializer
// list, "=" or another specifier.
func annotationCall(line []byte, i, j, first int, head []byte) int {
	open := j + firstNonSpace(line[j:])
	if open == len(line) || line[open] != '(' {
		return 0
	}
	specifiers := func(p []byte) []byte {
		for _, w := range []string{"override", "final", "noexcept", "const"} {
			if hasSuffixWord(p, w) {
				p = bytes.TrimRight(p[:len(p)-len(w)], " \t")
			}
		}
		return p
	}
	// What comes before the call on its line, or, when that is nothing
	// but specifiers ("      const GTEST_…(mu) {"), the lines before.
	p, before := specifiers(bytes.TrimRight(line[first:i], " \t")), false
	if len(p) == 0 {
		p, before = specifiers(head), true
	}
	if len(p) == 0 || p[len(p)-1] != ')' {
		return 0
	}
	po, depth := openParen(p, 0)
	if po < 0 && !before {
		// Opened on an earlier line: "void f(int a,\n int b) LOCKS_EXCLUDED(mu);".
		p, before = head, true
		po, _ = openParen(p, depth)
	}
	if po < 0 {
		return 0
	}
	name := bytes.TrimRight(p[:po], " \t")
	n := trailingIdentLen(name)
	word := name[len(name)-n:]
	if n == 0 || macroWord(word) || word[0] >= '0' && word[0] <= '9' {
		return 0
	}
	switch string(word) {
	case "if", "while", "for", "switch", "return", "sizeof", "catch", "decltype", "alignof", "defined", "noexcept", "typeof":
		return 0
	}
	if before {
		// On an earlier line, a function's head has a type or a
		// class before its name ("bool Matches(…) const",
		// "ScopedTrace::~ScopedTrace()"); a call with none is a
		// statement or a macro's declaration ("mq_gen(static, mq_)"
		// before "TEST_BEGIN(test_mq_basic) {").
		b := bytes.TrimRight(name[:len(name)-n], " \t")
		if len(b) == 0 || !isIdentByte(b[len(b)-1]) && !bytes.ContainsAny(b[len(b)-1:], "*&>:~") {
			return 0
		}
	}
	end := closeParenWithin(line, open, maxAnnotation)
	if end < 0 {
		return 0
	}
	rest := bytes.TrimLeft(line[end+1:], " \t\r")
	switch {
	case len(rest) == 0, rest[0] == '{', rest[0] == ';', rest[0] == ':', rest[0] == '=',
		hasPrefix(rest, "//"), hasPrefix(rest, "/*"), hasPrefix(rest, "const"), hasPrefix(rest, "override"),
		macroWord(rest[:identLen(rest)]):
		return end + 1
	}
	return 0
}

// macroStatement returns the length of the macro call code starts with
// when nothing but a comment follows it (0: none).
func macroStatement(code []byte) int {
	end := macroCall(code, 0)
	if end < 0 {
		return 0
	}
	if rest := bytes.TrimLeft(code[end+1:], " \t"); len(rest) > 0 && !hasPrefix(rest, "//") && !hasPrefix(rest, "/*") {
		return 0
	}
	return end + 1
}

// handler says whether a macro called after a block is a handler of
// it: "SPDLOG_TRY { ... }" then "SPDLOG_LOGGER_CATCH(loc)".
func handler(code []byte) bool {
	return bytes.Contains(code[:identLen(code)], []byte("CATCH"))
}

// statementNext says whether the next line that is not blank begins a
// statement or a declaration of its own: a word, a directive, a closing
// brace, a comment, or nothing. Not a block, which makes the macro a
// definition's head ("TEST_CASE(x)" then "{"), nor an operator that
// goes on with it ("GTEST_CHECK_(x)" then "<< message;").
func statementNext(rest []byte) bool {
	i := skipBlank(rest, 0)
	if i == len(rest) {
		return true
	}
	switch c := rest[i]; {
	case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z', c == '#', c == '}', c == '~':
		return true
	case c == '/':
		return hasPrefix(rest[i:], "//") || hasPrefix(rest[i:], "/*")
	}
	return false
}

// paramName says whether b ends in a parameter's type and name: two
// words (or a word after "*" or "&") after "(" or ",", on the line.
func paramName(b []byte) bool {
	n := trailingIdentLen(b)
	if n == 0 || b[len(b)-n] >= '0' && b[len(b)-n] <= '9' {
		return false
	}
	b = bytes.TrimRight(b[:len(b)-n], " \t")
	if len(b) == 0 || !isIdentByte(b[len(b)-1]) && b[len(b)-1] != '*' && b[len(b)-1] != '&' {
		return false // no type before the name
	}
	open := bytes.LastIndexAny(b, "(,")
	return open >= 0 && !bytes.ContainsAny(b[open:], ";={}")
}

// onlyMacroWords says whether b is macro words separated by blanks.
func onlyMacroWords(b []byte) bool {
	for _, w := range bytes.Fields(b) {
		if !macroWord(w) {
			return false
		}
	}
	return len(b) > 0
}

// trailingIdentLen is the length of the identifier bytes b ends with.
func trailingIdentLen(b []byte) int {
	n := 0
	for n < len(b) && isIdentByte(b[len(b)-1-n]) {
		n++
	}
	return n
}

// identLen is the length of the identifier b starts with (0: none).
func identLen(b []byte) int {
	n := 0
	for n < len(b) && isIdentByte(b[n]) {
		n++
	}
	return n
}

// skipWord returns b after its first identifier and the blanks, "*"
// and "&" after it, or nil when b does not start with one.
func skipWord(b []byte) []byte {
	n := identLen(b)
	if n == 0 {
		return nil
	}
	return bytes.TrimLeft(b[n:], " \t*&")
}

// calledName says whether b starts with an identifier followed by "(".
func calledName(b []byte) bool {
	n := identLen(b)
	if n == 0 || b[0] >= '0' && b[0] <= '9' {
		return false
	}
	rest := bytes.TrimLeft(b[n:], " \t")
	return len(rest) > 0 && rest[0] == '('
}

func hasPrefix(b []byte, s string) bool { return len(b) >= len(s) && string(b[:len(s)]) == s }

func hasSuffixWord(b []byte, w string) bool {
	if len(b) < len(w) || string(b[len(b)-len(w):]) != w {
		return false
	}
	return len(b) == len(w) || !isIdentByte(b[len(b)-len(w)-1])
}
