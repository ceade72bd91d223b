//go:build unix

package index

import (
	"fmt"
	"io/fs"
	"syscall"
)

// statKey identifies a file's state as a stat call sees it: when it is
// the one recorded, the file has not been written since (see statSettled).
func statKey(fi fs.FileInfo) string {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fmt.Sprintf("%d:%d:%d:%d:%d", fi.Size(), fi.ModTime().UnixNano(), ctimeNanos(st), st.Ino, st.Dev)
	}
	return fmt.Sprintf("%d:%d", fi.Size(), fi.ModTime().UnixNano())
}
