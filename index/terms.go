package index

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/missingcomplement/mss/tokenize"
)

// termCache builds the FTS text of units: the terms of package tokenize,
// space-separated. tokenize splits text into words (runs of letters,
// digits and '_') and each word into its terms independently, so the terms
// of a word are computed once and reused: identifiers repeat heavily
// within a repository, and splitting them was a sixth of a build's CPU.
// The result is exactly strings.Join(tokenize.Terms(text), " ").
type termCache struct {
	words map[string]string // word -> its terms joined by spaces ("" if none)
}

// maxCachedWords bounds the cache; it is emptied when full.
const maxCachedWords = 1 << 18

func newTermCache() *termCache { return &termCache{words: map[string]string{}} }

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

func (c *termCache) terms(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		if !isWordRune(r) {
			i += size
			continue
		}
		j := i + size
		for j < len(text) {
			r2, s2 := rune(text[j]), 1
			if r2 >= utf8.RuneSelf {
				r2, s2 = utf8.DecodeRuneInString(text[j:])
			}
			if !isWordRune(r2) {
				break
			}
			j += s2
		}
		word := text[i:j]
		t, ok := c.words[word]
		if !ok {
			t = strings.Join(tokenize.Terms(word), " ")
			if len(c.words) >= maxCachedWords {
				clear(c.words)
			}
			c.words[strings.Clone(word)] = t
		}
		if t != "" {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(t)
		}
		i = j
	}
	return b.String()
}
