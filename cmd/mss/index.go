package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
	"unicode/utf8"

	"github.com/missingcomplement/mss/index"
	"github.com/missingcomplement/mss/internal/cliargs"
	"github.com/missingcomplement/mss/retrieve"
	"github.com/missingcomplement/mss/segment"
	"github.com/missingcomplement/mss/server"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

func init() { addCommand(newIndexCmd()) }

// newIndexCmd builds "mss index" and its "check" subcommand.
func newIndexCmd() *cobra.Command {
	var (
		opts   index.Options
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "index",
		Short: "Index a repository into source units (create, or update incrementally)",
		Long: `Index a repository into intact source units (functions, methods, class
headers, module runs, line windows) stored in one SQLite file, with the
retrieval structures derived from them (BM25 postings of code-aware
terms, name tables, edges) beside it. An existing compatible index is updated
incrementally: only files whose git blob changed are parsed again.

--repo is a work tree (indexed as it is on disk, .gitignore respected) or
a git directory, bare or .git (indexed at --rev, default HEAD, without a
checkout). The index goes to --db, by default <repo>/.mss/index.db for a
work tree.`,
		Args: cliargs.None,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.MaxFileBytes < 1 {
				return fmt.Errorf("--max-file-bytes %d: want a positive number of bytes", opts.MaxFileBytes)
			}
			if opts.MaxTextBytes < 1 {
				return fmt.Errorf("--max-text-bytes %d: want a positive number of bytes", opts.MaxTextBytes)
			}
			if opts.Workers < 0 {
				return fmt.Errorf("--workers %d: want a positive number, or 0 for all CPUs", opts.Workers)
			}
			stderr := cmd.ErrOrStderr()
			var bar *progressbar.ProgressBar
			if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) && !asJSON {
				opts.Progress = func(done, total int) {
					if bar == nil {
						bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(stderr),
							progressbar.OptionSetDescription("parsing"), progressbar.OptionShowCount(),
							progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(100_000_000))
					}
					bar.Set(done)
				}
			}
			opts.Logf = func(format string, args ...any) {
				fmt.Fprintf(stderr, "mss index: "+format+"\n", args...)
			}
			opts.Derive = retrieve.Deriver
			defer indexGC()()
			sum, err := index.Build(cmd.Context(), opts)
			if bar != nil {
				bar.Finish()
			}
			if err != nil {
				return err
			}
			if asJSON {
				// Languages by the names the text summary prints.
				named := *sum
				named.Languages = map[string]int{}
				for l, n := range sum.Languages {
					named.Languages[languageName(l)] += n
				}
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(&named)
			}
			printSummary(cmd.OutOrStdout(), sum)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Repo, "repo", ".", "repository: a work tree or a git directory (bare or .git)")
	f.StringVar(&opts.Rev, "rev", "", "commit to index from git (default: the work tree's files; HEAD for a git directory)")
	f.StringVar(&opts.DB, "db", "", "index file (default <repo>/.mss/index.db for a work tree)")
	sizeFlags(cmd, &opts.MaxFileBytes, &opts.MaxTextBytes)
	f.BoolVar(&opts.IncludeVendored, "include-vendored", false, "index vendored code (vendor/, third_party/, node_modules/, copied-in test frameworks such as gtest and Catch2, *.min.js)")
	f.BoolVar(&opts.IncludeGenerated, "include-generated", false, "index generated files (protobuf output, lock files, \"Code generated\" headers)")
	f.IntVar(&opts.Workers, "workers", 0, "parallel parsers (default: all CPUs)")
	f.BoolVar(&asJSON, "json", false, "print the summary as JSON")
	f.BoolVar(&opts.Rebuild, "rebuild", false, "write the index from scratch, even over a compatible one")
	f.BoolVar(&opts.IntegrityCheck, "integrity-check", true, "check an existing index with SQLite's quick_check before updating it (rebuild it if damaged), and parse again the files whose stored units disagree with their hashes")

	var checkDB, checkRepo string
	var checkAll bool
	check := &cobra.Command{
		Use:   "check",
		Short: "Verify an index: versions, counts, unit hashes and line tiling",
		Args:  cliargs.None,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ix, err := openReadIndex(checkDB, checkRepo)
			if err != nil {
				return err
			}
			defer ix.Close()
			if err := ix.CheckAll(checkAll); err != nil {
				return err
			}
			files, err := ix.Files()
			if err != nil {
				return err
			}
			indexed := 0
			for _, f := range files {
				if f.Units > 0 {
					indexed++
				}
			}
			m := ix.Meta()
			fmt.Fprintf(cmd.OutOrStdout(), "ok: %s: format %d, feature %d, %d files (%d indexed, %d skipped), %d units, commit %s, retrieval structures %s\n",
				displayPath(ix.Path()), m.FormatVersion, m.FeatureVersion, m.Files, indexed, m.Files-indexed, m.Units, orNone(m.Commit), structuresOf(m))
			return nil
		},
	}
	readIndexFlags(check, &checkDB, &checkRepo)
	check.Flags().BoolVar(&checkAll, "all", true, "hash every unit (false: a sample)")
	cmd.AddCommand(check, newIndexLsCmd(), newIndexShowCmd())
	return cmd
}

