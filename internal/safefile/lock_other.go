//go:build !unix

package safefile

import "os"

const openFlags = 0

// tryLock: no advisory locks here.
func tryLock(f *os.File) (bool, error) { return true, nil }
