package index

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// countDeriver derives a blob naming the unit count and a table of unit
// paths, and counts its calls.
type countDeriver struct{ calls int }

func (c *countDeriver) deriver(version string) *Deriver {
	return &Deriver{Version: version, Func: func(in *DeriveInput) (*Derived, error) {
		c.calls++
		paths := map[string][]byte{}
		for _, u := range in.Units {
			paths[u.Path] = append(paths[u.Path], 'u')
		}
		return &Derived{
			Blobs:  map[string][]byte{"count": []byte(strings.Repeat("u", len(in.Units))), "commit": []byte(in.Commit)},
			Tables: map[string]map[string][]byte{"paths": paths, "empty": {}},
		}, nil
	}}
}

func derivedFiles(db string) []string {
	m, _ := filepath.Glob(db + ".*.derived")
	return m
}

// TestDerivedData: a Deriver's blobs and tables are stored beside the
// index and read back; they are recomputed when units change and only
// then; the previous file is removed; a build without a Deriver that
// changes units removes them, and one that changes nothing keeps them.
func TestDerivedData(t *testing.T) {
	repo, commit := newRepo(t, map[string]string{"a.py": "def f():\n    return 1\n", "b/c.py": "def g():\n    return 2\n"})
	db := filepath.Join(t.TempDir(), "ix.db")
	cd := &countDeriver{}
	build(t, Options{Repo: repo, DB: db, Derive: cd.deriver("test-1")})
	first := derivedFiles(db)
	if cd.calls != 1 || len(first) != 1 {
		t.Fatalf("calls %d, files %v", cd.calls, first)
	}
	ix := openIndex(t, db)
	if ix.Meta().Derived != "test-1" {
		t.Fatalf("meta derived %q", ix.Meta().Derived)
	}
	if b, err := ix.DerivedBlob("commit"); err != nil || string(b) != commit {
		t.Fatalf("commit blob %q, %v; want %s", b, err, commit)
	}
	tab, err := ix.DerivedTable("paths")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for i := range tab.Len() {
		keys = append(keys, tab.Key(i))
	}
	if d := cmp.Diff([]string{"a.py", "b/c.py"}, keys); d != "" {
		t.Errorf("table keys:\n%s", d)
	}
	if v, ok := tab.Get("b/c.py"); !ok || string(v) != "u" {
		t.Errorf("Get(b/c.py) = %q, %v", v, ok)
	}
	if _, ok := tab.Get("zz"); ok {
		t.Error("Get found a missing key")
	}
	if e, err := ix.DerivedTable("empty"); err != nil || e.Len() != 0 {
		t.Errorf("empty table: %v, %v", e, err)
	}
	if _, err := ix.DerivedTable("nope"); !errors.Is(err, ErrCorrupt) {
		t.Errorf("missing table: %v", err)
	}
	if err := ix.Check(); err != nil {
		t.Fatal(err)
	}

	build(t, Options{Repo: repo, DB: db, Derive: cd.deriver("test-1")})
	if cd.calls != 1 || !cmp.Equal(first, derivedFiles(db)) {
		t.Fatalf("a build that changed nothing derived again: calls %d, files %v", cd.calls, derivedFiles(db))
	}
	build(t, Options{Repo: repo, DB: db, Derive: cd.deriver("test-2")})
	second := derivedFiles(db)
	if cd.calls != 2 || len(second) != 1 || second[0] == first[0] {
		t.Fatalf("a new version was not derived: calls %d, files %v", cd.calls, second)
	}
	// A file named like ours but not ours is never removed.
	foreign := db + "." + strings.Repeat("ab", 16) + ".derived"
	if err := os.WriteFile(foreign, []byte("user data"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(repo, "a.py"), []byte("def f():\n    return 3\n"), 0o644)
	build(t, Options{Repo: repo, DB: db, Derive: cd.deriver("test-2")})
	third := derivedFiles(db)
	if cd.calls != 3 || len(third) != 2 || cmp.Equal(third[:1], second) && cmp.Equal(third[1:], second) {
		t.Fatalf("an edit: calls %d, files %v (before %v)", cd.calls, third, second)
	}
	if b, _ := os.ReadFile(foreign); string(b) != "user data" {
		t.Fatal("a foreign file was changed")
	}
	os.Remove(foreign)

	build(t, Options{Repo: repo, DB: db})
	if got := openIndex(t, db).Meta().Derived; got != "test-2" || len(derivedFiles(db)) != 1 {
		t.Fatalf("a build without a Deriver that changed nothing: derived %q, files %v", got, derivedFiles(db))
	}
	kept, units := derivedFiles(db), openIndex(t, db).Meta().Units
	os.WriteFile(filepath.Join(repo, "a.py"), []byte("def f():\n    return 4\n"), 0o644)
	build(t, Options{Repo: repo, DB: db})
	m := openIndex(t, db).Meta()
	if m.Derived != "" || m.Base != "test-2" || m.BaseUnits != units || !cmp.Equal(derivedFiles(db), kept) {
		t.Fatalf("a build without a Deriver that changed units: derived %q, base %q of %d units, files %v (before %v); want the structures kept as the base",
			m.Derived, m.Base, m.BaseUnits, derivedFiles(db), kept)
	}
	if b, err := openIndex(t, db).Base().DerivedBlob("commit"); err != nil || b == nil {
		t.Fatalf("the base's blob: %q, %v", b, err)
	}
	if err := openIndex(t, db).Check(); err != nil {
		t.Fatalf("check with a base: %v", err)
	}
	whole, _ := os.ReadFile(kept[0])
	os.WriteFile(kept[0], whole[:len(whole)/2], 0o644)
	if err := openIndex(t, db).Check(); err == nil || !strings.Contains(err.Error(), filepath.Base(kept[0])) {
		t.Fatalf("check with a damaged base: %v; want an error naming its file", err)
	}
	os.WriteFile(kept[0], whole, 0o644)
	// Deferred: an edit keeps the base and derives nothing; another build
	// without a Deriver keeps it too.
	calls := cd.calls
	for k, o := range []Options{{Derive: cd.deriver("test-2"), DeferDerive: true}, {}} {
		os.WriteFile(filepath.Join(repo, "a.py"), []byte(fmt.Sprintf("def f():\n    return %d\n", 5+k)), 0o644)
		o.Repo, o.DB = repo, db
		build(t, o)
		if m := openIndex(t, db).Meta(); cd.calls != calls || m.Derived != "" || m.Base != "test-2" || !cmp.Equal(derivedFiles(db), kept) {
			t.Fatalf("build %d after the base: calls %d (before %d), derived %q, base %q, files %v", k, cd.calls, calls, m.Derived, m.Base, derivedFiles(db))
		}
	}
	// Nor does a deferring build that finds nothing changed: the next
	// answer overlays the base again rather than deriving everything.
	build(t, Options{Repo: repo, DB: db, Derive: cd.deriver("test-2"), DeferDerive: true})
	if m := openIndex(t, db).Meta(); cd.calls != calls || m.Derived != "" || m.Base != "test-2" || !cmp.Equal(derivedFiles(db), kept) {
		t.Fatalf("a deferring build with nothing changed: calls %d (before %d), derived %q, base %q, files %v", cd.calls, calls, m.Derived, m.Base, derivedFiles(db))
	}
	// Deriving again drops the base and its file.
	if err := Derive(t.Context(), db, cd.deriver("test-2")); err != nil {
		t.Fatal(err)
	}
	if m := openIndex(t, db).Meta(); m.Derived != "test-2" || m.Base != "" || len(derivedFiles(db)) != 1 || cmp.Equal(derivedFiles(db), kept) {
		t.Fatalf("derived again: derived %q, base %q, files %v (base file %v)", m.Derived, m.Base, derivedFiles(db), kept)
	}
	// A new index derives even when deferring.
	fresh := filepath.Join(t.TempDir(), "fresh.db")
	build(t, Options{Repo: repo, DB: fresh, Derive: cd.deriver("test-2"), DeferDerive: true})
	if m := openIndex(t, fresh).Meta(); m.Derived != "test-2" {
		t.Fatalf("a new index deferring: derived %q", m.Derived)
	}
}

// TestDerivedFileDamage: a derived file that is cut short, replaced or
// gone is an error naming it, from Check and from a read; the index
// itself stays readable.
func TestDerivedFileDamage(t *testing.T) {
	repo, _ := newRepo(t, map[string]string{"a.py": "def f():\n    return 1\n"})
	for _, damage := range []string{"truncated", "replaced", "removed"} {
		t.Run(damage, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "ix.db")
			build(t, Options{Repo: repo, DB: db, Derive: (&countDeriver{}).deriver("test-1")})
			f := derivedFiles(db)[0]
			switch damage {
			case "truncated":
				b, _ := os.ReadFile(f)
				os.WriteFile(f, b[:len(b)-3], 0o644)
			case "replaced":
				b, _ := os.ReadFile(f)
				b[len(sidecarMagic)] ^= 1 // another id
				os.WriteFile(f, b, 0o644)
			case "removed":
				os.Remove(f)
			}
			ix := openIndex(t, db)
			if err := ix.Check(); err == nil || !strings.Contains(err.Error(), "derived") {
				t.Errorf("Check: %v", err)
			}
			if _, err := ix.DerivedTable("paths"); err == nil || !strings.Contains(err.Error(), "derived") {
				t.Errorf("DerivedTable: %v", err)
			}
			if us, err := ix.Units(); err != nil || len(us) == 0 {
				t.Errorf("units: %d, %v", len(us), err)
			}
		})
	}
}

