package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/missingcomplement/mss/index"
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
headers, module runs, line windows) stored in one SQLite file with a
code-aware full-text index. An existing compatible index is updated
incrementally: only files whose git blob changed are parsed again.

--repo is a work tree (indexed as it is on disk, .gitignore respected) or
a git directory, bare or .git (indexed at --rev, default HEAD, without a
checkout). The index goes to --db, by default <repo>/.mss/index.db for a
work tree.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
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
			sum, err := index.Build(cmd.Context(), opts)
			if bar != nil {
				bar.Finish()
			}
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(sum)
			}
			printSummary(cmd.OutOrStdout(), sum)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Repo, "repo", ".", "repository: a work tree or a git directory (bare or .git)")
	f.StringVar(&opts.Rev, "rev", "", "commit to index from git (default: the work tree's files; HEAD for a git directory)")
	f.StringVar(&opts.DB, "db", "", "index file (default <repo>/.mss/index.db for a work tree)")
	f.Int64Var(&opts.MaxFileBytes, "max-file-bytes", index.DefaultMaxFileBytes, "skip files larger than this")
	f.BoolVar(&opts.IncludeVendored, "include-vendored", false, "index vendored code (vendor/, third_party/, node_modules/, bundled gtest/gmock, *.min.js)")
	f.BoolVar(&opts.IncludeGenerated, "include-generated", false, "index generated files (protobuf output, lock files, \"Code generated\" headers)")
	f.IntVar(&opts.Workers, "workers", 0, "parallel parsers (default: all CPUs)")
	f.BoolVar(&asJSON, "json", false, "print the summary as JSON")

	var checkDB string
	var checkAll bool
	check := &cobra.Command{
		Use:   "check",
		Short: "Verify an index: versions, counts, unit hashes and line tiling",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ix, err := index.Open(checkDB)
			if err != nil {
				return err
			}
			defer ix.Close()
			if err := ix.CheckAll(checkAll); err != nil {
				return err
			}
			m := ix.Meta()
			fmt.Fprintf(cmd.OutOrStdout(), "ok: %s: format %d, feature %d, %d files, %d units, commit %s\n",
				checkDB, m.FormatVersion, m.FeatureVersion, m.Files, m.Units, orNone(m.Commit))
			return nil
		},
	}
	check.Flags().StringVar(&checkDB, "db", ".mss/index.db", "index file")
	check.Flags().BoolVar(&checkAll, "all", true, "hash every unit (false: a sample)")
	cmd.AddCommand(check)
	return cmd
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func printSummary(w io.Writer, s *index.Summary) {
	fmt.Fprintf(w, "indexed %d files, %d units (%d parsed, %d reused) in %.2fs\n", s.Files, s.Units, s.Parsed, s.Reused, s.Seconds)
	if s.Commit != "" {
		fmt.Fprintf(w, "commit   %s\n", s.Commit)
	}
	fmt.Fprintf(w, "index    %s\n", s.DB)
	if s.Rebuilt != "" {
		fmt.Fprintf(w, "rebuilt  %s\n", s.Rebuilt)
	}
	type count struct {
		name string
		n    int
	}
	var langs []count
	for l, n := range s.Languages {
		if l == "" {
			l = "text"
		}
		langs = append(langs, count{l, n})
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
	fmt.Fprintf(w, "units    %s\n", strings.Join(parts, ", "))
	if len(s.Skipped) > 0 {
		keys := make([]string, 0, len(s.Skipped))
		for k := range s.Skipped {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts = parts[:0]
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%s %d", k, s.Skipped[k]))
		}
		fmt.Fprintf(w, "skipped  %s files\n", strings.Join(parts, ", "))
	}
}
