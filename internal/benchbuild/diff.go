package benchbuild

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/missingcomplement/mss/internal/gitpath"
	"github.com/missingcomplement/mss/internal/textcut"
)

// FileDiff is one file of a unified diff.
type FileDiff struct {
	OldPath, NewPath string // "" for /dev/null
	Binary           bool
	Hunks            []Hunk
	// OldMode and NewMode are the git modes the headers give ("100644",
	// "120000" for a symbolic link, "160000" for a submodule), or "".
	OldMode, NewMode string
	// Line is the patch line (1-based) of the file's first header line.
	Line int
}

// Git modes of entries that are not files.
const (
	ModeSymlink   = "120000"
	ModeSubmodule = "160000"
)

// Hunk is one "@@ -a,b +c,d @@" block. Lines keep their ' ', '-' or '+'
// prefix; "\ No newline" markers are dropped.
type Hunk struct {
	OldStart, OldLines int
	NewStart, NewLines int
	Lines              []string
	// Line is the patch line (1-based) of the hunk's "@@" header.
	Line int
}

// Change is one changed pre-image line: a removed line, or the line after
// which new lines were inserted (line 1 for an insertion at the top). Text
// holds the removed line and the lines added at this place.
type Change struct {
	Line int
	Text []string
}

// ParsePatch reads a unified diff as git writes it (also plain "---/+++"
// diffs). It fails, naming the patch line, on a malformed hunk header, a
// hunk whose line counts do not match its body, a hunk that removes and
// adds no line, or a path that names no file of a repository
// (CheckPatchPath).
func ParsePatch(patch string) ([]FileDiff, error) {
	out, err := parsePatch(patch)
	if err != nil {
		return nil, err
	}
	for _, fd := range out {
		for _, p := range []string{fd.OldPath, fd.NewPath} {
			if p == "" {
				continue
			}
			if err := CheckPatchPath(p); err != nil {
				return nil, fmt.Errorf("patch line %d: %v", fd.Line, err)
			}
		}
	}
	return out, nil
}

// CheckPatchPath refuses a path of a patch that is not a plain path of a
// file inside the repository, as git writes one: an absolute path, an
// empty, "." or ".." component, a backslash, or a NUL or line break.
// Such a path would be read outside the repository or as another file:
// git reads "commit:./path" against the current directory, and dies on
// it in a bare repository.
func CheckPatchPath(p string) error {
	switch {
	case strings.HasPrefix(p, "/"):
		return fmt.Errorf("path %q is absolute; want a path inside the repository", p)
	case strings.ContainsRune(p, '\\'):
		return fmt.Errorf("path %q holds a backslash; want '/' between directories", p)
	case strings.ContainsAny(p, "\x00\n\r"):
		return fmt.Errorf("path %q holds a NUL or a line break", p)
	}
	for _, c := range strings.Split(p, "/") {
		switch c {
		case "":
			return fmt.Errorf("path %q has an empty component", p)
		case ".", "..":
			return fmt.Errorf("path %q has a %q component; want the plain path inside the repository", p, c)
		}
	}
	return nil
}

