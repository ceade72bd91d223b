package retrieve

import "golang.org/x/sys/cpu"

// addScaled adds w·x to v element by element (v at least as long as x)
// with the machine's vector instructions: AVX where the processor has
// it, SSE (which every amd64 processor has) otherwise. A product is
// rounded before it is added, as addScaledGo does, so the vectors are
// the same bit for bit whichever runs.
func addScaled(v []float32, w float32, x []float32) {
	if len(x) == 0 {
		return
	}
	v = v[:len(x)]
	if cpu.X86.HasAVX {
		addScaledAVX(&v[0], &x[0], len(x), w)
		return
	}
	addScaledSSE(&v[0], &x[0], len(x), w)
}

//go:noescape
func addScaledAVX(v, x *float32, n int, w float32)

//go:noescape
func addScaledSSE(v, x *float32, n int, w float32)
