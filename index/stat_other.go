//go:build !unix

package index

import (
	"fmt"
	"io/fs"
)

// StatKey identifies a file's state as a stat call sees it: its size and
// modification time, where the platform gives no more.
func StatKey(fi fs.FileInfo) string {
	return fmt.Sprintf("%d:%d", fi.Size(), fi.ModTime().UnixNano())
}
