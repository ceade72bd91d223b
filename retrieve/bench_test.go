package retrieve

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/missingcomplement/mss/index"
	"github.com/missingcomplement/mss/internal/gittest"
)

// BenchmarkIndex indexes a real repository from scratch, with the
// retrieval structures derived, as `mss index` does:
//
//	MSS_BENCH_REPO=/path/to/git/dir MSS_BENCH_REV=<commit> \
//	go test -run '^$' -bench Index ./retrieve/
//
// It skips when MSS_BENCH_REPO is unset.
func BenchmarkIndex(b *testing.B) {
	repo, rev := gittest.BenchRepo(b)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		db := filepath.Join(b.TempDir(), "index.db")
		sum, err := index.Build(context.Background(), index.Options{Repo: repo, Rev: rev, DB: db, Derive: Deriver})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(sum.Units), "units")
	}
}
