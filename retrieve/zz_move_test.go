package retrieve

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/missingcomplement/mss/index"
)

func TestMoveTiming(t *testing.T) {
	repo := os.Getenv("MOVE_REPO")
	if repo == "" {
		t.Skip()
	}
	revs := strings.Fields(os.Getenv("MOVE_REVS"))
	db := filepath.Join(t.TempDir(), "x.db")
	var dt time.Duration
	d := &index.Deriver{Version: Deriver.Version, Func: func(in *index.DeriveInput) (*index.Derived, error) {
		t0 := time.Now()
		out, err := Deriver.Func(in)
		dt = time.Since(t0)
		return out, err
	}}
	for k, rev := range append(revs, revs...) {
		dt = 0
		t0 := time.Now()
		if _, err := index.Build(context.Background(), index.Options{Repo: repo, Rev: rev, DB: db, Derive: d}); err != nil {
			t.Fatal(err)
		}
		tb := time.Since(t0)
		t1 := time.Now()
		ix, _ := index.Open(db)
		e, err := FromIndex(ix, Options{})
		if err != nil {
			t.Fatal(err)
		}
		to := time.Since(t1)
		t2 := time.Now()
		us, _ := ix.Units()
		ed, _ := ix.Edges()
		NewEngine(us, ed, Options{GitDir: repo, Commit: rev})
		tm := time.Since(t2)
		ix.Close()
		_ = e
		t.Logf("%d %s: build %v (derive func %v), open stored %v; in-memory engine would take %v", k, rev[:8], tb, dt, to, tm)
	}
}