// TestDerivedErrorKeepsIndex: a Deriver that fails fails the build and
// leaves the previous index and derived file as they were.
func TestDerivedErrorKeepsIndex(t *testing.T) {
	repo, _ := newRepo(t, map[string]string{"a.py": "def f():\n    return 1\n"})
	db := filepath.Join(t.TempDir(), "ix.db")
	build(t, Options{Repo: repo, DB: db, Derive: (&countDeriver{}).deriver("test-1")})
	before := derivedFiles(db)
	os.WriteFile(filepath.Join(repo, "a.py"), []byte("def f():\n    return 2\n"), 0o644)
	_, err := Build(t.Context(), Options{Repo: repo, DB: db, Derive: &Deriver{Version: "test-1", Func: func(*DeriveInput) (*Derived, error) {
		return nil, errors.New("out of paper")
	}}})
	if err == nil || !strings.Contains(err.Error(), "out of paper") {
		t.Fatalf("Build: %v", err)
	}
	if d := cmp.Diff(before, derivedFiles(db)); d != "" {
		t.Fatalf("derived files changed:\n%s", d)
	}
	ix := openIndex(t, db)
	if err := ix.Check(); err != nil {
		t.Fatal(err)
	}
	if b, err := ix.DerivedBlob("count"); err != nil || string(b) != "u" {
		t.Fatalf("count %q, %v", b, err)
	}
}

