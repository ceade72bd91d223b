package semantic

import (
	"context"
	"errors"
	"fmt"
	"github.com/missingcomplement/mss/controller"
	"strings"
	"sync"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/llm"
	"github.com/missingcomplement/mss/render"
)

// base is what every model-calling controller here shares: configuration,
// per-stage clients, eligibility and the deterministic fallback.
type base struct {
	name    string
	cfg     *Config
	clients map[string]*llm.Client

	fbOnce sync.Once
	fb     mss.Controller
	fbErr  error
}

func newBase(name string, opts mss.MethodOptions, stages ...string) (*base, error) {
	cfg, err := ParseConfig(opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	cl, err := cfg.clients(stages...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &base{name: name, cfg: cfg, clients: cl}, nil
}

// Name implements mss.Controller.
func (b *base) Name() string { return b.name }

// Config is the parsed configuration.
func (b *base) Config() *Config { return b.cfg }

// ranked is an eligible candidate with its 1-based fused rank.
type ranked struct {
	c    *mss.Candidate
	rank int
}

// eligible lists the candidates that may be selected, in fused order:
// never one the agent has read (flagged Observed, listed in
// observed_evidence_ids, or overlapping an observed span), never a
// repeated id.
func eligible(req *mss.Request) []ranked {
	obs := mss.ObservedOf(req.State)
	seen := map[string]bool{}
	var out []ranked
	for i := range req.Candidates {
		c := &req.Candidates[i]
		if c.Observed || seen[c.Unit.ID] || c.Unit.ID == "" || obs.Unit(&c.Unit) {
			continue
		}
		seen[c.Unit.ID] = true
		out = append(out, ranked{c, i + 1})
	}
	return out
}

func checkRequest(req *mss.Request) error {
	if req == nil {
		return errors.New("nil request")
	}
	if req.State == nil {
		return errors.New("request has no state")
	}
	return nil
}

func ids(rs []ranked) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.c.Unit.ID
	}
	return out
}

func cardsOf(rs []ranked, origin string) []card {
	out := make([]card, len(rs))
	for i, r := range rs {
		out[i] = card{c: r.c, rank: r.rank, origin: origin}
	}
	return out
}

// fallback answers with the deterministic set policy after a stage failed.
// It is looked up by name at run time (package controller registers
// "complement"), so this package does not import it. The answer says so:
// Result.Fallback names the stage and the cause, the trace has a
// "fallback" step, and Usage.Fallbacks counts it.
func (b *base) fallback(ctx context.Context, req *mss.Request, ac *accounting, cause error) (*mss.Result, error) {
	if b.cfg.Fallback == "" || b.cfg.Fallback == "none" || ctx.Err() != nil || errors.Is(cause, llm.ErrCacheMiss) {
		// A cancelled request is not a stage failure: stop, do not fall
		// back. Nor is a call a cache-only run has no answer for: a
		// replay that misses is an error, not other units.
		return nil, fmt.Errorf("%s: %w", b.name, cause)
	}
	b.fbOnce.Do(func() {
		b.fb, b.fbErr = mss.NewMethod(b.cfg.Fallback, mss.MethodOptions{Settings: b.cfg.FallbackOpt})
	})
	if b.fbErr != nil {
		return nil, fmt.Errorf("%s: %w; fallback %s unavailable: %v", b.name, cause, b.cfg.Fallback, b.fbErr)
	}
	stage := "select"
	reason := cause.Error()
	var es *errStage
	if errors.As(cause, &es) {
		stage, reason = es.stage, es.err.Error()
	}
	ac.usage.Fallbacks++
	ac.trace("fallback", "", fmt.Sprintf("%v; answering with the deterministic policy %q", cause, b.cfg.Fallback))
	res, err := b.fb.Select(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w; fallback %s failed too: %v", b.name, cause, b.cfg.Fallback, err)
	}
	for _, t := range res.Trace {
		t.Stage = "fallback." + t.Stage
		ac.steps = append(ac.steps, t)
	}
	// The fallback is trusted for order and for the units it grew from
	// the source, not for eligibility: a unit the agent has read (an
	// offered candidate flagged or listed as observed, or one overlapping
	// an observed span) is dropped; a grown unit, which no candidate
	// names, is kept when it overlaps nothing observed (observed spans and
	// the lines of observed candidates).
	ok := map[string]bool{}
	for _, r := range eligible(req) {
		ok[r.c.Unit.ID] = true
	}
	offered := map[string]bool{}
	for _, c := range req.Candidates {
		offered[c.Unit.ID] = true
	}
	observedIDs := map[string]bool{}
	var spans []mss.Span
	if s := req.State; s != nil {
		for _, id := range s.ObservedEvidenceIDs {
			observedIDs[id] = true
		}
		spans = s.ObservedSpans
	}
	// Lines of candidates the agent has read count as observed spans.
	for _, c := range req.Candidates {
		if c.Observed || observedIDs[c.Unit.ID] {
			spans = append(spans, c.Unit.Span())
		}
	}
	var units []mss.Unit
	for _, u := range res.Units {
		switch {
		case offered[u.ID] && !ok[u.ID], observedIDs[u.ID]:
			ac.trace("fallback", u.ID, "dropped: the agent has read it (observed)")
			continue
		case !offered[u.ID] && overlapsAny(&u, spans):
			ac.trace("fallback", u.ID, "dropped: overlaps an observed span")
			continue
		}
		units = append(units, u)
	}
	budget, _, maxUnits := req.Limits()
	out := b.finish(units, nil, budget, 0, maxUnits, ac)
	out.Fallback = &mss.Fallback{Stage: stage, Reason: reason}
	return out, nil
}

