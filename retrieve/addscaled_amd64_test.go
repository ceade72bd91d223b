package retrieve

import (
	"testing"

	"golang.org/x/sys/cpu"
)

// TestAddScaledPaths checks both vector paths, whichever addScaled takes
// on this processor.
func TestAddScaledPaths(t *testing.T) {
	checkAddScaled(t, "addScaledSSE", func(v []float32, w float32, x []float32) { addScaledBlocks(addScaledSSE, 4, v, w, x) })
	if !cpu.X86.HasAVX {
		t.Skip("no AVX on this processor")
	}
	checkAddScaled(t, "addScaledAVX", func(v []float32, w float32, x []float32) { addScaledBlocks(addScaledAVX, 8, v, w, x) })
}
