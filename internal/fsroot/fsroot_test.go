package fsroot

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFileConfined(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "passwd"), []byte("root:x:0:0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "pkg", "inner"), 0o755)
	os.WriteFile(filepath.Join(dir, "pkg", "a.py"), []byte("x = 1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "pkg", "inner", "b.py"), []byte("y = 2\n"), 0o644)
	for _, l := range []struct{ target, name string }{
		{outside, "sub"}, // directory link out of the root
		{filepath.Join(outside, "passwd"), "leak"}, // file link out of the root
		{"pkg", "alias"}, // directory link inside the root
		{filepath.Join("pkg", "a.py"), "same.py"},      // file link inside the root
		{filepath.Join("..", "..", "etc"), "pkg/deep"}, // relative link climbing out
	} {
		if err := os.Symlink(l.target, filepath.Join(dir, l.name)); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	for p, want := range map[string]string{"pkg/a.py": "x = 1\n", "pkg/inner/b.py": "y = 2\n", "./pkg//a.py": "x = 1\n"} {
		got, err := r.ReadFile(p, 0)
		if err != nil || string(got) != want {
			t.Errorf("ReadFile(%q) = %q, %v; want %q", p, got, err, want)
		}
	}
	for _, p := range []string{"sub/passwd", "leak", "alias/a.py", "alias/inner/b.py", "same.py", "pkg/deep/passwd"} {
		got, err := r.ReadFile(p, 0)
		if err == nil {
			t.Errorf("ReadFile(%q) = %q, want an error (symbolic link)", p, got)
		} else if !errors.Is(err, ErrSymlink) {
			t.Errorf("ReadFile(%q): %v, want ErrSymlink", p, err)
		}
	}
	for _, p := range []string{"", "/etc/passwd", "../x", "pkg/../../x", "a\\b", "."} {
		if got, err := r.ReadFile(p, 0); !errors.Is(err, ErrBadPath) {
			t.Errorf("ReadFile(%q) = %q, %v; want ErrBadPath", p, got, err)
		}
	}
	if _, err := r.ReadFile("pkg", 0); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadFile of a directory: %v, want ErrNotRegular", err)
	}
	if _, err := r.ReadFile("pkg/a.py", 3); err == nil {
		t.Error("ReadFile over the limit: want an error")
	}
	if got, err := ReadFile(dir, "pkg/a.py", 6); err != nil || string(got) != "x = 1\n" {
		t.Errorf("ReadFile at the limit = %q, %v", got, err)
	}
}

// TestCacheDirsStillRefusesLinks: a root that remembers checked
// directories refuses links as one that does not.
func TestCacheDirsStillRefusesLinks(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "pkg", "inner"), 0o755)
	os.WriteFile(filepath.Join(dir, "pkg", "inner", "b.py"), []byte("y = 2\n"), 0o644)
	os.Symlink("pkg", filepath.Join(dir, "alias"))
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.CacheDirs()
	for range 2 {
		if got, err := r.ReadFile("pkg/inner/b.py", 0); err != nil || string(got) != "y = 2\n" {
			t.Fatalf("ReadFile = %q, %v", got, err)
		}
		if _, err := r.ReadFile("alias/inner/b.py", 0); !errors.Is(err, ErrSymlink) {
			t.Fatalf("through a link: %v, want ErrSymlink", err)
		}
	}
}

// linkedTree makes a tree with nested files and links (a linked
// directory, a link to a file beside it, a link out of the tree) and
// opens a root and a Stater over it until the test ends.
func linkedTree(t *testing.T) (*Root, *Stater) {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "pkg", "inner"), 0o755)
	os.WriteFile(filepath.Join(dir, "pkg", "inner", "b.py"), []byte("y = 2\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "pkg", "a.py"), []byte("x = 1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "pkg", "big.py"), []byte(strings.Repeat("z", 100)), 0o644)
	os.WriteFile(filepath.Join(dir, "top.py"), []byte("z = 3\n"), 0o644)
	os.Symlink("pkg", filepath.Join(dir, "alias"))
	os.Symlink("a.py", filepath.Join(dir, "pkg", "link.py"))
	os.Symlink(filepath.Join(dir, "top.py"), filepath.Join(dir, "pkg", "out.py"))
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	r.CacheDirs()
	s := r.Stater()
	t.Cleanup(func() { s.Close() })
	return r, s
}

