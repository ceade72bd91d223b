//go:build !amd64

package retrieve

// addScaled adds w·x to v element by element (v at least as long as x).
func addScaled(v []float32, w float32, x []float32) { addScaledGo(v, w, x) }