// overlapsAny reports whether u shares a line with one of spans.
func overlapsAny(u *mss.Unit, spans []mss.Span) bool {
	for _, sp := range spans {
		p := strings.TrimPrefix(strings.ReplaceAll(sp.Path, `\`, "/"), "./")
		if u.Path == p && u.StartLine <= sp.EndLine && u.EndLine >= sp.StartLine {
			return true
		}
	}
	return false
}

// finish renders chosen units within the budget; when fewer than minUnits
// fit, fill units are added in order until minUnits do.
func (b *base) finish(chosen, fill []mss.Unit, budget, minUnits, maxUnits int, ac *accounting) *mss.Result {
	out, steps := render.Fit(chosen, budget, maxUnits)
	if len(out) < minUnits && len(fill) > 0 {
		in := map[string]bool{}
		for _, u := range chosen {
			in[u.ID] = true
		}
		all := append(append([]mss.Unit(nil), chosen...), fill...)
		out, steps = render.Fit(all, budget, minUnits)
		// Keep the render steps about chosen units; fill units that were
		// not needed are not news.
		var keep []mss.TraceStep
		for _, s := range steps {
			if in[s.UnitID] && s.Reason != "dropped: duplicate" {
				keep = append(keep, s)
			}
		}
		steps = keep
		for _, u := range out {
			if !in[u.ID] {
				ac.trace("backfill", u.ID, fmt.Sprintf("added to reach %d units", minUnits))
			}
		}
	}
	ac.steps = append(ac.steps, steps...)
	for _, u := range out {
		ac.usage.SourceTokens += unitTokens(&u)
	}
	u := ac.usage
	return &mss.Result{Units: out, Method: b.name, Config: b.cfg.Describe(), Trace: ac.steps, Usage: &u}
}

// Complement is the three-stage semantic controller (mss-complement):
// propose, expand, finalize.
type Complement struct{ *base }

// NewComplement builds mss-complement from settings and the environment.
func NewComplement(opts mss.MethodOptions) (*Complement, error) {
	b, err := newBase(NameComplement, opts, stageNames...)
	if err != nil {
		return nil, err
	}
	return &Complement{b}, nil
}

const proposeInstructions = `Task: propose the evidence set.
Select at most %d candidate units that, together with what the agent has already read, give its next decision everything it still needs: the entities, values, conditions and causal links involved. Sufficiency belongs to the set: prefer units that complement each other over several units supporting the same fact, and do not select what the agent has already read.
In "selected" give each unit's id and, in "covers", the fact it supplies. In "missing", list facts the next decision needs that no selected unit supplies (empty if none).`

const expandInstructions = `Task: expand the proposal.
A proposed evidence set and the facts it still lacks are given, followed by further candidates not in the proposal. Add at most %d of the further candidates, only where one supplies a fact the proposal lacks; give in "supports" the fact it supplies. Add nothing that repeats support the proposal already has. An empty list is a valid answer.`

const finalizeInstructions = `Task: finalize the evidence set.
Candidates are tagged by origin: proposal, expansion, or reserve (further candidates in ranked order). Check that the set jointly supports the next decision, remove units that only repeat support another unit gives, and return between %d and %d units, most necessary first, each with a short "reason".`

// Select implements mss.Controller.
func (c *Complement) Select(ctx context.Context, req *mss.Request) (*mss.Result, error) {
	if err := checkRequest(req); err != nil {
		return nil, fmt.Errorf("%s: %w", c.name, err)
	}
	budget, minUnits, maxUnits := req.Limits()
	ac := newAccounting()
	el := eligible(req)
	if len(el) == 0 {
		ac.trace("select", "", "no eligible candidate (all observed or none offered)")
		return c.finish(nil, nil, budget, minUnits, maxUnits, ac), nil
	}
	state := stateCard(req.State, c.cfg.StateChars)
	byID := map[string]ranked{}
	for _, r := range el {
		byID[r.c.Unit.ID] = r
	}

	// 1. Propose over the leading candidates.
	lead := el[:min(len(el), c.cfg.ProposeCandidates)]
	size := min(c.cfg.ProposeSize, maxUnits)
	proposal, prep, err := c.proposeCall(state, lead, size).run(ctx, ac)
	if err != nil {
		return c.fallback(ctx, req, ac, err)
	}
	if len(proposal) > size {
		for _, pk := range proposal[size:] {
			ac.trace(StagePropose, pk.ID, fmt.Sprintf("dropped: proposal holds at most %d units", size))
		}
		proposal = proposal[:size]
	}
	inSet := map[string]string{}
	var propCards []card
	for _, pk := range proposal {
		inSet[pk.ID] = "proposal"
		r := byID[pk.ID]
		propCards = append(propCards, card{c: r.c, rank: r.rank, origin: "proposal", note: pk.Note})
		ac.trace(StagePropose, pk.ID, "proposed: "+oneLine(pk.Note, 160))
	}

	// 2. Expand: further candidates, excluding the proposal.
	further := outside(el, inSet, c.cfg.ExpandCandidates)
	var expansion []pick
	if len(further) > 0 && c.cfg.ExpandSize > 0 {
		expansion, _, err = c.expandCall(state, propCards, prep.Missing, further).run(ctx, ac)
		if err != nil {
			return c.fallback(ctx, req, ac, err)
		}
		if len(expansion) > c.cfg.ExpandSize {
			expansion = expansion[:c.cfg.ExpandSize]
		}
	}
	var expCards []card
	for _, pk := range expansion {
		inSet[pk.ID] = "expansion"
		r := byID[pk.ID]
		expCards = append(expCards, card{c: r.c, rank: r.rank, origin: "expansion", note: pk.Note})
		ac.trace(StageExpand, pk.ID, "added: "+oneLine(pk.Note, 160))
	}

	// 3. Finalize over proposal, expansion and a ranked reserve.
	reserve := outside(el, inSet, c.cfg.FinalizeReserve)
	all := append(append(append([]card(nil), propCards...), expCards...), cardsOf(reserve, "reserve")...)
	lo, hi := min(minUnits, len(all)), min(maxUnits, len(all))
	final, _, err := c.finalizeCall(state, all, lo, hi).run(ctx, ac)
	if err != nil {
		return c.fallback(ctx, req, ac, err)
	}
	var chosen []mss.Unit
	for _, pk := range final {
		origin := inSet[pk.ID]
		if origin == "" {
			origin = "reserve"
		}
		ac.trace(StageFinalize, pk.ID, fmt.Sprintf("kept (%s): %s", origin, oneLine(pk.Note, 160)))
		chosen = append(chosen, byID[pk.ID].c.Unit)
	}
	// Below the minimum, fill from the proposal, the expansion, then the
	// reserve, in that order.
	var fill []mss.Unit
	for _, cd := range all {
		fill = append(fill, cd.c.Unit)
	}
	res := c.finish(chosen, fill, budget, minUnits, maxUnits, ac)
	if c.cfg.Grow && req.Source != nil {
		controller.Grow(res, req, budget)
		res.Usage.SourceTokens = 0
		for _, u := range res.Units {
			res.Usage.SourceTokens += unitTokens(&u)
		}
	}
	return res, nil
}

// proposeCall is stage 1's request: the state card and the leading
// candidate cards; up to size ids and the facts still missing.
func (c *Complement) proposeCall(state string, lead []ranked, size int) *stageCall {
	p := &prompt{}
	p.data("State card", state)
	p.data("Candidates (fused order)", renderCards(cardsOf(lead, ""), c.cfg.ProposeExcerpt))
	sys, user := p.render(fmt.Sprintf(proposeInstructions, size))
	return &stageCall{
		stage: StagePropose, client: c.clients[StagePropose], system: sys, user: user, list: "selected", offered: ids(lead),
		schema: &llm.Schema{Name: "propose", Schema: object(map[string]any{
			"selected": idList(ids(lead), []string{"covers"}),
			"missing":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		})},
		parseRetries: c.cfg.ParseRetries,
	}
}

// expandCall is stage 2's request: the proposal, what it lacks, and
// further candidates (the proposal excluded).
func (c *Complement) expandCall(state string, propCards []card, lacking []string, further []ranked) *stageCall {
	p := &prompt{}
	p.data("State card", state)
	p.data("Proposed set", renderCards(propCards, 0))
	missing := "(none stated)"
	if len(lacking) > 0 {
		missing = "- " + strings.Join(lacking, "\n- ")
	}
	p.data("Facts the proposal lacks", missing)
	p.data("Further candidates", renderCards(cardsOf(further, ""), c.cfg.ExpandExcerpt))
	sys, user := p.render(fmt.Sprintf(expandInstructions, c.cfg.ExpandSize))
	return &stageCall{
		stage: StageExpand, client: c.clients[StageExpand], system: sys, user: user, list: "additions", offered: ids(further), allowEmpty: true,
		schema: &llm.Schema{Name: "expand", Schema: object(map[string]any{
			"additions": idList(ids(further), []string{"supports"}),
		})},
		parseRetries: c.cfg.ParseRetries,
	}
}

// finalizeCall is stage 3's request: every card tagged by origin; between
// lo and hi ids.
func (c *Complement) finalizeCall(state string, all []card, lo, hi int) *stageCall {
	offered := make([]string, len(all))
	for i, cd := range all {
		offered[i] = cd.c.Unit.ID
	}
	p := &prompt{}
	p.data("State card", state)
	p.data("Candidates by origin", renderCards(all, c.cfg.FinalizeExcerpt))
	sys, user := p.render(fmt.Sprintf(finalizeInstructions, lo, hi))
	return &stageCall{
		stage: StageFinalize, client: c.clients[StageFinalize], system: sys, user: user, list: "units", offered: offered,
		schema: &llm.Schema{Name: "finalize", Schema: object(map[string]any{
			"units": idList(offered, []string{"reason"}),
		})},
		parseRetries: c.cfg.ParseRetries,
	}
}

// outside returns the first n eligible candidates, in fused order, that
// are not yet in the set.
func outside(el []ranked, inSet map[string]string, n int) []ranked {
	var out []ranked
	for _, r := range el {
		if len(out) >= n {
			break
		}
		if inSet[r.c.Unit.ID] == "" {
			out = append(out, r)
		}
	}
	return out
}
