package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/index"
	"github.com/missingcomplement/mss/internal/cliargs"
	"github.com/missingcomplement/mss/internal/serbench"
	"github.com/missingcomplement/mss/retrieve"
	"github.com/missingcomplement/mss/trajectory"
	"github.com/spf13/cobra"
)

func init() { addCommand(newStateCmd()) }

// newStateCmd builds the state command tree; tests build a fresh one per
// run so flag values never leak between runs.
func newStateCmd() *cobra.Command {
	stateCmd := &cobra.Command{
		Use:   "state",
		Short: "Build state cards",
	}
	var (
		format, input, repo, db, rev, stateID string
		step                                  int
	)
	from := &cobra.Command{
		Use:   "from-trajectory",
		Short: "Turn an agent trajectory into a state card with observed evidence aligned to units",
		Long: `Read an agent trajectory and print the state card (mss.State JSON) after
its first --step steps: issue, latest information need, hypothesis and
subgoal, opened files, search queries, and observed_spans: the spans of
every index unit overlapping lines the trajectory showed the agent (file
views and search results that carried source).

Formats: serbench (an item with trajectory_prefix, JSONL of items with
--state-id, or a JSON array of steps), swe-agent (.traj), jsonl (one tool
call per line: {"tool", "path", "start_line", "end_line", "query",
"output", "results"}; see docs/serve.md). A file compressed with gzip
(items.jsonl.gz) is read decompressed.

Alignment: --repo indexes the repository (a work tree, or a git directory
at --rev; pass the trajectory's base commit) and --db names the index file
(an existing one is opened when --repo is absent). Without either, the
seen lines are printed as the trajectory gives them. A summary goes to
stderr.`,
		Args: cliargs.None,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// Read as the serbench commands read their files: a gzip
			// stream (items.jsonl.gz, as the release ships them) is
			// decompressed.
			f, err := serbench.Open(input)
			if err != nil {
				return err
			}
			defer f.Close()
			tr, err := trajectory.Parse(trajectory.Format(format), input, f, trajectory.Options{StateID: stateID})
			if err != nil {
				return err
			}
			opts := trajectory.StateOptions{Steps: step}
			if repo != "" || db != "" {
				units, err := alignmentUnits(cmd, repo, db, rev)
				if err != nil {
					return err
				}
				opts.Units = units
			}
			st, al, err := tr.State(opts)
			if err != nil {
				return fmt.Errorf("%s: %w", input, err)
			}
			// The card must be one every surface accepts (mss recover,
			// /v1/recover, recover_evidence).
			if err := st.Validate(); err != nil {
				return fmt.Errorf("%s: the state card built from it is not usable: %w", input, err)
			}
			enc := json.NewEncoder(cmd.OutOrStdout())
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			if err := enc.Encode(st); err != nil {
				return err
			}
			steps := step
			if steps == 0 {
				steps = len(tr.Steps)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "mss: %d of %d steps; %d seen spans", steps, len(tr.Steps), al.Seen)
			if opts.Units != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), " -> %d units", al.Units)
				if len(al.Unaligned) > 0 {
					fmt.Fprintf(cmd.ErrOrStderr(), "; no unit for %v (kept as given)", al.Unaligned)
				}
			}
			if len(al.Outside) > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "; files outside the repository left out: %v", al.Outside)
			}
			fmt.Fprintln(cmd.ErrOrStderr())
			return nil
		},
	}
	fl := from.Flags()
	fl.StringVar(&format, "format", "", "trajectory format: serbench, swe-agent or jsonl (required)")
	fl.StringVar(&input, "input", "", "trajectory file, optionally gzip-compressed (required)")
	fl.StringVar(&repo, "repo", "", "repository to index for alignment: a work tree, or a git directory with --rev")
	fl.StringVar(&db, "db", "", "index file (with --repo: where to build it; alone: an existing index)")
	fl.StringVar(&rev, "rev", "", "commit to index from git (the trajectory's base commit)")
	fl.IntVar(&step, "step", 0, "use the first N steps (0: all)")
	fl.StringVar(&stateID, "state-id", "", "SERBench JSONL with several items: the item to read")
	from.MarkFlagRequired("format")
	from.MarkFlagRequired("input")
	stateCmd.AddCommand(from)
	return stateCmd
}

// alignmentUnits builds (or opens) the index units align against.
func alignmentUnits(cmd *cobra.Command, repo, db, rev string) ([]mss.Unit, error) {
	path := db
	if repo != "" {
		sum, err := index.Build(cmd.Context(), index.Options{Repo: repo, Rev: rev, DB: db, Derive: retrieve.Deriver})
		if err != nil {
			return nil, err
		}
		path = sum.DB
	} else if rev != "" {
		return nil, errors.New("--rev needs --repo")
	}
	ix, err := index.Open(path)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	units, err := ix.Units()
	if err != nil {
		return nil, err
	}
	if units == nil {
		units = []mss.Unit{}
	}
	return units, nil
}
