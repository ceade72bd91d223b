package index

// .mssignore: the user's own exclusions, in gitignore syntax, read from
// the root of the source (the work tree's file, or the blob in the
// indexed commit). Supported: blank lines and "#" comments, "!" negation,
// a trailing "/" for directories only, a leading or inner "/" anchoring
// the pattern at the root, "*", "?", "[...]" within a component and "**"
// across components. As in git, the last matching line wins, and a file
// inside an excluded directory cannot be re-included. Excluded files are
// recorded in the index with the status "ignored".

import (
	"fmt"
	"path"
	"strings"
)

// ignoreFile is the name of the exclusion file at the repository root.
const ignoreFile = ".mssignore"

type ignoreRule struct {
	parts    []string // pattern components; "**" matches any number
	negate   bool
	dirOnly  bool
	anchored bool // match from the root, not at any depth
}

// ignoreList is a parsed .mssignore; the nil list ignores nothing.
type ignoreList struct{ rules []ignoreRule }

// parseIgnore parses gitignore syntax; a malformed pattern is an error
// naming the file and line.
func parseIgnore(name string, data []byte) (*ignoreList, error) {
	l := &ignoreList{}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if !strings.HasSuffix(line, "\\ ") {
			line = strings.TrimRight(line, " \t")
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var r ignoreRule
		if strings.HasPrefix(line, "!") {
			r.negate, line = true, line[1:]
		} else if strings.HasPrefix(line, "\\") && len(line) > 1 && (line[1] == '!' || line[1] == '#') {
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly, line = true, strings.TrimRight(line, "/")
		}
		if strings.Contains(line, "/") {
			r.anchored = true
			line = strings.TrimPrefix(line, "/")
		}
		if line == "" {
			continue
		}
		r.parts = strings.Split(line, "/")
		for _, p := range r.parts {
			if p == "**" {
				continue
			}
			if _, err := path.Match(p, ""); err != nil {
				return nil, fmt.Errorf("%s:%d: pattern %q: %w", name, i+1, p, err)
			}
		}
		l.rules = append(l.rules, r)
	}
	return l, nil
}

// match reports whether the file at p (repository-relative) is excluded.
func (l *ignoreList) match(p string) bool {
	if l == nil || len(l.rules) == 0 {
		return false
	}
	comps := strings.Split(p, "/")
	// A file inside an excluded directory stays excluded.
	for i := 1; i < len(comps); i++ {
		if l.decide(comps[:i], true) {
			return true
		}
	}
	return l.decide(comps, false)
}

// decide applies the rules, last match winning, to one path.
func (l *ignoreList) decide(comps []string, isDir bool) bool {
	excluded := false
	for _, r := range l.rules {
		if r.dirOnly && !isDir {
			continue
		}
		var m bool
		if r.anchored {
			m = matchParts(r.parts, comps)
		} else {
			m = matchParts(r.parts, comps[len(comps)-1:])
		}
		if m {
			excluded = !r.negate
		}
	}
	return excluded
}

// matchParts matches path components against pattern components, "**"
// standing for zero or more components.
func matchParts(pat, comps []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			rest := pat[1:]
			if len(rest) == 0 {
				return len(comps) > 0 // "dir/**" matches what is inside
			}
			for i := 0; i <= len(comps); i++ {
				if matchParts(rest, comps[i:]) {
					return true
				}
			}
			return false
		}
		if len(comps) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], comps[0]); !ok {
			return false
		}
		pat, comps = pat[1:], comps[1:]
	}
	return len(comps) == 0
}
