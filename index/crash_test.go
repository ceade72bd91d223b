package index

import (
	"bufio"
	"context"
	"fmt"
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
	_, err := Build(context.Background(), Options{Repo: repo, DB: db, Workers: 1, Progress: func(done, total int) {
		if done == total/2 && !once {
			once = true
			fmt.Println("halfway")
			os.Stdout.Sync()
			time.Sleep(time.Minute) // killed here, mid-transaction
		}
	}})
	t.Fatalf("child build was not killed: %v", err)
}

// TestKilledBuildLeavesIndexIntact kills a build half-way and checks that
// the previous index is untouched and the next build succeeds and cleans up.
func TestKilledBuildLeavesIndexIntact(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	dir, _ := newRepo(t, fixture)
	db := filepath.Join(dir, ".mss", "index.db")
	build(t, Options{Repo: dir})
	want := mustUnits(t, db)

	more := map[string]string{}
	for i := 0; i < 60; i++ {
		more[fmt.Sprintf("gen/m%02d.py", i)] = fmt.Sprintf("def f%d():\n    return %d\n", i, i)
	}
	writeFiles(t, dir, more)

	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.v")
	cmd.Env = append(os.Environ(), "MSS_CRASH_REPO="+dir, "MSS_CRASH_DB="+db)
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
	temps, _ := filepath.Glob(db + ".tmp-*")
	if len(temps) != 1 {
		t.Errorf("temporary files after the kill: %v, want one", temps)
	}

	ix, err := Open(db)
	if err != nil {
		t.Fatalf("previous index unusable after a killed build: %v", err)
	}
	if err := ix.Check(); err != nil {
		t.Errorf("previous index fails check: %v", err)
	}
	ix.Close()
	if diff := cmp.Diff(want, mustUnits(t, db)); diff != "" {
		t.Errorf("previous index changed by a killed build:\n%s", diff)
	}

	sum := build(t, Options{Repo: dir})
	if sum.Parsed != 60 {
		t.Errorf("next build parsed %d, want the 60 new files", sum.Parsed)
	}
	if temps, _ := filepath.Glob(db + ".tmp-*"); len(temps) != 0 {
		t.Errorf("stale temporary files left: %v", temps)
	}
}
