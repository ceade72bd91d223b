package retrieve

import (
	"testing"

	"golang.org/x/sys/cpu"
)

// TestAddScaledPaths checks both vector paths, whichever addScaled takes
// on this processor.
func TestAddScaledPaths(t *testing.T) {
	sse := func(v []float32, w float32, x []float32) {
		if len(x) > 0 {
			addScaledSSE(&v[0], &x[0], len(x), w)
		}
	}
	checkAddScaled(t, "addScaledSSE", sse)
	if !cpu.X86.HasAVX {
		t.Skip("no AVX on this processor")
	}
	avx := func(v []float32, w float32, x []float32) {
		if len(x) > 0 {
			addScaledAVX(&v[0], &x[0], len(x), w)
		}
	}
	checkAddScaled(t, "addScaledAVX", avx)
}
