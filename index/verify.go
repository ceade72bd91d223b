package index

// Verification. An index is a cache of its source, and a cache can lie: a
// committed .mss/index.db with edited unit text, a flipped byte, deleted
// rows. Nothing read from an index reaches an answer unverified: Verify
// re-reads each unit's file from the source (the work tree through
// package fsroot, never through a symbolic link, or the blob at the
// indexed commit from git), and keeps a unit only if its lines there are
// exactly its content and its hash and id are those of that content.
//
// A unit whose file changed since it was indexed fails too ("stale"); one
// whose file is unchanged (same git blob id as recorded) but whose content
// differs was tampered with, and so was a file whose rows no longer tile
// its lines (rows deleted): either marks the index's Health "tampered",
// and the next Build rebuilds it.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/internal/fsroot"
	"github.com/missingcomplement/mss/segment"
)

// ErrTampered marks an index whose content disagrees with its source.
var ErrTampered = errors.New("index content disagrees with its source")

// Source is where an index's units come from: a work tree or directory
// (Root), or a commit of a git directory (GitDir and Commit, Root "").
type Source struct {
	Root   string `json:"root,omitempty"`
	GitDir string `json:"git_dir,omitempty"`
	Commit string `json:"commit,omitempty"`
}

// Source is the source the index records. A caller that knows which
// repository it serves should verify against that instead: an index
// file's own record names whatever its writer chose.
func (ix *Index) Source() Source {
	if ix.meta.Source == "commit" {
		return Source{GitDir: ix.meta.GitDir, Commit: ix.meta.Commit}
	}
	return Source{Root: ix.meta.Root}
}

// Mismatch is a unit, or a file, that failed verification.
type Mismatch struct {
	ID        string `json:"id,omitempty"` // "" for a file-level problem
	Path      string `json:"path"`
	StartLine int    `json:"start_line,omitempty"`
	EndLine   int    `json:"end_line,omitempty"`
	Reason    string `json:"reason"`
}

func (m Mismatch) String() string {
	if m.ID == "" {
		return fmt.Sprintf("%s: %s", m.Path, m.Reason)
	}
	return fmt.Sprintf("%s:%d-%d (unit %s): %s", m.Path, m.StartLine, m.EndLine, m.ID, m.Reason)
}

// Verification is the outcome of Verify.
type Verification struct {
	Verified   []mss.Unit `json:"-"`          // units that match their source, in the order given
	Mismatches []Mismatch `json:"mismatches"` // units dropped, and files whose rows are damaged
}

// maxVerifyBytes bounds a file read to verify units.
const maxVerifyBytes = 64 << 20

// Verify checks units against the files of src and returns those that
// match, and a report of those that do not. It fails only when the source
// cannot be read at all (no such directory, git not runnable); a file
// that cannot be read fails its units.
func Verify(ctx context.Context, src Source, units []mss.Unit) (*Verification, error) {
	files, err := readSources(ctx, src, distinctPaths(units))
	if err != nil {
		return nil, err
	}
	v := &Verification{}
	for _, u := range units {
		if why := checkUnit(u, files[u.Path]); why != "" {
			v.Mismatches = append(v.Mismatches, Mismatch{ID: u.ID, Path: u.Path, StartLine: u.StartLine, EndLine: u.EndLine, Reason: why})
			continue
		}
		v.Verified = append(v.Verified, u)
	}
	return v, nil
}

