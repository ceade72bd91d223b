package index

import "github.com/missingcomplement/mss/internal/safefile"

// The index's locks are the advisory locks every file mss appends to
// takes (safefile.TryLock); SQLite's own locking serialises updates in
// place where there are none.
const haveLocks = safefile.HaveLocks

var (
	tryLock = safefile.TryLock
	unlock  = safefile.Unlock
)