// newIndexLsCmd builds "mss index ls": the files of an index, with their
// unit counts, language and skip reason.
func newIndexLsCmd() *cobra.Command {
	var (
		db, repo    string
		skippedOnly bool
		lang        string
		asJSON      bool
	)
	cmd := &cobra.Command{
		Use:   "ls",
		Short: "List the files of an index: units, language, and why a file was skipped",
		Args:  cliargs.None,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if lang != "" && lang != "text" && !slices.Contains(segment.Languages(), lang) {
				return fmt.Errorf("--lang %q: want one of %s, text", lang, strings.Join(segment.Languages(), ", "))
			}
			ix, err := openReadIndex(db, repo)
			if err != nil {
				return err
			}
			defer ix.Close()
			files, err := ix.Files()
			if err != nil {
				return err
			}
			type row struct {
				index.File
				Skipped string `json:"skipped,omitempty"` // index.SkipReason, for files without units
			}
			rows := []row{}
			for _, f := range files {
				if asJSON && !utf8.ValidString(f.Path) {
					fmt.Fprintf(cmd.ErrOrStderr(), "mss: warning: %s left out: %v\n", displayPath(f.Path), server.ErrPathNotUTF8)
					continue
				}
				r := row{File: f}
				if f.Units == 0 {
					r.Skipped = index.SkipReason(f.Status)
				}
				if skippedOnly && r.Skipped == "" {
					continue
				}
				if lang != "" && languageName(f.Language) != lang && f.Language != lang {
					continue
				}
				rows = append(rows, r)
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(rows)
			}
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "PATH\tLANGUAGE\tUNITS\tSTATUS")
			for _, r := range rows {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", displayPath(r.Path), languageName(r.Language), r.Units, displayPath(fileStatus(r.File)))
			}
			return tw.Flush()
		},
	}
	readIndexFlags(cmd, &db, &repo)
	f := cmd.Flags()
	f.BoolVar(&skippedOnly, "skipped", false, "only files without units, with the reason")
	f.StringVar(&lang, "lang", "", "only files of this language (python, go, ..., text)")
	f.BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// newIndexShowCmd builds "mss index show PATH": one file's units.
