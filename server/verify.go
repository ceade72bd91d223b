package server

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/render"
)

// Reads of repository content on the answer path live here and in
// fileLines: every one goes through the service's fsroot.Root, which
// refuses a path with a symbolic link in any component, so nothing outside
// the repository is ever shown.

// Quote makes a path safe for one line of text output (render.Name).
func Quote(p string) string { return render.Name(p) }

// errNotUTF8 refuses a unit whose path JSON cannot carry faithfully:
// encoding/json would replace its bytes with U+FFFD and name another file.
var errNotUTF8 = errors.New("its path is not UTF-8, so no answer can name it faithfully")

// verify checks an indexed unit against its file: it returns the unit
// with the file's own bytes, re-numbered if the text moved, or an error
// when the file no longer holds the text (or cannot be read inside the
// root). files caches the lines of files already read.
func (s *Service) verify(u mss.Unit, files map[string][]string) (mss.Unit, error) {
	if !utf8.ValidString(u.Path) {
		return u, errNotUTF8
	}
	lines, ok := files[u.Path]
	if !ok {
		var err error
		lines, err = s.fileLines(u.Path)
		if err != nil {
			return u, err
		}
		files[u.Path] = lines
	}
	if u.Content == "" {
		if u.StartLine < 1 || u.EndLine > len(lines) || u.EndLine < u.StartLine {
			return u, errors.New("lines past the end of the file")
		}
		u.Content = joinLines(lines[u.StartLine-1 : u.EndLine])
	}
	at := locate(lines, splitLines(normalizeText(u.Content)), u.StartLine)
	if at < 0 {
		return u, errors.New("the file changed since indexing (re-index pending)")
	}
	u.EndLine += at - u.StartLine
	u.StartLine = at
	if u.EndLine > len(lines) {
		return u, errors.New("lines past the end of the file")
	}
	u.Content = joinLines(lines[u.StartLine-1 : u.EndLine])
	u.Tokens = mss.TokenCost(u.Content)
	return u, nil
}

func joinLines(lines []string) string {
	n := 0
	for _, l := range lines {
		n += len(l)
	}
	b := make([]byte, 0, n)
	for _, l := range lines {
		b = append(b, l...)
	}
	return string(b)
}

// dropUnnamable leaves out units whose path is not UTF-8, with a warning.
func dropUnnamable(units []mss.Unit) ([]mss.Unit, []string) {
	var warn []string
	keep := units[:0]
	for _, u := range units {
		if !utf8.ValidString(u.Path) {
			warn = append(warn, fmt.Sprintf("%s:%d-%d left out: %v", Quote(u.Path), u.StartLine, u.EndLine, errNotUTF8))
			continue
		}
		keep = append(keep, u)
	}
	return keep, warn
}
