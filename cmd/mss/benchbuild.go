package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/missingcomplement/mss/internal/benchbuild"
	"github.com/missingcomplement/mss/internal/cliargs"
	"github.com/missingcomplement/mss/render"
	"github.com/spf13/cobra"
)

type benchBuildFlags struct {
	instances, alternatives []string
	issues                  []string
	mirrorRoot              string
	fromHistory             bool
	repos                   []string
	repoName                string
	rev, since              string
	limit, maxGroups        int
	maxFiles                int
	testNames, testSnippet  bool
	out                     string
}

func newBenchBuildCmd() *cobra.Command {
	var f benchBuildFlags
	cmd := &cobra.Command{
		Use:   "build --out DIR (--instances FILE... --mirror-root DIR | --from-history --repo GITDIR... [--issues FILE...])",
		Short: "Make repository-track states and labels from SWE-bench-format instances or a repository's history",
		Args:  cliargs.None,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runBenchBuild(cmd, f)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.instances, "instances", nil, "SWE-bench JSON/JSONL or Multi-SWE-bench JSONL instance file (repeatable)")
	fl.StringArrayVar(&f.alternatives, "alternatives", nil, "JSONL of other passing fixes, {\"instance_id\", \"patch\"} a line (repeatable)")
	fl.StringVar(&f.mirrorRoot, "mirror-root", "", "directory holding git directories as <owner>+<name>/repo or <owner>+<name>.git")
	fl.BoolVar(&f.fromHistory, "from-history", false, "mine the fix commits of --repo instead of reading instances")
	fl.StringArrayVar(&f.repos, "repo", nil, "git directory to mine (repeatable); its name is read from <owner>+<name>/repo or <owner>+<name>.git")
	fl.StringArrayVar(&f.issues, "issues", nil, "with --from-history: filed issues, a JSON object of instance id (<owner>__<name>-<pull request number>) to issue text, or JSONL of {\"instance_id\", \"problem_statement\"}; mines only the commits that merged their pull requests, with the issues' texts (repeatable)")
	fl.StringVar(&f.repoName, "repo-name", "", "owner/name of the one --repo, when its directory does not say it")
	fl.StringVar(&f.rev, "rev", "HEAD", "commit whose first-parent history is mined")
	fl.StringVar(&f.since, "since", "", "mine only commits after this date: YYYY-MM-DD (midnight UTC) or RFC 3339 (2020-01-02T15:04:05Z)")
	fl.IntVar(&f.limit, "limit", 0, "mine at most this many fix commits per repository (0: all)")
	fl.IntVar(&f.maxFiles, "max-files", 50, "commits changing more files are not taken as fixes")
	fl.BoolVar(&f.testNames, "test-names", false, "with --from-history: name the test functions the fix adds or changes in latest_test_output")
	fl.BoolVar(&f.testSnippet, "test-snippet", false, "with --from-history: end the issue text with the first test function the fix adds or changes, fenced as code")
	fl.IntVar(&f.maxGroups, "max-groups", benchbuild.DefaultMaxGroups, "instances needing more groups are skipped")
	fl.StringVar(&f.out, "out", "", "output directory: states.jsonl and labels.jsonl")
	cmd.MarkFlagRequired("out")
	return cmd
}

// repoNameOf reads owner/name from a mirror layout path.
func repoNameOf(gitDir string) (string, error) {
	d := filepath.Clean(gitDir)
	base := filepath.Base(d)
	if base == "repo" || base == ".git" {
		base = filepath.Base(filepath.Dir(d))
	}
	base = strings.TrimSuffix(base, ".git")
	owner, name, _ := strings.Cut(base, "+")
	repo := owner + "/" + name
	if benchbuild.CheckRepoName(repo) != nil {
		return "", fmt.Errorf("--repo %s: cannot read owner/name from the directory name (want <owner>+<name>/repo or <owner>+<name>.git); give --repo-name", gitDir)
	}
	return repo, nil
}