func newIndexShowCmd() *cobra.Command {
	var (
		db, repo string
		asJSON   bool
		content  bool
	)
	cmd := &cobra.Command{
		Use:   "show PATH",
		Short: "List the units of one indexed file",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ix, err := openReadIndex(db, repo)
			if err != nil {
				return err
			}
			defer ix.Close()
			path := showPath(args[0], ix.Meta().Root)
			units, err := ix.FileUnits(path)
			if err != nil {
				return err
			}
			if len(units) == 0 {
				files, err := ix.Files()
				if err != nil {
					return err
				}
				for _, f := range files {
					if f.Path == path {
						return fmt.Errorf("%s has no units: %s", displayPath(path), displayPath(fileStatus(f)))
					}
				}
				return fmt.Errorf("%s is not in the index %s", displayPath(path), displayPath(ix.Path()))
			}
			out := cmd.OutOrStdout()
			if asJSON {
				if !utf8.ValidString(path) {
					return fmt.Errorf("%s: --json: %v; the text output names it", displayPath(path), server.ErrPathNotUTF8)
				}
				if !content {
					for i := range units {
						units[i].Content = ""
					}
				}
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(units)
			}
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "LINES\tKIND\tSYMBOL\tTOKENS\tID")
			for _, u := range units {
				fmt.Fprintf(tw, "%d-%d\t%s\t%s\t%d\t%s\n", u.StartLine, u.EndLine, u.Kind, orDash(u.Symbol), u.Tokens, u.ID)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			if content {
				for _, u := range units {
					fmt.Fprintf(out, "\n--- %s:%d-%d\n%s", displayPath(u.Path), u.StartLine, u.EndLine, u.Content)
				}
			}
			return nil
		},
	}
	readIndexFlags(cmd, &db, &repo)
	f := cmd.Flags()
	f.BoolVar(&asJSON, "json", false, "print JSON")
	f.BoolVar(&content, "content", false, "also print each unit's content")
	return cmd
}

// structuresOf says which retrieval structures an index holds: its own,
// or those of an earlier build, kept for answers to overlay with the files
// changed since, until something derives them again.
func structuresOf(m index.Meta) string {
	if m.Derived == "" && m.Base != "" {
		return fmt.Sprintf("%s of an earlier build of %d units, overlaid with the files changed since (mss index derives them again)", m.Base, m.BaseUnits)
	}
	return orNone(m.Derived)
}

// showPath is the repository path show looks up for arg: as given, less
// a leading ./, or, for an absolute path inside the indexed work tree
// root, the path relative to it (what a shell's completion gives).
func showPath(arg, root string) string {
	if filepath.IsAbs(arg) && root != "" {
		inside := func(p string) (string, bool) {
			rel, err := filepath.Rel(root, p)
			ok := err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
			return filepath.ToSlash(rel), ok
		}
		if rel, ok := inside(filepath.Clean(arg)); ok {
			return rel
		}
		// The same file by another name of a directory above it (a
		// symbolic link such as macOS's /tmp).
		if real, err := filepath.EvalSymlinks(arg); err == nil {
			if rel, ok := inside(real); ok {
				return rel
			}
		}
	}
	return path.Clean(filepath.ToSlash(strings.TrimPrefix(arg, "./")))
}

// stderrLogf writes an index build's events (an index rebuilt, its
// structures derived again, and why) as "mss: " lines to w.
func stderrLogf(w io.Writer) func(format string, args ...any) {
	return func(format string, args ...any) {
		fmt.Fprintf(w, "mss: "+format+"\n", args...)
	}
}

// readIndexFlags adds --db and --repo to a command that reads an index.
func readIndexFlags(cmd *cobra.Command, db, repo *string) {
	cmd.Flags().StringVar(db, "db", "", "index file (default: <repo>/.mss/index.db, or .mss/index.db here without --repo)")
	cmd.Flags().StringVar(repo, "repo", "", "work tree whose index to read, as mss index --repo made it (<repo>/.mss/index.db)")
}

// openReadIndex opens the index a reading command reads (readIndexPath).
func openReadIndex(db, repo string) (*index.Index, error) {
	p, err := readIndexPath(db, repo)
	if err != nil {
		return nil, err
	}
	return index.Open(p)
}

// readIndexPath is the index file a reading command opens: --db as given,
// else the default index of --repo, or of the current directory. The
// default index is read only inside the work tree, as mss index writes
// it: a .mss directory or an index.db that is a symbolic link (a
// committed ".mss -> ../elsewhere") is refused.
func readIndexPath(db, repo string) (string, error) {
	switch {
	case db != "" && repo != "":
		return "", errors.New("--db and --repo both given: name the index file or the work tree, not both")
	case db != "":
		return db, nil
	}
	dir := repo
	if dir == "" {
		dir = "."
	}
	mssDir := filepath.Join(dir, ".mss")
	p := filepath.Join(mssDir, "index.db")
	for _, q := range []string{mssDir, p} {
		st, err := os.Lstat(q)
		if errors.Is(err, fs.ErrNotExist) {
			if repo == "" {
				return "", fmt.Errorf("no index at %s: run this in the work tree, or name it with --repo DIR (or the index file with --db FILE); mss index --repo DIR makes one", displayPath(p))
			}
			return "", fmt.Errorf("no index at %s: mss index --repo %s makes one (a git directory's index is where its --db put it)", displayPath(p), displayPath(repo))
		}
		if err == nil && st.Mode()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("%s is a symbolic link: refusing to read an index outside the repository (remove it, or name the index file with --db)", displayPath(q))
		}
	}
	return p, nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// languageName is a language as printed: "text" for files no grammar covers.
