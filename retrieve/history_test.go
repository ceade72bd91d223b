package retrieve

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/missingcomplement/mss/internal/gittest"
)

// TestLogCacheKeepsTheLastUsed: the cache holds historyKeep logs, the
// least recently used leaving first.
func TestLogCacheKeepsTheLastUsed(t *testing.T) {
	c := &logCache{m: map[string]*logEntry{}}
	reads := 0
	get := func(k int) {
		t.Helper()
		log, err := c.get(fmt.Sprint(k), func() (*historyLog, error) {
			reads++
			return &historyLog{messages: []string{fmt.Sprint(k)}}, nil
		})
		if err != nil || log.messages[0] != fmt.Sprint(k) {
			t.Fatalf("key %d: log %v, err %v", k, log, err)
		}
	}
	for k := range historyKeep {
		get(k)
	}
	get(0) // used again: key 1 is now the least recently used
	get(historyKeep)
	if len(c.m) != historyKeep {
		t.Fatalf("%d logs kept, want %d", len(c.m), historyKeep)
	}
	if _, ok := c.m["1"]; ok {
		t.Error("the least recently used log was kept")
	}
	before := reads
	get(0)
	if reads != before {
		t.Error("a kept log was read again")
	}
	get(1)
	if reads != before+1 {
		t.Error("a log let go was not read again")
	}
}

// TestLogCacheReadsOnce: readers of one snapshot wait for one read, and
// readers of another do not wait for it; a failed read is not kept, so
// the next reader tries again.
func TestLogCacheReadsOnce(t *testing.T) {
	c := &logCache{m: map[string]*logEntry{}}
	var reads atomic.Int32
	started, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.get("k", func() (*historyLog, error) {
				reads.Add(1)
				once.Do(func() { close(started) })
				<-release
				return &historyLog{}, nil
			}); err != nil {
				t.Error(err)
			}
		}()
	}
	// Another snapshot's log is read while "k" is still being read (were
	// it not, this would never return).
	<-started
	if _, err := c.get("other", func() (*historyLog, error) { return &historyLog{}, nil }); err != nil {
		t.Fatal(err)
	}
	close(release)
	wg.Wait()
	if n := reads.Load(); n != 1 {
		t.Fatalf("%d reads, want 1", n)
	}

	boom := errors.New("git log failed")
	if _, err := c.get("bad", func() (*historyLog, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("err %v, want %v", err, boom)
	}
	log, err := c.get("bad", func() (*historyLog, error) { return &historyLog{}, nil })
	if err != nil || log == nil {
		t.Fatalf("after a failed read: log %v, err %v; want a new read", log, err)
	}
}

