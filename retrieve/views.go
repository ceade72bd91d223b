package retrieve

import (
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/lexical"
	"github.com/missingcomplement/mss/segment"
)

// View names, as they appear in Candidate.Views and explanations.
const (
	ViewLexical    = "lexical"
	ViewEntity     = "entity"
	ViewStructural = "structural"
	ViewRecency    = "recency"
	ViewHistory    = "history"
	ViewSemantic   = "semantic"
	ViewEmbedding  = "embedding"
)

// Sizes.
const (
	// ViewDepth is how many units each view ranks. Deeper views lift the
	// fused pool's recall but, measured on the training split, not the
	// answers (docs/measurements.md, the learned order).
	ViewDepth = 200
	// DefaultCandidates is how many fused candidates Candidates returns
	// when the caller gives no limit.
	DefaultCandidates = 200
)

// Lexical field weights: a query term naming a symbol or a path counts
// more than the same term in a body.
const (
	WeightFieldContent = 1.0
	WeightFieldSymbol  = 2.0
	WeightFieldPath    = 0.5
	// maxTermDocShare drops query terms found in more than this share of
	// units: they cost time and rank nothing.
	maxTermDocShare = 0.3
	minTermDocLimit = 200
)

// Entity view weights.
const (
	entityQualified = 3.0 // a dotted name whose tail is the unit's symbol path
	entityFrameFunc = 3.0 // a frame's function defined in the frame's file
	entityFrameLine = 1.5 // ... whose line falls inside the unit
	entityFile      = 0.6 // a unit of a file the state names
	// entityMaxDefs ignores names defined by more units than this: they
	// are too common to point anywhere.
	entityMaxDefs = 40
)

// Structural view weights, per relation to an anchor.
const (
	structCallee   = 1.0 // the anchor references a name the unit defines
	structCaller   = 0.8 // the unit references a name the anchor defines
	structSameName = 1.2 // same name, another class or file (overrides, twins)
	structSibling  = 0.5 // same class or scope, same file
	structNameLike = 1.0 // shares name parts with the anchor, same file
	// explicit index edges, either way, by kind
	structEdgeCall   = 0.6
	structEdgeRef    = 0.3
	structEdgeImport = 0.1
	// structMaxFanout ignores names with more definitions or references
	// than this when following them.
	structMaxFanout = 30
	// anchor weights
	anchorObserved = 1.0
	anchorEntity   = 0.5
	anchorEntityN  = 3 // top entity units used as anchors
)

// lexicalView is BM25 over content, symbol and path fields.
func (e *Engine) lexicalView(q *query) []hit {
	terms := map[string]int{}
	limit := max(int(maxTermDocShare*float64(e.lex.Len())), minTermDocLimit)
	for t, c := range q.terms {
		if df := q.lex.DocFreq("content", t); df > 0 && df <= limit || q.lex.DocFreq("symbol", t) > 0 && df <= limit {
			terms[t] = c
		}
	}
	q.lexTerms = terms
	hs := make([]hit, 0, 256)
	for d, s := range q.lex.Scores(terms) {
		hs = append(hs, hit{int(d), s})
	}
	q.lexHits = e.sortHits(hs)
	return q.lexHits
}

// titleScores are the units' BM25 scores for the words of the issue's
// first line, its title, which the learned order reads of each candidate
// (SignalTitle): those of its words the lexical view searched for (the
// title is part of the state's text), nil when it searched none.
func (e *Engine) titleScores(q *query) map[int]float64 {
	tt := map[string]int{}
	for t, c := range lexical.QueryTerms(issueTitle(q.state)) {
		if _, ok := q.lexTerms[t]; ok {
			tt[t] = c
		}
	}
	if len(tt) == 0 {
		return nil
	}
	out := map[int]float64{}
	for d, s := range q.lex.Scores(tt) {
		out[int(d)] = s
	}
	return out
}

// entityView matches the identifiers, dotted names, paths and frames the
// state names to the units that define them.
func (e *Engine) entityView(q *query) []hit {
	score := map[int]float64{}
	n := float64(e.n)
	m := q.mentions
	for _, id := range sortedKeys(m.Idents) {
		w := m.Idents[id]
		defs := e.defsOf(strings.ToLower(id))
		if len(defs) == 0 || len(defs) > entityMaxDefs {
			continue
		}
		idf := math.Log(1 + n/float64(len(defs)))
		if !m.Code[id] && !m.Called[id] {
			// A plain word is not taken for a code name, even when the
			// repository defines it.
			continue
		}
		for _, d := range defs {
			score[d] += w * idf
		}
	}
	for _, qual := range m.Qualified {
		parts := strings.Split(strings.ToLower(qual), ".")
		// Match the longest tail of at least two components to a symbol path.
		for k := len(parts); k >= 2; k-- {
			us := e.qualsOf(strings.Join(parts[len(parts)-k:], "."))
			if len(us) == 0 || len(us) > entityMaxDefs {
				continue
			}
			for _, d := range us {
				score[d] += entityQualified * float64(k) / 2
			}
			break
		}
	}
	for _, f := range m.Frames {
		for path, s := range e.resolvePath(f.Path) {
			for _, i := range e.unitsOf(path) {
				u := e.unitAt(i)
				if f.Func != "" && e.factsAt(i).name == strings.ToLower(f.Func) {
					score[i] += entityFrameFunc * s
				}
				if f.Line > 0 && u.StartLine <= f.Line && f.Line <= u.EndLine {
					score[i] += entityFrameLine * s
				}
			}
		}
	}
	// Files the state names: their units, ordered by lexical score.
	if len(q.files) > 0 {
		lex := map[int]float64{}
		top := 0.0
		for _, h := range q.lexHits {
			lex[h.idx] = h.score
			top = max(top, h.score)
		}
		for _, path := range sortedKeys(q.files) {
			s := q.files[path]
			for _, i := range e.unitsOf(path) {
				l := 0.0
				if top > 0 {
					l = lex[i] / top
				}
				score[i] += entityFile * s * (0.3 + 0.7*l)
			}
		}
	}
	return e.mapHits(score)
}

