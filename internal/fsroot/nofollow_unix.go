//go:build unix

package fsroot

import "syscall"

// noFollow refuses a link as the last component at open time too.
const noFollow = syscall.O_NOFOLLOW
