// Package tokenize splits natural-language and source text into the terms
// every lexical view of mss indexes: identifiers are kept whole and also
// split at snake_case, camelCase and digit boundaries, paths at separators,
// all lower-cased. The same function serves queries and documents, so a
// query term "lookup_single" matches "_lookup_single", "lookupSingle" and
// "LookupSingle" alike.
package tokenize

import (
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// minLen is the shortest term kept; single letters carry no signal.
const minLen = 2

// Terms returns the terms of text in order of appearance, with repeats.
// Each identifier yields itself (lower-cased) followed by its parts when it
// has more than one.
func Terms(text string) []string {
	var out []string
	Each(text, func(t string) { out = append(out, t) })
	return out
}

// Each calls fn for every term of text, in order, without allocating a slice.
func Each(text string, fn func(term string)) {
	emit := func(t string, _ bool) { fn(t) }
	words(text, func(w string, k wordKind) { emitWordKind(w, k, nil, emit) })
}

// EachScratch is Each for a caller that keeps few of the terms (once
// each, say): a term that is not a substring of text is lower-cased into
// *buf, with scratch set, and is valid only until fn returns (copy it to
// keep it), so that no term is allocated.
func EachScratch(text string, buf *[]byte, fn func(term string, scratch bool)) {
	words(text, func(w string, k wordKind) { emitWordKind(w, k, buf, fn) })
}

// wordKind says what characters a word has, as found while it is read.
type wordKind uint8

const (
	kindWord       wordKind = 1 << iota // a word character (in asciiKind)
	kindNonASCII                        // a character outside ASCII
	kindUpper                           // an ASCII upper-case letter
	kindLetter                          // an ASCII letter
	kindDigit                           // an ASCII digit
	kindUnderscore                      // an underscore
)

// asciiKind is the kind of each ASCII byte; 0 for a byte that is no word
// character (isWord).
var asciiKind = func() (t [utf8.RuneSelf]wordKind) {
	for c := range t {
		switch {
		case !isWord(rune(c)):
		case 'A' <= c && c <= 'Z':
			t[c] = kindWord | kindUpper | kindLetter
		case 'a' <= c && c <= 'z':
			t[c] = kindWord | kindLetter
		case '0' <= c && c <= '9':
			t[c] = kindWord | kindDigit
		default: // '_'
			t[c] = kindWord | kindUnderscore
		}
	}
	return t
}()

// words calls fn for every maximal run of letters, digits and
// underscores, with the kinds of character it holds.
func words(text string, fn func(word string, k wordKind)) {
	i := 0
	for i < len(text) {
		var k wordKind
		j := i + 1
		if c := text[i]; c < utf8.RuneSelf {
			if k = asciiKind[c]; k == 0 {
				i++
				continue
			}
		} else {
			r, size := utf8.DecodeRuneInString(text[i:])
			if !isWord(r) {
				i += size
				continue
			}
			k, j = kindNonASCII, i+size
		}
		for j < len(text) {
			if c := text[j]; c < utf8.RuneSelf {
				// ASCII, the common case, from the table.
				ck := asciiKind[c]
				if ck == 0 {
					break
				}
				k |= ck
				j++
				continue
			}
			r, size := utf8.DecodeRuneInString(text[j:])
			if !isWord(r) {
				break
			}
			k |= kindNonASCII
			j += size
		}
		fn(text[i:j], k)
		i = j
	}
}

func isWord(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// emitWordKind emits an identifier-like word and its parts (its kind as
// words found it), lower-casing into *buf when buf is not nil
// (EachScratch).
func emitWordKind(w string, k wordKind, buf *[]byte, fn func(term string, scratch bool)) {
	trimmed := w
	if k&kindUnderscore != 0 {
		if trimmed = strings.Trim(w, "_"); trimmed == "" {
			return
		}
	}
	if k&kindNonASCII != 0 {
		emitWordRunes(trimmed, func(t string) { fn(t, false) })
		return
	}
	// ASCII: parts are byte ranges of trimmed, and a part with no
	// upper-case letter is emitted as a substring, without allocating.
	whole, scratch := trimmed, false
	if k&kindUpper != 0 {
		whole, scratch = lowerASCIITo(trimmed, buf)
	}
	if len(whole) >= minLen && (k&kindLetter != 0 || !isNumber(whole)) {
		fn(whole, scratch)
	}
	if k&(kindUpper|kindDigit|kindUnderscore) == 0 {
		return // lower-case letters alone: one part, emitted already
	}
	var bounds [32]int
	cuts := splitASCII(trimmed, bounds[:0])
	if len(cuts) <= 2 {
		return // one part: the whole word, already emitted
	}
	for i := 0; i+1 < len(cuts); i += 2 {
		p := trimmed[cuts[i]:cuts[i+1]]
		if len(p) >= minLen && !isNumber(p) {
			fn(lowerASCIITo(p, buf))
		}
	}
}

// lowerASCIITo is lowerASCII, into *buf when buf is not nil: it says
// whether the string returned is there.
func lowerASCIITo(s string, buf *[]byte) (string, bool) {
	if buf == nil {
		return lowerASCII(s), false
	}
	i := firstUpperASCII(s)
	if i < 0 {
		return s, false
	}
	b := append((*buf)[:0], s...)
	lowerBytesASCII(b[i:])
	*buf = b
	return unsafe.String(&b[0], len(b)), true
}

// emitWordRunes is emitWord for words with non-ASCII letters.
func emitWordRunes(trimmed string, fn func(string)) {
	whole := strings.ToLower(trimmed)
	parts := Split(trimmed)
	if len(whole) >= minLen && !isNumber(whole) {
		fn(whole)
	}
	if len(parts) > 1 {
		for _, p := range parts {
			if len(p) >= minLen && !isNumber(p) {
				fn(p)
			}
		}
	}
}

// lowerASCII lower-cases an ASCII string, returning s itself when it has no
// upper-case letter.
func lowerASCII(s string) string {
	i := firstUpperASCII(s)
	if i < 0 {
		return s
	}
	b := []byte(s)
	lowerBytesASCII(b[i:])
	return string(b)
}

// firstUpperASCII is the index of s's first upper-case ASCII letter, or
// -1.
func firstUpperASCII(s string) int {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return i
		}
	}
	return -1
}