func runBenchBuild(cmd *cobra.Command, f benchBuildFlags) error {
	ctx := cmd.Context()
	stderr := cmd.ErrOrStderr()
	switch {
	case f.out == "":
		return fmt.Errorf("--out is empty: give the output directory")
	case f.fromHistory && len(f.instances) > 0:
		return fmt.Errorf("--from-history and --instances exclude each other")
	case f.fromHistory && len(f.repos) == 0:
		return fmt.Errorf("--from-history needs --repo GITDIR")
	case !f.fromHistory && len(f.instances) == 0:
		return fmt.Errorf("give --instances FILE (with --mirror-root) or --from-history --repo GITDIR")
	case !f.fromHistory && f.mirrorRoot == "":
		return fmt.Errorf("--instances needs --mirror-root DIR")
	case f.repoName != "" && len(f.repos) != 1:
		return fmt.Errorf("--repo-name names the one --repo; give exactly one")
	case f.repoName != "" && benchbuild.CheckRepoName(f.repoName) != nil:
		return fmt.Errorf("--repo-name: %v", benchbuild.CheckRepoName(f.repoName))
	case len(f.alternatives) > 0 && f.fromHistory:
		return fmt.Errorf("--alternatives go with --instances")
	case f.testNames && !f.fromHistory:
		return fmt.Errorf("--test-names goes with --from-history")
	case f.testSnippet && !f.fromHistory:
		return fmt.Errorf("--test-snippet goes with --from-history")
	case len(f.issues) > 0 && !f.fromHistory:
		return fmt.Errorf("--issues goes with --from-history")
	case f.limit < 0:
		return fmt.Errorf("--limit %d: want a number of commits, or 0 for all", f.limit)
	case f.maxGroups < 1:
		return fmt.Errorf("--max-groups %d: want a positive number", f.maxGroups)
	case f.maxFiles < 1:
		return fmt.Errorf("--max-files %d: want a positive number", f.maxFiles)
	}
	var since time.Time
	if f.since != "" {
		var err error
		if since, err = benchbuild.ParseDate(f.since); err != nil {
			return fmt.Errorf("--since %v", err)
		}
	}
	b := benchbuild.NewBuilder(f.mirrorRoot)
	defer b.Close()
	b.MaxGroups = f.maxGroups
	read := 0
	var bad []benchbuild.BadRecord
	if f.fromHistory {
		dirs := map[string]string{}
		var names []string
		for _, d := range f.repos {
			name := f.repoName
			if name == "" {
				var err error
				if name, err = repoNameOf(d); err != nil {
					return err
				}
			}
			if _, dup := dirs[name]; dup {
				return fmt.Errorf("--repo: %s given twice", name)
			}
			dirs[name] = d
			names = append(names, name)
		}
		b.GitDir = func(repo string) (string, error) {
			if d, ok := dirs[repo]; ok {
				return d, nil
			}
			return "", fmt.Errorf("repository %s: not given with --repo", repo)
		}
		filed, other, badIssues, err := readIssues(f.issues, names)
		if err != nil {
			return err
		}
		bad = append(bad, badIssues...)
		printCounts(stderr, "issues of repositories not given with --repo, left out", other)
		for _, name := range names {
			o := benchbuild.HistoryOptions{
				GitDir: dirs[name], Repo: name, Rev: f.rev, Since: since, Limit: f.limit, MaxFiles: f.maxFiles, TestNames: f.testNames,
				TestSnippet: f.testSnippet,
			}
			what := "fix commit"
			if filed != nil {
				o.Issues, what = filed[name], "filed issue"
			}
			ins, skipped, err := benchbuild.History(ctx, o)
			if err != nil {
				return err
			}
			fmt.Fprintf(stderr, "%s: %s", name, render.Count(len(ins), what, ""))
			printCounts(stderr, "; other commits", skipped)
			read += len(ins)
			for _, in := range ins {
				b.Add(ctx, in)
			}
		}
	} else {
		for _, p := range f.alternatives {
			alts, badAlts, err := benchbuild.ReadAlternatives(p)
			if err != nil {
				return err
			}
			bad = append(bad, badAlts...)
			b.AddAlternatives(alts)
		}
		for _, p := range f.instances {
			ins, badIns, err := benchbuild.ReadInstances(p)
			if err != nil {
				return err
			}
			bad = append(bad, badIns...)
			read += len(ins)
			for _, in := range ins {
				b.Add(ctx, in)
			}
		}
	}
	if read == 0 && len(bad) == 0 {
		// Nothing to build: an empty track would replace an earlier one.
		return fmt.Errorf("no instance mined from the history (the counts are above); nothing written to %s", f.out)
	}
	if read == 0 && len(bad) > 0 {
		// Every record was bad: a wrong file or format, not a dataset
		// with a few unusable records. Nothing is written.
		for _, r := range bad {
			fmt.Fprintf(stderr, "bad record: %s\n", r)
		}
		return fmt.Errorf("no usable instance (the bad records are above); nothing written to %s", f.out)
	}
	nIns, nStates := b.Count()
	if nIns == 0 {
		// Every instance was skipped: an empty track, which every reader
		// refuses, would replace an earlier one. Nothing is written.
		fmt.Fprintf(stderr, "read %s; built none\n", render.Count(read, "instance", ""))
	} else {
		if err := b.Write(f.out); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "read %s; built %s, %s into %s\n", render.Count(read, "instance", ""), render.Count(nIns, "instance", ""), render.Count(nStates, "state", ""), f.out)
	}
	printCounts(stderr, "instances skipped", b.SkippedInstances)
	printCounts(stderr, "files left out", b.SkippedFiles)
	for _, r := range bad {
		fmt.Fprintf(stderr, "bad record skipped: %s\n", r)
	}
	for _, p := range b.Problems {
		fmt.Fprintln(stderr, p)
	}
	for _, w := range b.Warnings {
		fmt.Fprintln(stderr, w)
	}
	for _, n := range b.AlternativeNotes() {
		fmt.Fprintln(stderr, n)
	}
	if nIns == 0 {
		return fmt.Errorf("no instance built (the reasons are above); nothing written to %s", f.out)
	}
	return nil
}

