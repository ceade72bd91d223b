package retrieve

import (
	"context"
	"os"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/index"
)

func TestProfQuery(t *testing.T) {
	db := os.Getenv("PROF_DB")
	if db == "" {
		t.Skip()
	}
	b, _ := os.ReadFile(os.Getenv("PROF_STATE"))
	st, _ := mss.ParseState("s.json", b)
	ix, _ := index.Open(db)
	e, err := FromIndex(ix, Options{})
	if err != nil {
		t.Fatal(err)
	}
	e.Candidates(context.Background(), st, 200)
	f, _ := os.Create("/tmp/q.prof")
	pprof.StartCPUProfile(f)
	t0 := time.Now()
	for range 20 {
		e.Candidates(context.Background(), st, 200)
	}
	pprof.StopCPUProfile()
	t.Logf("per query %v", time.Since(t0)/20)
}
