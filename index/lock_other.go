//go:build !unix

package index

import "os"

// haveLocks says tryLock takes a real lock.
const haveLocks = false

const noFollow = 0

// tryLock: no advisory locks here; SQLite's own locking still serialises
// updates in place.
func tryLock(f *os.File) (bool, error) { return true, nil }

func unlock(f *os.File) {}
