package pipeline

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/missingcomplement/mss/internal/gittest"
	"github.com/missingcomplement/mss/retrieve"
)

// BenchmarkMove moves an index between two commits and builds the engine
// from its units each time, as `mss bench repo` does between states:
//
//	MSS_BENCH_REPO=/path/to/git/dir MSS_BENCH_REV=<commit> \
//	MSS_BENCH_REV2=<another commit> go test -run '^$' -bench Move ./pipeline/
//
// It skips when MSS_BENCH_REPO or MSS_BENCH_REV2 is unset.
func BenchmarkMove(b *testing.B) {
	repo, rev := gittest.BenchRepo(b)
	rev2 := gittest.BenchRev2(b)
	ctx := context.Background()
	db := filepath.Join(b.TempDir(), "index.db")
	counts := &retrieve.TermCounts{}
	open := func(rev string) *Pipeline {
		p, err := Open(ctx, Options{Repo: repo, Rev: rev, DB: db, NoDerive: true, NoEnv: true,
			Engine: retrieve.Options{GitDir: repo, Commit: rev, Counts: counts}})
		if err != nil {
			b.Fatal(err)
		}
		return p
	}
	open(rev).Close()
	var index, engine float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		to := rev2
		if i%2 == 1 {
			to = rev
		}
		p := open(to)
		index += p.Phases().Index
		engine += p.Phases().Engine
		p.Close()
	}
	b.ReportMetric(index/float64(b.N), "index-s/op")
	b.ReportMetric(engine/float64(b.N), "engine-s/op")
}
