//go:build !unix

package safefile

import "os"

const openFlags = 0

// HaveLocks says TryLock takes a real lock.
const HaveLocks = false

// TryLock: no advisory locks here.
func TryLock(f *os.File) (bool, error) { return true, nil }

// Unlock: no advisory locks here.
func Unlock(f *os.File) {}
