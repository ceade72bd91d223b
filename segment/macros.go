package segment

import "bytes"

// C and C++ sources lean on object-like macros that the grammars cannot
// expand: FMT_BEGIN_NAMESPACE opens a namespace brace the parser never
// sees, FMT_CONSTEXPR or UV_EXTERN stand where a declaration specifier
// goes, FMT_NOEXCEPT after a parameter list. Each derails the parse of
// the definitions around it, and a header can end up as one "function"
// spanning hundreds of lines. maskMacros blanks such macro words (spaces
// for bytes, so every offset and line stays where it was) and Segment
// parses the masked text too, keeping whichever parse has fewer errors;
// names and unit text are always read from the original source.

// maskMacros returns src with likely annotation macros blanked, and
// whether it blanked any. A macro word is an all-capitals identifier with
// an underscore, at least four bytes, not called (no "(" after it), on a
// line that is not a preprocessor directive or its continuation, and
// either alone on its line, or followed by a word in a specifier position
// ("FMT_API void f();", "FMT_CONSTEXPR inline auto") or a calling
// convention's ("int CJSON_CDECL main(void)"), or by a brace, colon or
// semicolon after a parameter list ("f() FMT_NOEXCEPT {").
func maskMacros(src []byte) ([]byte, bool) {
	var out []byte
	directive := false // the previous line was a directive ending in "\"
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
			s = e + 1
			continue
		}
		directive = false
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
			if macroWord(line[i:j]) && maskable(line, i, j, first) {
				if out == nil {
					out = append([]byte(nil), src...)
				}
				for k := s + i; k < s+j; k++ {
					out[k] = ' '
				}
			}
			i = j
		}
		s = e + 1
	}
	if out == nil {
		return src, false
	}
	return out, true
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
	if len(rest) > 0 && rest[0] == '(' {
		return false // a call or a function-like macro
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
	p := bytes.TrimRight(line[:i], " \t") // what comes before the word
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
	}
	return false
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
