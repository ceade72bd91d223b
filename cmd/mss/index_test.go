package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/missingcomplement/mss/index"
	"github.com/missingcomplement/mss/internal/gittest"
)

func runIndex(t *testing.T, args ...string) (string, error) {
	t.Helper()
	out, stderr, err := runCmd(t, newIndexCmd(), "", args...)
	if stderr != "" {
		t.Errorf("stderr not quiet off a terminal: %q", stderr)
	}
	return out, err
}

func TestIndexCommand(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"pkg/util.py": "def lookup_single(name):\n    return name\n",
		"main.go":     "package main\n\nfunc main() {}\n",
		"README.md":   "# Demo\n",
	}
	gittest.WriteTree(t, dir, files)
	gittest.Run(t, dir, "init", "-q")

	out, err := runIndex(t, "--repo", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"indexed 3 of 3 files, 4 units (3 parsed, 0 reused)", "units    go 2, python 1, text 1"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	db := filepath.Join(dir, ".mss", "index.db")
	if _, err := os.Stat(filepath.Join(dir, ".mss", ".gitignore")); err != nil {
		t.Errorf("no .mss/.gitignore: %v", err)
	}

	out, err = runIndex(t, "--repo", dir, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var sum index.Summary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("--json output: %v\n%s", err, out)
	}
	if sum.Units != 4 || sum.Reused != 3 || sum.Parsed != 0 || sum.DB != db {
		t.Errorf("second run summary %+v: want 4 units, all files reused, db %s", sum, db)
	}
	if want := map[string]int{"go": 2, "python": 1, "text": 1}; !maps.Equal(sum.Languages, want) {
		t.Errorf("--json languages %v, want %v: the names the text summary prints", sum.Languages, want)
	}

	out, err = runIndex(t, "check", "--db", db)
	if err != nil || !strings.HasPrefix(out, "ok: ") {
		t.Errorf("check: %q, %v", out, err)
	}
	if _, err := runIndex(t, "check", "--db", filepath.Join(dir, "missing.db")); err == nil {
		t.Error("check of a missing index: want an error")
	}
	if _, err := runIndex(t, "--repo", filepath.Join(dir, "nope")); err == nil {
		t.Error("index of a missing directory: want an error")
	}
}

