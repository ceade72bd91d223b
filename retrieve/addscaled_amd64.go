package retrieve

import "golang.org/x/sys/cpu"

// addScaled adds w·x to v element by element (v at least as long as x)
// with the machine's vector instructions: AVX where the processor has
// it, SSE (which every amd64 processor has) otherwise, over whole blocks
// of 8 or 4; addScaledGo adds what is left. A product is rounded before
// it is added, as addScaledGo does, so the vectors are the same bit for
// bit whichever runs.
func addScaled(v []float32, w float32, x []float32) {
	kernel, block := addScaledSSE, 4
	if cpu.X86.HasAVX {
		kernel, block = addScaledAVX, 8
	}
	addScaledBlocks(kernel, block, v, w, x)
}

// addScaledBlocks has kernel add the first whole blocks of x, and
// addScaledGo the rest.
func addScaledBlocks(kernel func(v, x *float32, n int, w float32), block int, v []float32, w float32, x []float32) {
	v = v[:len(x)]
	n := len(x) / block * block
	if n > 0 {
		kernel(&v[0], &x[0], n, w)
	}
	if n < len(x) {
		addScaledGo(v[n:], w, x[n:])
	}
}

// addScaledAVX adds n (a multiple of 8) products.
//
//go:noescape
func addScaledAVX(v, x *float32, n int, w float32)

// addScaledSSE adds n (a multiple of 4) products.
//
//go:noescape
func addScaledSSE(v, x *float32, n int, w float32)
