package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/missingcomplement/mss"
	_ "github.com/missingcomplement/mss/controller" // registers complement, bm25, rrf, mmr, similarity
	"github.com/missingcomplement/mss/internal/cliargs"
	"github.com/missingcomplement/mss/pipeline"
	"github.com/missingcomplement/mss/render"
	"github.com/missingcomplement/mss/server"
	"github.com/spf13/cobra"
)

func init() { addCommand(newRecoverCmd()) }

// newRecoverCmd builds "mss recover"; each call has its own flags.
func newRecoverCmd() *cobra.Command {
	var (
		repo, db, statePath, method string
		order, issue, need          string
		budget, maxUnits            int
		asJSON, explain, exact      bool
	)
	cmd := &cobra.Command{
		Use:   "recover",
		Short: "Recover the missing complement of evidence for an agent state",
		Long: `Read a state card and print the few intact source units that cover what
the state still lacks, within the token budget, skipping what it has read.

The state file is one JSON object with the state-card fields (issue,
information_need, current_observation, current_hypothesis, current_subgoal,
opened_files, search_queries, observed_spans, observed_evidence_ids); "-"
reads standard input. Without a file, --issue and --need give a card of
those two fields (nothing read yet), checked as a file's would be. With
--repo and no --db the repository is indexed (incrementally) into
<repo>/.mss/index.db first; --db opens an existing index. Without
--method the default policy, complement, answers.

After an edit, the retrieval structures stored with the index are not
derived again (which costs what the whole repository costs): they are
overlaid with the files changed since, which costs what the change
costs. An overlay's BM25 statistics, names and files are exact; its
semantic view and its index edges are those of the stored structures
until they are derived again (by mss index, --exact, or when more than a
quarter of the units changed). --exact derives them first. --db overlays
an index's kept structures the same way (--exact: builds the engine from
the units, which is slower).

Set MSS_EMBED_BASE_URL and MSS_EMBED_MODEL (and MSS_EMBED_API_KEY) to add
an embedding view through an OpenAI-compatible endpoint.`,
		Args: cliargs.None,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if repo == "" && db == "" {
				return errors.New("name the repository (--repo DIR) or an index (--db FILE)")
			}
			if budget <= 0 {
				return fmt.Errorf("--budget %d: want a positive number of tokens", budget)
			}
			if maxUnits <= 0 {
				return fmt.Errorf("--max-units %d: want a positive number", maxUnits)
			}
			prices, err := flagPrices()
			if err != nil {
				return err
			}
			var st *mss.State
			switch {
			case statePath != "" && (issue != "" || need != ""):
				return errors.New("give the state as a card (--state) or as text (--issue, --need), not both")
			case statePath != "":
				st, err = readStateCard(statePath, cmd.InOrStdin())
			case issue != "" || need != "":
				st, err = textStateCard(issue, need)
			default:
				return errors.New("name a state card (--state FILE, - for standard input) or give the state's text (--issue, --need)")
			}
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			ctl, _, err := prepareMethod(ctx, method)
			if err != nil {
				return err
			}
			o := pipeline.Options{Controller: ctl, Repo: repo, Overlay: !exact}
			o.Index.Logf = stderrLogf(cmd.ErrOrStderr())
			if o.Engine.Order, err = orderModel(order); err != nil {
				return err
			}
			if db != "" {
				o.Repo, o.DB = "", db
			}
			p, err := pipeline.Open(ctx, o)
			if err != nil {
				return err
			}
			defer p.Close()
			lim := pipeline.DefaultLimits()
			lim.Budget, lim.MaxUnits = budget, maxUnits
			q, err := p.Candidates(ctx, st, lim)
			if err != nil {
				return err
			}
			for _, w := range q.Warnings {
				fmt.Fprintln(cmd.ErrOrStderr(), "mss: warning:", w)
			}
			ans, err := p.Select(ctx, ctl, q, lim, pipeline.SelectOptions{})
			if err != nil {
				return err
			}
			leftOut := ans.Warnings[len(q.Warnings):] // what checking the units against the files found
			for _, w := range leftOut {
				fmt.Fprintln(cmd.ErrOrStderr(), "mss: warning:", w)
			}
			res, cands := &ans.Result, ans.Candidates
			usage := usageReport{prices: prices}
			usage.add(res)
			usage.print(cmd.ErrOrStderr())
			warnFallback(cmd.ErrOrStderr(), res)
			out := cmd.OutOrStdout()
			if asJSON {
				var unnamable []string
				res.Units, unnamable = server.DropUnnamable(res.Units)
				for _, w := range unnamable {
					fmt.Fprintln(cmd.ErrOrStderr(), "mss: warning:", w)
				}
				return writeRecoverJSON(out, res)
			}
			if len(res.Units) == 0 {
				fmt.Fprintln(cmd.ErrOrStderr(), "mss: no units recovered:", noUnitsReason(res.Trace, len(leftOut)))
			}
			if res.Fallback != nil {
				fmt.Fprintln(out, fallbackHeader(res))
			}
			if err := render.Text(out, res.Units); err != nil {
				return err
			}
			if explain {
				writeExplain(out, res, cands, budget)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&repo, "repo", "", "repository to index and search (a work tree, a directory inside one, or a plain directory)")
	f.StringVar(&db, "db", "", "existing index file to search (instead of --repo)")
	f.StringVar(&statePath, "state", "", `state card JSON file, "-" for standard input`)
	f.StringVar(&issue, "issue", "", "without --state: the issue's text, the card's issue field")
	f.StringVar(&need, "need", "", "without --state: what the next step needs to know, the card's information_need field")
	f.IntVar(&budget, "budget", mss.DefaultBudget, "source-token budget of the answer (tokens = ceil(bytes/4))")
	f.IntVar(&maxUnits, "max-units", mss.DefaultMaxUnits, "most units to return")
	f.StringVar(&method, "method", "complement", "evidence-selection method (see mss methods)")
	f.BoolVar(&asJSON, "json", false, `print {"units": [...], "method", "trace"} as JSON`)
	f.BoolVar(&explain, "explain", false, "after the units, print why each was chosen (views, requirements)")
	f.StringVar(&order, "order", "", orderHelp)
	f.BoolVar(&exact, "exact", false, "after an edit, derive the retrieval structures again (--repo) or build them from the units (--db) rather than overlay them")
	return cmd
}

// textStateCard is the card of an issue and an information need given
// on the command line, read as a card file would be (mss.ParseState).
// Text that is not UTF-8 is refused as in a card file (json.Marshal
// would write U+FFFD for it).
func textStateCard(issue, need string) (*mss.State, error) {
	const source = "--issue/--need"
	card := map[string]string{}
	for _, f := range []struct{ name, v string }{{"issue", issue}, {"information_need", need}} {
		if f.v == "" {
			continue
		}
		if !utf8.ValidString(f.v) {
			return nil, &mss.StateError{Source: source, Field: f.name, Msg: "not UTF-8 text"}
		}
		card[f.name] = f.v
	}
	data, err := json.Marshal(card)
	if err != nil {
		return nil, err
	}
	return mss.ParseState(source, data)
}

// readStateCard reads one state card through mss.DecodeState, the one
// reader every surface uses; errors name the file, line and field.
func readStateCard(path string, stdin io.Reader) (*mss.State, error) {
	if path == "-" {
		return mss.DecodeState("<stdin>", stdin)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("state %s: %w", path, err)
	}
	defer f.Close()
	return mss.DecodeState(path, f)
}

// noUnitsReason says why an answer holds no unit: the chosen units the
// check against the files left out (leftOut of them, each warned of), or
// else what the trace says.
func noUnitsReason(tr []mss.TraceStep, leftOut int) string {
	switch {
	case leftOut == 1:
		return "the one unit chosen was left out when checked against its file (the warning above says why)"
	case leftOut > 1:
		return fmt.Sprintf("the %d units chosen were left out when checked against their files (the warnings above say why)", leftOut)
	}
	// Why the selection chose nothing ("no unread candidate fits the
	// budget of 3 tokens"), before what it left uncovered.
	for _, st := range tr {
		if st.Stage == "select" && st.UnitID == "" && strings.HasPrefix(st.Reason, "no ") {
			return st.Reason
		}
	}
	for i := len(tr) - 1; i >= 0; i-- {
		if tr[i].UnitID == "" {
			return tr[i].Reason
		}
	}
	return "no candidate"
}

type recoverUnit struct {
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Symbol    string `json:"symbol,omitempty"`
	Tokens    int    `json:"tokens"`
	Content   string `json:"content"`

	// Symbols lists every symbol the unit holds.
	Symbols []string `json:"symbols,omitempty"`
	// Context is the signature of the definition a later part belongs
	// to, from line ContextLine (mss.Unit.Context).
	Context     string `json:"context,omitempty"`
	ContextLine int    `json:"context_line,omitempty"`

	// ContentBytes (ContextBytes) is the exact Content (Context), set
	// when it is not UTF-8 and content shows U+FFFD for the other bytes.
	ContentBytes []byte `json:"content_bytes,omitempty"`
	ContextBytes []byte `json:"context_bytes,omitempty"`
}

func writeRecoverJSON(w io.Writer, res *mss.Result) error {
	units := make([]recoverUnit, 0, len(res.Units))
	for _, u := range res.Units {
		units = append(units, recoverUnit{u.Path, u.StartLine, u.EndLine, u.Symbol, u.Tokens, u.Content, u.Symbols, u.Context, u.ContextLine, mss.ExactBytes(u.Content), mss.ExactBytes(u.Context)})
	}
	trace := res.Trace
	if trace == nil {
		trace = []mss.TraceStep{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(struct {
		Units    []recoverUnit   `json:"units"`
		Method   string          `json:"method"`
		Config   string          `json:"config,omitempty"`
		Fallback *mss.Fallback   `json:"fallback,omitempty"`
		Trace    []mss.TraceStep `json:"trace"`
	}{units, res.Method, res.Config, res.Fallback, trace})
}

// writeExplain prints an answer's method, size and trace, each step naming
// its unit by path, lines and symbol: a delivered unit (grown or joined
// from candidates, so an id of its own) as it was delivered, any other by
// the candidate it was.
func writeExplain(out io.Writer, res *mss.Result, cands []mss.Candidate, budget int) {
	fmt.Fprintf(out, "── method %s", res.Method)
	if res.Config != "" {
		fmt.Fprintf(out, " (%s)", res.Config)
	}
	fmt.Fprintf(out, ", %s, %d tokens of %d\n", render.Count(len(res.Units), "unit", ""), render.Tokens(res.Units), budget)
	where := map[string]string{}
	var ids []string
	name := func(u *mss.Unit) {
		if _, ok := where[u.ID]; !ok {
			ids = append(ids, u.ID)
		}
		where[u.ID] = fmt.Sprintf("%s:%d-%d", u.Path, u.StartLine, u.EndLine)
		if u.Symbol != "" {
			where[u.ID] += " " + u.Symbol
		}
	}
	for i := range cands {
		name(&cands[i].Unit)
	}
	for i := range res.Units {
		name(&res.Units[i])
	}
	pairs := make([]string, 0, 2*len(ids))
	for _, id := range ids {
		pairs = append(pairs, id, where[id])
	}
	named := strings.NewReplacer(pairs...)
	for _, s := range res.Trace {
		if s.UnitID == "" {
			fmt.Fprintf(out, "%-12s %s\n", s.Stage, s.Reason)
			continue
		}
		label := where[s.UnitID]
		if label == "" {
			label = s.UnitID
		}
		fmt.Fprintf(out, "%-12s %s  %s\n", s.Stage, label, named.Replace(s.Reason))
	}
}