// TestDeriveLater: an index built without a Deriver is derived later by
// Derive; a build that changes the units while Derive works wins, and
// Derive records nothing.
func TestDeriveLater(t *testing.T) {
	repo, commit := newRepo(t, map[string]string{"a.py": "def f():\n    return 1\n"})
	db := filepath.Join(t.TempDir(), "ix.db")
	build(t, Options{Repo: repo, DB: db})
	cd := &countDeriver{}
	if err := Derive(t.Context(), db, cd.deriver("test-1")); err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t, db)
	if ix.Meta().Derived != "test-1" || len(derivedFiles(db)) != 1 {
		t.Fatalf("derived %q, files %v", ix.Meta().Derived, derivedFiles(db))
	}
	if b, err := ix.DerivedBlob("commit"); err != nil || string(b) != commit {
		t.Fatalf("commit blob %q, %v", b, err)
	}
	if err := Derive(t.Context(), db, cd.deriver("test-1")); err != nil || cd.calls != 1 {
		t.Fatalf("deriving a derived index again: calls %d, %v", cd.calls, err)
	}

	os.WriteFile(filepath.Join(repo, "a.py"), []byte("def f():\n    return 2\n"), 0o644)
	build(t, Options{Repo: repo, DB: db})
	racing := &Deriver{Version: "test-1", Func: func(in *DeriveInput) (*Derived, error) {
		// A build changes the units while this one derives.
		os.WriteFile(filepath.Join(repo, "a.py"), []byte("def f():\n    return 3\n"), 0o644)
		build(t, Options{Repo: repo, DB: db})
		return (&countDeriver{}).deriver("test-1").Func(in)
	}}
	if err := Derive(t.Context(), db, racing); !errors.Is(err, ErrUnitsChanged) {
		t.Fatalf("Derive while units changed: %v", err)
	}
	if m := openIndex(t, db).Meta(); m.Derived != "" || m.Base != "test-1" || len(derivedFiles(db)) != 1 {
		t.Fatalf("after a lost race: derived %q, base %q, files %v; want only the base kept", m.Derived, m.Base, derivedFiles(db))
	}
}