// TestStaterAsLstat: a Stater describes what Lstat does, over paths in
// any order, and refuses what Lstat refuses.
func TestStaterAsLstat(t *testing.T) {
	r, s := linkedTree(t)
	paths := []string{"pkg/a.py", "pkg/inner/b.py", "pkg/a.py", "alias/inner/b.py", "pkg/link.py", "pkg/out.py",
		"top.py", "pkg/missing.py", "nope/x.py", "pkg/a.py/x", "../etc/passwd", "/etc/passwd", "pkg/inner/b.py"}
	for _, p := range paths {
		want, werr := r.Lstat(p)
		got, gerr := s.Lstat(p)
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Errorf("%s: Stater error %v, Lstat %v", p, gerr, werr)
			continue
		}
		if werr == nil && (got.Name() != want.Name() || got.Size() != want.Size() || got.Mode() != want.Mode() || !got.ModTime().Equal(want.ModTime())) {
			t.Errorf("%s: Stater %s %d %v, Lstat %s %d %v", p, got.Name(), got.Size(), got.Mode(), want.Name(), want.Size(), want.Mode())
		}
	}
	if _, err := s.Lstat("alias/inner/b.py"); !errors.Is(err, ErrSymlink) {
		t.Errorf("through a link: %v, want ErrSymlink", err)
	}
	if st, err := s.Lstat("pkg/out.py"); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("a link out of the root: %v, %v; want it described as a link", st, err)
	}
}

// TestStaterReadsAsReadFile: a Stater reads what ReadFile does, over
// paths in any order, and refuses what ReadFile refuses, with the same
// errors.
func TestStaterReadsAsReadFile(t *testing.T) {
	r, s := linkedTree(t)
	paths := []string{"pkg/a.py", "pkg/inner/b.py", "pkg/a.py", "alias/inner/b.py", "pkg/link.py", "pkg/out.py",
		"top.py", "pkg/missing.py", "nope/x.py", "pkg/a.py/x", "pkg/inner", "../etc/passwd", "/etc/passwd",
		"pkg/big.py", "pkg/inner/b.py"}
	for _, max := range []int64{0, 50} {
		for _, p := range paths {
			want, werr := r.ReadFile(p, max)
			got, gerr := s.ReadFile(p, max)
			if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
				t.Errorf("%s (max %d): Stater error %v, ReadFile %v", p, max, gerr, werr)
				continue
			}
			if string(got) != string(want) {
				t.Errorf("%s (max %d): Stater read %q, ReadFile %q", p, max, got, want)
			}
		}
	}
	for p, want := range map[string]error{"alias/inner/b.py": ErrSymlink, "pkg/out.py": ErrSymlink, "pkg/inner": ErrNotRegular} {
		if _, err := s.ReadFile(p, 0); !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", p, err, want)
		}
	}
	if b, err := s.ReadFile("pkg/big.py", 0); err != nil || len(b) != 100 {
		t.Errorf("pkg/big.py: %d bytes, %v", len(b), err)
	}
}

// TestReadFileSizes: a file is read whole into a buffer of its size (one
// byte more), up to the limit and not past it.
func TestReadFileSizes(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, 511, 512, 513, 5000} {
		data := []byte(strings.Repeat("abcdefg\n", n/8+1)[:n])
		name := filepath.Join(dir, "f")
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(dir, "f", 0)
		if err != nil || string(got) != string(data) || cap(got) > n+1 {
			t.Errorf("%d bytes: read %d (cap %d), %v", n, len(got), cap(got), err)
		}
		if got, err := ReadFile(dir, "f", int64(n)); err != nil || len(got) != n {
			t.Errorf("%d bytes at a limit of %d: %d, %v", n, n, len(got), err)
		}
		if n > 1 { // a limit of 0 is none
			if _, err := ReadFile(dir, "f", int64(n-1)); err == nil {
				t.Errorf("%d bytes read at a limit of %d", n, n-1)
			}
		}
	}
}
