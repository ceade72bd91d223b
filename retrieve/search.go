package retrieve

import (
	"context"
	"fmt"
	"sort"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/lexical"
)

// Search returns up to limit units matching any term of query, best BM25
// first over the lexical view's fields (content, symbol and path, each
// with its weight; ties by path and line). Terms are code-aware:
// "lookup_single" also finds "lookupSingle". Each distinct term counts
// once. A stored engine's units come with their content, read from the
// index; one the index no longer holds is left out.
func (e *Engine) Search(ctx context.Context, query string, limit int) ([]mss.Unit, error) {
	terms := lexical.QueryTerms(query)
	if len(terms) == 0 || limit <= 0 {
		return nil, nil
	}
	for t := range terms {
		terms[t] = 1
	}
	v, err := e.lex.Lookup(sortedKeys(terms))
	if err != nil {
		return nil, fmt.Errorf("retrieve: search %q: %w", query, err)
	}
	scores := v.Scores(terms)
	hits := make([]hit, 0, len(scores))
	for d, s := range scores {
		hits = append(hits, hit{int(d), s})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		a, b := e.unitAt(hits[i].idx), e.unitAt(hits[j].idx)
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.StartLine < b.StartLine
	})
	hits = hits[:min(limit, len(hits))]
	cands := make([]mss.Candidate, len(hits))
	for k, h := range hits {
		cands[k] = mss.Candidate{Unit: *e.unitAt(h.idx), Score: h.score}
	}
	cands, err = e.fill(ctx, cands)
	if err != nil {
		return nil, err
	}
	out := make([]mss.Unit, len(cands))
	for k := range cands {
		out[k] = cands[k].Unit
	}
	return out, nil
}