// TestCollectedDeriveInput: a new index gives its Deriver the units it
// wrote, and they are what reading the index back gives.
func TestCollectedDeriveInput(t *testing.T) {
	repo, _ := newRepo(t, fixture)
	db := filepath.Join(t.TempDir(), "ix.db")
	var got *DeriveInput
	capture := &Deriver{Version: "test-1", Func: func(in *DeriveInput) (*Derived, error) {
		got = in
		return &Derived{}, nil
	}}
	build(t, Options{Repo: repo, DB: db, Derive: capture})
	ix := openIndex(t, db)
	want, err := deriveInput(t.Context(), ix.db)
	if err != nil {
		t.Fatal(err)
	}
	want.GitDir, want.Commit = got.GitDir, got.Commit
	if got.Early == nil {
		t.Error("the Deriver was not offered to write structures early")
	}
	got.Early = nil // a function compares equal to none
	if len(want.Units) == 0 || len(want.Edges) == 0 {
		t.Fatalf("fixture: %d units, %d edges", len(want.Units), len(want.Edges))
	}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(DeriveInput{})); d != "" {
		t.Errorf("collected input differs from the index's (-read +collected):\n%s", d)
	}
	// What Units and Edges read, one pass reads too.
	units, edges := unitsAndEdges(t, ix)
	if d := cmp.Diff(&DeriveInput{Units: units, Edges: edges}, &DeriveInput{Units: want.Units, Edges: want.Edges}); d != "" {
		t.Errorf("the input read to derive differs from Units and Edges (-those +read):\n%s", d)
	}
}

// TestIndexInTreeIgnoresItself: an index kept in the work tree (outside
// .mss) is not a candidate file of itself, nor are its lock and derived
// file, while files of the user's named like it are; rebuilding an
// unchanged tree keeps the derived file.
func TestIndexInTreeIgnoresItself(t *testing.T) {
	repo, _ := newRepo(t, map[string]string{
		"a.py":         "def f():\n    return 1\n",
		"ix.db-x.py":   "def g():\n    return 2\n",
		"ix.db.py":     "def h():\n    return 3\n",
		"ix.db.tmp.py": "def i():\n    return 4\n",
	})
	db := filepath.Join(repo, "ix.db")
	cd := &countDeriver{}
	build(t, Options{Repo: repo, DB: db, Derive: cd.deriver("test-1")})
	first := derivedFiles(db)
	for range 2 {
		build(t, Options{Repo: repo, DB: db, Derive: cd.deriver("test-1")})
	}
	if cd.calls != 1 || !cmp.Equal(first, derivedFiles(db)) {
		t.Fatalf("rebuilds derived again: calls %d, files %v (first %v)", cd.calls, derivedFiles(db), first)
	}
	files, err := openIndex(t, db).Files()
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	if want := []string{"a.py", "ix.db-x.py", "ix.db.py", "ix.db.tmp.py"}; !slices.Equal(paths, want) {
		t.Errorf("candidate files %v, want %v", paths, want)
	}
}

func TestOwnFile(t *testing.T) {
	for p, want := range map[string]bool{
		"d/ix.db": true, "d/ix.db.lock": true, "d/ix.db-journal": true, "d/ix.db-wal": true, "d/ix.db-shm": true,
		"d/ix.db.tmp-42-0123456789ab": true, "d/ix.db.tmp-42-0123456789ab-journal": true,
		"d/ix.db.0123456789abcdef0123456789abcdef.derived": true,
		"d/ix.db.py": false, "d/ix.db-helpers.js": false, "d/ix.dbx": false, "d/ix.db.tmp-42-abcd": false,
		"d/ix.db.tmp--0123456789ab": false, "d/ix.db.tmp-x-0123456789ab": false, "d/ix.db.0123.derived": false,
		"e/ix.db": false,
	} {
		if got := OwnFile(p, "d/ix.db"); got != want {
			t.Errorf("OwnFile(%q, d/ix.db) = %v, want %v", p, got, want)
		}
	}
}

