package index

// Where an index is written, and what may be overwritten. mss writes an
// index only where there is nothing (or an empty file), or over a file
// that is an mss index: a regular file whose SQLite header carries mss's
// application id, or (an index older than format 3) whose meta table is
// mss's. Anything else, a user's notes, a device, a directory, a symbolic
// link, is refused with ErrNotIndex. The one exception is the default
// index, <work tree>/.mss/index.db, inside the .mss directory mss made
// (its .gitignore says so): a file there that is no longer recognisable
// (damaged header) is mss's own and is rebuilt.
//
// Writers are serialised by an advisory lock (flock) on <index>.lock,
// taken before the existing index is read: a second writer waits for the
// first (up to Options.LockWait), then updates the index the first one
// left, or fails with ErrBusy. It never decides that a busy index is a
// corrupt one.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/missingcomplement/mss/internal/safefile"
)

// mssDirMarker starts the .gitignore mss writes into .mss.
const mssDirMarker = "# written by mss index\n"

// DefaultLockWait is how long Build waits for another writer.
const DefaultLockWait = 2 * time.Minute

// defaultIndexPath prepares <root>/.mss and returns the index path in it,
// and whether the directory is mss's own. .mss must be a real directory:
// a symbolic link (a committed ".mss -> ../outside") is refused, so mss
// never writes outside the repository.
func defaultIndexPath(root string) (string, bool, error) {
	dir := filepath.Join(root, ".mss")
	st, err := os.Lstat(dir)
	made := false
	switch {
	case errors.Is(err, fs.ErrNotExist):
		err := os.Mkdir(dir, 0o755)
		if err != nil && !errors.Is(err, fs.ErrExist) {
			return "", false, fmt.Errorf("index: %w", err)
		}
		made = err == nil
		if st, err = os.Lstat(dir); err != nil {
			return "", false, fmt.Errorf("index: %w", err)
		}
	case err != nil:
		return "", false, fmt.Errorf("index: %w", err)
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		return "", false, fmt.Errorf("index: %s is a symbolic link: refusing to write the index outside the repository (remove it, or name the index file with --db)", dir)
	}
	if !st.IsDir() {
		return "", false, fmt.Errorf("index: %s is not a directory: refusing to write the index (name the index file with --db)", dir)
	}
	// Keep the index out of git status; never overwrite a user's file.
	// The marker says mss made the directory, so it goes only into one
	// mss made, or one with nothing in it: a .mss of the user's, with
	// files of theirs, is never taken for mss's, and a file there that
	// is no index is never rebuilt over.
	ignore := filepath.Join(dir, ".gitignore")
	if !made {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return "", false, fmt.Errorf("index: %w", err)
		}
		made = len(ents) == 0
	}
	if made {
		if f, err := os.OpenFile(ignore, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, 0o644); err == nil {
			_, werr := f.WriteString(mssDirMarker + "*\n")
			if cerr := f.Close(); werr == nil {
				werr = cerr
			}
			if werr != nil {
				return "", false, fmt.Errorf("index: %w", werr)
			}
		}
	}
	owned := false
	if st, err := os.Lstat(ignore); err == nil && st.Mode().IsRegular() {
		if f, err := os.Open(ignore); err == nil {
			head := make([]byte, len(mssDirMarker))
			_, err := io.ReadFull(f, head)
			f.Close()
			owned = err == nil && string(head) == mssDirMarker
		}
	}
	return filepath.Join(dir, "index.db"), owned, nil
}

// checkInsideRoot refuses an index path inside the work tree that goes
// through a symbolic link (`--db .mss/index.db` with a committed
// `.mss -> ../outside`): mss never writes outside the repository by way of
// a link in it. The path is inside the tree however the two spell it
// (inTree: `--repo` through a link to the tree, `--db` by its real path).
func checkInsideRoot(root, dbPath string) error {
	if root == "" {
		return nil
	}
	dir, rel, ok := inTree(root, dbPath)
	if !ok {
		return nil // outside the work tree: the user's own path
	}
	parts := strings.Split(rel, string(filepath.Separator))
	for _, p := range parts[:len(parts)-1] {
		dir = filepath.Join(dir, p)
		st, err := os.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // created below as a real directory
		}
		if err != nil {
			return fmt.Errorf("index: %w", err)
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("index: %s is a symbolic link inside the repository: refusing to write the index through it", dir)
		}
	}
	return nil
}

