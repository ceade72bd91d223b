// Package textcut shortens text without cutting a character in two.
package textcut

import "unicode/utf8"

// Head is the longest prefix of s of at most n bytes that does not end
// inside a UTF-8 character: s itself when it is no longer than n.
func Head(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
