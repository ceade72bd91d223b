package index

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/missingcomplement/mss/internal/fsroot"
	"github.com/missingcomplement/mss/segment"
)

// A source lists a repository's files and reads their bytes: a git
// commit (through ls-tree and one cat-file --batch process) or a working
// tree on disk.
type source struct {
	root   string       // work tree root ("" for a git directory)
	gitDir string       // git directory, when there is one
	commit string       // commit read, "" for working tree files
	files  *fsroot.Root // confined reads of the work tree (nil for a commit)
}

// close releases the work tree root.
func (s *source) close() {
	if s.files != nil {
		s.files.Close()
		s.files = nil
	}
}

// ErrMissingObject is the cause recorded for a blob that the git directory
// does not have (a partial clone).
var ErrMissingObject = errors.New("object missing from the git directory (partial clone?)")

// entry is one candidate file.
type entry struct {
	path string // repository-relative, forward slashes
	blob string // git blob id (computed for work tree files)
	size int64
	// stat and mtime describe a work tree file when it was listed
	// (StatKey); "" for a commit's.
	stat  string
	mtime time.Time
}

// ErrNotRepository is returned for a path that is neither a directory nor
// a git directory.
var ErrNotRepository = errors.New("not a repository or directory")

// openSource decides what repo names: a git directory (bare or .git), a git
// work tree, or a plain directory.
func openSource(ctx context.Context, repo, rev string) (*source, error) {
	abs, err := filepath.Abs(repo)
	if err != nil {
		return nil, fmt.Errorf("repository %q: %w", repo, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("repository %q: %w", repo, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("repository %q: %w", repo, ErrNotRepository)
	}
	s := &source{}
	// A work tree, or a git directory? A directory inside a work tree
	// is the repository named: its files are listed (git lists those
	// under the directory it runs in, by paths relative to it), read and
	// indexed there, and nothing outside it is.
	out, gitErr := git(ctx, "", "-C", abs, "rev-parse", "--is-inside-work-tree", "--absolute-git-dir", "--show-prefix")
	if gitErr == nil {
		f := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
		if len(f) >= 2 {
			s.gitDir = f[1]
			if f[0] == "true" {
				s.root = abs
			}
			// A commit's tree is the whole work tree's.
			if len(f) == 3 && f[2] != "" && rev != "" {
				return nil, fmt.Errorf("repository %q: --rev %s indexes a commit's whole tree, and this is the directory %s of a work tree: name the work tree's top directory or its git directory", repo, rev, strings.TrimSuffix(f[2], "/"))
			}
		}
	}
	if s.gitDir == "" && s.root == "" {
		// git could not say. A directory git keeps (a .git here or
		// above, or a git directory itself) is not read as plain files
		// when git refuses it (a missing git, an owner git distrusts, a
		// cancelled build): that would index what .gitignore keeps out,
		// and replace the index of its commits with a directory's.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if kept := gitKept(abs); kept != "" && gitErr != nil {
			return nil, fmt.Errorf("repository %q: git cannot read %s: %w", repo, kept, gitErr)
		}
		if rev != "" {
			return nil, fmt.Errorf("repository %q: --rev %s given but it is not a git repository", repo, rev)
		}
		s.root = abs
		return s, s.openRoot()
	}
	if s.root == "" && rev == "" {
		rev = "HEAD"
	}
	if rev != "" {
		out, err := git(ctx, s.gitDir, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
		if err != nil {
			return nil, fmt.Errorf("repository %q: revision %q is not a commit: %w", repo, rev, err)
		}
		s.commit = strings.TrimSpace(string(out))
		return s, nil
	}
	return s, s.openRoot()
}

// gitKept returns the entry that makes dir a git repository (a .git in
// dir or a directory above it, or dir itself when it is a git
// directory), or "" when there is none.
func gitKept(dir string) string {
	if IsGitDir(dir) {
		return dir
	}
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return filepath.Join(d, ".git")
		}
		up := filepath.Dir(d)
		if up == d {
			return ""
		}
		d = up
	}
}

// IsGitDir reports whether dir looks like a git directory: a HEAD file
// and an objects directory.
func IsGitDir(dir string) bool {
	if fi, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil || fi.IsDir() {
		return false
	}
	fi, err := os.Stat(filepath.Join(dir, "objects"))
	return err == nil && fi.IsDir()
}

