package pipeline

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/index"
	"github.com/missingcomplement/mss/internal/fsroot"
)

// Files reads the source an index was built from, by repository-relative
// path. Reads never leave the repository.
type Files interface {
	ReadFile(path string) ([]byte, error)
}

// TreeFiles reads a directory's files through internal/fsroot: a path
// climbing out with "..", or with a symbolic link in any component, is
// refused, as the index refuses them when it reads the tree.
type TreeFiles struct{ root *fsroot.Root }

// maxVerifiedFile bounds a file read to check units against it.
const maxVerifiedFile = 64 << 20

// NewTreeFiles opens dir for confined reads.
func NewTreeFiles(dir string) (*TreeFiles, error) {
	r, err := fsroot.Open(dir)
	if err != nil {
		return nil, err
	}
	return &TreeFiles{root: r}, nil
}

// ReadFile implements Files.
func (t *TreeFiles) ReadFile(p string) ([]byte, error) {
	clean, err := mss.CleanPath(p)
	if err != nil {
		return nil, err
	}
	data, err := t.root.ReadFile(clean, maxVerifiedFile)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", clean, err)
	}
	return data, nil
}

// Close releases the root.
func (t *TreeFiles) Close() error { return t.root.Close() }

// CommitFiles reads the blobs of one commit from a git directory, as the
// index reads them (index.ReadSourceFile). A commit never changes, so a
// file read once is kept for the next answer.
type CommitFiles struct {
	src index.Source

	mu    sync.Mutex
	files map[string]commitFile
}

type commitFile struct {
	data []byte
	err  error
}

// NewCommitFiles reads commit's files from gitDir.
func NewCommitFiles(gitDir, commit string) *CommitFiles {
	return &CommitFiles{src: index.Source{GitDir: gitDir, Commit: commit}, files: map[string]commitFile{}}
}

// ReadFile implements Files: the blob at path in the commit's tree.
func (c *CommitFiles) ReadFile(p string) ([]byte, error) {
	clean, err := mss.CleanPath(p)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	f, ok := c.files[clean]
	if !ok {
		f.data, f.err = index.ReadSourceFile(context.Background(), c.src, clean)
		if f.err != nil {
			f.err = fmt.Errorf("reading %s at %s: %w", clean, c.src.Commit, f.err)
		}
		c.files[clean] = f
	}
	return f.data, f.err
}

// Close forgets the files read.
func (c *CommitFiles) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.files = map[string]commitFile{}
	return nil
}

// Verify checks units against the files they were indexed from, so no
// answer serves text the source does not hold: a unit whose lines moved (an
// edit above it, not yet re-indexed) is re-numbered, one whose text changed
// or whose file is gone is dropped, and each is delivered with the file's
// own bytes. A unit the state has observed is dropped, by its lines, or by
// its symbol when its file moved since indexing (spans recorded before the
// edit name old lines). Every change is traced at stage "verify".
func Verify(files Files, units []mss.Unit, obs *mss.Observed) ([]mss.Unit, []mss.TraceStep) {
	return VerifyRecorded(files, nil, units, obs)
}

// Recorded is the blob id an index recorded of a file (index.BlobID of
// the bytes it indexed), "" when it recorded none.
type Recorded func(path string) string

// VerifyRecorded is Verify, told by recorded (nil: not told) what the
// index recorded of each file: a unit whose text its file does not hold,
// where the file is the one indexed, is the index's damage, not an edit,
// and is named so.
func VerifyRecorded(files Files, recorded Recorded, units []mss.Unit, obs *mss.Observed) ([]mss.Unit, []mss.TraceStep) {
	return verify(files, recorded, units, obs, obs)
}