func languageName(l string) string {
	if l == "" {
		return "text"
	}
	return l
}

// displayPath quotes a path holding control characters or invalid UTF-8,
// so that a file name cannot write escape sequences to a terminal.
func displayPath(p string) string {
	if !utf8.ValidString(p) {
		return strconv.Quote(p)
	}
	for _, r := range p {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return strconv.Quote(p)
		}
	}
	return p
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func printSummary(w io.Writer, s *index.Summary) {
	fmt.Fprintf(w, "indexed %d of %d files, %d units (%d parsed, %d reused) in %.2fs\n", s.Files, s.Candidates, s.Units, s.Parsed, s.Reused, s.Seconds)
	if s.Commit != "" {
		fmt.Fprintf(w, "commit   %s\n", s.Commit)
	}
	fmt.Fprintf(w, "index    %s\n", displayPath(s.DB))
	if s.Rebuilt != "" {
		fmt.Fprintf(w, "rebuilt  %s\n", s.Rebuilt)
	}
	if s.Rederived != "" {
		fmt.Fprintf(w, "derived  again: %s\n", s.Rederived)
	}
	type count struct {
		name string
		n    int
	}
	var langs []count
	for l, n := range s.Languages {
		langs = append(langs, count{languageName(l), n})
	}
	sort.Slice(langs, func(i, j int) bool {
		if langs[i].n != langs[j].n {
			return langs[i].n > langs[j].n
		}
		return langs[i].name < langs[j].name
	})
	var parts []string
	for _, l := range langs {
		parts = append(parts, fmt.Sprintf("%s %d", l.name, l.n))
	}
	if len(parts) == 0 {
		parts = append(parts, "none")
	}
	fmt.Fprintf(w, "units    %s\n", strings.Join(parts, ", "))
	if len(s.Skipped) > 0 {
		fmt.Fprintf(w, "skipped  %s files\n", countsLine(s.Skipped))
	}
	if len(s.LargeSource) > 0 {
		// Code left out for its size is the one skip that hides source;
		// name it, and how to bring it in.
		fmt.Fprintf(w, "too large: %s; --max-file-bytes raises the cap\n", index.NameFiles(s.LargeSource, 3))
	}
	if len(s.NotRead) > 0 {
		fmt.Fprintf(w, "not read %s (never followed)\n", countsLine(s.NotRead))
	}
}

// sizeFlags registers the size caps of indexed files, as mss index, mss
// serve and mss mcp take them.
func sizeFlags(cmd *cobra.Command, maxFile, maxText *int64) {
	f := cmd.Flags()
	f.Int64Var(maxFile, "max-file-bytes", index.DefaultMaxFileBytes, "skip files larger than this")
	f.Int64Var(maxText, "max-text-bytes", index.DefaultMaxTextBytes, "skip files no grammar parses (documentation, configuration, data) larger than this")
}

// countsLine gives counts by name as "a 1, b 2", names sorted.
func countsLine(counts map[string]int) string {
	parts := make([]string, 0, len(counts))
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
	}
	return strings.Join(parts, ", ")
}

// fileStatus is what ls and show say of a file: its status, or for a file
// without units why it has none (an empty file is "empty", not "parsed").
func fileStatus(f index.File) string {
	if f.Units > 0 {
		return f.Status
	}
	switch skipped := index.SkipReason(f.Status); {
	case skipped == "empty":
		return "empty"
	case !strings.HasPrefix(f.Status, skipped):
		return skipped + ": " + f.Status
	}
	return f.Status
}
