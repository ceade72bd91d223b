package repobench

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// ErrUnknownCommit is returned (wrapped) when a base commit is not in the
// repository's git directory.
var ErrUnknownCommit = errors.New("unknown commit")

// Source reads files of benchmark repositories at given commits, straight
// from their git directories, one long-lived `git cat-file --batch` per
// repository. File lines are cached, as score.py caches them.
type Source struct {
	root string

	mu    sync.Mutex
	repos map[string]*catFile // by "owner/name"
	files map[fileKey][][]byte
	// commits remembers verified commits.
	commits map[fileKey]bool
}

type fileKey struct{ repo, commit, path string }

// NewSource reads repositories under a mirror root (see FindGitDir).
func NewSource(mirrorRoot string) *Source {
	return &Source{
		root:    mirrorRoot,
		repos:   map[string]*catFile{},
		files:   map[fileKey][][]byte{},
		commits: map[fileKey]bool{},
	}
}

// GitDir returns the git directory of repo.
func (s *Source) GitDir(repo string) (string, error) {
	cf, err := s.repo(repo)
	if err != nil {
		return "", err
	}
	return cf.gitDir, nil
}

func (s *Source) repo(repo string) (*catFile, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cf, ok := s.repos[repo]; ok {
		return cf, nil
	}
	dir, err := FindGitDir(s.root, repo)
	if err != nil {
		return nil, err
	}
	cf, err := startCatFile(dir)
	if err != nil {
		return nil, fmt.Errorf("repository %s: %w", repo, err)
	}
	s.repos[repo] = cf
	return cf, nil
}

// CheckCommit returns an error wrapping ErrUnknownCommit unless commit
// names a commit of repo.
func (s *Source) CheckCommit(repo, commit string) error {
	key := fileKey{repo, commit, ""}
	s.mu.Lock()
	ok := s.commits[key]
	s.mu.Unlock()
	if ok {
		return nil
	}
	cf, err := s.repo(repo)
	if err != nil {
		return err
	}
	typ, _, found, err := cf.get(commit + "^{commit}")
	if err != nil {
		return fmt.Errorf("repository %s: %w", repo, err)
	}
	if !found || typ != "commit" {
		return fmt.Errorf("repository %s: %w %s in %s", repo, ErrUnknownCommit, commit, cf.gitDir)
	}
	s.mu.Lock()
	s.commits[key] = true
	s.mu.Unlock()
	return nil
}

// Lines returns the file at commit split on "\n" as Python's bytes.split
// does (a trailing newline leaves an empty last element), or nil when the
// path names no file at that commit.
func (s *Source) Lines(repo, commit, path string) ([][]byte, error) {
	key := fileKey{repo, commit, path}
	s.mu.Lock()
	lines, ok := s.files[key]
	s.mu.Unlock()
	if ok {
		return lines, nil
	}
	if err := s.CheckCommit(repo, commit); err != nil {
		return nil, err
	}
	cf, err := s.repo(repo)
	if err != nil {
		return nil, err
	}
	switch {
	case strings.Contains(path, "\x00"):
		// No git command can be given it (score.py fails on it).
	case gitShowOnly(path):
		if lines, err = gitShow(cf.gitDir, commit+":"+path); err != nil {
			return nil, fmt.Errorf("repository %s: %w", repo, err)
		}
	default:
		rev := commit + ":" + path
		oid, typ, data, found, err := cf.getOID(rev)
		if err != nil {
			return nil, fmt.Errorf("repository %s: %w", repo, err)
		}
		switch {
		case found && typ == "blob":
			lines = bytes.Split(data, []byte("\n"))
		case found && typ == "tree":
			// git show prints a directory as a listing, and score.py
			// costs those lines; so do we.
			listing, err := treeListing(rev, data, len(oid)/2)
			if err != nil {
				return nil, fmt.Errorf("repository %s: %s: %w", repo, rev, err)
			}
			lines = bytes.Split(listing, []byte("\n"))
		}
	}
	s.mu.Lock()
	s.files[key] = lines
	s.mu.Unlock()
	return lines, nil
}

// gitShowOnly says whether `git show C:PATH`, score.py's reading, may read
// path otherwise than cat-file does: git show resolves a path starting
// "./" or "../" against a work tree (the current directory, for a git
// directory without core.bare such as <owner>+<name>/repo; in a bare one
// it fails), reads "A..B" as a range and "^!", "^@", "^-" after a
// revision as its parents; a name holding a glob character ("*", "?",
// "[", a backslash) that names no file it takes for a pathspec, and
// prints what that pathspec limits HEAD's diff to; and cat-file's line
// protocol cannot carry a line break.
func gitShowOnly(path string) bool {
	return strings.HasPrefix(path, "./") || strings.Contains(path, "..") || strings.ContainsAny(path, "^\n\r*?[\\")
}

