//go:build unix

package index

import (
	"os"
	"runtime"
	"syscall"
)

// mapFile maps a file read-only. The mapping is released once holder is
// unreachable, so bytes taken from it stay valid while their user keeps
// holder.
func mapFile(f *os.File, size int64, holder *sidecar) ([]byte, error) {
	if size == 0 {
		return nil, nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	runtime.AddCleanup(holder, func(b []byte) { syscall.Munmap(b) }, b)
	return b, nil
}

// dropPages drops a mapping's pages from the process's memory; reading
// them again reads the file.
func dropPages(b []byte) {
	if len(b) > 0 {
		syscall.Madvise(b, syscall.MADV_DONTNEED)
	}
}
