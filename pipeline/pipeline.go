// Package pipeline is the one way evidence is recovered: Open brings an
// index up to date (or opens one) and builds the retrieval engine over it;
// Recover validates a state card, ranks candidates, lets the method select
// (and grow) units, checks every chosen unit against the source it came
// from, and fits the answer into the budget. The CLI, the HTTP and MCP
// server, both benchmark runners and library users all call it, so a state
// card is read, checked and answered the same way everywhere.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/missingcomplement/mss"
	// The default method (DefaultMethod) and the baselines register
	// with the package, so a caller of Open needs no other import; the
	// model methods register with package semantic.
	_ "github.com/missingcomplement/mss/controller"
	"github.com/missingcomplement/mss/index"
	"github.com/missingcomplement/mss/render"
	"github.com/missingcomplement/mss/retrieve"
)

// DefaultMethod answers when Options names no method.
const DefaultMethod = "complement"

// Limits bound one answer. Every field must be positive: a caller that
// wants the defaults starts from DefaultLimits.
type Limits struct {
	Budget     int // source tokens delivered (tokens = ceil(bytes/4))
	MaxUnits   int // most units delivered
	MinUnits   int // fewest units a method aims for (capped at MaxUnits)
	Candidates int // ranked units the method chooses from
}

// DefaultLimits is the one place the defaults of an answer live.
func DefaultLimits() Limits {
	return Limits{
		Budget:     mss.DefaultBudget,
		MaxUnits:   mss.DefaultMaxUnits,
		MinUnits:   mss.DefaultMinUnits,
		Candidates: retrieve.DefaultCandidates,
	}
}

// Check refuses a zero or negative limit, naming it.
func (l Limits) Check() error {
	for _, f := range []struct {
		name string
		v    int
	}{{"budget", l.Budget}, {"max units", l.MaxUnits}, {"min units", l.MinUnits}, {"candidates", l.Candidates}} {
		if f.v <= 0 {
			return fmt.Errorf("%s %d: want a positive number", f.name, f.v)
		}
	}
	return nil
}

// Options configures Open.
type Options struct {
	// Repo is a work tree, a plain directory or a git directory. With Repo
	// set, Open builds (or incrementally updates) the index first.
	Repo string
	// Rev is the commit to index when Repo is a git directory.
	Rev string
	// DB is the index file. With Repo empty it is opened as it is; with
	// Repo set and DB empty the index lives in <Repo>/.mss/index.db.
	DB string
	// Index holds further build options; its Repo, Rev and DB are set
	// from the fields above.
	Index index.Options
	// Engine configures retrieval. Its Embedder, when nil, comes from the
	// MSS_EMBED_* variables (retrieve.NewEmbedderFromEnv) unless NoEnv.
	Engine retrieve.Options
	NoEnv  bool
	// NoDerive builds the index without deriving its stored retrieval
	// structures: a build that changes units keeps those it had as the
	// index's base (index.Meta.Base), and the engine is built in memory
	// (or overlaid, with Overlay). Quicker after a small edit than
	// deriving, which a caller may do later (a server does, in the
	// background).
	NoDerive bool
	// Overlay answers from the structures an index keeps as its base,
	// overlaid with the files whose units changed since
	// (retrieve.OverlayIndex), when it has no current ones: that costs
	// what the change costs, and is provisional. With Repo, a build that
	// changes an existing index's units then leaves deriving to later
	// (index.Options.DeferDerive), and when no overlay can be made (too
	// much changed) the structures are derived after the build, unless
	// NoDerive; otherwise the engine is built from the units. For callers
	// that answer once per edit: the CLI, a server.
	Overlay bool
	// Controller answers Recover; when nil it is built from Method
	// ("" means DefaultMethod) and MethodOptions.
	Controller    mss.Controller
	Method        string
	MethodOptions mss.MethodOptions
	// Files, when set, is what answers are verified against. Otherwise
	// Open reads a work tree's files inside its root, or a commit's blobs
	// from the git directory, whichever the index was built from.
	Files Files
}

// Phases times the stages of Open, in seconds.
type Phases struct {
	Index  float64 // building or moving the index (0 when only opened)
	Engine float64 // loading the retrieval structures
}

