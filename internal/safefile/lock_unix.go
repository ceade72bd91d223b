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

// HaveLocks says TryLock takes a real lock.
const HaveLocks = true

// TryLock takes an exclusive flock on f without blocking; it is released
// when f is closed (or by Unlock).
func TryLock(f *os.File) (bool, error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

// Unlock releases the lock TryLock took on f.
func Unlock(f *os.File) { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
