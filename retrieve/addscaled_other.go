//go:build !amd64

package retrieve

import "unsafe"

// addScaled adds w·x to v element by element (v at least as long as x).
func addScaled(v []float32, w float32, x []float32) { addScaledGo(v, w, x) }

// addScaledAll adds ws[k]·xs[k] to v for every k in turn, each xs[k]
// pointing at len(v) float32s.
func addScaledAll(v []float32, ws []float32, xs []*float32) {
	for k, w := range ws {
		addScaledGo(v, w, unsafe.Slice(xs[k], len(v)))
	}
}
