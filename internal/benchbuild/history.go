package benchbuild

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/segment"
)

// HistoryOptions say which commits of a repository to mine.
type HistoryOptions struct {
	GitDir string
	Repo   string    // owner/name written into the states
	Rev    string    // the commit whose first-parent history is walked (HEAD when "")
	Since  time.Time // only commits after it (none when zero; ParseDate)
	Limit  int       // at most this many fix commits (0: all)
	// MaxFiles: commits changing more files are not fixes of one issue.
	MaxFiles int
	// TestNames puts the names of the test functions the commit adds or
	// changes into latest_test_output, one "FAILED path::name" a line.
	TestNames bool
	// TestSnippet ends the issue text with the first test function the
	// commit adds or changes (in path and line order), as it reads after
	// the commit, fenced as code and cut at SnippetLines lines: the
	// reproduction a reporter pastes into an issue, which a commit message
	// rarely has.
	TestSnippet bool
	// Issues, when given, are the repository's filed issues by the number
	// of the pull request that fixed each (ReadIssueTexts): only the
	// commits that merged one of those pull requests are mined, each with
	// its issue's text and id, whatever their message says and whether or
	// not they change tests.
	Issues map[int]IssueText
}

// SnippetLines is the most lines of a test snippet (HistoryOptions).
const SnippetLines = 40

// Reasons a commit is not taken as a fix.
const (
	NotReferencing = "message references no issue and names no fix"
	NotSourceTest  = "does not change both source and tests"
	TooLarge       = "changes too many files"
	MissingObjects = "missing git object"
	// MissingFiles counts files (not commits) of fix commits left out for
	// a missing git object.
	MissingFiles = "files of fix commits with a missing git object"
	// NotListedPull: with HistoryOptions.Issues, a commit that merged no
	// pull request of a listed issue.
	NotListedPull = "merged no pull request of a listed issue"
	// NoSource: with HistoryOptions.Issues, a pull request that changes
	// no source file.
	NoSource = "changes no source file"
	// PullNotFound counts listed issues (not commits) whose pull request
	// no commit of the first-parent history merged.
	PullNotFound = "listed issues whose pull request no first-parent commit merged"
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
// commits by reason. With o.Issues the commits are those that merged a
// listed issue's pull request instead (HistoryOptions.Issues).
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
	if o.Issues != nil && len(o.Issues) == 0 {
		return nil, map[string]int{}, nil // no listed issue to look for
	}
	// One record a commit, ended by NUL (-z), which git keeps out of a
	// commit message: the commit and its parents on the first line, then
	// the message.
	args := []string{"log", "--first-parent", "--no-color", "-z", "--format=%H %P%n%B"}
	if !o.Since.IsZero() {
		// A time in seconds, which git reads as it is; git's own date
		// reading guesses at what it does not know ("notadate" was a
		// date, a day without a time took the time of the run).
		args = append(args, fmt.Sprintf("--since=@%d", o.Since.Unix()))
	}
	args = append(args, rev, "--")
	out, err := runGit(ctx, o.GitDir, args...)
	if err != nil {
		return nil, nil, err
	}
	owner, name, _ := strings.Cut(o.Repo, "/")
	skipped = map[string]int{}
	taken := map[int]bool{} // pull requests of o.Issues already mined
	prev := ""
	for _, rec := range strings.Split(string(out), "\x00") {
		if rec == "" {
			continue
		}
		head, body, _ := strings.Cut(rec, "\n")
		f := strings.Fields(head)
		if len(f) == 0 || slices.ContainsFunc(f, func(s string) bool { return !isObjectID(s) }) {
			after := "first record"
			if prev != "" {
				after = "record after commit " + prev
			}
			return nil, nil, fmt.Errorf("git log in %s: unexpected %s: %q", o.GitDir, after, firstLine(rec))
		}
		sha, parents, msg := f[0], f[1:], strings.TrimRight(body, "\n ")
		prev = sha
		if len(parents) == 0 {
			continue // the root commit has no base
		}
		var filed *IssueText
		if o.Issues != nil {
			it, ok := o.Issues[pullOf(firstLine(msg))]
			if !ok || taken[it.Pull] {
				skipped[NotListedPull]++
				continue
			}
			filed = &it
		} else if !FixCommit(msg) {
			skipped[NotReferencing]++
			continue
		}
		names, err := gitDiff(ctx, o.GitDir, "-M", "--name-only", "-z", parents[0], sha, "--")
		if err != nil {
			// A tree missing from a partial clone: the commit cannot be read.
			skipped[MissingObjects]++
			continue
		}
		// NUL-separated and unquoted: a path may hold spaces or bytes
		// past ASCII.
		var files []string
		for _, p := range strings.Split(string(names), "\x00") {
			if p != "" {
				files = append(files, p)
			}
		}
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
		switch {
		case filed != nil && !src:
			skipped[NoSource]++
			continue
		case filed == nil && (!src || !tests):
			skipped[NotSourceTest]++
			continue
		}
		patch, err := gitDiff(ctx, o.GitDir, "-M", "-U3", parents[0], sha, "--")
		if err != nil {
			// A blob missing from a partial clone: diff file by file and
			// leave out the files that cannot be read.
			var b bytes.Buffer
			for _, p := range files {
				d, err := gitDiff(ctx, o.GitDir, "-U3", parents[0], sha, "--", p)
				if err != nil {
					skipped[MissingFiles]++
					continue
				}
				b.Write(d)
			}
			patch = b.Bytes()
		}
		in := Instance{
			ID:         fmt.Sprintf("%s__%s-%s", owner, name, sha[:12]),
			Repo:       o.Repo,
			BaseCommit: parents[0],
			Issue:      msg,
			Patch:      string(patch),
			Where:      o.GitDir + ":" + sha,
		}
		if filed != nil {
			// The newest commit that merged the pull request is its fix.
			taken[filed.Pull] = true
			in.ID, in.Issue, in.Where = filed.InstanceID, filed.Text, filed.Where
		}
		if o.TestNames || o.TestSnippet {
			tests, err := fixTests(ctx, o.GitDir, sha, string(patch))
			if err != nil {
				return nil, nil, err
			}
			if o.TestNames {
				in.TestOutput = testNames(tests)
			}
			if o.TestSnippet && len(tests) > 0 {
				in.Issue += "\n\n" + snippet(tests[0])
			}
		}
		ins = append(ins, in)
		if o.Limit > 0 && len(ins) >= o.Limit {
			break
		}
	}
	if o.Issues != nil && (o.Limit == 0 || len(ins) < o.Limit) {
		if n := len(o.Issues) - len(taken); n > 0 {
			skipped[PullNotFound] = n
		}
	}
	return ins, skipped, nil
}