// TestIndexLsShow: ls lists files with units, language and skip reason;
// show lists a file's units; the counts of the summary, ls and check agree.
func TestIndexLsShow(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"pkg/util.py":      "def lookup_single(name):\n    return name\n\n\nclass Registry:\n    pass\n",
		"main.go":          "package main\n\nfunc main() {}\n",
		"README.md":        "# Demo\n",
		"scratch/notes.py": "def draft():\n    pass\n",
		"logo.png":         "\x89PNG\x00\x00",
		"empty.py":         "",
		".mssignore":       "scratch/\n",
		"esc\x1b[31m.txt":  "red\n",
	}
	gittest.WriteTree(t, dir, files)
	// A link, even to a file of the tree, is not read, and says so.
	if err := os.Symlink("pkg/util.py", filepath.Join(dir, "link.py")); err != nil {
		t.Fatal(err)
	}
	gittest.Run(t, dir, "init", "-q")
	out, err := runIndex(t, "--repo", dir)
	if err != nil {
		t.Fatal(err)
	}
	// .mssignore, README.md, main.go, util.py, the ESC file: 5 indexed of 8.
	if !strings.HasPrefix(out, "indexed 5 of 8 files,") || !strings.Contains(out, "skipped  binary 1, empty 1, ignored 1 files") ||
		!strings.Contains(out, "\nnot read symbolic link 1 (never followed)\n") {
		t.Errorf("summary:\n%s", out)
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("raw escape byte in the summary")
	}
	db := filepath.Join(dir, ".mss", "index.db")
	out, err = runIndex(t, "check", "--db", db)
	if err != nil || !strings.Contains(out, "8 files (5 indexed, 3 skipped)") {
		t.Errorf("check: %q, %v", out, err)
	}

	out, err = runIndex(t, "ls", "--db", db)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, "\n"); n != 9 {
		t.Errorf("ls: %d lines, want a header and 8 files:\n%s", n, out)
	}
	if strings.Contains(out, "\x1b") || !strings.Contains(out, `"esc\x1b[31m.txt"`) {
		t.Errorf("ls prints a control character raw:\n%q", out)
	}
	out, err = runIndex(t, "ls", "--db", db, "--skipped")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"logo.png", "binary", "scratch/notes.py", "ignored", "empty.py", "empty"} {
		if !strings.Contains(out, want) {
			t.Errorf("ls --skipped lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "main.go") {
		t.Errorf("ls --skipped lists an indexed file:\n%s", out)
	}
	// A language no grammar names lists nothing; it is refused, not
	// answered with an empty table.
	if _, err := runIndex(t, "ls", "--db", db, "--lang", "pyhton"); err == nil || !strings.Contains(err.Error(), `--lang "pyhton": want one of`) {
		t.Errorf("ls --lang pyhton: %v, want a refusal", err)
	}
	if _, err := runIndex(t, "ls", "--db", db, "--lang", "text"); err != nil {
		t.Errorf("ls --lang text: %v", err)
	}
	out, err = runIndex(t, "ls", "--db", db, "--lang", "python", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		Path, Language, Status, Skipped string
		Units                           int
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("ls --json: %v\n%s", err, out)
	}
	got := map[string]int{}
	for _, r := range rows {
		got[r.Path] = r.Units
	}
	if len(rows) != 3 || got["pkg/util.py"] != 2 || got["empty.py"] != 0 {
		t.Errorf("ls --lang python --json: %+v", rows)
	}

	out, err = runIndex(t, "show", "--db", db, "pkg/util.py")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "1-2") || !strings.Contains(out, "lookup_single") || !strings.Contains(out, "Registry") {
		t.Errorf("show:\n%s", out)
	}
	if _, err := runIndex(t, "show", "--db", db, "logo.png"); err == nil || !strings.Contains(err.Error(), "binary") {
		t.Errorf("show of a skipped file: %v", err)
	}
	if _, err := runIndex(t, "show", "--db", db, "nope.py"); err == nil || !strings.Contains(err.Error(), "not in the index") {
		t.Errorf("show of an unknown file: %v", err)
	}

	// --repo names the work tree as mss index --repo does.
	for _, args := range [][]string{{"check"}, {"ls"}, {"show", "pkg/util.py"}} {
		viaRepo, err := runIndex(t, append(args, "--repo", dir)...)
		if err != nil {
			t.Fatalf("%s --repo: %v", args[0], err)
		}
		viaDB, _ := runIndex(t, append(args, "--db", db)...)
		if args[0] != "check" && viaRepo != viaDB {
			t.Errorf("%s --repo printed\n%s\nand --db\n%s", args[0], viaRepo, viaDB)
		}
	}
	// The index named is the one opened, found by --repo too.
	if _, err := runIndex(t, "show", "--repo", dir, "nope.py"); err == nil || !strings.HasSuffix(err.Error(), "not in the index "+db) {
		t.Errorf("show --repo of an unknown file: %v, want it to name %s", err, db)
	}
	// An absolute path inside the work tree is its repository path.
	rel, _ := runIndex(t, "show", "--db", db, "pkg/util.py")
	if abs, err := runIndex(t, "show", "--db", db, filepath.Join(dir, "pkg", "util.py")); err != nil || abs != rel {
		t.Errorf("show of the absolute path: %v\n%s\nwant\n%s", err, abs, rel)
	}
	if _, err := runIndex(t, "show", "--db", db, filepath.Join(filepath.Dir(dir), "elsewhere.py")); err == nil || !strings.Contains(err.Error(), "not in the index") {
		t.Errorf("show of a path outside the tree: %v", err)
	}
	if _, err := runIndex(t, "ls", "--repo", dir, "--db", db); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("ls with --repo and --db: %v", err)
	}
	empty := t.TempDir()
	if _, err := runIndex(t, "check", "--repo", empty); err == nil || !strings.Contains(err.Error(), "no index at") || !strings.Contains(err.Error(), "mss index --repo") {
		t.Errorf("check --repo of a tree without an index: %v", err)
	}
}

// TestIndexRefusesForeignDB: --db never overwrites a file mss did not write.
func TestIndexRefusesForeignDB(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.py"), []byte("def a():\n    pass\n"), 0o644)
	notes := filepath.Join(t.TempDir(), "n.md")
	os.WriteFile(notes, []byte("notes\n"), 0o644)
	_, err := runIndex(t, "--repo", dir, "--db", notes)
	if err == nil || !strings.Contains(err.Error(), "not an mss index") {
		t.Errorf("index --db notes: %v, want a refusal", err)
	}
	if b, _ := os.ReadFile(notes); string(b) != "notes\n" {
		t.Errorf("n.md overwritten: %.20q", b)
	}
}