// openRoot opens the work tree for confined reads.
func (s *source) openRoot() error {
	r, err := fsroot.Open(s.root)
	if err != nil {
		return fmt.Errorf("repository %q: %w", s.root, err)
	}
	// One build reads every file: each directory is checked once.
	r.CacheDirs()
	s.files = r
	return nil
}

// headCommit is the commit a work tree has checked out, or "".
func (s *source) headCommit(ctx context.Context) string {
	if s.gitDir == "" {
		return ""
	}
	out, err := git(ctx, s.gitDir, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// git runs git with an optional --git-dir and returns its stdout.
func git(ctx context.Context, gitDir string, args ...string) ([]byte, error) {
	if gitDir != "" {
		args = append([]string{"--git-dir=" + gitDir}, args...)
	}
	cmd := exec.CommandContext(ctx, "git", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg != "" {
			return nil, fmt.Errorf("git %s: %w: %s", args[len(args)-1], err, msg)
		}
		return nil, fmt.Errorf("git %s: %w", args[len(args)-1], err)
	}
	return out, nil
}

// Kinds of entries a tree lists that are not read (Summary.NotRead).
const (
	notReadLink      = "symbolic link"
	notReadSubmodule = "submodule"
)

// list returns the candidate files, sorted by path: regular files only
// (no symlinks, no submodules), and how many entries of each kind the
// tree listed and the build does not read (notReadLink, notReadSubmodule;
// a file reached through a linked directory counts as a link). For a
// work tree, blob ids are computed from the bytes, which read returns
// without a second disk read.
func (s *source) list(ctx context.Context) ([]entry, map[string]int, error) {
	if s.commit != "" {
		return s.listCommit(ctx)
	}
	notRead := map[string]int{}
	var paths []string
	if s.gitDir != "" {
		out, err := git(ctx, "", "-C", s.root, "ls-files", "-z", "-c", "-o", "--exclude-standard")
		if err != nil {
			return nil, nil, err
		}
		for _, p := range strings.Split(string(out), "\x00") {
			if p != "" {
				paths = append(paths, p)
			}
		}
	} else {
		err := filepath.WalkDir(s.root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return fmt.Errorf("walk %s: %w", p, err)
			}
			if d.IsDir() && (d.Name() == ".git" || d.Name() == ".mss") && p != s.root {
				return filepath.SkipDir
			}
			if d.Type()&fs.ModeSymlink != 0 {
				notRead[notReadLink]++
			}
			if d.Type().IsRegular() {
				rel, err := filepath.Rel(s.root, p)
				if err != nil {
					return err
				}
				paths = append(paths, filepath.ToSlash(rel))
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	sort.Strings(paths)
	var out []entry
	stat := s.files.Stater()
	defer stat.Close()
	for i, p := range paths {
		if i > 0 && p == paths[i-1] || strings.HasPrefix(p, ".mss/") {
			continue
		}
		// No symbolic link in any component: a file under a linked
		// directory (git may list "sub/passwd" when "sub" became a link
		// to /etc) is not a candidate, and neither is a link itself.
		st, err := stat.Lstat(p)
		if err != nil {
			if errors.Is(err, fsroot.ErrSymlink) {
				notRead[notReadLink]++
				continue // reached through a link
			}
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				continue // tracked but deleted
			}
			if errors.Is(err, fsroot.ErrBadPath) {
				// Recorded as skipped, never read.
				out = append(out, entry{path: p, blob: skipBadName})
				continue
			}
			return nil, nil, fmt.Errorf("%s: %w", p, err)
		}
		switch {
		case st.Mode()&fs.ModeSymlink != 0:
			notRead[notReadLink]++
			continue
		case st.IsDir():
			notRead[notReadSubmodule]++ // git lists a submodule as its directory
			continue
		case !st.Mode().IsRegular():
			continue
		}
		out = append(out, entry{path: p, size: st.Size(), stat: StatKey(st), mtime: st.ModTime()})
	}
	return out, notRead, nil
}

func (s *source) listCommit(ctx context.Context) ([]entry, map[string]int, error) {
	// No -l: sizes would cost a lookup of every blob; the sizes of the
	// blobs read come from cat-file.
	out, err := git(ctx, s.gitDir, "ls-tree", "-r", "-z", "--full-tree", s.commit)
	if err != nil {
		return nil, nil, err
	}
	notRead := map[string]int{}
	var entries []entry
	for _, rec := range strings.Split(string(out), "\x00") {
		if rec == "" {
			continue
		}
		// <mode> SP <type> SP <object> TAB <path>
		tab := strings.IndexByte(rec, '\t')
		if tab < 0 {
			return nil, nil, fmt.Errorf("git ls-tree %s: malformed record %q", s.commit, rec)
		}
		f := strings.Fields(rec[:tab])
		if len(f) != 3 {
			return nil, nil, fmt.Errorf("git ls-tree %s: malformed record %q", s.commit, rec)
		}
		switch {
		case f[0] == "120000":
			notRead[notReadLink]++
			continue
		case f[1] == "commit":
			notRead[notReadSubmodule]++
			continue
		case f[1] != "blob" || (f[0] != "100644" && f[0] != "100755"):
			continue
		}
		e := entry{path: rec[tab+1:], blob: f[2], size: -1}
		if badName(e.path, true) {
			e.blob = skipBadName
		}
		entries = append(entries, e)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].path < entries[j].path })
	return entries, notRead, nil
}

// BlobID is git's object id of a blob with these bytes: what the index
// records of a file (File.Blob).
func BlobID(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// isBlobID reports whether s is a blob id as BlobID writes it, rather
// than the skip reason recorded for a file left out.
func isBlobID(s string) bool { return isHex(s, 40) }

// reader reads work tree files, never through a symbolic link, holding
// the directories of the last one open (paths in sorted order read
// best); close releases them. A commit has no work tree to read.
func (s *source) reader() (read func(p string) ([]byte, error), close func()) {
	if s.files == nil {
		return func(p string) ([]byte, error) {
			return nil, fmt.Errorf("%s: no work tree to read", p)
		}, func() {}
	}
	st := s.files.Stater()
	return func(p string) ([]byte, error) {
		if readHook != nil {
			readHook(p)
		}
		return st.ReadFile(p, 0)
	}, func() { st.Close() }
}

// readHook, when set (by tests), is told of every work tree file read.
var readHook func(path string)

// catFile streams the blobs of entries, in order, from one
// git cat-file --batch process, calling fn for each.
// Blobs larger than maxBytes are skipped over, and passed as nil; a blob
// the git directory lacks is passed as nil with an ErrMissingObject error.
func (s *source) catFile(ctx context.Context, entries []entry, maxBytes int64, fn func(e entry, data []byte, missing error) error) error {
	if len(entries) == 0 {
		return nil
	}
	cmd := exec.CommandContext(ctx, "git", "--git-dir="+s.gitDir, "cat-file", "--batch")
	// A partial clone would fetch a missing blob from its remote: never
	// reach the network while indexing; record the blob as missing.
	cmd.Env = append(os.Environ(), "GIT_NO_LAZY_FETCH=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git cat-file: %w", err)
	}
	writeErr := make(chan error, 1)
	go func() {
		w := bufio.NewWriter(stdin)
		var err error
		for _, e := range entries {
			if _, err = w.WriteString(e.blob + "\n"); err != nil {
				break
			}
		}
		if err == nil {
			err = w.Flush()
		}
		stdin.Close()
		writeErr <- err
	}()
	r := bufio.NewReaderSize(stdout, 1<<16)
	var readErr error
	for _, e := range entries {
		header, err := r.ReadString('\n')
		if err != nil {
			readErr = fmt.Errorf("git cat-file: reading header for %s: %w", e.path, err)
			break
		}
		f := strings.Fields(header)
		if len(f) == 2 && f[1] == "missing" {
			// A partial clone lacks this blob: record it, go on.
			if readErr = fn(e, nil, fmt.Errorf("blob %s: %w", e.blob, ErrMissingObject)); readErr != nil {
				break
			}
			continue
		}
		if len(f) == 3 && f[1] != "blob" {
			// A name that is not a file (verification asks by path).
			n, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil {
				readErr = fmt.Errorf("git cat-file: %s: size in %q: %w", e.path, strings.TrimSpace(header), err)
				break
			}
			if _, err := io.CopyN(io.Discard, r, n+1); err != nil {
				readErr = fmt.Errorf("git cat-file: reading %s: %w", e.path, err)
				break
			}
			if readErr = fn(e, nil, fmt.Errorf("%s is a %s, not a file", e.blob, f[1])); readErr != nil {
				break
			}
			continue
		}
		if len(f) != 3 {
			readErr = fmt.Errorf("git cat-file: %s (%s): unexpected header %q", e.path, e.blob, strings.TrimSpace(header))
			break
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			readErr = fmt.Errorf("git cat-file: %s: size in %q: %w", e.path, strings.TrimSpace(header), err)
			break
		}
		e.size = int64(n)
		var data []byte
		if e.size > maxBytes {
			if _, err := io.CopyN(io.Discard, r, e.size+1); err != nil {
				readErr = fmt.Errorf("git cat-file: reading %s: %w", e.path, err)
				break
			}
		} else {
			data = make([]byte, n+1)
			if _, err := io.ReadFull(r, data); err != nil {
				readErr = fmt.Errorf("git cat-file: reading %s: %w", e.path, err)
				break
			}
			data = data[:n]
		}
		if readErr = fn(e, data, nil); readErr != nil {
			break
		}
	}
	if readErr != nil {
		// Stop git; its error is secondary to ours.
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		<-writeErr
		return readErr
	}
	if err := <-writeErr; err != nil {
		_ = cmd.Wait()
		return fmt.Errorf("git cat-file: writing requests: %w", err)
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git cat-file: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// Skip reasons recorded for files left out of an index.
const (
	skipVendored  = "vendored"
	skipGenerated = "generated"
	skipLarge     = "too large"
	skipBinary    = "binary"
	skipIgnored   = "ignored" // listed in .mssignore
	skipMissing   = "missing" // blob absent from a partial clone
	skipBadName   = "unusable name"
)

// badName reports whether no reader could name the file at p back to
// check a unit against it, so that it is recorded as skipped
// (skipBadName) rather than indexed: a name fsroot refuses (a backslash,
// which is a separator to other tools and to every reader of paths in
// state cards), and in a commit a line break too (git's batch reader
// takes one name a line).
func badName(p string, commit bool) bool {
	if _, err := fsroot.Clean(p); err != nil {
		return true
	}
	return commit && strings.Contains(p, "\n")
}

// vendoredDirs are directory names whose contents are someone else's code.
var vendoredDirs = map[string]bool{
	"vendor": true, "vendors": true, "third_party": true, "third-party": true, "thirdparty": true,
	"3rdparty": true, "node_modules": true, "bower_components": true,
	".yarn": true, "site-packages": true,
}

// frameworkDirs are directory names of test frameworks that projects copy
// into their trees; in the framework's own tree they hold its code.
var frameworkDirs = map[string]bool{
	"gtest": true, "gmock": true, "googletest": true, "googlemock": true, "catch2": true,
}

// vendored reports whether path is bundled third-party code: under a
// vendor-like directory, a minified bundle, or a test framework copied
// into the tree (gtest, gmock, Catch2: its directory, its single header,
// its amalgamated source), unless the tree is that framework's own
// (frameworkTree).
func vendored(p string, ownFramework bool) bool {
	if vendor, framework, _ := underDirs(p); vendor || framework && !ownFramework {
		return true
	}
	base := strings.ToLower(path.Base(p))
	for _, suf := range []string{".min.js", ".min.css", "-min.js", ".bundle.js", ".min.mjs", ".pack.js"} {
		if strings.HasSuffix(base, suf) {
			return true
		}
	}
	if ownFramework {
		return false
	}
	// Single-header test frameworks dropped into a test directory.
	switch base {
	case "gtest.h", "gmock.h", "catch.hpp", "doctest.h":
		return true
	}
	// Amalgamated gtest/gmock sources: gtest-all.cc, gmock-gtest-all.cc.
	return (strings.HasPrefix(base, "gtest") || strings.HasPrefix(base, "gmock")) && strings.Contains(base, "-all.")
}

// testDirs are directory names under which a framework directory is a
// copy for the project's tests (yaml-cpp's test/googletest-1.13.0/).
var testDirs = map[string]bool{"test": true, "tests": true, "testing": true, "unittest": true, "unittests": true}

// frameworkTree reports whether the listed tree is a test framework's own
// (Catch2's src/catch2/, googletest's googletest/ and googlemock/): more
// than half of its files that have a grammar, leaving out vendor-like
// directories, lie under a directory named for a framework that is not
// inside a test directory. A project that copies one in keeps it with its
// tests, or holds more code of its own than the copy.
func frameworkTree(entries []entry) bool {
	code, under := 0, 0
	for _, e := range entries {
		if segment.Language(e.path) == "" {
			continue
		}
		vendor, _, outsideTests := underDirs(e.path)
		if vendor {
			continue
		}
		code++
		if outsideTests {
			under++
		}
	}
	return 2*under > code
}

// underDirs reports whether path p lies under a vendor-like directory,
// under a test framework's directory, and under one that is not inside a
// test directory.
func underDirs(p string) (vendor, framework, outsideTests bool) {
	dirs := strings.Split(p, "/")
	inTests := false
	for _, d := range dirs[:len(dirs)-1] {
		d = strings.ToLower(d)
		vendor = vendor || vendoredDirs[d]
		if frameworkDirs[d] {
			framework = true
			outsideTests = outsideTests || !inTests
		}
		inTests = inTests || testDirs[d]
	}
	return vendor, framework, outsideTests
}

// generatedSuffixes are the name endings of machine-written files.
var generatedSuffixes = []string{
	".pb.go", ".pb.cc", ".pb.h", "_pb2.py", "_pb2_grpc.py", "_pb2.pyi", ".pb.gw.go", "_grpc.pb.go",
	".generated.go", "_generated.go", ".gen.go", "_gen.go", ".g.dart", "_string.go",
}

// lockFiles are package managers' lock files, by lower-cased name.
var lockFiles = map[string]bool{
	"package-lock.json": true, "npm-shrinkwrap.json": true, "yarn.lock": true, "pnpm-lock.yaml": true,
	"bun.lockb": true, "cargo.lock": true, "go.sum": true, "poetry.lock": true, "pipfile.lock": true,
	"uv.lock": true, "pdm.lock": true, "composer.lock": true, "gemfile.lock": true,
}

// LockFile reports whether the file at p is a package manager's lock
// file (package-lock.json, Cargo.lock, go.sum, uv.lock, ...): written by
// a tool, and never evidence of the code.
func LockFile(p string) bool { return lockFiles[strings.ToLower(path.Base(p))] }

// generated reports whether a file was written by a tool: by name, by
// what its opening comments (and a Python module's docstring) say, within
// its first 1,024 bytes: "Code generated ... DO NOT EDIT", "@generated",
// "This file is an amalgamation", or a first line that begins as a tool's
// banner does ("# Generated by Django 4.2", "// This file is
// auto-generated"); or by a last line that points to its source map
// ("//# sourceMappingURL=axios.js.map"), which compilers and bundlers
// write under what they emit (a library's dist/ bundle: a copy of its
// sources). Code that only mentions the words (a generator script whose
// template holds the marker, a comment on what "the compiler generated")
// is not. data is the file, or its first bytes.
func generated(p string, data []byte) bool {
	if sourceMapped(data) {
		return true
	}
	base := strings.ToLower(path.Base(p))
	if lockFiles[base] {
		return true
	}
	for _, s := range generatedSuffixes {
		if strings.HasSuffix(base, s) {
			if s == "_string.go" && !bytes.Contains(data, []byte("DO NOT EDIT")) {
				continue
			}
			return true
		}
	}
	if strings.HasPrefix(base, "zz_generated") {
		return true
	}
	lines := openingLines(bytes.ToLower(data[:min(len(data), 1024)]))
	text := bytes.Join(lines, []byte("\n"))
	if bytes.Contains(text, []byte("do not edit")) && bytes.Contains(text, []byte("generated")) ||
		bytes.Contains(text, []byte("@generated")) ||
		// Sources concatenated into one by a script: a copy of code the
		// tree holds (Catch2's extras/catch_amalgamated.cpp) or someone
		// else's (SQLite's sqlite3.c).
		bytes.Contains(text, []byte("this file is an amalgamation")) {
		return true
	}
	for _, l := range lines[:min(3, len(lines))] {
		l = bytes.TrimLeft(l, " \t#/*-;!<%'\"")
		for _, w := range bannerLeads {
			l = bytes.TrimPrefix(l, []byte(w))
		}
		for _, m := range generatedBanners {
			if bytes.HasPrefix(l, []byte(m)) {
				return true
			}
		}
	}
	return false
}

// sourceMapped reports whether the last line of data that is not blank is
// a source-map comment: "//# sourceMappingURL=...", the older "//@ ...",
// or the block form "/*# sourceMappingURL=... */".
func sourceMapped(data []byte) bool {
	data = bytes.TrimRight(data, " \t\r\n")
	last := bytes.TrimLeft(data[bytes.LastIndexByte(data, '\n')+1:], " \t")
	for _, lead := range sourceMapLeads {
		if bytes.HasPrefix(last, lead) {
			return true
		}
	}
	return false
}

// sourceMapLeads begin a source-map comment.
var sourceMapLeads = [][]byte{[]byte("//# sourceMappingURL="), []byte("//@ sourceMappingURL="), []byte("/*# sourceMappingURL=")}

// bannerLeads are taken off the start of a banner line, in this order:
// "This file was generated by", "This is an auto-generated file".
var bannerLeads = []string{"this file ", "this code ", "this is an ", "this is a ", "is ", "was ", "has been "}

// generatedBanners begin a tool's banner line, once a comment marker and
// bannerLeads are taken off.
var generatedBanners = []string{"generated by", "generated from", "generated with", "generated using", "generated on", "generated:",
	"auto-generated", "autogenerated", "automatically generated", "code generated"}

// openingLines returns the non-blank lines of lower (a file's first bytes,
// lower-cased) before its first line of code: comment lines, block
// comments, and a docstring or string the file opens with.
func openingLines(lower []byte) [][]byte {
	var out [][]byte
	closer := "" // the end of the block comment or docstring the line is in
	for _, l := range bytes.Split(lower, []byte("\n")) {
		t := bytes.TrimSpace(l)
		switch {
		case closer != "":
			if bytes.Contains(t, []byte(closer)) {
				closer = ""
			}
		case len(t) == 0:
			continue
		case bytes.HasPrefix(t, []byte(`"""`)) || bytes.HasPrefix(t, []byte("'''")):
			if q := t[:3]; bytes.Count(t, q) == 1 {
				closer = string(q)
			}
		case bytes.HasPrefix(t, []byte("/*")):
			if !bytes.Contains(t[2:], []byte("*/")) {
				closer = "*/"
			}
		case bytes.HasPrefix(t, []byte("<!--")):
			if !bytes.Contains(t[4:], []byte("-->")) {
				closer = "-->"
			}
		case bytes.HasPrefix(t, []byte("#")), bytes.HasPrefix(t, []byte("//")), bytes.HasPrefix(t, []byte("--")),
			bytes.HasPrefix(t, []byte(";")), bytes.HasPrefix(t, []byte("%")), bytes.HasPrefix(t, []byte("*")):
		default:
			return out
		}
		out = append(out, t)
	}
	return out
}

// isBinary reports whether data looks binary: a NUL byte in its first 8000
// bytes, as git decides.
func isBinary(data []byte) bool {
	if len(data) > 8000 {
		data = data[:8000]
	}
	return bytes.IndexByte(data, 0) >= 0
}

// describe names the source in messages.
func (s *source) describe() string {
	switch {
	case s.commit != "":
		return fmt.Sprintf("commit %s of %s", s.commit, s.gitDir)
	case s.gitDir != "":
		return "work tree " + s.root
	}
	return "directory " + s.root
}

// tracked reports whether git tracks the file at p in the work tree: an
// index committed to the repository, which mss did not write.
func (s *source) tracked(ctx context.Context, p string) bool {
	if s.root == "" || s.gitDir == "" {
		return false
	}
	rel, err := filepath.Rel(s.root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	_, err = git(ctx, "", "-C", s.root, "ls-files", "--error-unmatch", "--", filepath.ToSlash(rel))
	return err == nil
}

// ignoreRules reads the .mssignore at the root of the source: the work
// tree's file, or the commit's blob.
func (s *source) ignoreRules(ctx context.Context) (*ignoreList, error) {
	var data []byte
	if s.commit != "" {
		if _, err := git(ctx, s.gitDir, "cat-file", "-e", s.commit+":"+ignoreFile); err != nil {
			return nil, nil // no .mssignore in this commit
		}
		var err error
		if data, err = git(ctx, s.gitDir, "cat-file", "blob", s.commit+":"+ignoreFile); err != nil {
			return nil, fmt.Errorf("index: reading %s of %s: %w", ignoreFile, s.commit, err)
		}
	} else {
		b, err := s.files.ReadFile(ignoreFile, 1<<20)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("index: reading %s: %w", ignoreFile, err)
		}
		data = b
	}
	return parseIgnore(ignoreFile, data)
}