// readIssues reads the --issues files and sorts the issues by the --repo
// they belong to (names, owner/name matched without regard to case) and
// pull request, every --repo with its map, empty or not; nil when no file
// is given. other counts the issues of repositories not given, by
// repository; a pull request listed twice is a bad record.
func readIssues(paths, names []string) (filed map[string]map[int]benchbuild.IssueText, other map[string]int, bad []benchbuild.BadRecord, err error) {
	if len(paths) == 0 {
		return nil, nil, nil, nil
	}
	byLower := map[string]string{}
	for _, n := range names {
		byLower[strings.ToLower(n)] = n
	}
	filed, other = map[string]map[int]benchbuild.IssueText{}, map[string]int{}
	for _, n := range names {
		filed[n] = map[int]benchbuild.IssueText{}
	}
	for _, p := range paths {
		issues, badIssues, err := benchbuild.ReadIssueTexts(p)
		if err != nil {
			return nil, nil, nil, err
		}
		bad = append(bad, badIssues...)
		for _, it := range issues {
			name, ok := byLower[strings.ToLower(it.Repo)]
			if !ok {
				other[it.Repo]++
				continue
			}
			if first, dup := filed[name][it.Pull]; dup {
				bad = append(bad, benchbuild.BadRecord{Where: it.Where, Err: fmt.Sprintf("field instance_id: %s: pull request %d of %s given before, at %s", it.InstanceID, it.Pull, name, first.Where)})
				continue
			}
			filed[name][it.Pull] = it
		}
	}
	return filed, other, bad, nil
}

// printCounts prints "label: reason N, reason N" in reason order, or
// nothing when the map is empty.
func printCounts(w io.Writer, label string, m map[string]int) {
	if len(m) == 0 {
		if strings.HasPrefix(label, ";") {
			fmt.Fprintln(w)
		}
		return
	}
	fmt.Fprintf(w, "%s: %s\n", label, countsLine(m))
}