// Verify is the package's Verify, and also checks the index's records of
// each file the units come from: a file whose recorded blob id is its
// current one must have units that tile its lines, as many as recorded. A
// unit or file found tampered with (not merely stale) marks the index's
// Health "tampered".
func (ix *Index) Verify(ctx context.Context, src Source, units []mss.Unit) (*Verification, error) {
	paths := distinctPaths(units)
	files, err := readSources(ctx, src, paths)
	if err != nil {
		return nil, err
	}
	v := &Verification{}
	current := map[string]bool{} // the file is as indexed
	for _, p := range paths {
		f := files[p]
		if f.err != nil {
			continue
		}
		var blob string
		var n int
		err := ix.conn().QueryRowContext(ctx, `SELECT blob, units FROM files WHERE path = ?`, p).Scan(&blob, &n)
		if err != nil {
			v.Mismatches = append(v.Mismatches, Mismatch{Path: p, Reason: "file not recorded in the index"})
			ix.health.note(ix.path, fmt.Errorf("%s: file not recorded: %w", p, ErrTampered))
			continue
		}
		if blob != BlobID(f.data) {
			continue // changed since indexed: its units are checked, none trusted
		}
		current[p] = true
		if why := ix.checkTiling(ctx, p, f.data, n); why != "" {
			v.Mismatches = append(v.Mismatches, Mismatch{Path: p, Reason: why})
			ix.health.note(ix.path, fmt.Errorf("%s: %s: %w", p, why, ErrTampered))
		}
	}
	for _, u := range units {
		why := checkUnit(u, files[u.Path])
		if why == "" {
			v.Verified = append(v.Verified, u)
			continue
		}
		if current[u.Path] {
			why = "tampered: " + why
			ix.health.note(ix.path, fmt.Errorf("%s:%d-%d: %s: %w", u.Path, u.StartLine, u.EndLine, why, ErrTampered))
		} else if files[u.Path].err == nil {
			why = "stale (file changed since indexed): " + why
		}
		v.Mismatches = append(v.Mismatches, Mismatch{ID: u.ID, Path: u.Path, StartLine: u.StartLine, EndLine: u.EndLine, Reason: why})
	}
	return v, nil
}

// checkTiling checks that the index's units of a file cover each
// non-blank line of data exactly once, and that there are n of them.
func (ix *Index) checkTiling(ctx context.Context, p string, data []byte, n int) string {
	rows, err := ix.conn().QueryContext(ctx, `SELECT start_line, end_line FROM units WHERE path = ? ORDER BY start_line`, p)
	if err != nil {
		return "reading units: " + ix.health.note(ix.path, err).Error()
	}
	defer rows.Close()
	lines := splitLines(data)
	next, count := 1, 0 // first line not yet covered
	for rows.Next() {
		var s, e int
		if err := rows.Scan(&s, &e); err != nil {
			return "reading units: " + ix.health.note(ix.path, err).Error()
		}
		count++
		if s < next || e < s || e > len(lines) {
			return fmt.Sprintf("unit %d-%d overlaps or leaves the file's %d lines", s, e, len(lines))
		}
		for l := next; l < s; l++ {
			if strings.TrimSpace(lines[l-1]) != "" {
				return fmt.Sprintf("line %d is in no unit (rows missing)", l)
			}
		}
		next = e + 1
	}
	if err := rows.Err(); err != nil {
		return "reading units: " + ix.health.note(ix.path, err).Error()
	}
	for l := next; l <= len(lines); l++ {
		if strings.TrimSpace(lines[l-1]) != "" {
			return fmt.Sprintf("line %d is in no unit (rows missing)", l)
		}
	}
	if count != n {
		return fmt.Sprintf("%d units recorded, %d rows", n, count)
	}
	return ""
}

// splitLines returns the file's lines without their "\n".
func splitLines(data []byte) []string {
	if len(data) == 0 {
		return nil
	}
	s := strings.TrimSuffix(string(data), "\n")
	return strings.Split(s, "\n")
}

// sourceFile is one file read for verification.
type sourceFile struct {
	data []byte
	err  error
}

