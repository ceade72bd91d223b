package retrieve

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// BenchmarkIndexCtags is BenchmarkIndex with its load reference: every
// round also runs `ctags -R` over the same tree, extracted once with git
// archive, so that both are timed under the same load:
//
//	MSS_BENCH_REPO=/path/to/git/dir MSS_BENCH_REV=<commit> \
//	go test -run '^$' -bench IndexCtags -benchtime 5x ./retrieve/
//
// It reports the mean wall time of each and their ratio (x-ctags), and
// skips when MSS_BENCH_REPO is unset or ctags is not installed. `mss
// index` collects garbage at GC percent 400 under a 768 MiB limit; set
// GOGC=400 GOMEMLIMIT=768MiB for the figures it gives.
func BenchmarkIndexCtags(b *testing.B) {
	repo, rev := gittest.BenchRepo(b)
	ctags, err := exec.LookPath("ctags")
	if err != nil {
		b.Skip("ctags not installed")
	}
	tree, out := b.TempDir(), b.TempDir()
	treeish := rev
	if treeish == "" {
		treeish = "HEAD"
	}
	archive := exec.Command("sh", "-c", `git --git-dir "$1" archive "$2" | tar -x -C "$3"`, "sh", repo, treeish, tree)
	if msg, err := archive.CombinedOutput(); err != nil {
		b.Fatalf("extracting %s at %s: %v: %s", repo, treeish, err, msg)
	}
	var idx, ref time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if msg, err := exec.Command(ctags, "-R", "-f", filepath.Join(out, "tags"), tree).CombinedOutput(); err != nil {
			b.Fatalf("ctags: %v: %s", err, msg)
		}
		t1 := time.Now()
		db := filepath.Join(b.TempDir(), "index.db")
		if _, err := index.Build(context.Background(), index.Options{Repo: repo, Rev: rev, DB: db, Derive: Deriver}); err != nil {
			b.Fatal(err)
		}
		ref += t1.Sub(t0)
		idx += time.Since(t1)
	}
	b.ReportMetric(idx.Seconds()/float64(b.N), "index-s/op")
	b.ReportMetric(ref.Seconds()/float64(b.N), "ctags-s/op")
	b.ReportMetric(idx.Seconds()/ref.Seconds(), "x-ctags")
}

// benchIndex indexes MSS_BENCH_REPO at MSS_BENCH_REV, without the
// retrieval structures, and opens the index until the benchmark ends; it
// skips when MSS_BENCH_REPO is unset.
func benchIndex(b *testing.B) *index.Index {
	repo, rev := gittest.BenchRepo(b)
	db := filepath.Join(b.TempDir(), "index.db")
	if _, err := index.Build(context.Background(), index.Options{Repo: repo, Rev: rev, DB: db}); err != nil {
		b.Fatal(err)
	}
	ix, err := index.Open(db)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	return ix
}

// BenchmarkSemantic builds the semantic structure from the units of a
// real repository, indexed once at MSS_BENCH_REV (their terms counted
// once, outside the timing):
//
//	MSS_BENCH_REPO=/path/to/git/dir MSS_BENCH_REV=<commit> \
//	go test -run '^$' -bench Semantic -benchtime 10x ./retrieve/
//
// It skips when MSS_BENCH_REPO is unset.
func BenchmarkSemantic(b *testing.B) {
	ix := benchIndex(b)
	e := memEngine(b, ix, Options{Disable: []string{ViewSemantic, ViewHistory}})
	content, symbol := tokenizeUnits(e.units, nil)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buildSemantic(e, content, symbol)
	}
	b.ReportMetric(float64(len(e.units)), "units")
}

// BenchmarkTokenize counts the terms of every unit's content and symbol
// (tokenizeUnits, on every core), the units of a real repository indexed
// once at MSS_BENCH_REV:
//
//	MSS_BENCH_REPO=/path/to/git/dir MSS_BENCH_REV=<commit> \
//	go test -run '^$' -bench Tokenize -benchtime 10x ./retrieve/
//
// It reports the megabytes of content counted per second, and skips when
// MSS_BENCH_REPO is unset.
func BenchmarkTokenize(b *testing.B) {
	units, err := benchIndex(b).Units()
	if err != nil {
		b.Fatal(err)
	}
	size := 0
	for _, u := range units {
		size += len(u.Content) + len(u.Symbol)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tokenizeUnits(units, nil)
	}
	b.ReportMetric(float64(size)*float64(b.N)/1e6/b.Elapsed().Seconds(), "MB/s")
}

// BenchmarkHistory reads the history view's log at 20 commits of
// MSS_BENCH_REV's first-parent line (default HEAD), 25 apart, oldest
// first, as a process moving from commit to commit does:
//
//	MSS_BENCH_REPO=/path/to/git/dir MSS_BENCH_REV=<commit> \
//	go test -run '^$' -bench History -benchtime 3x ./retrieve/
//
// It reports the milliseconds of a read after the first with what was
// read of each commit kept (kept-ms), and with every log read whole
// (whole-ms), alternating the two. It skips when MSS_BENCH_REPO is unset.
func BenchmarkHistory(b *testing.B) {
	repo, rev := gittest.BenchRepo(b)
	if rev == "" {
		rev = "HEAD"
	}
	out, err := exec.Command("git", "--git-dir", repo, "rev-list", "--first-parent", "-n500", rev).Output()
	if err != nil {
		b.Fatal(err)
	}
	line := strings.Fields(string(out))
	var commits []string
	for k := 0; k < len(line) && len(commits) < 20; k += 25 {
		commits = append([]string{line[k]}, commits...)
	}
	n := DefaultHistoryCommits
	var kept, whole time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		commitFacts.clear()
		for k, c := range commits {
			t0 := time.Now()
			if _, err := gitHistory(repo, c, n); err != nil {
				b.Fatal(err)
			}
			if k > 0 {
				kept += time.Since(t0)
			}
		}
		for k, c := range commits {
			commitFacts.clear()
			t0 := time.Now()
			if _, err := gitHistory(repo, c, n); err != nil {
				b.Fatal(err)
			}
			if k > 0 {
				whole += time.Since(t0)
			}
		}
	}
	reads := float64(b.N * (len(commits) - 1))
	b.ReportMetric(kept.Seconds()*1000/reads, "kept-ms")
	b.ReportMetric(whole.Seconds()*1000/reads, "whole-ms")
}
