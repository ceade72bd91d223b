//go:build !unix

package index

import (
	"fmt"
	"io/fs"
)

func statKey(fi fs.FileInfo) string {
	return fmt.Sprintf("%d:%d", fi.Size(), fi.ModTime().UnixNano())
}
