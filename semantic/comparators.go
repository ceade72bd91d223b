package semantic

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/llm"
)

// The comparators answer under the same candidates and budget as
// mss-complement, each removing one ingredient of it:
//
//   - ssr: one call selects the whole set (set objective, no staging).
//   - propose-only: the proposal stage alone.
//   - similarity-3call: three calls, as many as mss-complement makes, that
//     score candidates independently for relevance; no set objective and no
//     selected-set feedback between calls; a fixed number of units out.

// SSR is one-pass semantic set selection.
type SSR struct{ *base }

// NewSSR builds ssr; it calls the propose stage's endpoint and model.
func NewSSR(opts mss.MethodOptions) (*SSR, error) {
	b, err := newBase(NameSSR, opts, StagePropose)
	if err != nil {
		return nil, err
	}
	return &SSR{b}, nil
}

const ssrInstructions = `Task: select the evidence set in one pass.
Select between %d and %d candidate units that, together with what the agent has already read, give its next decision everything it still needs: the entities, values, conditions and causal links involved. Sufficiency belongs to the set: prefer units that complement each other over several units supporting the same fact. Order them most necessary first; give each a short "reason".`

// Select implements mss.Controller.
func (s *SSR) Select(ctx context.Context, req *mss.Request) (*mss.Result, error) {
	if err := checkRequest(req); err != nil {
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	budget, minUnits, maxUnits := req.Limits()
	ac := newAccounting()
	el := eligible(req)
	if len(el) == 0 {
		ac.trace("select", "", "no eligible candidate (all observed or none offered)")
		return s.finish(nil, nil, budget, minUnits, maxUnits, ac), nil
	}
	lead := el[:min(len(el), s.cfg.SSRCandidates)]
	lo, hi := min(minUnits, len(lead)), min(maxUnits, len(lead))
	p := &prompt{}
	p.data("State card", stateCard(req.State, s.cfg.StateChars))
	p.data("Candidates (fused order)", renderCards(cardsOf(lead, ""), s.cfg.SSRExcerpt))
	sys, user := p.render(fmt.Sprintf(ssrInstructions, lo, hi))
	picks, _, err := (&stageCall{
		stage: NameSSR, client: s.clients[StagePropose], system: sys, user: user, list: "units", offered: ids(lead),
		schema:       &llm.Schema{Name: "ssr", Schema: object(map[string]any{"units": idList(ids(lead), []string{"reason"})})},
		parseRetries: s.cfg.ParseRetries,
	}).run(ctx, ac)
	if err != nil {
		return s.fallback(ctx, req, ac, err)
	}
	return s.finish(pickUnits(picks, lead, NameSSR, ac), unitsOf(lead), budget, minUnits, maxUnits, ac), nil
}

// ProposeOnly is the proposal stage alone.
type ProposeOnly struct{ *base }

// NewProposeOnly builds propose-only.
func NewProposeOnly(opts mss.MethodOptions) (*ProposeOnly, error) {
	b, err := newBase(NameProposeOnly, opts, StagePropose)
	if err != nil {
		return nil, err
	}
	return &ProposeOnly{b}, nil
}

// Select implements mss.Controller.
func (po *ProposeOnly) Select(ctx context.Context, req *mss.Request) (*mss.Result, error) {
	if err := checkRequest(req); err != nil {
		return nil, fmt.Errorf("%s: %w", po.name, err)
	}
	budget, minUnits, maxUnits := req.Limits()
	ac := newAccounting()
	el := eligible(req)
	if len(el) == 0 {
		ac.trace("select", "", "no eligible candidate (all observed or none offered)")
		return po.finish(nil, nil, budget, minUnits, maxUnits, ac), nil
	}
	lead := el[:min(len(el), po.cfg.ProposeCandidates)]
	size := min(po.cfg.ProposeSize, maxUnits)
	p := &prompt{}
	p.data("State card", stateCard(req.State, po.cfg.StateChars))
	p.data("Candidates (fused order)", renderCards(cardsOf(lead, ""), po.cfg.ProposeExcerpt))
	sys, user := p.render(fmt.Sprintf(proposeInstructions, size))
	picks, _, err := (&stageCall{
		stage: StagePropose, client: po.clients[StagePropose], system: sys, user: user, list: "selected", offered: ids(lead),
		schema: &llm.Schema{Name: "propose", Schema: object(map[string]any{
			"selected": idList(ids(lead), []string{"covers"}),
			"missing":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		})},
		parseRetries: po.cfg.ParseRetries,
	}).run(ctx, ac)
	if err != nil {
		return po.fallback(ctx, req, ac, err)
	}
	if len(picks) > size {
		picks = picks[:size]
	}
	return po.finish(pickUnits(picks, lead, StagePropose, ac), unitsOf(lead), budget, minUnits, maxUnits, ac), nil
}

// Similarity3 is the independent-similarity control with three calls.
type Similarity3 struct{ *base }

// NewSimilarity3 builds similarity-3call; its three calls use the propose,
// expand and finalize stage endpoints, so its compute matches
// mss-complement's.
func NewSimilarity3(opts mss.MethodOptions) (*Similarity3, error) {
	b, err := newBase(NameSimilarity3, opts, stageNames...)
	if err != nil {
		return nil, err
	}
	return &Similarity3{b}, nil
}

const similarityInstructions = `Task: score relevance.
Score each candidate independently from 0 (irrelevant) to 10 (directly relevant) for how relevant it is to the agent's current state. Judge each candidate on its own; do not consider the others. Return a score for every candidate.`

// Select implements mss.Controller.
func (s *Similarity3) Select(ctx context.Context, req *mss.Request) (*mss.Result, error) {
	if err := checkRequest(req); err != nil {
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	budget, _, maxUnits := req.Limits()
	keep := min(s.cfg.SimilarityKeep, maxUnits)
	ac := newAccounting()
	el := eligible(req)
	if len(el) == 0 {
		ac.trace("select", "", "no eligible candidate (all observed or none offered)")
		return s.finish(nil, nil, budget, 0, maxUnits, ac), nil
	}
	lead := el[:min(len(el), s.cfg.SimilarityCandidate)]
	// Round-robin into three batches so each call sees a like mix of ranks.
	var batches [3][]ranked
	for i, r := range lead {
		batches[i%3] = append(batches[i%3], r)
	}
	state := stateCard(req.State, s.cfg.StateChars)
	score := map[string]float64{}
	for i, batch := range batches {
		if len(batch) == 0 {
			continue
		}
		stage := fmt.Sprintf("score-%d", i+1)
		p := &prompt{}
		p.data("State card", state)
		p.data("Candidates", renderCards(cardsOf(batch, ""), s.cfg.SimilarityExcerpt))
		sys, user := p.render(similarityInstructions)
		picks, _, err := (&stageCall{
			stage: stage, client: s.clients[stageNames[i]], system: sys, user: user, list: "scores", offered: ids(batch),
			schema:       &llm.Schema{Name: "relevance", Schema: object(map[string]any{"scores": idList(ids(batch), []string{"score"})})},
			parseRetries: s.cfg.ParseRetries,
		}).run(ctx, ac)
		if err != nil {
			return s.fallback(ctx, req, ac, err)
		}
		for _, pk := range picks {
			if math.IsNaN(pk.Score) {
				continue
			}
			score[pk.ID] = max(0, min(10, pk.Score))
		}
	}
	order := append([]ranked(nil), lead...)
	sort.SliceStable(order, func(i, j int) bool { // ties keep fused order
		return score[order[i].c.Unit.ID] > score[order[j].c.Unit.ID]
	})
	var units []mss.Unit
	for _, r := range order[:min(keep, len(order))] {
		ac.trace("rank", r.c.Unit.ID, fmt.Sprintf("relevance %g, fused rank %d", score[r.c.Unit.ID], r.rank))
		units = append(units, r.c.Unit)
	}
	return s.finish(units, nil, budget, 0, keep, ac), nil
}

// pickUnits maps valid picks to units and traces them.
func pickUnits(picks []pick, lead []ranked, stage string, ac *accounting) []mss.Unit {
	byID := map[string]*mss.Candidate{}
	for _, r := range lead {
		byID[r.c.Unit.ID] = r.c
	}
	var out []mss.Unit
	for _, pk := range picks {
		ac.trace(stage, pk.ID, "selected: "+oneLine(pk.Note, 160))
		out = append(out, byID[pk.ID].Unit)
	}
	return out
}

func unitsOf(rs []ranked) []mss.Unit {
	out := make([]mss.Unit, len(rs))
	for i, r := range rs {
		out[i] = r.c.Unit
	}
	return out
}
