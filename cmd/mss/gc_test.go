package main

import (
	"math"
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

// TestIndexGC: `mss index` runs at indexGCPercent under indexMemoryLimit,
// and puts both back; GOGC and GOMEMLIMIT in the environment are left
// alone.
func TestIndexGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	restore := indexGC()
	if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != indexGCPercent || l != indexMemoryLimit {
		t.Errorf("during: GC percent %d, memory limit %d; want %d, %d", p, l, indexGCPercent, indexMemoryLimit)
	}
	restore()
	if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != 100 || l != math.MaxInt64 {
		t.Errorf("after: GC percent %d, memory limit %d; want 100 and none back", p, l)
	}
	t.Setenv("GOMEMLIMIT", "1GiB")
	restore = indexGC()
	if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != indexGCPercent || l != math.MaxInt64 {
		t.Errorf("with GOMEMLIMIT set: GC percent %d, memory limit %d; want %d and the limit left alone", p, l, indexGCPercent)
	}
	restore()
}