func parsePatch(patch string) ([]FileDiff, error) {
	lines := strings.Split(patch, "\n")
	var out []FileDiff
	var cur *FileDiff
	newFile := func(line int) *FileDiff {
		out = append(out, FileDiff{Line: line})
		return &out[len(out)-1]
	}
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSuffix(lines[i], "\r")
		switch {
		case strings.HasPrefix(l, "diff --git "):
			cur = newFile(i + 1)
			a, b := splitGitHeader(strings.TrimPrefix(l, "diff --git "))
			cur.OldPath, cur.NewPath = a, b
		case strings.HasPrefix(l, "rename from ") && cur != nil:
			cur.OldPath = gitpath.Unquote(strings.TrimPrefix(l, "rename from "))
		case strings.HasPrefix(l, "rename to ") && cur != nil:
			cur.NewPath = gitpath.Unquote(strings.TrimPrefix(l, "rename to "))
		case strings.HasPrefix(l, "new file mode ") && cur != nil:
			cur.OldPath = ""
			cur.NewMode = strings.TrimPrefix(l, "new file mode ")
		case strings.HasPrefix(l, "deleted file mode ") && cur != nil:
			cur.NewPath = ""
			cur.OldMode = strings.TrimPrefix(l, "deleted file mode ")
		case strings.HasPrefix(l, "old mode ") && cur != nil && len(cur.Hunks) == 0:
			cur.OldMode = strings.TrimPrefix(l, "old mode ")
		case strings.HasPrefix(l, "new mode ") && cur != nil && len(cur.Hunks) == 0:
			cur.NewMode = strings.TrimPrefix(l, "new mode ")
		case strings.HasPrefix(l, "index ") && cur != nil && len(cur.Hunks) == 0:
			// "index a..b 100644": the mode of both sides.
			if f := strings.Fields(l); len(f) == 3 {
				cur.OldMode, cur.NewMode = f[2], f[2]
			}
		case strings.HasPrefix(l, "Binary files ") || strings.HasPrefix(l, "GIT binary patch"):
			if cur != nil {
				cur.Binary = true
			}
		case strings.HasPrefix(l, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ "):
			if cur == nil || len(cur.Hunks) > 0 {
				cur = newFile(i + 1)
			}
			cur.OldPath = diffPath(strings.TrimPrefix(l, "--- "))
			cur.NewPath = diffPath(strings.TrimPrefix(strings.TrimSuffix(lines[i+1], "\r"), "+++ "))
			i++
		case strings.HasPrefix(l, "@@ "):
			if cur == nil {
				return nil, fmt.Errorf("patch line %d: hunk before any file header", i+1)
			}
			h, err := parseHunkHeader(l)
			if err != nil {
				return nil, fmt.Errorf("patch line %d: %v", i+1, err)
			}
			h.Line = i + 1
			oldN, newN := 0, 0
			j := i + 1
			for ; j < len(lines) && (oldN < h.OldLines || newN < h.NewLines); j++ {
				b := strings.TrimSuffix(lines[j], "\r")
				if strings.HasPrefix(b, "\\") {
					continue
				}
				if b == "" {
					b = " " // some tools strip the blank of an empty context line
				}
				switch b[0] {
				case ' ':
					oldN++
					newN++
				case '-':
					oldN++
				case '+':
					newN++
				default:
					return nil, fmt.Errorf("patch line %d: hunk body line starts with %q, want ' ', '-' or '+'", j+1, b[0])
				}
				h.Lines = append(h.Lines, b)
			}
			if oldN != h.OldLines || newN != h.NewLines {
				return nil, fmt.Errorf("patch line %d: hunk header says -%d +%d lines, body has -%d +%d", i+1, h.OldLines, h.NewLines, oldN, newN)
			}
			if !slices.ContainsFunc(h.Lines, func(l string) bool { return l[0] != ' ' }) {
				// git refuses such a hunk as a corrupt patch.
				return nil, fmt.Errorf("patch line %d: hunk removes and adds no line", i+1)
			}
			for j < len(lines) && strings.HasPrefix(lines[j], "\\") {
				j++
			}
			cur.Hunks = append(cur.Hunks, h)
			i = j - 1
		}
	}
	return out, nil
}

func parseHunkHeader(l string) (Hunk, error) {
	var h Hunk
	rest := strings.TrimPrefix(l, "@@ ")
	end := strings.Index(rest, " @@")
	if end < 0 {
		return h, fmt.Errorf("malformed hunk header %q", l)
	}
	f := strings.Fields(rest[:end])
	if len(f) != 2 || !strings.HasPrefix(f[0], "-") || !strings.HasPrefix(f[1], "+") {
		return h, fmt.Errorf("malformed hunk header %q", l)
	}
	var err error
	if h.OldStart, h.OldLines, err = rangeOf(f[0][1:]); err != nil {
		return h, fmt.Errorf("malformed hunk header %q: %v", l, err)
	}
	if h.NewStart, h.NewLines, err = rangeOf(f[1][1:]); err != nil {
		return h, fmt.Errorf("malformed hunk header %q: %v", l, err)
	}
	return h, nil
}

func rangeOf(s string) (start, n int, err error) {
	a, b, has := strings.Cut(s, ",")
	if start, err = strconv.Atoi(a); err != nil || start < 0 {
		return 0, 0, fmt.Errorf("bad line number %q", a)
	}
	n = 1
	if has {
		if n, err = strconv.Atoi(b); err != nil || n < 0 {
			return 0, 0, fmt.Errorf("bad line count %q", b)
		}
	}
	if n > math.MaxInt-1-start {
		// The range's end (and an insertion's next line) must be a
		// number: one that wraps round would be read as a line before it.
		return 0, 0, fmt.Errorf("range %q runs past the largest line number", s)
	}
	return start, n, nil
}

// splitGitHeader splits "a/x b/x" (paths may be quoted).
func splitGitHeader(s string) (string, string) {
	if strings.HasPrefix(s, "\"") {
		if end := closingQuote(s); end > 0 {
			a := s[:end+1]
			return diffPath(a), diffPath(strings.TrimSpace(s[end+1:]))
		}
	}
	// Unquoted: the two halves are equal in length for an unrenamed file.
	if n := len(s); n%2 == 1 && s[n/2] == ' ' {
		return diffPath(s[:n/2]), diffPath(s[n/2+1:])
	}
	if i := strings.Index(s, " b/"); i >= 0 {
		return diffPath(s[:i]), diffPath(s[i+1:])
	}
	return diffPath(s), diffPath(s)
}

func closingQuote(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// diffPath turns "a/x/y.go" (or a quoted form, or /dev/null) into "x/y.go".
func diffPath(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i] // timestamps after a tab in plain diffs
	}
	s = gitpath.Unquote(s)
	if s == "/dev/null" {
		return ""
	}
	if strings.HasPrefix(s, "a/") || strings.HasPrefix(s, "b/") {
		s = s[2:]
	}
	return s
}