// Pipeline answers states over one snapshot of a repository (or a pool).
// It is safe for concurrent use.
type Pipeline struct {
	ix     *index.Index // nil for a pool
	eng    *retrieve.Engine
	ctrl   mss.Controller
	files  Files // nil for a pool: its units are their own source
	known  map[string]bool
	warn   []string
	pool   []mss.Unit
	isPool bool
	meta   index.Meta
	tmpl   *retrieve.IssueTemplate
	sum    *index.Summary
	phases Phases
}

// Open brings the index up to date (when Options.Repo is set), opens it and
// builds the retrieval engine and the controller.
func Open(ctx context.Context, o Options) (_ *Pipeline, err error) {
	if o.Repo == "" && o.DB == "" {
		return nil, errors.New("pipeline: name a repository or an index file")
	}
	ctrl, err := newController(o)
	if err != nil {
		return nil, err
	}
	p := &Pipeline{ctrl: ctrl}
	t0 := time.Now()
	path := o.DB
	if o.Repo != "" {
		bo := o.Index
		bo.Repo, bo.Rev, bo.DB = o.Repo, o.Rev, o.DB
		if bo.Derive == nil && !o.NoDerive {
			bo.Derive = retrieve.Deriver
			bo.DeferDerive = o.Overlay
		}
		sum, err := index.Build(ctx, bo)
		if err != nil {
			return nil, err
		}
		p.sum, path = sum, sum.DB
	}
	t1 := time.Now()
	if p.ix, err = index.Open(path); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			p.Close()
		}
	}()
	p.meta = p.ix.Meta()
	eo := o.Engine
	if eo.Embedder == nil && !o.NoEnv {
		eo.Embedder = retrieve.NewEmbedderFromEnv()
	}
	p.files = o.Files
	if p.files == nil {
		if p.files, err = sourceFiles(p.meta, o); err != nil {
			return nil, err
		}
	}
	if eo.IssueTemplate == nil {
		var warn []string
		eo.IssueTemplate, warn = issueTemplate(p.ix, p.files)
		p.warn = append(p.warn, warn...)
	}
	p.tmpl = eo.IssueTemplate
	if o.Overlay && p.meta.Derived == "" {
		var oerr error
		if p.meta.Base != "" {
			p.eng, oerr = retrieve.OverlayIndex(ctx, p.ix, eo)
		}
		switch {
		case p.eng == nil && o.Repo != "" && !o.NoDerive:
			// Nothing to overlay, or too much changed: derive them now,
			// for this answer and the next.
			if err := p.ix.Close(); err != nil {
				return nil, err
			}
			p.ix = nil
			if err := index.Derive(ctx, path, retrieve.Deriver); err != nil && !errors.Is(err, index.ErrUnitsChanged) {
				return nil, err
			}
			if p.ix, err = index.Open(path); err != nil {
				return nil, err
			}
			p.meta = p.ix.Meta()
		case oerr != nil && !errors.Is(oerr, retrieve.ErrOverlayTooLarge):
			p.warn = append(p.warn, fmt.Sprintf("engine built from the units, not overlaid: %v", oerr))
		}
	}
	if p.eng == nil {
		if p.eng, err = retrieve.FromIndex(p.ix, eo); err != nil {
			return nil, err
		}
	}
	p.warn = append(p.warn, p.eng.Warnings()...)
	p.known = map[string]bool{}
	for _, path := range p.eng.Paths() {
		p.known[path] = true
	}
	p.phases = Phases{Index: t1.Sub(t0).Seconds(), Engine: time.Since(t1).Seconds()}
	if p.sum == nil {
		p.phases.Index = 0
	}
	return p, nil
}

// OpenPool builds a pipeline over a supplied candidate pool (the SERBench
// pool track): every pool unit is a candidate, and the units are their own
// source, so answers are not checked against files.
func OpenPool(pool []mss.Unit, o Options) (*Pipeline, error) {
	ctrl, err := newController(o)
	if err != nil {
		return nil, err
	}
	return &Pipeline{ctrl: ctrl, pool: pool, isPool: true}, nil
}