// gitShow runs `git show REV` as score.py does: its output split on "\n"
// when git succeeds, nil when it fails.
func gitShow(gitDir, rev string) ([][]byte, error) {
	out, err := exec.Command("git", "--git-dir", gitDir, "show", rev).Output()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("git show in %s: %w", gitDir, err)
	}
	return bytes.Split(out, []byte("\n")), nil
}

// Close stops the git processes.
func (s *Source) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var first error
	for name, cf := range s.repos {
		if err := cf.close(); err != nil && first == nil {
			first = fmt.Errorf("repository %s: %w", name, err)
		}
	}
	s.repos = map[string]*catFile{}
	return first
}

// catFile is one `git cat-file --batch` process.
type catFile struct {
	gitDir string
	mu     sync.Mutex
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr lockedBuffer
}

// lockedBuffer collects a process's stderr while it runs.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func startCatFile(gitDir string) (*catFile, error) {
	cf := &catFile{gitDir: gitDir}
	cf.cmd = exec.Command("git", "--git-dir", gitDir, "cat-file", "--batch")
	cf.cmd.Stderr = &cf.stderr
	var err error
	if cf.in, err = cf.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cf.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cf.out = bufio.NewReaderSize(stdout, 1<<16)
	if err := cf.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting git cat-file in %s: %w", gitDir, err)
	}
	return cf, nil
}

// get asks for one object by revision expression. found is false when git
// reports it missing or ambiguous.
func (cf *catFile) get(rev string) (typ string, data []byte, found bool, err error) {
	_, typ, data, found, err = cf.getOID(rev)
	return typ, data, found, err
}

// getOID is get that also returns the object id in hex.
func (cf *catFile) getOID(rev string) (oid, typ string, data []byte, found bool, err error) {
	cf.mu.Lock()
	defer cf.mu.Unlock()
	if _, err := io.WriteString(cf.in, rev+"\n"); err != nil {
		return "", "", nil, false, cf.fail(err)
	}
	header, err := cf.out.ReadString('\n')
	if err != nil {
		return "", "", nil, false, cf.fail(err)
	}
	header = strings.TrimSuffix(header, "\n")
	if strings.HasSuffix(header, " missing") || strings.HasSuffix(header, " ambiguous") {
		return "", "", nil, false, nil
	}
	f := strings.Fields(header)
	if len(f) != 3 {
		return "", "", nil, false, fmt.Errorf("git cat-file in %s: unexpected header %q", cf.gitDir, header)
	}
	size, err := strconv.Atoi(f[2])
	if err != nil || size < 0 {
		return "", "", nil, false, fmt.Errorf("git cat-file in %s: unexpected header %q", cf.gitDir, header)
	}
	data = make([]byte, size+1) // content and the trailing newline
	if _, err := io.ReadFull(cf.out, data); err != nil {
		return "", "", nil, false, cf.fail(err)
	}
	return f[0], f[1], data[:size], true, nil
}

func (cf *catFile) fail(err error) error {
	if msg := strings.TrimSpace(cf.stderr.String()); msg != "" {
		return fmt.Errorf("git cat-file in %s: %w: %s", cf.gitDir, err, msg)
	}
	return fmt.Errorf("git cat-file in %s: %w", cf.gitDir, err)
}

func (cf *catFile) close() error {
	cf.mu.Lock()
	defer cf.mu.Unlock()
	cf.in.Close()
	return cf.cmd.Wait()
}

// treeListing renders a raw tree object as git show does: a "tree REV"
// header, a blank line, then one entry name a line, directories with a
// trailing slash.
func treeListing(rev string, raw []byte, hashLen int) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("tree " + rev + "\n\n")
	for len(raw) > 0 {
		sp := bytes.IndexByte(raw, ' ')
		nul := bytes.IndexByte(raw, 0)
		if sp < 0 || nul < sp {
			return nil, errors.New("malformed tree object")
		}
		mode, name := string(raw[:sp]), raw[sp+1:nul]
		raw = raw[nul+1:]
		if len(raw) < hashLen {
			return nil, errors.New("malformed tree object")
		}
		raw = raw[hashLen:]
		b.Write(name)
		if mode == "40000" {
			b.WriteByte('/')
		}
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}