// inTree splits dbPath into the work tree root and the rest, when dbPath
// is inside the tree: lexically, or through the shortest of its leading
// directories that is the root itself by another path (a link to it, or
// its real path when root is reached through a link). Nothing below that
// directory is resolved: a link there is what checkInsideRoot refuses.
func inTree(root, dbPath string) (base, rel string, ok bool) {
	absRoot, err1 := filepath.Abs(root)
	absDB, err2 := filepath.Abs(dbPath)
	if err1 != nil || err2 != nil {
		return "", "", false
	}
	if rel, err := filepath.Rel(absRoot, absDB); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return absRoot, rel, true
	}
	real, err := filepath.EvalSymlinks(absRoot)
	if err != nil {
		return "", "", false
	}
	sep := string(filepath.Separator)
	parts := strings.Split(absDB, sep)
	for i := 1; i < len(parts)-1; i++ {
		prefix := strings.Join(parts[:i+1], sep)
		if prefix == "" {
			continue
		}
		if r, err := filepath.EvalSymlinks(prefix); err == nil && r == real {
			return prefix, filepath.Join(parts[i+1:]...), true
		}
	}
	return "", "", false
}

// checkTarget decides whether Build may write the index at dbPath. It
// returns damaged = true for a file in mss's own directory that is not
// recognisable as an index (it will be rebuilt), and ErrNotIndex for a
// path mss must not overwrite.
func checkTarget(dbPath string, owned bool) (damaged bool, err error) {
	st, err := os.Lstat(dbPath)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("index: %w", err)
	}
	refuse := func(why string) error {
		return fmt.Errorf("index: %s %s: refusing to overwrite it (remove it, or choose another --db): %w", dbPath, why, ErrNotIndex)
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		return false, refuse("is a symbolic link")
	}
	if !st.Mode().IsRegular() {
		return false, refuse(fmt.Sprintf("is not a regular file (%s)", safefile.Kind(st.Mode())))
	}
	if st.Size() == 0 {
		return false, nil // nothing to lose
	}
	if isIndexFile(dbPath) {
		return false, nil
	}
	if owned {
		return true, nil
	}
	return false, refuse("exists and is another program's file")
}

// sqliteAppID returns the application id in the SQLite header of the
// file at p, and whether the file is an SQLite database at all (a regular
// file of at least a header's 100 bytes that SQLite reads as one).
//
// The header is read through SQLite, never through a descriptor of our
// own: closing any descriptor of a file drops every POSIX lock the
// process holds on it, SQLite's among them, so a look at the index while
// this process reads it (a server updating the index it serves) would
// let another process write the file under that reader. SQLite keeps a
// descriptor it closes open until the process's other connections to the
// file release their locks. immutable: the look takes no lock, as a read
// of the bytes took none.
func sqliteAppID(p string) (uint32, bool) {
	st, err := os.Stat(p)
	if err != nil || !st.Mode().IsRegular() || st.Size() < 100 {
		return 0, false
	}
	db, err := sql.Open("sqlite", frozenDSN(p))
	if err != nil {
		return 0, false
	}
	defer db.Close()
	var id int64
	if err := db.QueryRow(`PRAGMA application_id`).Scan(&id); err != nil {
		return 0, false
	}
	return uint32(id), true
}

// isIndexFile reports whether the file at p is an mss index: SQLite with
// mss's application id, or an older index with mss's meta table.
func isIndexFile(p string) bool {
	id, ok := sqliteAppID(p)
	if !ok {
		return false
	}
	if id == applicationID {
		return true
	}
	if id != 0 {
		return false // another application's database
	}
	// Before format 3: mss's meta table.
	db, err := sql.Open("sqlite", dsn(p, true))
	if err != nil {
		return false
	}
	defer db.Close()
	var n int
	err = db.QueryRow(`SELECT COUNT(*) FROM meta WHERE key IN ('format_version', 'feature_version', 'options_hash')`).Scan(&n)
	return err == nil && n == 3
}

// writeLock is the advisory lock of one index's writers.
type writeLock struct{ f *os.File }

// lockIndex takes the write lock of the index at dbPath, waiting up to
// wait for another writer to finish.
func lockIndex(ctx context.Context, dbPath string, wait time.Duration) (*writeLock, error) {
	if wait <= 0 {
		wait = DefaultLockWait
	}
	p := dbPath + ".lock"
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|noFollow, 0o644)
	if err != nil {
		return nil, fmt.Errorf("index: lock file: %w", err)
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("index: lock file %s is not a regular file: %w", p, ErrNotIndex)
	}
	deadline := time.Now().Add(wait)
	delay := 10 * time.Millisecond
	for {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("index: locking %s: %w", p, err)
		}
		if ok {
			return &writeLock{f}, nil
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("index: %s is being written by another mss process (lock %s held for over %s): %w", dbPath, p, wait, ErrBusy)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(delay):
		}
		if delay < 200*time.Millisecond {
			delay *= 2
		}
	}
}

func (l *writeLock) release() {
	if l != nil && l.f != nil {
		unlock(l.f)
		l.f.Close()
		l.f = nil
	}
}