func newController(o Options) (mss.Controller, error) {
	if o.Controller != nil {
		return o.Controller, nil
	}
	m := o.Method
	if m == "" {
		m = DefaultMethod
	}
	ctrl, err := mss.NewMethod(m, o.MethodOptions)
	if err != nil {
		return nil, fmt.Errorf("pipeline: %w", err)
	}
	return ctrl, nil
}

// sourceFiles picks what answers are verified against: the files of the
// work tree the index was built from, or the blobs of its commit. The
// repository the caller named wins over the one the index file records, so
// an index file cannot send reads elsewhere; with only an index file named,
// its recorded source is the one there is.
func sourceFiles(m index.Meta, o Options) (Files, error) {
	if o.Repo != "" {
		m.Repo = o.Repo
	}
	switch m.Source {
	case "commit":
		gitDir := o.Engine.GitDir
		if gitDir == "" {
			gitDir = gitDirOf(m.Repo)
		}
		if gitDir == "" {
			return nil, fmt.Errorf("pipeline: the index was built from commit %s of %s, which is not a git directory here", m.Commit, m.Repo)
		}
		return NewCommitFiles(gitDir, m.Commit), nil
	default:
		root, err := NewTreeFiles(m.Repo)
		if err != nil {
			return nil, fmt.Errorf("pipeline: the index's repository: %w", err)
		}
		return root, nil
	}
}

