package benchbuild

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
)

// gitRepo reads objects of one git directory through one long-lived
// "git cat-file --batch".
type gitRepo struct {
	dir string
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func openGit(dir string) (*gitRepo, error) {
	cmd := exec.Command("git", "--git-dir="+dir, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git cat-file in %s: %v", dir, err)
	}
	return &gitRepo{dir: dir, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<16)}, nil
}

func (g *gitRepo) close() error {
	g.in.Close()
	return g.cmd.Wait()
}

// blob returns the bytes of rev ("commit:path"); found is false when the
// object is missing (unknown commit or path, or absent from a partial
// clone).
func (g *gitRepo) blob(rev string) (data []byte, found bool, err error) {
	if strings.ContainsAny(rev, "\n") {
		return nil, false, fmt.Errorf("bad revision %q", rev)
	}
	if _, err := io.WriteString(g.in, rev+"\n"); err != nil {
		return nil, false, fmt.Errorf("git cat-file in %s: %v", g.dir, err)
	}
	head, err := g.out.ReadString('\n')
	if err != nil {
		return nil, false, fmt.Errorf("git cat-file in %s: %v", g.dir, err)
	}
	f := strings.Fields(head)
	if len(f) == 2 && f[1] == "missing" || len(f) >= 2 && f[1] == "ambiguous" {
		return nil, false, nil
	}
	if len(f) != 3 {
		return nil, false, fmt.Errorf("git cat-file in %s: unexpected reply %q", g.dir, head)
	}
	n, err := strconv.Atoi(f[2])
	if err != nil {
		return nil, false, fmt.Errorf("git cat-file in %s: unexpected reply %q", g.dir, head)
	}
	buf := make([]byte, n+1)
	if _, err := io.ReadFull(g.out, buf); err != nil {
		return nil, false, fmt.Errorf("git cat-file in %s: %v", g.dir, err)
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

// runGit runs one git command in a git directory and returns its stdout.
func runGit(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"--git-dir=" + dir}, args...)...)
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
