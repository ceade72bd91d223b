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

// scanTree stats every regular file under root, except those in skipped
// directories and those named in ignore (absolute paths, e.g. the index
// database and its journal files).
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
		if !d.Type().IsRegular() || ignore[p] {
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