// FuzzDerivedFile: a derived file's directory and its tables are read
// from any bytes without a panic: an error, or blobs in bounds.
func FuzzDerivedFile(f *testing.F) {
	id := strings.Repeat("ab", 16)
	dir := f.TempDir()
	db := filepath.Join(dir, "ix.db")
	table := EncodeTable(map[string][]byte{"a": []byte("1"), "bb": nil, "c": []byte("333")})
	if err := writeSidecar(db, strings.Repeat("cd", 16), map[string][]byte{"x": []byte("hello"), tablePrefix + "t": table}); err != nil {
		f.Fatal(err)
	}
	m, _ := filepath.Glob(db + ".*.derived")
	data, err := os.ReadFile(m[0])
	if err != nil {
		f.Fatal(err)
	}
	data = append([]byte(sidecarMagic+strings.Repeat("\xab", 16)), data[len(sidecarMagic)+16:]...)
	f.Add(data)
	f.Add(data[:len(data)-2])
	f.Add(table)
	f.Fuzz(func(t *testing.T, b []byte) {
		blobs, why := parseSidecar(b, id)
		if why == "" {
			for _, v := range blobs {
				_ = len(v)
			}
		}
		for _, in := range [][]byte{b, blobs[tablePrefix+"t"]} {
			tab, err := ParseTable(in)
			if err != nil {
				continue
			}
			for i := range tab.Len() {
				k := tab.Key(i)
				tab.Value(i)
				if tab.Find(k) < 0 {
					t.Fatalf("key %q at %d not found", k, i)
				}
			}
		}
	})
}

// TestDerivedBytesOutliveClose: bytes read from a derived file stay valid
// after the index is closed (its pages are released) and after a later
// build removes the file, while the Index that gave them is reachable.
func TestDerivedBytesOutliveClose(t *testing.T) {
	repo, _ := newRepo(t, map[string]string{"a.py": "def f():\n    return 1\n"})
	db := filepath.Join(t.TempDir(), "ix.db")
	big := make([]byte, 3<<20)
	for i := range big {
		big[i] = byte(i * 7)
	}
	d := func(version string) *Deriver {
		return &Deriver{Version: version, Func: func(in *DeriveInput) (*Derived, error) {
			return &Derived{Blobs: map[string][]byte{"big": big}, Tables: map[string]map[string][]byte{"t": {"k": []byte("value")}}}, nil
		}}
	}
	build(t, Options{Repo: repo, DB: db, Derive: d("v1")})
	ix, err := Open(db)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ix.DerivedBlob("big")
	if err != nil {
		t.Fatal(err)
	}
	tab, err := ix.DerivedTable("t")
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		if string(b) != string(big) {
			t.Errorf("%s: the blob read before differs", when)
		}
		if v, ok := tab.Get("k"); !ok || string(v) != "value" {
			t.Errorf("%s: the table gives %q, %v", when, v, ok)
		}
	}
	check("after Close")
	build(t, Options{Repo: repo, DB: db, Derive: d("v2")})
	if n := len(derivedFiles(db)); n != 1 {
		t.Fatalf("%d derived files after deriving again", n)
	}
	check("after the file was replaced")
	// The mapping goes once the Index is collected: the bytes are valid
	// while it is reachable, as their user keeps it (retrieve's engine
	// holds its index).
	runtime.KeepAlive(ix)
}

