package safefile

import (
	"errors"
	"fmt"
	"os"
)

// ErrBusy is returned by OpenAppend for a file another run holds.
var ErrBusy = errors.New("another run is writing it")

// OpenAppend opens the file at path for appending (creating it when
// missing) and takes an exclusive lock on it for as long as it is open,
// so that one run at a time reads what an earlier run left in it and
// adds to it: a second run is refused (ErrBusy) rather than let its lines
// interleave with the first's. A file replaced by a rename (Replace)
// while the lock was being taken is opened again. path must be a regular
// file or missing (Writable); a symbolic link is never followed.
func OpenAppend(path string) (*os.File, error) {
	for range 8 {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|openFlags, 0o644)
		if err != nil {
			return nil, err
		}
		ok, err := TryLock(f)
		if err != nil || !ok {
			f.Close()
			if err == nil {
				err = ErrBusy
			}
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		held, err1 := f.Stat()
		now, err2 := os.Lstat(path)
		if err1 == nil && err2 == nil && held.Mode().IsRegular() && os.SameFile(held, now) {
			return f, nil
		}
		f.Close()
		if err1 == nil && !held.Mode().IsRegular() {
			return nil, fmt.Errorf("%s: not a regular file (%s); refusing to write it", path, Kind(held.Mode()))
		}
	}
	return nil, fmt.Errorf("%s: replaced again and again while it was being opened", path)
}