// verify is VerifyRecorded with what was observed in the index's lines
// (obs, read against a unit as indexed) and in the files' lines now (now,
// read against a unit moved to them, and its signature above it).
func verify(files Files, recorded Recorded, units []mss.Unit, obs, now *mss.Observed) ([]mss.Unit, []mss.TraceStep) {
	var trace []mss.TraceStep
	drop := func(u mss.Unit, why string) {
		trace = append(trace, mss.TraceStep{Stage: "verify", UnitID: u.ID, Reason: "dropped: " + why})
	}
	type file struct {
		data      []byte
		raw, norm []string
	}
	cache := map[string]*file{}
	var keep []mss.Unit
	for _, u := range units {
		if obs.Unit(&u) {
			drop(u, "already observed")
			continue
		}
		f, ok := cache[u.Path]
		if !ok {
			data, err := files.ReadFile(u.Path)
			if err != nil {
				drop(u, err.Error())
				continue
			}
			f = &file{data: data, raw: splitLines(string(data))}
			f.norm = normalizeLines(f.raw)
			cache[u.Path] = f
		}
		if u.Content == "" {
			if u.StartLine < 1 || u.EndLine > len(f.raw) || u.EndLine < u.StartLine {
				drop(u, "lines past the end of the file")
				continue
			}
			u.Content = strings.Join(f.raw[u.StartLine-1:u.EndLine], "")
		}
		lines := splitLines(u.Content)
		if u.StartLine < 1 || u.EndLine-u.StartLine+1 != len(lines) {
			drop(u, fmt.Sprintf("lines %d-%d do not hold its %d lines of text", u.StartLine, u.EndLine, len(lines)))
			continue
		}
		at := locate(f.norm, normalizeLines(lines), u.StartLine)
		switch {
		case at < 0:
			if recorded != nil {
				if b := recorded(u.Path); b != "" && b == index.BlobID(f.data) {
					drop(u, DamagedCopy)
					continue
				}
			}
			drop(u, "file changed since indexing (re-index pending)")
			continue
		case at != u.StartLine:
			trace = append(trace, mss.TraceStep{Stage: "verify", UnitID: u.ID, Reason: fmt.Sprintf("moved from line %d to %d since indexing", u.StartLine, at)})
			u.EndLine += at - u.StartLine
			u.StartLine = at
			if now.Unit(&u) || observedSymbol(now, &u) {
				drop(u, "already observed")
				continue
			}
		}
		// Deliver the file's own bytes (its line endings too): a unit
		// grown over blank lines carries them as bare newlines, the file
		// may hold spaces there.
		u.Content = strings.Join(f.raw[u.StartLine-1:u.EndLine], "")
		u.Tokens = mss.TokenCost(u.Content)
		u.Defines, u.References, u.Imports = nil, nil, nil
		if sig := u.Context; sig != "" {
			u.Context, u.ContextLine = "", 0
			want := normalizeLines(splitLines(sig))
			switch at := locateAbove(f.norm, want, u.StartLine); {
			case at < 0:
				why := "its definition's signature is not above it: delivered without it"
				if sym := ownName(u.Symbol, u.Content); sym != u.Symbol {
					// The name's enclosing part came from that signature.
					if sym == "" {
						why += fmt.Sprintf(", and without the name it gave (indexed as %q)", u.Symbol)
					} else {
						why += fmt.Sprintf(", named %q by its own text (indexed as %q)", sym, u.Symbol)
					}
					u.Symbol = sym
					var names []string
					for _, s := range u.Symbols {
						if n := ownName(s, u.Content); n != "" && !slices.Contains(names, n) {
							names = append(names, n)
						}
					}
					u.Symbols = names
				}
				trace = append(trace, mss.TraceStep{Stage: "verify", UnitID: u.ID, Reason: why})
			case !now.Lines(u.Path, at, at+len(want)-1):
				u.Context, u.ContextLine = strings.Join(f.raw[at-1:at-1+len(want)], ""), at
			}
		}
		keep = append(keep, u)
	}
	return keep, trace
}

// ownName is what the unit's own text supports of its symbol name, once
// the signature of the definition enclosing it is no longer above it (a
// class renamed): the name's last part, when the text holds it as a word
// (the method's own definition), else "" (a later part of a long
// definition, named wholly for it).
func ownName(name, content string) string {
	last := name[strings.LastIndexByte(name, '.')+1:]
	if last == "" {
		return ""
	}
	for rest := content; ; {
		i := strings.Index(rest, last)
		if i < 0 {
			return ""
		}
		end := i + len(last)
		if (i == 0 || !identByte(rest[i-1])) && (end == len(rest) || !identByte(rest[end])) {
			return last
		}
		rest = rest[i+1:]
	}
}

func identByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// DamagedCopy is why a unit is dropped whose text its file, unchanged
// since indexing, does not hold.
const DamagedCopy = "the index's copy differs from the file, which is unchanged since indexing: the index is damaged (mss index --rebuild repairs it)"

// observedSymbol reports whether an observed span of u's file names u's
// symbol.
func observedSymbol(obs *mss.Observed, u *mss.Unit) bool {
	if u.Symbol == "" {
		return false
	}
	for _, sp := range obs.Spans(u.Path) {
		if sp.Symbol == u.Symbol {
			return true
		}
	}
	return false
}

// matchAt reports whether want (lines with newlines) is in lines from the
// 1-based line at.
func matchAt(lines, want []string, at int) bool {
	return at >= 1 && at-1+len(want) <= len(lines) && slices.EqualFunc(lines[at-1:at-1+len(want)], want, sameLine)
}

// locateAbove returns the 1-based line of the nearest match of want (lines
// with newlines) that ends before line end, or -1.
func locateAbove(lines, want []string, end int) int {
	if len(want) == 0 {
		return -1
	}
	for at := end - len(want); at >= 1; at-- {
		if matchAt(lines, want, at) {
			return at
		}
	}
	return -1
}

// locate returns the 1-based line where want (lines with newlines) starts
// in lines: start itself if it matches there, else the nearest match
// (the earlier on a tie), else -1.
func locate(lines, want []string, start int) int {
	match := func(at int) bool { return matchAt(lines, want, at) }
	if len(want) == 0 {
		return -1
	}
	if match(start) {
		return start
	}
	for d := 1; d <= len(lines); d++ {
		if match(start - d) {
			return start - d
		}
		if match(start + d) {
			return start + d
		}
	}
	return -1
}

// splitLines splits text after each newline; a last line without one is
// a line too.
func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	return lines
}

// normalizeLines makes lines comparable across line-ending conventions:
// each ends in a bare newline.
func normalizeLines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		l = strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r")
		out[i] = l + "\n"
	}
	return out
}

// sameLine compares a file line with an indexed one; blank lines match
// whatever white space they hold.
func sameLine(file, want string) bool {
	if file == want {
		return true
	}
	return strings.TrimSpace(want) == "" && strings.TrimSpace(file) == ""
}
