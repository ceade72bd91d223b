//go:build unix

package index

import (
	"errors"
	"os"
	"syscall"
)

// haveLocks says tryLock takes a real lock.
const haveLocks = true

const noFollow = syscall.O_NOFOLLOW

// tryLock takes an exclusive flock on f without blocking.
func tryLock(f *os.File) (bool, error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

func unlock(f *os.File) { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