// Changes lists the changed pre-image lines of a file diff, in line order,
// with the text removed or added at each.
func (fd *FileDiff) Changes() []Change {
	at := map[int]*Change{}
	touch := func(line int, text string) {
		if line < 1 {
			line = 1
		}
		c := at[line]
		if c == nil {
			c = &Change{Line: line}
			at[line] = c
		}
		c.Text = append(c.Text, text)
	}
	for _, h := range fd.Hunks {
		old := h.OldStart // next pre-image line
		if h.OldLines == 0 {
			old = h.OldStart + 1 // "-N,0": insertion after line N
		}
		for _, l := range h.Lines {
			switch l[0] {
			case ' ':
				old++
			case '-':
				touch(old, l[1:])
				old++
			case '+':
				touch(old-1, l[1:])
			}
		}
	}
	out := make([]Change, 0, len(at))
	for _, c := range at {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

// linkOrSubmodule says why a file diff of a symbolic link or a submodule
// is left out (SkipSymlink, SkipSubmodule), or "" for a file.
func (fd *FileDiff) linkOrSubmodule() string {
	for _, m := range []string{fd.OldMode, fd.NewMode} {
		switch m {
		case ModeSymlink:
			return SkipSymlink
		case ModeSubmodule:
			return SkipSubmodule
		}
	}
	return ""
}

// notApplying is a patch whose pre-image is not the base commit's text.
type notApplying struct{ error }

// gitFailure is a file git could not read.
type gitFailure struct{ error }

func (e notApplying) Unwrap() error { return e.error }
func (e gitFailure) Unwrap() error  { return e.error }

// repeatedFile refuses a patch that changes a file twice (a file diff
// given again): its hunks would count twice.
func repeatedFile(files []FileDiff) error {
	olds, news := map[string]int{}, map[string]int{}
	for _, fd := range files {
		for _, side := range []struct {
			path string
			seen map[string]int
		}{{fd.OldPath, olds}, {fd.NewPath, news}} {
			if side.path == "" {
				continue
			}
			if first, dup := side.seen[side.path]; dup {
				return fmt.Errorf("patch line %d: %s: changed again, first at patch line %d; a patch gives each file once", fd.Line, side.path, first)
			}
			side.seen[side.path] = fd.Line
		}
	}
	return nil
}

// applies checks that every hunk of a file diff applies to src, the
// file's text at the base commit, where the hunk says: its context and
// removed lines are the file's lines from its start on, within the file,
// and the hunks come in order without overlapping.
func applies(fd FileDiff, src []byte) error {
	lines := strings.Split(string(src), "\n")
	n := len(lines)
	if lines[n-1] == "" {
		n-- // the last line's newline ends no line
	}
	prevEnd := 0
	for _, h := range fd.Hunks {
		name := fmt.Sprintf("hunk -%d,%d +%d,%d of %s", h.OldStart, h.OldLines, h.NewStart, h.NewLines, fd.OldPath)
		start, end := h.OldStart, h.OldStart+h.OldLines-1
		if h.OldLines == 0 {
			start, end = h.OldStart+1, h.OldStart // an insertion after line OldStart
		}
		switch {
		case h.OldLines > 0 && h.OldStart < 1:
			return notApplying{fmt.Errorf("patch line %d: %s starts at line 0, which holds no line", h.Line, name)}
		case end > n:
			return notApplying{fmt.Errorf("patch line %d: %s does not apply: it reaches line %d, past the end of the file at the base commit (%d lines)", h.Line, name, end, n)}
		case start <= prevEnd:
			return notApplying{fmt.Errorf("patch line %d: %s overlaps the hunk before it (which ends at line %d)", h.Line, name, prevEnd)}
		}
		k := start
		for _, l := range h.Lines {
			if l[0] == '+' {
				continue
			}
			if have := strings.TrimSuffix(lines[k-1], "\r"); have != l[1:] {
				return notApplying{fmt.Errorf("patch line %d: %s does not apply: line %d at the base commit is %s, the patch has %s", h.Line, name, k, clip(have), clip(l[1:]))}
			}
			k++
		}
		prevEnd = max(prevEnd, end)
	}
	return nil
}

// clip quotes a line of text for a message, cut at 80 bytes.
func clip(s string) string {
	if len(s) <= 80 {
		return strconv.Quote(s)
	}
	return strconv.Quote(textcut.Head(s, 80)) + "..."
}

// Ranges folds sorted line numbers into [start, end] runs of consecutive lines.
func Ranges(lines []int) [][2]int {
	var out [][2]int
	for _, l := range lines {
		if n := len(out); n > 0 && l <= out[n-1][1]+1 {
			if l > out[n-1][1] {
				out[n-1][1] = l
			}
			continue
		}
		out = append(out, [2]int{l, l})
	}
	return out
}
