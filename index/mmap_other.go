//go:build !unix

package index

import (
	"io"
	"os"
)

// mapFile reads a file into memory where there is no mmap.
func mapFile(f *os.File, size int64, _ *sidecar) ([]byte, error) {
	b := make([]byte, size)
	_, err := io.ReadFull(f, b)
	return b, err
}

// dropPages does nothing: the bytes are the program's own memory.
func dropPages([]byte) {}