// TestLayoutTable: a table laid out from sorted keys is the bytes
// EncodeTable gives the same map, and keys out of order are an error.
func TestLayoutTable(t *testing.T) {
	m := map[string][]byte{"": []byte("e"), "a": []byte("1"), "bb": nil, "c": []byte("333")}
	keys := sortedKeys(m)
	got, err := LayoutTable(keys, func(i int) int { return len(m[keys[i]]) }, func(i int, v []byte) { copy(v, m[keys[i]]) })
	if err != nil {
		t.Fatal(err)
	}
	if want := EncodeTable(m); !bytes.Equal(got, want) {
		t.Errorf("laid out %x, want %x", got, want)
	}
	if got, err := LayoutTable(nil, nil, nil); err != nil || !bytes.Equal(got, EncodeTable(nil)) {
		t.Errorf("empty table %x, %v", got, err)
	}
	for _, keys := range [][]string{{"b", "a"}, {"a", "a"}} {
		if _, err := LayoutTable(keys, func(int) int { return 1 }, func(int, []byte) {}); err == nil {
			t.Errorf("keys %q laid out", keys)
		}
	}
}

// TestSidecarEarly: structures given early (DeriveInput.Early) are read
// back as the ones given at the end are, in a file laid out with room
// for its directory or, when the directory outgrows that room, written
// again whole; an early structure that is not the one derived, or given
// twice, is an error and leaves no file.
func TestSidecarEarly(t *testing.T) {
	blobs := map[string][]byte{}
	for i := range 40 {
		blobs[fmt.Sprintf("blob-%02d", i)] = []byte(strings.Repeat(string(rune('a'+i%26)), 1+i*7))
	}
	blobs["empty"] = []byte{}
	write := func(t *testing.T, final map[string][]byte, early ...string) (map[string][]byte, error) {
		db := filepath.Join(t.TempDir(), "ix.db")
		id := strings.Repeat("5a", 16)
		side, err := createSidecar(db, id)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range early {
			side.early(n, blobs[n])
		}
		if err := side.finish(final); err != nil {
			if files, _ := filepath.Glob(db + ".*.derived"); len(files) > 0 {
				t.Errorf("failed write left %v", files)
			}
			return nil, err
		}
		// The blobs lie in the file's mapping, which is unmapped once its
		// holder is collected: copied while the holder is alive.
		holder := &sidecar{}
		read, err := readSidecar(db, id, holder)
		if err != nil {
			return nil, err
		}
		got := make(map[string][]byte, len(read))
		for name, b := range read {
			got[name] = bytes.Clone(b)
		}
		runtime.KeepAlive(holder)
		return got, nil
	}
	for _, room := range []int{64 << 10, 64} {
		t.Run(fmt.Sprintf("room %d", room), func(t *testing.T) {
			defer func(r int) { sidecarHeadRoom = r }(sidecarHeadRoom)
			sidecarHeadRoom = room
			for _, early := range [][]string{nil, {"blob-07"}, {"blob-39", "empty", "blob-00", "blob-12"}} {
				got, err := write(t, blobs, early...)
				if err != nil {
					t.Fatalf("early %v: %v", early, err)
				}
				if d := cmp.Diff(blobs, got); d != "" {
					t.Errorf("early %v: read back (-written +read):\n%s", early, d)
				}
			}
		})
	}
	t.Run("twice", func(t *testing.T) {
		if _, err := write(t, blobs, "blob-03", "blob-03"); err == nil || !strings.Contains(err.Error(), "twice") {
			t.Errorf("a structure given early twice: %v", err)
		}
	})
	t.Run("not derived", func(t *testing.T) {
		final := maps.Clone(blobs)
		delete(final, "blob-05")
		if _, err := write(t, final, "blob-01", "blob-05"); err == nil || !strings.Contains(err.Error(), "blob-05") {
			t.Errorf("a structure given early and not derived: %v", err)
		}
	})
}

// writeSidecar writes blobs to the new file of id (newSidecarID) beside
// dbPath, and syncs it; on an error it leaves none.
func writeSidecar(dbPath, id string, blobs map[string][]byte) error {
	side, err := createSidecar(dbPath, id)
	if err != nil {
		return err
	}
	return side.finish(blobs)
}

