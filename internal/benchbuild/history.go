package benchbuild

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
)

// HistoryOptions say which commits of a repository to mine.
type HistoryOptions struct {
	GitDir string
	Repo   string // owner/name written into the states
	Rev    string // the commit whose first-parent history is walked (HEAD when "")
	Since  string // git date: only commits after it
	Limit  int    // at most this many fix commits (0: all)
	// MaxFiles: commits changing more files are not fixes of one issue.
	MaxFiles int
}

// Reasons a commit is not taken as a fix.
const (
	NotReferencing = "message references no issue and names no fix"
	NotSourceTest  = "does not change both source and tests"
	TooLarge       = "changes too many files"
)

var (
	issueRef = regexp.MustCompile(`(?:#|\bGH-|\bgh-|/issues/|/pull/)(\d+)\b`)
	fixWord  = regexp.MustCompile(`(?i)\b(fix(e[sd])?|bug(fix)?|close[sd]?|resolve[sd]?|regression|crash(es|ed)?|broken|incorrect(ly)?|wrong)\b`)
)

// FixCommit reports whether a commit message references an issue or says
// what it fixes.
func FixCommit(msg string) bool {
	return issueRef.MatchString(msg) || fixWord.MatchString(msg)
}

// History lists the fix commits of a repository's first-parent history,
// newest first, as instances: the base commit is the first parent, the
// fix its diff (a merge's first-parent diff), the issue text the commit
// message. A fix commit changes source and tests and its message
// references an issue or says what it fixes. skipped counts the other
// commits by reason.
func History(ctx context.Context, o HistoryOptions) (ins []Instance, skipped map[string]int, err error) {
	rev := o.Rev
	if rev == "" {
		rev = "HEAD"
	}
	if strings.HasPrefix(rev, "-") {
		return nil, nil, fmt.Errorf("revision %q: must not start with '-'", rev)
	}
	if o.MaxFiles == 0 {
		o.MaxFiles = 50
	}
	args := []string{"log", "--first-parent", "--no-color", "--format=%H%x00%P%x00%B%x1e"}
	if o.Since != "" {
		args = append(args, "--since="+o.Since)
	}
	args = append(args, rev, "--")
	out, err := runGit(ctx, o.GitDir, args...)
	if err != nil {
		return nil, nil, err
	}
	owner, name, _ := strings.Cut(o.Repo, "/")
	skipped = map[string]int{}
	for _, rec := range bytes.Split(out, []byte("\x1e")) {
		rec = bytes.TrimLeft(rec, "\n")
		if len(rec) == 0 {
			continue
		}
		f := strings.SplitN(string(rec), "\x00", 3)
		if len(f) != 3 {
			return nil, nil, fmt.Errorf("git log in %s: unexpected record %q", o.GitDir, firstLine(string(rec)))
		}
		sha, parents, msg := f[0], strings.Fields(f[1]), strings.TrimRight(f[2], "\n ")
		if len(parents) == 0 {
			continue // the root commit has no base
		}
		if !FixCommit(msg) {
			skipped[NotReferencing]++
			continue
		}
		names, err := runGit(ctx, o.GitDir, "diff", "--no-color", "--no-ext-diff", "-M", "--name-only", parents[0], sha, "--")
		if err != nil {
			return nil, nil, err
		}
		files := strings.Fields(string(names))
		if len(files) > o.MaxFiles {
			skipped[TooLarge]++
			continue
		}
		src, tests := false, false
		for _, p := range files {
			switch PathReason(p) {
			case "":
				src = true
			case SkipTest:
				tests = true
			}
		}
		if !src || !tests {
			skipped[NotSourceTest]++
			continue
		}
		patch, err := runGit(ctx, o.GitDir, "diff", "--no-color", "--no-ext-diff", "-M", "-U3", parents[0], sha, "--")
		if err != nil {
			return nil, nil, err
		}
		ins = append(ins, Instance{
			ID:         fmt.Sprintf("%s__%s-%s", owner, name, sha[:12]),
			Repo:       o.Repo,
			BaseCommit: parents[0],
			Issue:      msg,
			Patch:      string(patch),
			Where:      o.GitDir + ":" + sha,
		})
		if o.Limit > 0 && len(ins) >= o.Limit {
			break
		}
	}
	return ins, skipped, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
