//go:build unix

package safefile

import (
	"errors"
	"os"
	"syscall"
)

// openFlags: a symbolic link is never followed, and opening a named pipe
// fails rather than waits for a reader.
const openFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// tryLock takes an exclusive flock on f without blocking; it is released
// when f is closed.
func tryLock(f *os.File) (bool, error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}
