package main

import (
	"runtime/debug"
	"testing"
)

// gcPercent reads the garbage collector's target without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestBatchGC: bench repo's target is batchGCPercent while it runs and
// the previous one after; a GOGC in the environment is left alone.
func TestBatchGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "")
	restore := batchGC()
	if got := gcPercent(); got != batchGCPercent {
		t.Errorf("during: GC percent %d, want %d", got, batchGCPercent)
	}
	restore()
	if got := gcPercent(); got != 100 {
		t.Errorf("after: GC percent %d, want 100 back", got)
	}
	t.Setenv("GOGC", "150")
	debug.SetGCPercent(150)
	restore = batchGC()
	if got := gcPercent(); got != 150 {
		t.Errorf("with GOGC set: GC percent %d, want 150 kept", got)
	}
	restore()
}
