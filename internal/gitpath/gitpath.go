// Package gitpath reads the paths git prints.
package gitpath

import "strconv"

// Unquote undoes git's quoting of a path it prints (core.quotePath: a path
// with bytes past ASCII, a quote, a backslash or a control character comes
// in double quotes, with C escapes and octal bytes, which strconv.Unquote
// reads); any other path is returned as it is.
func Unquote(p string) string {
	if len(p) >= 2 && p[0] == '"' && p[len(p)-1] == '"' {
		if u, err := strconv.Unquote(p); err == nil {
			return u
		}
	}
	return p
}
