// Package fsroot reads files of a repository without ever leaving it.
//
// The model: mss reads repository content only through a Root. A path is
// repository-relative (forward slashes, no "..", not absolute), and no
// component of it may be a symbolic link: a link is refused whether it
// points inside the root or out of it, so `ln -s /etc sub` makes
// "sub/passwd" unreadable rather than a way out. Two guards enforce this:
// every component is checked with Lstat before the open, and the open
// itself goes through os.Root (openat with O_NOFOLLOW on every component
// below the root), so even a link swapped in between the check and the
// open cannot lead outside the root.
//
// This package is internal to mss and not a stable API.
package fsroot

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"strings"
	"sync"
)

// ErrSymlink is returned for a path with a symbolic link in it.
var ErrSymlink = errors.New("path goes through a symbolic link")

// ErrNotRegular is returned for a path that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrBadPath is returned for a path that is absolute, empty, or climbs
// out of the root with "..".
var ErrBadPath = errors.New("not a repository-relative path")

// Root is an open repository directory.
type Root struct {
	dir  string
	root *os.Root
	// dirs, when set (CacheDirs), holds directories found to be real
	// directories, not links.
	dirs *sync.Map
}

// CacheDirs makes the root remember the directories it has checked, so
// that reading many files checks each directory once rather than once per
// file below it. For a short-lived root (one index build): a directory
// swapped for a link after its check would then be followed, though never
// out of the root (os.Root confines every open).
func (r *Root) CacheDirs() { r.dirs = &sync.Map{} }

// Open opens dir as a root. dir itself may be reached through links (it
// is where the user pointed); nothing below it may.
func Open(dir string) (*Root, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &Root{dir: dir, root: r}, nil
}

// Dir is the directory the root was opened on.
func (r *Root) Dir() string { return r.dir }

// Close releases the root.
func (r *Root) Close() error { return r.root.Close() }

// Clean checks that p is a repository-relative path and returns it in
// canonical form (forward slashes, no "." components).
func Clean(p string) (string, error) {
	if p == "" || strings.ContainsRune(p, 0) || strings.HasPrefix(p, "/") || strings.Contains(p, "\\") {
		return "", fmt.Errorf("%q: %w", p, ErrBadPath)
	}
	c := path.Clean(p)
	if c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("%q: %w", p, ErrBadPath)
	}
	return c, nil
}

// Lstat describes the file at p without following a link in any
// component; a link in a directory component is ErrSymlink, a link as the
// last component is described as a link.
func (r *Root) Lstat(p string) (fs.FileInfo, error) {
	c, err := Clean(p)
	if err != nil {
		return nil, err
	}
	if err := r.checkDirs(c); err != nil {
		return nil, err
	}
	return r.root.Lstat(c)
}

// checkDirs checks that every directory component of the clean path c
// is a directory, not a link.
func (r *Root) checkDirs(c string) error {
	parts := strings.Split(c, "/")
	for i := 1; i < len(parts); i++ {
		dir := strings.Join(parts[:i], "/")
		if r.dirs != nil {
			if _, ok := r.dirs.Load(dir); ok {
				continue
			}
		}
		st, err := r.root.Lstat(dir)
		if err != nil {
			return err
		}
		if err := passable(st, c, dir); err != nil {
			return err
		}
		if r.dirs != nil {
			r.dirs.Store(dir, true)
		}
	}
	return nil
}

// passable says why st, the directory component dir of the path c, may
// not be passed through (nil when it is a real directory).
func passable(st fs.FileInfo, c, dir string) error {
	if st.Mode()&fs.ModeSymlink != 0 {
		return &fs.PathError{Op: "open", Path: c, Err: fmt.Errorf("%s: %w", dir, ErrSymlink)}
	}
	if !st.IsDir() {
		return &fs.PathError{Op: "open", Path: c, Err: fmt.Errorf("%s: not a directory", dir)}
	}
	return nil
}

// A Stater describes and reads many files of a root, as Lstat and
// ReadFile do, holding open the directories of the last path it was
// given: a file then costs a few system calls on its own name, and a
// directory two (its check and its open), where os.Root walks every
// component of every path it is given. Paths in sorted order keep a
// directory's files together. A Stater is not for concurrent use; Close
// releases it.
type Stater struct {
	r     *Root
	names []string   // the directories held open, outermost first
	subs  []*os.Root // names[i] opened in subs[i-1] (in the root for 0)
}

// Stater starts a Stater over r.
func (r *Root) Stater() *Stater { return &Stater{r: r} }

// Lstat is Root.Lstat.
func (s *Stater) Lstat(p string) (fs.FileInfo, error) {
	_, _, _, st, err := s.lstat(p)
	return st, err
}

// ReadFile is Root.ReadFile.
func (s *Stater) ReadFile(p string, max int64) ([]byte, error) {
	dir, name, c, st, err := s.lstat(p)
	if err != nil {
		return nil, err
	}
	f, st, err := openChecked(dir, name, c, st)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(f, st, c, max)
}

