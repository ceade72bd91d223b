package server

import (
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/missingcomplement/mss/index"
	"github.com/missingcomplement/mss/internal/fsroot"
)

// stamp is what a freshness scan compares: cheap to get, and it changes
// whenever a file is written, as the index's record of a file's stat
// does (index.StatKey), though a write keeps the size and sets the
// modification time back.
type stamp struct {
	key   string // index.StatKey
	mtime int64  // UnixNano
}

// stampOf is the stamp of a file or directory stat described.
func stampOf(info fs.FileInfo) stamp {
	return stamp{index.StatKey(info), info.ModTime().UnixNano()}
}

// skipDir reports directories a scan does not enter: hidden ones (.git,
// editor and tool state) and dependency caches no index reads.
func skipDir(name string) bool {
	if strings.HasPrefix(name, ".") && name != "." {
		return true
	}
	switch name {
	case "node_modules", "__pycache__":
		return true
	}
	return false
}

// entriesWatched reports whether a scan stamps a skipped directory and
// the directories below it (a directory's time changes when an entry is
// added, removed or renamed in it), so that a new file anywhere in it is
// indexed: a hidden directory of the project's (.tools, .github), not
// git's or the index's own, which change with every command, nor a
// dependency or bytecode cache, whose files no index reads.
func entriesWatched(name string) bool {
	return strings.HasPrefix(name, ".") && name != ".git" && name != ".mss"
}

// maxHiddenDirs bounds the directories one scan stamps inside hidden
// directories (stampDirs), in the walk's order: a virtual environment
// kept in the tree (.venv) costs a scan no more than this.
const maxHiddenDirs = 4096

// stampDirs stamps dir, a hidden directory whose entries are watched,
// and every directory below it, but those of git's, the index's or
// dependency caches (entriesWatched) and those holding an ignored file,
// while left (shared by the scan's hidden directories) lasts. A new
// directory is a new stamp, and a file added in one changes its stamp,
// however deep. A tool's cache that ignores itself (selfIgnored: pytest's,
// mypy's, a virtual environment), at dir or anywhere below it, is not
// stamped at all: its files are none git lists, and every run of the
// tool would re-index.
func stampDirs(st *fsroot.Stater, root, dir string, ignore map[string]bool, out map[string]stamp, left *int) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if skipDir(d.Name()) && !entriesWatched(d.Name()) || selfIgnored(st, root, p) {
			return filepath.SkipDir
		}
		if *left <= 0 {
			return filepath.SkipAll
		}
		*left--
		if !holdsIgnored(p, ignore) {
			if info, err := d.Info(); err == nil {
				out[dirKey(p)] = stampOf(info)
			}
		}
		return nil
	})
}

// selfIgnored reports whether directory dir, under root, holds a
// .gitignore whose one pattern is "*", as the caches of pytest, mypy and
// ruff and a virtual environment write into themselves. The file is read
// as every file is, inside the root: never through a symbolic link, and
// only when it is a regular file (a pipe would hold the scan up); st
// holds the directories of the last one read, as a walk in path order
// reads the next.
func selfIgnored(st *fsroot.Stater, root, dir string) bool {
	rel, err := filepath.Rel(root, filepath.Join(dir, ".gitignore"))
	if err != nil {
		return false
	}
	text, err := st.ReadFile(filepath.ToSlash(rel), maxSelfIgnore)
	if err != nil {
		return false
	}
	var patterns []string
	for _, line := range strings.Split(string(text), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			patterns = append(patterns, line)
		}
	}
	return len(patterns) == 1 && patterns[0] == "*"
}

// maxSelfIgnore bounds the .gitignore selfIgnored reads: a cache's holds
// one line.
const maxSelfIgnore = 4096

// holdsIgnored reports whether directory dir holds an ignored file (an
// index database kept in a hidden directory, whose every build adds and
// renames files there).
func holdsIgnored(dir string, ignore map[string]bool) bool {
	for p := range ignore {
		if strings.HasPrefix(p, dir+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// dirKey is a directory's key among a scan's stamps, apart from any
// file's.
func dirKey(p string) string { return p + string(filepath.Separator) }

// ignored reports whether p is one of the ignored files (index
// databases) or a file the index writes beside one: its lock, journals,
// temporary and derived files (index.OwnFile).
func ignored(p string, ignore map[string]bool) bool {
	for db := range ignore {
		if index.OwnFile(p, db) {
			return true
		}
	}
	return false
}

// scanTree stats every regular file under root, except those in skipped
// directories and those ignored (absolute paths: the index database, with
// its journals and temporary files, when it lives in the tree), the
// directories of the skipped hidden ones (stampDirs: a file added beside
// an indexed one there changes its directory's stamp), and the files of
// watch the walk does not enter: the indexed files in skipped directories
// (a tracked .tools/gen.py).
func scanTree(root string, ignore map[string]bool, watch []watchEntry) (map[string]stamp, error) {
	out := map[string]stamp{}
	r, err := fsroot.Open(root)
	if err != nil {
		return out, err
	}
	defer r.Close()
	st := r.Stater()
	defer st.Close()
	hiddenLeft := maxHiddenDirs
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // a file vanished mid-walk; the next scan sees it
		}
		if d.IsDir() {
			if p != root && skipDir(d.Name()) {
				if entriesWatched(d.Name()) {
					stampDirs(st, root, p, ignore, out, &hiddenLeft)
				}
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || ignored(p, ignore) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		out[p] = stampOf(info)
		return nil
	})
	if err != nil {
		return out, err
	}
	for k, st := range statWatched(root, watch) {
		out[k] = st
	}
	return out, nil
}

// watchEntry is a file a scan stats beyond its walk.
type watchEntry struct {
	rel string // relative to the root, with forward slashes
	key string // its key among a scan's stamps
}

// watchEntries are what scans stat of watch, files (relative to root)
// the walk does not reach.
func watchEntries(root string, watch []string) []watchEntry {
	var out []watchEntry
	for _, p := range watch {
		out = append(out, watchEntry{rel: p, key: filepath.Join(root, filepath.FromSlash(p))})
	}
	return out
}

// statWatched stamps the entries of watch, by their keys, leaving out
// those missing, those not regular files, and those reached through a
// symbolic link: nothing outside root is looked at.
func statWatched(root string, watch []watchEntry) map[string]stamp {
	out := map[string]stamp{}
	if len(watch) == 0 {
		return out
	}
	r, err := fsroot.Open(root)
	if err != nil {
		return out
	}
	defer r.Close()
	st := r.Stater()
	defer st.Close()
	for _, e := range watch {
		if info, err := st.Lstat(e.rel); err == nil && info.Mode().IsRegular() {
			out[e.key] = stampOf(info)
		}
	}
	return out
}

// unwalked returns the paths (relative, with forward slashes) the walk of
// scanTree does not reach, because a directory of theirs is skipped.
func unwalked(paths []string) []string {
	var out []string
	for _, p := range paths {
		dirs := strings.Split(p, "/")
		for _, d := range dirs[:len(dirs)-1] {
			if skipDir(d) {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// watchSettle is how long before a build started a file must have been
// last written for its present stamp to be taken for what the build read
// (file systems keep coarse times).
const watchSettle = 2 * time.Second

// diffStamps counts files added, removed or changed between two scans.
func diffStamps(old, cur map[string]stamp) int {
	n := 0
	for p, s := range cur {
		if o, ok := old[p]; !ok || o != s {
			n++
		}
	}
	for p := range old {
		if _, ok := cur[p]; !ok {
			n++
		}
	}
	return n
}
