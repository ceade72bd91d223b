//go:build unix

package index

import "syscall"

const noFollow = syscall.O_NOFOLLOW