// TestDerivedLeftovers: a derived file a killed writer left unfinished
// (its head never written) goes with the next build that derives; one
// another writer still holds, unfinished or finished and not yet
// recorded, stays.
func TestDerivedLeftovers(t *testing.T) {
	if !haveLocks {
		t.Skip("no advisory locks here: unfinished files are left alone")
	}
	repo, _ := newRepo(t, map[string]string{"a.py": "def f():\n    return 1\n"})
	db := filepath.Join(t.TempDir(), "ix.db")
	cd := &countDeriver{}
	build(t, Options{Repo: repo, DB: db, Derive: cd.deriver("test-1")})
	name := func(c byte) string { return sidecarPath(db, strings.Repeat(string(c), 32)) }
	killed, writing, recording := name('a'), name('b'), name('c')
	young := name('d')
	os.WriteFile(killed, make([]byte, 4096), 0o644)
	os.WriteFile(writing, make([]byte, 100), 0o644)
	os.WriteFile(recording, []byte(sidecarMagic+"rest"), 0o644)
	os.WriteFile(young, make([]byte, 10), 0o644)
	old := time.Now().Add(-2 * leftoverAge)
	for _, p := range []string{killed, writing} {
		os.Chtimes(p, old, old)
	}
	var held []*os.File
	for _, p := range []string{writing, recording} {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := tryLock(f); !ok || err != nil {
			t.Fatalf("lock %s: %v %v", p, ok, err)
		}
		held = append(held, f)
	}
	os.WriteFile(filepath.Join(repo, "a.py"), []byte("def f():\n    return 2\n"), 0o644)
	build(t, Options{Repo: repo, DB: db, Derive: cd.deriver("test-1")})
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	if exists(killed) || !exists(writing) || !exists(recording) || !exists(young) {
		t.Fatalf("after a build: killed writer's file there %v (want gone), held files there %v %v, a young one %v (want kept)", exists(killed), exists(writing), exists(recording), exists(young))
	}
	os.Chtimes(young, old, old)
	for _, f := range held {
		f.Close()
	}
	os.WriteFile(filepath.Join(repo, "a.py"), []byte("def f():\n    return 3\n"), 0o644)
	build(t, Options{Repo: repo, DB: db, Derive: cd.deriver("test-1")})
	if exists(writing) || exists(recording) || len(derivedFiles(db)) != 1 {
		t.Fatalf("once their writers let go: %v", derivedFiles(db))
	}
	if err := openIndex(t, db).Check(); err != nil {
		t.Fatal(err)
	}
}

// TestDerivedFileRepaired: a build that changes no unit derives the
// structures again when the file the index records is damaged or gone,
// and says so.
func TestDerivedFileRepaired(t *testing.T) {
	repo, _ := newRepo(t, map[string]string{"a.py": "def f():\n    return 1\n"})
	for _, damage := range []string{"truncated", "removed"} {
		t.Run(damage, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "ix.db")
			cd := &countDeriver{}
			build(t, Options{Repo: repo, DB: db, Derive: cd.deriver("test-1")})
			f := derivedFiles(db)[0]
			if damage == "removed" {
				os.Remove(f)
			} else {
				b, _ := os.ReadFile(f)
				os.WriteFile(f, b[:len(sidecarMagic)+20], 0o644)
			}
			calls := cd.calls
			sum := build(t, Options{Repo: repo, DB: db, Derive: cd.deriver("test-1")})
			if cd.calls != calls+1 || sum.Rederived == "" || sum.Parsed != 0 {
				t.Fatalf("derives %d (before %d), rederived %q, parsed %d; want one derivation, said, nothing parsed", cd.calls, calls, sum.Rederived, sum.Parsed)
			}
			if err := openIndex(t, db).Check(); err != nil {
				t.Fatal(err)
			}
			// Intact, the next build derives nothing, nor does Derive.
			sum = build(t, Options{Repo: repo, DB: db, Derive: cd.deriver("test-1")})
			if err := Derive(t.Context(), db, cd.deriver("test-1")); err != nil || cd.calls != calls+1 || sum.Rederived != "" {
				t.Fatalf("an intact file derived again: %d calls, %q, %v", cd.calls, sum.Rederived, err)
			}
			// Derive, as a server calls it, repairs the file too.
			os.Remove(derivedFiles(db)[0])
			if err := Derive(t.Context(), db, cd.deriver("test-1")); err != nil || cd.calls != calls+2 {
				t.Fatalf("Derive over a missing file: %v, %d calls (before %d)", err, cd.calls, calls)
			}
			if err := openIndex(t, db).Check(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