// gitDirOf returns the git directory of repo ("" when it is none).
func gitDirOf(repo string) string {
	if repo == "" {
		return ""
	}
	out, err := exec.Command("git", "-C", repo, "rev-parse", "--absolute-git-dir").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// Close releases the index and the source readers.
func (p *Pipeline) Close() error {
	var errs []error
	if p.ix != nil {
		errs = append(errs, p.ix.Close())
	}
	if c, ok := p.files.(interface{ Close() error }); ok {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// issueTemplate reads the repository's issue templates (the files the
// index records that retrieve.IsIssueTemplate names) through files, so
// that the views leave their lines out of a state's text. A template it
// cannot read is a warning, not an error: answers are made without it.
func issueTemplate(ix *index.Index, files Files) (*retrieve.IssueTemplate, []string) {
	paths, err := ix.PathsLike(retrieve.IssueTemplatePatterns...)
	if err != nil {
		return nil, []string{fmt.Sprintf("issue templates not read: %v", err)}
	}
	t := &retrieve.IssueTemplate{}
	var warn []string
	n := 0
	for _, p := range paths {
		if !retrieve.IsIssueTemplate(p) {
			continue
		}
		if n == retrieve.MaxIssueTemplateFiles {
			warn = append(warn, fmt.Sprintf("issue templates: only the first %d read", n))
			break
		}
		data, err := files.ReadFile(p)
		switch {
		case err != nil:
			warn = append(warn, fmt.Sprintf("issue template %s not read: %v", p, err))
			continue
		case len(data) > retrieve.MaxIssueTemplateBytes:
			warn = append(warn, fmt.Sprintf("issue template %s not read: %d bytes, more than %d", p, len(data), retrieve.MaxIssueTemplateBytes))
			continue
		}
		t.Add(p, data)
		n++
	}
	return t, warn
}

// IssueTemplate is the repository's issue template, whose lines the views
// leave out of a state's text (nil for a pool pipeline).
func (p *Pipeline) IssueTemplate() *retrieve.IssueTemplate { return p.tmpl }

// Engine is the retrieval engine (nil for a pool pipeline).
func (p *Pipeline) Engine() *retrieve.Engine { return p.eng }

// Index is the open index (nil for a pool pipeline).
func (p *Pipeline) Index() *index.Index { return p.ix }

// Meta describes the index.
func (p *Pipeline) Meta() index.Meta { return p.meta }

// Summary is the build's report (nil when the index was only opened).
func (p *Pipeline) Summary() *index.Summary { return p.sum }

// Phases reports what Open spent.
func (p *Pipeline) Phases() Phases { return p.phases }

// Controller is the method Recover uses.
func (p *Pipeline) Controller() mss.Controller { return p.ctrl }

// Warnings lists what Open could not set up (a view left off and why).
func (p *Pipeline) Warnings() []string { return p.warn }

// Query is one validated state with what retrieval derived from it.
type Query struct {
	// State is the state validated; its observed spans are in the
	// index's lines (see ObservedNow).
	State    *mss.State
	Observed *mss.Observed
	// ObservedNow is what the state observed as given, in the lines its
	// files have now, when some of them changed since indexing and their
	// spans were re-numbered into the index's lines for ranking; nil when
	// none was (Observed holds both).
	ObservedNow *mss.Observed
	Candidates  []mss.Candidate
	// Mentions are the facets retrieval read in the state's text; the
	// policy receives them (mss.Request.Mentions) instead of reading again.
	Mentions *mss.Mentions
	// Warnings concern this state (e.g. observed paths the index lacks)
	// and the pipeline (views left off); every surface shows them.
	Warnings []string
}

// Answer is a recovered complement.
type Answer struct {
	mss.Result
	// Tokens is the delivered units' cost; Budget the limit it fits.
	Tokens int
	Budget int
	// Candidates are what the method chose from, in fused order.
	Candidates []mss.Candidate
	Warnings   []string
}

// Candidates validates a state and ranks candidates for it.
func (p *Pipeline) Candidates(ctx context.Context, st *mss.State, lim Limits) (*Query, error) {
	if st == nil {
		return nil, errors.New("pipeline: no state")
	}
	if err := lim.Check(); err != nil {
		return nil, err
	}
	st, err := validated(st)
	if err != nil {
		return nil, err
	}
	q := &Query{State: st}
	if spans, moved := p.inIndex(st.ObservedSpans); moved {
		q.ObservedNow = mss.ObservedOf(st)
		st.ObservedSpans = spans
	}
	q.Observed = mss.ObservedOf(st)
	q.Warnings = append(q.Warnings, p.warn...)
	if p.isPool {
		q.Candidates, q.Mentions = retrieve.PoolRank(st, q.Observed, p.pool)
		return q, nil
	}
	seenID := map[string]bool{}
	for _, id := range st.ObservedEvidenceIDs {
		if !seenID[id] && !p.eng.HasUnit(id) {
			q.Warnings = append(q.Warnings, fmt.Sprintf("observed evidence id %q is no unit of the index (a grown unit's, or one from before an edit); it excludes nothing: send its lines in observed_spans", id))
		}
		seenID[id] = true
	}
	for _, path := range q.Observed.Paths() {
		if !p.known[path] {
			q.Warnings = append(q.Warnings, fmt.Sprintf("observed path %s is not in the index; its spans exclude nothing", path))
			continue
		}
		last := p.eng.LastLine(path)
		for _, sp := range q.Observed.Spans(path) {
			if sp.StartLine > last {
				q.Warnings = append(q.Warnings, fmt.Sprintf("observed span %s:%d-%d starts after the file's last indexed line (%d); it excludes nothing", path, sp.StartLine, sp.EndLine, last))
			}
		}
	}
	if p.eng.Len() == 0 {
		q.Warnings = append(q.Warnings, "the index has no units")
	}
	if q.Candidates, q.Mentions, err = p.eng.Rank(ctx, st, q.Observed, lim.Candidates); err != nil {
		return nil, err
	}
	return q, nil
}

// SelectOptions adjusts one selection.
type SelectOptions struct {
	// NoGrow keeps chosen units as indexed (no growth into their
	// surroundings), e.g. while the index is known to lag the files.
	NoGrow bool
}

// Select lets ctrl choose from q's candidates (a copy: a method may reorder
// what it is given), checks the chosen units against the source and fits
// them into the budget.
func (p *Pipeline) Select(ctx context.Context, ctrl mss.Controller, q *Query, lim Limits, so SelectOptions) (*Answer, error) {
	if err := lim.Check(); err != nil {
		return nil, err
	}
	req := &mss.Request{
		State:      q.State,
		Candidates: append([]mss.Candidate(nil), q.Candidates...),
		Budget:     lim.Budget,
		MaxUnits:   lim.MaxUnits,
		MinUnits:   min(lim.MinUnits, lim.MaxUnits),
		Mentions:   q.Mentions,
	}
	if p.eng != nil && !so.NoGrow {
		req.Source = p.eng
	}
	res, err := ctrl.Select(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ctrl.Name(), err)
	}
	var unread []string // what retrieval left out of the state's text
	if q.Mentions != nil {
		unread = q.Mentions.Unread
	}
	trace := make([]mss.TraceStep, 0, len(q.Warnings)+len(unread)+len(res.Trace))
	for _, w := range q.Warnings {
		trace = append(trace, mss.TraceStep{Stage: "candidates", Reason: w})
	}
	for _, part := range unread {
		trace = append(trace, mss.TraceStep{Stage: "query", Reason: "left out of the query: " + part})
	}
	trace = append(trace, res.Trace...)
	units := res.Units
	warnings := q.Warnings
	if p.files != nil {
		var steps []mss.TraceStep
		now := q.ObservedNow
		if now == nil {
			now = q.Observed
		}
		units, steps = verify(p.files, p.Recorded(), units, q.Observed, now)
		trace = append(trace, steps...)
		warnings = append(append([]string(nil), q.Warnings...), leftOut(res.Units, steps)...)
	}
	units, fitTrace := render.Fit(units, lim.Budget, lim.MaxUnits)
	if units == nil {
		units = []mss.Unit{}
	}
	res.Units, res.Trace = units, append(trace, fitTrace...)
	return &Answer{Result: *res, Tokens: render.Tokens(units), Budget: lim.Budget, Candidates: q.Candidates, Warnings: warnings}, nil
}

// leftOut names, as warnings, the chosen units Verify dropped for a reason
// other than their having been observed (a file changed or unreadable since
// indexing): the answer lacks them, and says so.
func leftOut(chosen []mss.Unit, steps []mss.TraceStep) []string {
	var out []string
	for _, st := range steps {
		why, ok := strings.CutPrefix(st.Reason, "dropped: ")
		if !ok || why == "already observed" {
			continue
		}
		for _, u := range chosen {
			if u.ID == st.UnitID {
				out = append(out, LeftOutWarning(u, why))
				break
			}
		}
	}
	return out
}

// LeftOutWarning is the warning that names a chosen unit left out of an
// answer, and why; a name or reason holding control characters (a file
// named with a line break or an escape) is quoted (render.Name), so a
// warning is one line that cannot drive a terminal.
func LeftOutWarning(u mss.Unit, why string) string {
	return fmt.Sprintf("%s:%d-%d left out: %s", render.Name(u.Path), u.StartLine, u.EndLine, render.Name(why))
}

// Recover answers a state with the pipeline's method: validate, rank,
// select and grow, verify against the source, fit.
func (p *Pipeline) Recover(ctx context.Context, st *mss.State, lim Limits) (*Answer, error) {
	q, err := p.Candidates(ctx, st, lim)
	if err != nil {
		return nil, err
	}
	return p.Select(ctx, p.ctrl, q, lim, SelectOptions{})
}

// Recorded tells what the pipeline's index recorded of a file (nil for
// a pool, whose units are their own source).
func (p *Pipeline) Recorded() Recorded {
	if p.ix == nil {
		return nil
	}
	return p.ix.RecordedBlob
}

// FileUnits gives the snapshot's units by file (mss.UnitSource).
func (p *Pipeline) FileUnits(path string) []mss.Unit {
	if p.eng == nil {
		return nil
	}
	return p.eng.FileUnits(path)
}

// validated is a copy of st, checked and with its paths cleaned
// (State.Validate), leaving st as the caller gave it: one state may be
// answered on several goroutines at once.
func validated(st *mss.State) (*mss.State, error) {
	c := *st
	c.OpenedFiles = slices.Clone(st.OpenedFiles)
	c.ObservedSpans = slices.Clone(st.ObservedSpans)
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// PoolCandidates is the candidate stage of the pool track for one item:
// the state validated, every pool unit ranked once with what the state has
// observed flagged (the stage OpenPool's Candidates runs), and the
// mentions retrieval read in the state, for the policy.
func PoolCandidates(_ context.Context, st *mss.State, pool []mss.Unit) ([]mss.Candidate, *mss.Mentions, error) {
	st, err := validated(st)
	if err != nil {
		return nil, nil, err
	}
	cands, m := retrieve.PoolRank(st, mss.ObservedOf(st), pool)
	return cands, m, nil
}
