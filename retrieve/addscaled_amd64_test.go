package retrieve

import (
	"math"
	"math/rand/v2"
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

// TestAddScaledAll: adding a list of products at once gives the vector
// adding them one by one gives, bit for bit, on the AVX-512 path (256
// elements; skipped without AVX-512) and the others.
func TestAddScaledAll(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	value := func() float32 { return hardFloat(r) }
	for _, dim := range []int{256, 100, 8} {
		if dim == 256 && !cpu.X86.HasAVX512F {
			t.Log("no AVX-512 on this processor: its path is not checked")
		}
		for n := range 70 {
			ws, xs := make([]float32, n), make([]*float32, n)
			vecs := make([][]float32, n)
			for k := range n {
				ws[k] = value()
				vecs[k] = make([]float32, dim)
				for j := range dim {
					vecs[k][j] = value()
				}
				xs[k] = &vecs[k][0]
			}
			got, want := make([]float32, dim), make([]float32, dim)
			for j := range dim {
				got[j] = value()
				want[j] = got[j]
			}
			addScaledAll(got, ws, xs)
			for k := range n {
				addScaledGo(want, ws[k], vecs[k])
			}
			for j := range dim {
				if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
					t.Fatalf("dim %d, %d products: element %d is %v, want %v", dim, n, j, got[j], want[j])
				}
			}
		}
	}
}