// lowerBytesASCII lower-cases b's ASCII letters in place.
func lowerBytesASCII(b []byte) {
	for j := range b {
		if 'A' <= b[j] && b[j] <= 'Z' {
			b[j] += 'a' - 'A'
		}
	}
}

func isUpperASCII(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLowerASCII(c byte) bool { return 'a' <= c && c <= 'z' }
func isDigitASCII(c byte) bool { return '0' <= c && c <= '9' }

// splitASCII appends to cuts the [start, end) byte offsets of the parts of
// an ASCII identifier, by the same rules as Split.
func splitASCII(id string, cuts []int) []int {
	start := 0
	flush := func(end int) {
		if end > start {
			cuts = append(cuts, start, end)
		}
		start = end
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c == '_' {
			flush(i)
			start = i + 1
			continue
		}
		if i == start {
			continue
		}
		prev := id[i-1]
		switch {
		case isUpperASCII(c) && isLowerASCII(prev):
			flush(i)
		case isUpperASCII(c) && isUpperASCII(prev) && i+1 < len(id) && isLowerASCII(id[i+1]):
			flush(i)
		case isDigitASCII(c) != isDigitASCII(prev) && prev != '_':
			flush(i)
		}
	}
	flush(len(id))
	return cuts
}

func isNumber(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// Split breaks one identifier into lower-cased parts at underscores, at
// lower-to-upper case changes ("lookupSingle" -> lookup, single), at the end
// of an upper-case run ("HTTPServer" -> http, server) and between letters and
// digits ("utf8decode" -> utf, 8, decode).
func Split(ident string) []string {
	var parts []string
	runes := []rune(ident)
	start := 0
	flush := func(end int) {
		if end > start {
			parts = append(parts, strings.ToLower(string(runes[start:end])))
		}
		start = end
	}
	for i := 0; i < len(runes); i++ {
		r := runes[i]
		if r == '_' {
			flush(i)
			start = i + 1
			continue
		}
		if i == start {
			continue
		}
		prev := runes[i-1]
		switch {
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush(i)
		case unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(runes) && unicode.IsLower(runes[i+1]):
			flush(i)
		case unicode.IsDigit(r) != unicode.IsDigit(prev) && prev != '_':
			flush(i)
		}
	}
	flush(len(runes))
	return parts
}

// Identifiers returns the identifier-like words of text as written (case
// kept, underscores kept, dotted names split), at least minLen long and not
// all digits. Entity views match these against defined symbols.
func Identifiers(text string) []string {
	var out []string
	words(text, func(w string, _ wordKind) {
		if len(strings.Trim(w, "_")) >= minLen && !isNumber(w) {
			out = append(out, w)
		}
	})
	return out
}
