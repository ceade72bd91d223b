//go:build !unix

package fsroot

// noFollow: os.Root already refuses links that leave the root here.
const noFollow = 0