// A size cap or a worker count that makes no sense is refused, not read
// as the default.
func TestIndexBadCounts(t *testing.T) {
	repo := t.TempDir()
	if err := os.WriteFile(filepath.Join(repo, "a.py"), []byte("def f():\n    pass\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, a := range [][2]string{{"--max-file-bytes", "0"}, {"--max-file-bytes", "-1"}, {"--workers", "-2"}} {
		_, err := runIndex(t, "--repo", repo, a[0], a[1])
		if err == nil || !strings.Contains(err.Error(), a[0]+" "+a[1]+": want") {
			t.Errorf("%s %s: %v, want a refusal naming the flag", a[0], a[1], err)
		}
	}
	if _, err := os.Stat(filepath.Join(repo, ".mss")); err == nil {
		t.Error("a refused run wrote an index")
	}
}

// TestIndexNamesLargeSource: source left out for its size is named in
// the summary, the three largest, with how to bring it in.
func TestIndexNamesLargeSource(t *testing.T) {
	var b strings.Builder
	b.WriteString("package big\n")
	for i := 0; b.Len() < 3000; i++ {
		b.WriteString("\nfunc F" + strconv.Itoa(i) + "() {}\n")
	}
	files := map[string]string{"small.go": "package big\n\nfunc Small() {}\n", "notes.txt": strings.Repeat("words\n", 1000)}
	for _, n := range []string{"a.go", "b.go", "c.go", "d.go"} {
		files[n] = b.String()
	}
	dir := t.TempDir()
	gittest.WriteTree(t, dir, files)
	out, err := runIndex(t, "--repo", dir, "--max-file-bytes", "2000")
	if err != nil {
		t.Fatal(err)
	}
	want := "too large: a.go (" // the largest first; equal sizes by path
	if !strings.Contains(out, want) || !strings.Contains(out, "and 1 more; --max-file-bytes raises the cap") {
		t.Errorf("summary does not name the source left out:\n%s", out)
	}
	if strings.Contains(out, "notes.txt (") {
		t.Errorf("text named as large source:\n%s", out)
	}
}

// TestIndexReadStaysInRepo: check, ls and show --repo read the index
// inside the work tree only, as mss index writes it: a .mss directory, or
// an index.db, that is a symbolic link to another tree's index is refused.
func TestIndexReadStaysInRepo(t *testing.T) {
	other := t.TempDir()
	gittest.WriteTree(t, other, map[string]string{"s.py": "def outside_secret():\n    return \"S3CRET\"\n"})
	gittest.Run(t, other, "init", "-q")
	if _, err := runIndex(t, "--repo", other); err != nil {
		t.Fatal(err)
	}
	linkedDir := t.TempDir()
	gittest.WriteTree(t, linkedDir, map[string]string{"a.py": "def f():\n    return 1\n"})
	if err := os.Symlink(filepath.Join(other, ".mss"), filepath.Join(linkedDir, ".mss")); err != nil {
		t.Fatal(err)
	}
	linkedDB := t.TempDir()
	gittest.WriteTree(t, linkedDB, map[string]string{"a.py": "def f():\n    return 1\n", ".mss/.gitignore": "*\n"})
	if err := os.Symlink(filepath.Join(other, ".mss", "index.db"), filepath.Join(linkedDB, ".mss", "index.db")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ repo, link string }{{linkedDir, ".mss"}, {linkedDB, filepath.Join(".mss", "index.db")}} {
		for _, args := range [][]string{{"check"}, {"ls"}, {"show", "s.py"}} {
			out, err := runIndex(t, append(args, "--repo", c.repo)...)
			want := filepath.Join(c.repo, c.link) + " is a symbolic link: refusing to read an index outside the repository"
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("index %s --repo with %s a link: %v, want %q", args[0], c.link, err, want)
			}
			if strings.Contains(out, "outside_secret") || strings.Contains(out, "S3CRET") {
				t.Errorf("index %s read the other tree's index:\n%s", args[0], out)
			}
		}
	}
}
