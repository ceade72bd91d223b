//go:build unix

package index

import (
	"fmt"
	"io/fs"
	"syscall"
)

// StatKey identifies a file's state as a stat call sees it (size,
// modification and change times, inode and device): when it is the one
// recorded, the file has not been written since (see prevStats.settled):
// a write that keeps the size and sets the modification time back still
// changes the change time.
func StatKey(fi fs.FileInfo) string {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fmt.Sprintf("%d:%d:%d:%d:%d", fi.Size(), fi.ModTime().UnixNano(), ctimeNanos(st), st.Ino, st.Dev)
	}
	return fmt.Sprintf("%d:%d", fi.Size(), fi.ModTime().UnixNano())
}
