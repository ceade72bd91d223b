package index

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/missingcomplement/mss/internal/gittest"
)

// Benchmarks run on a real repository named by the environment:
//
//	MSS_BENCH_REPO=/path/to/git/dir MSS_BENCH_REV=<commit> \
//	MSS_BENCH_REV2=<another commit> go test -run '^$' -bench . ./index/
//
// They skip when MSS_BENCH_REPO is unset (gittest.BenchRepo).

// BenchmarkBuild indexes the repository from scratch.
func BenchmarkBuild(b *testing.B) {
	repo, rev := gittest.BenchRepo(b)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		db := filepath.Join(b.TempDir(), "index.db")
		sum, err := Build(context.Background(), Options{Repo: repo, Rev: rev, DB: db})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(sum.Files), "files")
		b.ReportMetric(float64(sum.Units), "units")
	}
}

// BenchmarkMove moves an index of MSS_BENCH_REV to MSS_BENCH_REV2 and back.
func BenchmarkMove(b *testing.B) {
	repo, rev := gittest.BenchRepo(b)
	rev2 := gittest.BenchRev2(b)
	db := filepath.Join(b.TempDir(), "index.db")
	if _, err := Build(context.Background(), Options{Repo: repo, Rev: rev, DB: db}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		to := rev2
		if i%2 == 1 {
			to = rev
		}
		sum, err := Build(context.Background(), Options{Repo: repo, Rev: to, DB: db})
		if err != nil {
			b.Fatal(err)
		}
		if sum.Rebuilt != "" {
			b.Fatalf("index rebuilt instead of moved: %s", sum.Rebuilt)
		}
		b.ReportMetric(float64(sum.Parsed), "parsed")
	}
}

// BenchmarkEdges resolves the edges of a built index.
func BenchmarkEdges(b *testing.B) {
	repo, rev := gittest.BenchRepo(b)
	db := os.Getenv("MSS_BENCH_DB") // reuse an index built before, if named
	if db == "" {
		db = filepath.Join(b.TempDir(), "index.db")
		if _, err := Build(context.Background(), Options{Repo: repo, Rev: rev, DB: db}); err != nil {
			b.Fatal(err)
		}
	}
	ix, err := Open(db)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		edges, err := ix.Edges()
		if err != nil {
			b.Fatal(err)
		}
		kinds := map[string]int{}
		for _, e := range edges {
			kinds[e.Kind]++
		}
		b.ReportMetric(float64(kinds[EdgeCall]), "calls")
		b.ReportMetric(float64(kinds[EdgeRef]), "refs")
		b.ReportMetric(float64(kinds[EdgeImport]), "imports")
	}
}

// BenchmarkOpenUnits opens an index and reads every unit, as a consumer
// starting on a base commit does. MSS_BENCH_DB names a built index.
func BenchmarkOpenUnits(b *testing.B) {
	db := os.Getenv("MSS_BENCH_DB")
	if db == "" {
		b.Skip("MSS_BENCH_DB not set")
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		ix, err := Open(db)
		if err != nil {
			b.Fatal(err)
		}
		units, err := ix.Units()
		if err != nil {
			b.Fatal(err)
		}
		ix.Close()
		b.ReportMetric(float64(len(units)), "units")
	}
}
