package retrieve

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

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

// addScaledAll adds ws[k]·xs[k] to v for every k in turn, each xs[k]
// pointing at len(v) float32s, as addScaled does one by one (the same
// vector, bit for bit). A vector of 256, on a processor with AVX-512, is
// held in registers the while.
func addScaledAll(v []float32, ws []float32, xs []*float32) {
	if len(ws) == 0 {
		return
	}
	if len(v) == 256 && cpu.X86.HasAVX512F {
		addScaled256AVX512(&v[0], &xs[0], &ws[0], len(ws))
		return
	}
	for k, w := range ws {
		addScaled(v, w, unsafe.Slice(xs[k], len(v)))
	}
}

// addScaled256AVX512 adds n products to v, 256 float32s.
//
//go:noescape
func addScaled256AVX512(v *float32, xs **float32, ws *float32, n int)
