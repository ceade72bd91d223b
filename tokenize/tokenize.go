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
	i := 0
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isWord(r) {
			i += size
			continue
		}
		j := i
		for j < len(text) {
			r2, s2 := utf8.DecodeRuneInString(text[j:])
			if !isWord(r2) {
				break
			}
			j += s2
		}
		emitWord(text[i:j], fn)
		i = j
	}
}

func isWord(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// emitWord emits an identifier-like word and its parts.
func emitWord(w string, fn func(string)) {
	trimmed := strings.Trim(w, "_")
	if trimmed == "" {
		return
	}
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
	i := 0
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isWord(r) {
			i += size
			continue
		}
		j := i
		for j < len(text) {
			r2, s2 := utf8.DecodeRuneInString(text[j:])
			if !isWord(r2) {
				break
			}
			j += s2
		}
		w := text[i:j]
		if len(strings.Trim(w, "_")) >= minLen && !isNumber(w) {
			out = append(out, w)
		}
		i = j
	}
	return out
}
