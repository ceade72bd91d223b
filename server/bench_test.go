package server

import (
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/missingcomplement/mss"
)

// BenchmarkSessionMemory reports the heap a session holds with a typical
// load (64 observed spans: eight answers of eight units) and a full one
// (DefaultMaxSpans).
func BenchmarkSessionMemory(b *testing.B) {
	for _, spans := range []int{64, DefaultMaxSpans} {
		b.Run(fmt.Sprintf("spans=%d", spans), func(b *testing.B) {
			const sessions = 200
			add := make([]mss.Span, spans)
			for i := range add {
				add[i] = mss.Span{Path: fmt.Sprintf("pkg/sub/file_%03d.py", i%300), StartLine: i*10 + 1, EndLine: i*10 + 9, Symbol: fmt.Sprintf("Class.method_%d", i)}
			}
			var perSession float64
			for b.Loop() {
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				s := NewSessions(SessionLimits{MaxSessions: sessions})
				for i := 0; i < sessions; i++ {
					s.Add(fmt.Sprintf("session-%d", i), i%2 == 0, add)
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				perSession = float64(after.HeapAlloc-before.HeapAlloc) / sessions
				runtime.KeepAlive(s)
			}
			// The span strings are shared with add here; a server's spans come
			// from decoded requests, so add their bytes once per span.
			var strBytes int
			for _, sp := range add {
				strBytes += len(sp.Path) + len(sp.Symbol)
			}
			b.ReportMetric(perSession+float64(strBytes), "bytes/session")
		})
	}
}

// BenchmarkScanTree times one freshness scan of the work tree named by
// MSS_BENCH_REPO (skipped when unset).
func BenchmarkScanTree(b *testing.B) {
	root := os.Getenv("MSS_BENCH_REPO")
	if root == "" {
		b.Skip("MSS_BENCH_REPO names no work tree")
	}
	var files int
	for b.Loop() {
		st, err := scanTree(root, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		files = len(st)
	}
	b.ReportMetric(float64(files), "files")
}