// isObjectID reports whether s is a full object id (SHA-1 or SHA-256).
func isObjectID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range []byte(s) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// ParseDate reads a date of --since: YYYY-MM-DD, midnight UTC, or an
// RFC 3339 time (2020-01-02T15:04:05Z, 2020-01-02T15:04:05+02:00), from
// 1970 on.
func ParseDate(s string) (time.Time, error) {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		t, err = time.Parse(time.RFC3339, s)
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not a date: want YYYY-MM-DD (midnight UTC) or an RFC 3339 time (2020-01-02T15:04:05Z)", s)
	}
	if t.Unix() < 0 {
		return time.Time{}, fmt.Errorf("%q: want a date from 1970 on", s)
	}
	return t, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// testNames gives tests as "FAILED path::Class::name" lines.
func testNames(tests []mss.Unit) string {
	out := make([]string, len(tests))
	for k, u := range tests {
		out[k] = "FAILED " + u.Path + "::" + strings.ReplaceAll(u.Symbol, ".", "::")
	}
	return strings.Join(out, "\n")
}

// snippet fences a test's text as code, cut at SnippetLines lines.
func snippet(u mss.Unit) string {
	lines := strings.Split(u.Content, "\n")
	if len(lines) > SnippetLines {
		lines = lines[:SnippetLines]
	}
	text := strings.TrimRight(strings.Join(lines, "\n"), " \t\r\n")
	return "```" + u.Language + "\n" + text + "\n```"
}

// fixTests gives the test functions and methods of the fix commit's test
// files that hold an added line, as they read after the commit, in path
// and line order, each once.
func fixTests(ctx context.Context, gitDir, sha, patch string) ([]mss.Unit, error) {
	files, err := ParsePatch(patch)
	if err != nil {
		return nil, nil // the builder reports a malformed patch
	}
	var g *gitRepo
	defer func() {
		if g != nil {
			g.close()
		}
	}()
	var out []mss.Unit
	for _, fd := range files {
		if fd.NewPath == "" || !utf8.ValidString(fd.NewPath) || fd.Binary || fd.linkOrSubmodule() != "" || PathReason(fd.NewPath) != SkipTest || segment.Language(fd.NewPath) == "" {
			continue
		}
		var added []int
		for _, h := range fd.Hunks {
			n := h.NewStart
			for _, l := range h.Lines {
				switch l[0] {
				case '+':
					added = append(added, n)
					n++
				case ' ':
					n++
				}
			}
		}
		if len(added) == 0 {
			continue
		}
		if g == nil {
			if g, err = openGit(gitDir); err != nil {
				return nil, err
			}
		}
		src, found, err := g.blob(sha + ":" + fd.NewPath)
		if err != nil {
			return nil, err
		}
		if !found {
			continue
		}
		seen := map[string]bool{}
		for _, u := range segment.File(fd.NewPath, src) {
			if u.Kind != segment.KindFunction && u.Kind != segment.KindMethod || u.Symbol == "" || seen[u.Symbol] {
				continue
			}
			for _, l := range added {
				if u.StartLine <= l && l <= u.EndLine {
					seen[u.Symbol] = true
					out = append(out, u)
					break
				}
			}
		}
	}
	return out, nil
}
