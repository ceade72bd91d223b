package benchbuild

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
)

// gitRepo reads objects of one git directory through one long-lived
// "git cat-file --batch". A request the process dies on (or answers out
// of step) fails alone: the process is ended and the next request starts
// a fresh one.
type gitRepo struct {
	dir    string
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *bytes.Buffer
}

func openGit(dir string) (*gitRepo, error) {
	g := &gitRepo{dir: dir}
	if err := g.start(); err != nil {
		return nil, err
	}
	return g, nil
}

func (g *gitRepo) start() error {
	cmd := exec.Command("git", gitArgs(g.dir, "cat-file", "--batch")...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git cat-file in %s: %v", g.dir, err)
	}
	g.cmd, g.in, g.out, g.stderr = cmd, in, bufio.NewReaderSize(out, 1<<16), &stderr
	return nil
}

func (g *gitRepo) close() error {
	if g.cmd == nil {
		return nil
	}
	g.in.Close()
	err := g.cmd.Wait()
	g.cmd = nil
	return err
}

// fail ends a process that failed a request and returns the request's
// error, with the first line git wrote to its standard error.
func (g *gitRepo) fail(rev string, err error) error {
	g.cmd.Process.Kill()
	g.in.Close()
	g.cmd.Wait()
	g.cmd = nil
	msg := strings.TrimSpace(g.stderr.String())
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if msg != "" {
		return fmt.Errorf("git cat-file in %s: %s: %v: %s", g.dir, rev, err, msg)
	}
	return fmt.Errorf("git cat-file in %s: %s: %v", g.dir, rev, err)
}

// blob returns the bytes of rev ("commit:path"); found is false when the
// object is missing (unknown commit or path, or absent from a partial
// clone).
func (g *gitRepo) blob(rev string) (data []byte, found bool, err error) {
	if strings.ContainsAny(rev, "\n") {
		return nil, false, fmt.Errorf("bad revision %q", rev)
	}
	if g.cmd == nil {
		if err := g.start(); err != nil {
			return nil, false, err
		}
	}
	if _, err := io.WriteString(g.in, rev+"\n"); err != nil {
		return nil, false, g.fail(rev, err)
	}
	head, err := g.out.ReadString('\n')
	if err != nil {
		return nil, false, g.fail(rev, err)
	}
	f := strings.Fields(head)
	if len(f) == 2 && f[1] == "missing" || len(f) >= 2 && f[1] == "ambiguous" {
		return nil, false, nil
	}
	if len(f) != 3 {
		return nil, false, g.fail(rev, fmt.Errorf("unexpected reply %q", head))
	}
	n, err := strconv.Atoi(f[2])
	if err != nil || n < 0 {
		return nil, false, g.fail(rev, fmt.Errorf("unexpected reply %q", head))
	}
	buf := make([]byte, n+1)
	if _, err := io.ReadFull(g.out, buf); err != nil {
		return nil, false, g.fail(rev, err)
	}
	if f[1] != "blob" {
		return nil, false, nil
	}
	return buf[:n], true, nil
}

// hasCommit reports whether the commit is in the repository.
func (g *gitRepo) hasCommit(ctx context.Context, c string) bool {
	_, err := runGit(ctx, g.dir, "cat-file", "-e", c+"^{commit}")
	return err == nil
}

// hasFile reports whether the tree of commit has a file (a blob) at path,
// whether or not the blob itself is in the repository: a partial clone
// has the trees without the blobs.
func (g *gitRepo) hasFile(ctx context.Context, commit, path string) (bool, error) {
	out, err := runGit(ctx, g.dir, "ls-tree", "-z", commit, "--", ":(literal)"+path)
	if err != nil {
		return false, err
	}
	for _, e := range strings.Split(string(out), "\x00") {
		meta, p, ok := strings.Cut(e, "\t")
		if f := strings.Fields(meta); ok && p == path && len(f) == 3 && f[1] == "blob" {
			return true, nil
		}
	}
	return false, nil
}

// pinned are the settings of a user's or the system's git configuration
// that change what the builder reads from git, set to git's defaults on
// every command (a "-c" outranks every configuration file, and the files
// stay read for what they must say, such as safe.directory): the diff's
// paths and their quoting, which lines a diff marks as changed, its
// hunks, the order of its files, the files a diff shows as binary or
// through a filter, the encoding of commit messages.
var pinned = []string{
	"core.quotePath=true",
	"core.attributesFile=" + os.DevNull,
	"core.bigFileThreshold=512m", // a diff shows a larger file as binary
	"diff.noprefix=false",
	"diff.mnemonicPrefix=false",
	"diff.srcPrefix=a/",
	"diff.dstPrefix=b/",
	"diff.relative=false",
	"diff.algorithm=myers",
	"diff.indentHeuristic=true",
	"diff.interHunkContext=0",
	"diff.suppressBlankEmpty=false",
	"diff.ignoreSubmodules=none",
	"diff.renameLimit=1000",
	"diff.orderFile=" + os.DevNull,
	"color.ui=false",
	"log.showSignature=false",
	"i18n.logOutputEncoding=UTF-8",
}

// gitDiff runs git diff with args in a git directory, with the options
// every diff the builder reads goes with: no color, no external diff or
// text conversion, and the a/ and b/ prefixes.
func gitDiff(ctx context.Context, dir string, args ...string) ([]byte, error) {
	return runGit(ctx, dir, slices.Concat([]string{"diff", "--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/"}, args)...)
}

// gitArgs are the arguments of a git command in the git directory dir,
// with the configuration pinned.
func gitArgs(dir string, args ...string) []string {
	out := make([]string, 0, 1+2*len(pinned)+len(args))
	out = append(out, "--git-dir="+dir)
	for _, c := range pinned {
		out = append(out, "-c", c)
	}
	return append(out, args...)
}

// runGit runs one git command in a git directory and returns its stdout.
func runGit(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", gitArgs(dir, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		return nil, fmt.Errorf("git %s in %s: %v: %s", args[0], dir, err, msg)
	}
	return stdout.Bytes(), nil
}