// checkUnit says why u does not match its file, or "".
func checkUnit(u mss.Unit, f sourceFile) string {
	if f.err != nil {
		return "source unreadable: " + f.err.Error()
	}
	content, ok := lineRange(f.data, u.StartLine, u.EndLine)
	switch {
	case !ok:
		return fmt.Sprintf("lines %d-%d are not in the file", u.StartLine, u.EndLine)
	case content != u.Content:
		return "content differs from the file's lines"
	}
	sum := sha256.Sum256([]byte(content))
	if h := hex.EncodeToString(sum[:]); h != u.Hash {
		return "hash differs from the content's"
	}
	if id := segment.UnitID(u.Path, u.StartLine, u.EndLine, u.Hash); id != u.ID {
		return "id differs from the one of its path, lines and hash"
	}
	return ""
}

// lineRange is lines s..e (1-based, inclusive) of data, each followed by
// "\n", as package segment builds a unit's content.
func lineRange(data []byte, s, e int) (string, bool) {
	if s < 1 || e < s {
		return "", false
	}
	line, start := 1, -1
	if s == 1 {
		start = 0
	}
	for i := 0; i < len(data); i++ {
		if data[i] != '\n' {
			continue
		}
		if line == e {
			return string(data[start : i+1]), true
		}
		line++
		if line == s {
			start = i + 1
		}
	}
	// The last line, without a final newline.
	if line == e && start >= 0 && start < len(data) {
		return string(data[start:]) + "\n", true
	}
	return "", false
}

func distinctPaths(units []mss.Unit) []string {
	seen := map[string]bool{}
	var out []string
	for _, u := range units {
		if !seen[u.Path] {
			seen[u.Path] = true
			out = append(out, u.Path)
		}
	}
	sort.Strings(out)
	return out
}

// ReadSourceFile reads one file of src as Verify reads it: through the
// confined reader of a work tree, or the blob at the commit (a path the
// commit lacks is fs.ErrNotExist).
func ReadSourceFile(ctx context.Context, src Source, p string) ([]byte, error) {
	files, err := readSources(ctx, src, []string{p})
	if err != nil {
		return nil, err
	}
	return files[p].data, files[p].err
}

// readSources reads the files at paths from src: confined reads of a work
// tree, or the commit's blobs through one git cat-file process.
func readSources(ctx context.Context, src Source, paths []string) (map[string]sourceFile, error) {
	out := make(map[string]sourceFile, len(paths))
	if len(paths) == 0 {
		return out, nil
	}
	if src.Commit == "" {
		if src.Root == "" {
			return nil, errors.New("verify: no source: neither a work tree nor a commit")
		}
		root, err := fsroot.Open(src.Root)
		if err != nil {
			return nil, fmt.Errorf("verify: %w", err)
		}
		defer root.Close()
		for _, p := range paths {
			b, err := root.ReadFile(p, maxVerifyBytes)
			out[p] = sourceFile{b, err}
		}
		return out, nil
	}
	if src.GitDir == "" {
		return nil, errors.New("verify: a commit without a git directory")
	}
	s := &source{gitDir: src.GitDir, commit: src.Commit}
	var entries []entry
	for _, p := range paths {
		if _, err := fsroot.Clean(p); err != nil || strings.ContainsAny(p, "\n\r") {
			out[p] = sourceFile{err: fmt.Errorf("%q: %w", p, fsroot.ErrBadPath)}
			continue
		}
		entries = append(entries, entry{path: p, blob: src.Commit + ":" + p})
	}
	err := s.catFile(ctx, entries, maxVerifyBytes, func(e entry, data []byte, missing error) error {
		switch {
		case errors.Is(missing, ErrMissingObject):
			out[e.path] = sourceFile{err: fmt.Errorf("not in commit %s: %w", src.Commit, fs.ErrNotExist)}
		case missing != nil:
			out[e.path] = sourceFile{err: missing}
		case data == nil && e.size > 0:
			out[e.path] = sourceFile{err: fmt.Errorf("%d bytes, over the limit of %d", e.size, maxVerifyBytes)}
		default:
			out[e.path] = sourceFile{data: data}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	return out, nil
}