// recencyView ranks the neighbours of what the agent read last: units of
// the same file, nearest first, then units of files it opened.
func (e *Engine) recencyView(q *query) []hit {
	score := map[int]float64{}
	s := q.state
	spans := s.ObservedSpans
	for k, sp := range spans {
		// The last span read weighs most.
		w := 1.0 / float64(len(spans)-k)
		path, err := mss.CleanPath(sp.Path)
		if err != nil {
			continue
		}
		for _, i := range e.unitsOf(path) {
			if q.observed[i] {
				continue
			}
			u := e.unitAt(i)
			d := 0
			if u.EndLine < sp.StartLine {
				d = sp.StartLine - u.EndLine
			} else if u.StartLine > sp.EndLine {
				d = u.StartLine - sp.EndLine
			}
			score[i] += w / (1 + float64(d)/40)
		}
	}
	for _, f := range s.OpenedFiles {
		for _, i := range e.unitsOf(normPath(f)) {
			if !q.observed[i] {
				score[i] += 0.05
			}
		}
	}
	return e.mapHits(score)
}

// structuralView ranks units related to the anchors (observed units and
// the best entity matches): callees, callers, same-name twins, siblings in
// the same scope and units with a similar name in the same file.
func (e *Engine) structuralView(q *query, entity []hit) []hit {
	anchors := map[int]float64{}
	for _, i := range q.obsOrder {
		anchors[i] = anchorObserved
	}
	for k, h := range entity {
		if k >= anchorEntityN {
			break
		}
		if _, ok := anchors[h.idx]; !ok {
			anchors[h.idx] = anchorEntity / float64(k+1)
		}
	}
	if len(anchors) == 0 {
		return nil
	}
	score := map[int]float64{}
	for _, a := range sortedInts(anchors) {
		w := anchors[a]
		ai := e.factsAt(a)
		au := e.unitAt(a)
		for _, r := range ai.refs {
			ds := e.defsOf(r)
			if len(ds) == 0 || len(ds) > structMaxFanout {
				continue
			}
			if use, ok := ai.selected(r); ok {
				// st.Split names a member of st, not a function Split
				// of another file.
				ds = keepIf(ds, func(d int) bool { return e.refersTo(use, d) })
			}
			for _, d := range ds {
				if d != a {
					score[d] += w * structCallee / float64(len(ds))
				}
			}
		}
		for _, name := range ai.defines {
			rs := e.refsOf(name)
			if len(rs) > structMaxFanout {
				continue
			}
			rs = keepIf(rs, func(r int) bool {
				use, ok := e.factsAt(r).selected(name)
				return !ok || segment.RefersTo(use, au.Path, au.Symbol, ai.selectable)
			})
			for _, r := range rs {
				if r != a {
					score[r] += w * structCaller / math.Sqrt(float64(len(rs)))
				}
			}
			if len(name) > 2 && !strings.HasPrefix(name, "__") {
				ds := e.defsOf(name)
				if len(ds) <= structMaxFanout {
					for _, d := range ds {
						if d != a {
							score[d] += w * structSameName / math.Sqrt(float64(len(ds)))
						}
					}
				}
			}
		}
		if e.hasEdges() {
			for _, t := range e.edges(edgesOut, a) {
				score[t.unit] += w * t.weight
			}
			for _, f := range e.edges(edgesIn, a) {
				score[f.unit] += w * f.weight
			}
		}
		for _, i := range e.unitsOf(au.Path) {
			if i == a {
				continue
			}
			in := e.factsAt(i)
			u := e.unitAt(i)
			d := 0
			if u.EndLine < au.StartLine {
				d = au.StartLine - u.EndLine
			} else if u.StartLine > au.EndLine {
				d = u.StartLine - au.EndLine
			}
			near := 1 / (1 + float64(d)/200)
			if in.parent != "" && in.parent == ai.parent {
				score[i] += w * structSibling * near
			}
			if sim := partsJaccard(in.nameParts, ai.nameParts); sim > 0 {
				score[i] += w * structNameLike * sim * (0.5 + 0.5*near)
			}
		}
	}
	// Observed anchors are read already; an entity anchor may still be
	// another anchor's neighbour, but not its own.
	for _, a := range q.obsOrder {
		delete(score, a)
	}
	return e.mapHits(score)
}

// keepIf gives the units of list that keep accepts, in order: list itself
// when it accepts them all (list is shared and never written), else a
// new slice.
func keepIf(list []int, keep func(int) bool) []int {
	for k, x := range list {
		if keep(x) {
			continue
		}
		out := slices.Clone(list[:k])
		for _, y := range list[k+1:] {
			if keep(y) {
				out = append(out, y)
			}
		}
		return out
	}
	return list
}

// refersTo says whether a selection of a name unit d defines can refer
// to d (segment.RefersTo).
func (e *Engine) refersTo(use segment.NameUse, d int) bool {
	u := e.unitAt(d)
	return segment.RefersTo(use, u.Path, u.Symbol, e.factsAt(d).selectable)
}

// partsJaccard is the Jaccard similarity of two name-part lists.
func partsJaccard(a, b []string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	inter := 0
	for _, x := range a {
		for _, y := range b {
			if x == y {
				inter++
				break
			}
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

func sortedInts[V any](m map[int]V) []int { return slices.Sorted(maps.Keys(m)) }
