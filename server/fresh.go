package server

import (
	"io/fs"
	"path/filepath"
	"strings"
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
// its journals and temporary files, when it lives in the tree).
func scanTree(root string, ignore map[string]bool) (map[string]stamp, error) {
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
	return out, err
}

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