// TestGitHistoryFromKeptCommits: a log read from the commits kept of
// the logs before (rev-list, then git log of the commits not kept) is the
// one git log gives, for every commit of a history with merges, a
// rename, a commit with an empty subject and a branch whose commits are
// older than those of the main line: whichever commit was read before,
// and reading every commit in turn, oldest or newest first, where the
// commits kept pass the limit and the older ones go. An unknown commit
// is an error that names it.
func TestGitHistoryFromKeptCommits(t *testing.T) {
	repo := t.TempDir()
	gittest.Run(t, repo, "init", "-q", "-b", "main")
	day := 0
	commit := func(msg string, files map[string]string) string {
		day++
		gittest.WriteTree(t, repo, files)
		gittest.Run(t, repo, "add", "-A")
		date := fmt.Sprintf("GIT_AUTHOR_DATE=2020-01-%02dT12:00:00Z", day)
		gittest.RunEnv(t, repo, []string{date, strings.Replace(date, "AUTHOR", "COMMITTER", 1)},
			"commit", "-q", "--allow-empty-message", "-m", msg)
		return gittest.Run(t, repo, "rev-parse", "HEAD")
	}
	var commits []string
	commits = append(commits, commit("root\n\nthe first", map[string]string{"a.py": "a = 1\n", "b.py": "b = 1\n"}))
	commits = append(commits, commit("edit a", map[string]string{"a.py": "a = 2\n"}))
	gittest.Run(t, repo, "checkout", "-q", "-b", "side")
	commits = append(commits, commit("side work", map[string]string{"c.py": "c = 1\n"}))
	gittest.Run(t, repo, "checkout", "-q", "main")
	commits = append(commits, commit("", map[string]string{"b.py": "b = 2\n", "d/e.py": "e = 1\n"}))
	gittest.Run(t, repo, "mv", "d/e.py", "d/f.py")
	commits = append(commits, commit("rename e", nil))
	day += 3
	gittest.RunEnv(t, repo, []string{"GIT_AUTHOR_DATE=2020-01-20T12:00:00Z", "GIT_COMMITTER_DATE=2020-01-20T12:00:00Z"},
		"merge", "-q", "--no-ff", "-m", "merge side", "side")
	commits = append(commits, gittest.Run(t, repo, "rev-parse", "HEAD"))
	commits = append(commits, commit("after the merge\n\nbody line", map[string]string{"a.py": "a = 3\n", "c.py": "c = 2\n"}))
	gitDir := filepath.Join(repo, ".git")

	full := func(c string, n int) *historyLog {
		t.Helper()
		commitFacts.clear()
		log, err := gitHistory(gitDir, c, n)
		if err != nil {
			t.Fatal(err)
		}
		return log
	}
	read := func(c string, n int, want *historyLog, after string) {
		t.Helper()
		got, err := gitHistory(gitDir, c, n)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("n=%d, log of %.7s after %s:\n got %q %q\nwant %q %q", n, c, after, got.messages, got.files, want.messages, want.files)
		}
	}
	for _, n := range []int{2, 3, DefaultHistoryCommits} {
		want := map[string]*historyLog{}
		for _, c := range commits {
			want[c] = full(c, n)
		}
		for _, before := range commits {
			for _, c := range commits {
				commitFacts.clear()
				if _, err := gitHistory(gitDir, before, n); err != nil {
					t.Fatal(err)
				}
				read(c, n, want[c], before[:7])
			}
		}
		// Every commit in turn, oldest first and newest first, each log
		// read from what the ones before kept (past 2n commits kept,
		// the older ones go).
		back := slices.Clone(commits)
		slices.Reverse(back)
		for _, order := range [][]string{commits, back} {
			commitFacts.clear()
			for k, c := range order {
				read(c, n, want[c], fmt.Sprintf("%d others in turn", k))
			}
		}
	}
	last := full(commits[len(commits)-1], DefaultHistoryCommits)
	if want := []string{"after the merge\nbody line\n", "rename e\n", "\n", "side work\n", "edit a\n", "root\nthe first\n"}; !reflect.DeepEqual(last.messages, want) {
		t.Errorf("messages %q, want %q", last.messages, want)
	}
	if want := [][]string{{"a.py", "c.py"}, {"d/e.py", "d/f.py"}, {"b.py", "d/e.py"}, {"c.py"}, {"a.py"}, {"a.py", "b.py"}}; !reflect.DeepEqual(last.files, want) {
		t.Errorf("files %q, want %q", last.files, want)
	}

	commitFacts.clear()
	if _, err := gitHistory(gitDir, commits[0], DefaultHistoryCommits); err != nil {
		t.Fatal(err)
	}
	bad := strings.Repeat("0", 40)
	if _, err := gitHistory(gitDir, bad, DefaultHistoryCommits); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("an unknown commit: error %v, want one naming it", err)
	}
}

// TestGitHistoryPaths: the log gives a path as it is in the tree, though
// git quotes it (bytes past ASCII, a quote, a backslash) and though it
// starts or ends with a space, whether the log is read whole or from the
// commits kept.
func TestGitHistoryPaths(t *testing.T) {
	repo := t.TempDir()
	gittest.Run(t, repo, "init", "-q", "-b", "main")
	names := []string{"plain.py", "dir/é.py", `q"uote.py`, `back\slash.py`, " lead/a.py", "trail.py "}
	files := map[string]string{}
	for _, n := range names {
		files[n] = "x = 1\n"
	}
	gittest.WriteTree(t, repo, files)
	gittest.Run(t, repo, "add", "-A")
	gittest.Run(t, repo, "commit", "-q", "-m", "add")
	first := gittest.Run(t, repo, "rev-parse", "HEAD")
	gittest.WriteTree(t, repo, map[string]string{"dir/é.py": "x = 2\n"})
	gittest.Run(t, repo, "commit", "-q", "-am", "edit")
	head := gittest.Run(t, repo, "rev-parse", "HEAD")
	gitDir := filepath.Join(repo, ".git")

	want := [][]string{{"dir/é.py"}, {" lead/a.py", `back\slash.py`, "dir/é.py", "plain.py", `q"uote.py`, "trail.py "}}
	commitFacts.clear()
	if _, err := gitHistory(gitDir, first, DefaultHistoryCommits); err != nil {
		t.Fatal(err)
	}
	kept, err := gitHistory(gitDir, head, DefaultHistoryCommits) // git log of head alone
	if err != nil {
		t.Fatal(err)
	}
	commitFacts.clear()
	whole, err := gitHistory(gitDir, head, DefaultHistoryCommits)
	if err != nil {
		t.Fatal(err)
	}
	for _, log := range []*historyLog{whole, kept} {
		if !reflect.DeepEqual(log.files, want) {
			t.Errorf("files %q, want %q", log.files, want)
		}
	}
}
