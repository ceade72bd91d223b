//go:build !unix

package index

const noFollow = 0