// lstat describes the file at p in the innermost of its directories,
// held open, and returns that directory, the file's name in it and p in
// clean form.
func (s *Stater) lstat(p string) (dir *os.Root, name, c string, st fs.FileInfo, err error) {
	if c, err = Clean(p); err != nil {
		return nil, "", "", nil, err
	}
	if dir, name, err = s.enter(c); err != nil {
		return nil, "", "", nil, err
	}
	st, err = dir.Lstat(name)
	return dir, name, c, st, named(err, c)
}

// enter holds open the directories of the clean path c, checking each
// one it opens, and returns the innermost with c's last component.
func (s *Stater) enter(c string) (*os.Root, string, error) {
	parts := strings.Split(c, "/")
	dirs := parts[:len(parts)-1]
	k := 0
	for k < len(s.names) && k < len(dirs) && s.names[k] == dirs[k] {
		k++
	}
	s.keep(k)
	for ; k < len(dirs); k++ {
		parent := s.dir()
		dir := strings.Join(dirs[:k+1], "/")
		st, err := parent.Lstat(dirs[k])
		if err != nil {
			return nil, "", named(err, dir)
		}
		if err := passable(st, c, dir); err != nil {
			return nil, "", err
		}
		// Checked just now; were it swapped for a link since, os.Root
		// still confines the open to the root.
		sub, err := parent.OpenRoot(dirs[k])
		if err != nil {
			return nil, "", named(err, dir)
		}
		s.names, s.subs = append(s.names, dirs[k]), append(s.subs, sub)
	}
	return s.dir(), parts[len(parts)-1], nil
}

// dir is the innermost directory held open (the root when none is).
func (s *Stater) dir() *os.Root {
	if len(s.subs) == 0 {
		return s.r.root
	}
	return s.subs[len(s.subs)-1]
}

// keep closes the directories held open below the first k.
func (s *Stater) keep(k int) error {
	var errs []error
	for _, sub := range s.subs[k:] {
		errs = append(errs, sub.Close())
	}
	s.names, s.subs = s.names[:k], s.subs[:k]
	return errors.Join(errs...)
}

// Close releases the directories held open.
func (s *Stater) Close() error { return s.keep(0) }

// named makes a path error name the path asked about, not the component
// a directory was asked for.
func named(err error, p string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		pe.Path = p
	}
	return err
}

// Open opens the regular file at p for reading.
func (r *Root) Open(p string) (*os.File, error) {
	c, err := Clean(p)
	if err != nil {
		return nil, err
	}
	st, err := r.Lstat(c)
	if err != nil {
		return nil, err
	}
	f, _, err := openChecked(r.root, c, c, st)
	return f, err
}

// openChecked opens name in dir, the file of the clean path c that st
// describes, when st is a regular file, and checks that what it opened
// is one still; it returns the open file's own description.
func openChecked(dir *os.Root, name, c string, st fs.FileInfo) (*os.File, fs.FileInfo, error) {
	if st.Mode()&fs.ModeSymlink != 0 {
		return nil, nil, &fs.PathError{Op: "open", Path: c, Err: ErrSymlink}
	}
	if !st.Mode().IsRegular() {
		return nil, nil, &fs.PathError{Op: "open", Path: c, Err: ErrNotRegular}
	}
	f, err := dir.OpenFile(name, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return nil, nil, named(err, c)
	}
	// The file opened is the one checked, or at least a regular file
	// inside the root: a swap after the check cannot lead out of it.
	st2, err := f.Stat()
	if err != nil || !st2.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = ErrNotRegular
		}
		return nil, nil, &fs.PathError{Op: "open", Path: c, Err: err}
	}
	return f, st2, nil
}

// ReadFile reads the regular file at p; with max > 0 a file larger than
// max bytes is an error.
func (r *Root) ReadFile(p string, max int64) ([]byte, error) {
	c, err := Clean(p)
	if err != nil {
		return nil, err
	}
	st, err := r.Lstat(c)
	if err != nil {
		return nil, err
	}
	f, st, err := openChecked(r.root, c, c, st)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(f, st, p, max)
}

// read reads the open file f, of the path p, which st describes; with
// max > 0 a file larger than max bytes is an error.
func read(f *os.File, st fs.FileInfo, p string, max int64) ([]byte, error) {
	if max > 0 && st.Size() > max {
		return nil, &fs.PathError{Op: "read", Path: p, Err: fmt.Errorf("%d bytes, over the limit of %d", st.Size(), max)}
	}
	limit := int64(math.MaxInt64)
	if max > 0 {
		limit = max + 1
	}
	// Read into a buffer of the size stat gave, and one byte more to
	// see the end (bytes.Buffer would double it for its last read); a
	// file that grew since grows it.
	r := io.LimitReader(f, limit)
	size := min(st.Size(), limit)
	if size < 0 {
		size = 0
	}
	buf := make([]byte, 0, size+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: p, Err: err}
		}
	}
	if max > 0 && int64(len(buf)) > max {
		return nil, &fs.PathError{Op: "read", Path: p, Err: fmt.Errorf("over the limit of %d bytes", max)}
	}
	return buf, nil
}

// ReadFile reads the file at the repository-relative path p under dir,
// confined as Root.ReadFile is.
func ReadFile(dir, p string, max int64) ([]byte, error) {
	r, err := Open(dir)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.ReadFile(p, max)
}
