package index

import (
	"bufio"
	"context"
	"fmt"
	"github.com/missingcomplement/mss/internal/gittest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestCrashChild is the build the crash test kills: run only as a child
// process of TestKilledBuildLeavesIndexIntact.
func TestCrashChild(t *testing.T) {
	repo, db := os.Getenv("MSS_CRASH_REPO"), os.Getenv("MSS_CRASH_DB")
	if repo == "" {
		t.Skip("child of TestKilledBuildLeavesIndexIntact")
	}
	once := false
	_, err := Build(context.Background(), Options{Repo: repo, DB: db, Workers: 1,
		IncludeVendored: os.Getenv("MSS_CRASH_REBUILD") != "",
		Progress: func(done, total int) {
			if done == total/2 && !once {
				once = true
				fmt.Println("halfway")
				os.Stdout.Sync()
				time.Sleep(time.Minute) // killed here, mid-transaction
			}
		}})
	t.Fatalf("child build was not killed: %v", err)
}

// killBuildHalfway runs a build of dir into db in a child process and
// kills it half-way through its files.
func killBuildHalfway(t *testing.T, dir, db string, rebuild bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.v")
	cmd.Env = append(os.Environ(), "MSS_CRASH_REPO="+dir, "MSS_CRASH_DB="+db)
	if rebuild {
		cmd.Env = append(cmd.Env, "MSS_CRASH_REBUILD=1")
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	reached := false
	for sc.Scan() {
		if strings.Contains(sc.Text(), "halfway") {
			reached = true
			break
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	if !reached {
		t.Fatal("child never reached the middle of its build")
	}
}

// TestKilledBuildLeavesIndexIntact kills builds half-way, an update in
// place and a rebuild into a temporary file, and checks each time that the
// previous index is untouched and the next build succeeds and cleans up.
func TestKilledBuildLeavesIndexIntact(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	dir, _ := newRepo(t, fixture)
	db := filepath.Join(dir, ".mss", "index.db")
	build(t, Options{Repo: dir})
	want := mustUnits(t, db)

	more := map[string]string{}
	for i := 0; i < 60; i++ {
		more[fmt.Sprintf("gen/m%02d.py", i)] = fmt.Sprintf("def f%d():\n    return %d\n", i, i)
	}
	gittest.WriteTree(t, dir, more)

	intact := func(what string) {
		t.Helper()
		ix, err := Open(db)
		if err != nil {
			t.Fatalf("%s: previous index unusable: %v", what, err)
		}
		if err := ix.Check(); err != nil {
			t.Errorf("%s: previous index fails check: %v", what, err)
		}
		ix.Close()
		if diff := cmp.Diff(want, mustUnits(t, db)); diff != "" {
			t.Errorf("%s: previous index changed:\n%s", what, diff)
		}
	}

	// An update in place, killed: SQLite's journal is left behind and
	// rolled back by the next open.
	killBuildHalfway(t, dir, db, false)
	if _, err := os.Stat(db + "-journal"); err != nil {
		t.Errorf("no journal after killing an update in place: %v", err)
	}
	intact("killed update")

	// A rebuild (options changed), killed: the temporary file is left.
	killBuildHalfway(t, dir, db, true)
	if temps, _ := filepath.Glob(db + ".tmp-*"); len(temps) != 1 {
		t.Errorf("temporary files after killing a rebuild: %v, want one", temps)
	}
	intact("killed rebuild")

	sum := build(t, Options{Repo: dir})
	if sum.Parsed != 60 || sum.Rebuilt != "" {
		t.Errorf("next build parsed %d (rebuilt %q), want the 60 new files in place", sum.Parsed, sum.Rebuilt)
	}
	if temps, _ := filepath.Glob(db + ".tmp-*"); len(temps) != 0 {
		t.Errorf("stale temporary files left: %v", temps)
	}
	if err := openIndex(t, db).Check(); err != nil {
		t.Error(err)
	}
}
