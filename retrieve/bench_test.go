package retrieve

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/missingcomplement/mss/index"
)

// BenchmarkIndex indexes a real repository from scratch, with the
// retrieval structures derived, as `mss index` does:
//
//	MSS_BENCH_REPO=/path/to/git/dir MSS_BENCH_REV=<commit> \
//	go test -run '^$' -bench Index ./retrieve/
//
// It skips when MSS_BENCH_REPO is unset.
func BenchmarkIndex(b *testing.B) {
	repo := os.Getenv("MSS_BENCH_REPO")
	if repo == "" {
		b.Skip("MSS_BENCH_REPO not set")
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		db := filepath.Join(b.TempDir(), "index.db")
		sum, err := index.Build(context.Background(), index.Options{Repo: repo, Rev: os.Getenv("MSS_BENCH_REV"), DB: db, Derive: Deriver})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(sum.Units), "units")
	}
}
