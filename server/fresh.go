package server

import (
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/missingcomplement/mss/internal/fsroot"
)

// stamp is what a freshness scan compares: cheap to get, and it changes
// whenever an editor writes a file.
type stamp struct {
	size  int64
	mtime int64 // UnixNano
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

// entriesWatched reports whether a scan stamps a skipped directory itself
// (its time changes when an entry is added, removed or renamed in it), so
// that a new file in it is indexed: a hidden directory of the project's
// (.tools, .github), not git's or the index's own, which change with
// every command, nor a dependency or bytecode cache, whose files no index
// reads.
func entriesWatched(name string) bool {
	return strings.HasPrefix(name, ".") && name != ".git" && name != ".mss"
}

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

// ignored reports whether p is one of the ignored files or a companion
// of one: its journal, WAL, or a temporary file written beside it
// ("index.db-wal", "index.db.tmp-...").
func ignored(p string, ignore map[string]bool) bool {
	if ignore[p] {
		return true
	}
	for i := len(p) - 1; i > 0; i-- {
		if c := p[i]; c == '.' || c == '-' {
			if ignore[p[:i]] {
				return true
			}
		}
		if p[i] == filepath.Separator {
			break
		}
	}
	return false
}

// scanTree stats every regular file under root, except those in skipped
// directories and those ignored (absolute paths: the index database, with
// its journals and temporary files, when it lives in the tree), and the
// files of watch (paths relative to root) the walk does not enter: the
// indexed files in skipped directories (a tracked .tools/gen.py).
func scanTree(root string, ignore map[string]bool, watch []string) (map[string]stamp, error) {
	out := map[string]stamp{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // a file vanished mid-walk; the next scan sees it
		}
		if d.IsDir() {
			if p != root && skipDir(d.Name()) {
				if entriesWatched(d.Name()) && !holdsIgnored(p, ignore) {
					if info, err := d.Info(); err == nil {
						out[dirKey(p)] = stamp{0, info.ModTime().UnixNano()}
					}
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
		out[p] = stamp{info.Size(), info.ModTime().UnixNano()}
		return nil
	})
	if err != nil {
		return out, err
	}
	for p, info := range statFiles(root, watch) {
		out[p] = stamp{info.Size(), info.ModTime().UnixNano()}
	}
	for p, info := range statDirs(root, watchDirs(watch), ignore) {
		out[dirKey(p)] = stamp{0, info.ModTime().UnixNano()}
	}
	return out, nil
}

// watchDirs are the directories of watched files below the one the walk
// skips (.tools/sub of .tools/sub/gen.py; the walk stamps .tools), whose
// stamps show a file added beside a watched one.
func watchDirs(watch []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range watch {
		dirs := strings.Split(p, "/")
		dirs = dirs[:len(dirs)-1]
		for i, d := range dirs {
			if !skipDir(d) {
				continue
			}
			if !entriesWatched(d) {
				break
			}
			for j := i + 2; j <= len(dirs); j++ {
				if dir := strings.Join(dirs[:j], "/"); !seen[dir] {
					seen[dir] = true
					out = append(out, dir)
				}
			}
			break
		}
	}
	return out
}

// statDirs describes the directories of paths (relative to root) that
// hold no ignored file, by their absolute paths, as statFiles does files.
func statDirs(root string, paths []string, ignore map[string]bool) map[string]fs.FileInfo {
	out := map[string]fs.FileInfo{}
	for p, info := range statPaths(root, paths, fs.FileMode.IsDir) {
		if !holdsIgnored(p, ignore) {
			out[p] = info
		}
	}
	return out
}

// statFiles describes the regular files of paths (relative to root) by
// their absolute paths, leaving out those missing, and those reached
// through a symbolic link: nothing outside root is looked at.
func statFiles(root string, paths []string) map[string]fs.FileInfo {
	return statPaths(root, paths, fs.FileMode.IsRegular)
}

// statPaths describes the entries of paths (relative to root) whose mode
// is, by their absolute paths, leaving out those missing, and those
// reached through a symbolic link.
func statPaths(root string, paths []string, is func(fs.FileMode) bool) map[string]fs.FileInfo {
	out := map[string]fs.FileInfo{}
	if len(paths) == 0 {
		return out
	}
	r, err := fsroot.Open(root)
	if err != nil {
		return out
	}
	defer r.Close()
	st := r.Stater()
	defer st.Close()
	for _, p := range paths {
		if info, err := st.Lstat(p); err == nil && is(info.Mode()) {
			out[filepath.Join(root, filepath.FromSlash(p))] = info
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
