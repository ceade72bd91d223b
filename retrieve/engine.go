package retrieve

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/index"
	"github.com/missingcomplement/mss/lexical"
	"github.com/missingcomplement/mss/segment"
)

// Options configures an Engine. The zero value is valid: every view that
// needs nothing outside the units is on, history and embeddings are off.
type Options struct {
	// GitDir and Commit turn on the history view: commits reachable from
	// Commit (the state's base commit) in the git directory GitDir.
	GitDir string
	Commit string
	// GitPrefix is where the units' files lie in the commits' trees
	// ("app/" for an index of the work tree's directory app; "": at the
	// top): the history view reads a commit's files under it by the
	// path below it, and leaves the others out.
	GitPrefix string
	// HistoryCommits bounds how many commits the history view reads
	// (newest first); 0 means DefaultHistoryCommits.
	HistoryCommits int
	// Embedder, when set, adds the embedding view. NewEmbedderFromEnv
	// builds one from MSS_EMBED_* variables.
	Embedder Embedder
	// Disable names views to leave out (for ablations), e.g. "semantic".
	Disable []string
	// Weights override fusion weights by view name (see ViewWeight).
	Weights map[string]float64
	// RRFK overrides the fusion's rank constant (0 means RRFK).
	RRFK float64
	// Order puts the fused candidates in a learned order (order.go).
	// nil means the default: LearnedOrder, or the fused order when an
	// Embedder is set (the model was fitted without that view). Fused
	// keeps the fused order.
	Order *OrderModel
	// IssueTemplate holds the lines of the repository's issue templates,
	// which the views do not read in a state's text (template.go); nil:
	// none.
	IssueTemplate *IssueTemplate
	// Counts, when set, keeps the term counts of the units of the last
	// engine built with it, so that the next one, over mostly the same
	// units (after a commit move or an edit), counts only the units
	// whose text is new. The engine is the same with it or without.
	Counts *TermCounts
}

// TermCounts keeps the term counts of the unit texts of the last engine
// built with it (Options.Counts): each build reads the counts of the texts
// it shares with the one before and keeps its own in their place, so it
// holds one engine's worth at most. Builds that share it take turns.
type TermCounts struct {
	mu      sync.Mutex
	content map[string]lexical.Counted // by unit content
}

// Engine ranks the units of one repository snapshot (or one pool) for
// states. Build it once per index; Candidates is safe for concurrent use.
type Engine struct {
	opts Options
	n    int // units (of an overlay, the live ones)
	// units and info, with the tables below, hold an engine built in
	// memory; m holds a stored one's instead (access.go), and x, with m,
	// an overlay's (overlay.go).
	m     *mapped
	x     *overlay
	units []mss.Unit
	info  []unitInfo
	byID  map[string]int
	// byPath lists unit indices of each file in line order.
	byPath map[string][]int
	paths  []string // sorted
	// baseName maps a lower-cased file name to the paths that have it.
	baseName map[string][]string
	lex      *lexical.Index
	names    nameMaps
	// adj holds the explicit edges (from an index) out of and into each
	// unit, by unit index; nil without edges.
	adj  [2][][]edgeTo
	hist *history
	sem  *semantic
	emb  *embedIndex
	off  map[string]bool
	warn []string
	// src, for an engine opened from an index's stored structures, is
	// where unit content is read: units then hold everything else.
	src store
}

type edgeTo struct {
	unit   int
	weight float64
	kind   uint8 // edgeKinds index
}

// edgeKinds codes edge kinds in a stored engine.
var edgeKinds = []string{index.EdgeCall, index.EdgeRef, index.EdgeImport}

func edgeKindCode(kind string) uint8 {
	for i, k := range edgeKinds {
		if k == kind {
			return uint8(i)
		}
	}
	return 0
}

// edgeWeight weighs an index edge kind in the structural view.
func edgeWeight(kind string) float64 {
	switch kind {
	case index.EdgeCall:
		return structEdgeCall
	case index.EdgeRef:
		return structEdgeRef
	case index.EdgeImport:
		return structEdgeImport
	}
	return 0
}

type unitInfo struct {
	name      string // lower-cased last component of Symbol
	qual      string // lower-cased Symbol
	parent    string // lower-cased Symbol without its last component
	class     PathClass
	nameParts []string
	defines   []string // lower-cased
	refs      []string // lower-cased, deduplicated
	// selectable: a selection can name what the unit defines
	// (segment.Selectable); sel: the names of refs its text only
	// selects from something (x.name), sorted by name.
	selectable bool
	sel        []selection
}

// selection is a name a unit's text uses only as a selection, and the
// qualifiers it selects it from (segment.NameUse).
type selection struct {
	name string
	use  segment.NameUse
}

// selected is how the unit uses name, a referenced one, when only as a
// selection.
func (in *unitInfo) selected(name string) (segment.NameUse, bool) {
	k, ok := slices.BinarySearchFunc(in.sel, name, func(s selection, n string) int { return strings.Compare(s.name, n) })
	if !ok {
		return segment.NameUse{}, false
	}
	return in.sel[k].use, true
}

// NewEngine builds an engine over units with the index's edges (which may
// be nil: callers and callees are then found by name). Units are ordered by
// path and line so results do not depend on the order they were given in.
func NewEngine(units []mss.Unit, edges []index.Edge, opts Options) *Engine {
	return buildEngine(units, edges, nil, opts)
}

// buildEngine is NewEngine; sels, when not nil, holds by unit id what
// each unit only selects (index.DeriveInput.Selections), which the
// engine then does not lex again.
func buildEngine(units []mss.Unit, edges []index.Edge, sels map[string]map[string]segment.NameUse, opts Options) *Engine {
	us := make([]mss.Unit, len(units))
	copy(us, units)
	sort.SliceStable(us, func(i, j int) bool {
		a, b := &us[i], &us[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.StartLine != b.StartLine {
			return a.StartLine < b.StartLine
		}
		if a.EndLine != b.EndLine {
			return a.EndLine < b.EndLine
		}
		return a.ID < b.ID
	})
	for i := range us {
		u := &us[i]
		if u.Tokens == 0 {
			u.Tokens = mss.TokenCost(u.Content)
		}
		if u.ID == "" {
			u.ID = fmt.Sprintf("%s:%d-%d", u.Path, u.StartLine, u.EndLine)
		}
	}
	e := newEngine(us, opts)
	// Every unit's content and symbol are tokenized once, on every core,
	// for both the BM25 index and the semantic structure; those two are
	// built while the name tables are, and the history beside all three.
	content, symbol := tokenizeUnits(us, opts.Counts)
	var wg sync.WaitGroup
	if !e.off[ViewSemantic] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.sem = buildSemantic(e, content, symbol)
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		e.lex = buildLexical(us, content, symbol)
	}()
	e.tables(sels)
	if len(edges) > 0 {
		// Resolve the edges, count each unit's, then lay every unit's
		// out in one backing array per direction, in edge order.
		type resolved struct{ f, t int }
		res := make([]resolved, len(edges))
		var n [2][]int32
		n[edgesOut], n[edgesIn] = make([]int32, len(us)), make([]int32, len(us))
		total := 0
		for i, ed := range edges {
			f, ok1 := e.byID[ed.From]
			t, ok2 := e.byID[ed.To]
			if !ok1 || !ok2 || f == t || edgeWeight(ed.Kind) == 0 {
				res[i] = resolved{-1, -1}
				continue
			}
			res[i] = resolved{f, t}
			n[edgesOut][f]++
			n[edgesIn][t]++
			total++
		}
		for d := range e.adj {
			backing := make([]edgeTo, 0, total)
			e.adj[d] = make([][]edgeTo, len(us))
			for u, c := range n[d] {
				e.adj[d][u] = backing[len(backing) : len(backing) : len(backing)+int(c)]
				backing = backing[:len(backing)+int(c)]
			}
		}
		for i, ed := range edges {
			f, t := res[i].f, res[i].t
			if f < 0 {
				continue
			}
			w, k := edgeWeight(ed.Kind), edgeKindCode(ed.Kind)
			e.adj[edgesOut][f] = append(e.adj[edgesOut][f], edgeTo{t, w, k})
			e.adj[edgesIn][t] = append(e.adj[edgesIn][t], edgeTo{f, w, k})
		}
	}
	e.openHistory()
	wg.Wait()
	e.setEmbedder()
	return e
}

// lexicalFields are the BM25 fields of a unit, in the order buildLexical
// adds them.
var lexicalFields = []lexical.Field{
	{Name: "content", Weight: WeightFieldContent},
	{Name: "symbol", Weight: WeightFieldSymbol},
	{Name: "path", Weight: WeightFieldPath},
}

func buildLexical(us []mss.Unit, content, symbol []lexical.Counted) *lexical.Index {
	path := make([]lexical.Counted, len(us))
	for i := range us {
		// Units come in path order: a file's path is counted once.
		if i == 0 || us[i].Path != us[i-1].Path {
			path[i] = lexical.Count(us[i].Path)
		} else {
			path[i] = path[i-1]
		}
	}
	return lexical.BuildColumns(lexicalFields, content, symbol, path)
}

// tokenizeUnits counts the terms of every unit's content and symbol, on
// every core (each unit's counts are its own: the result does not depend
// on the split). With tc, a content the last build with tc counted is
// not counted again.
func tokenizeUnits(us []mss.Unit, tc *TermCounts) (content, symbol []lexical.Counted) {
	content, symbol = make([]lexical.Counted, len(us)), make([]lexical.Counted, len(us))
	var before map[string]lexical.Counted
	if tc != nil {
		tc.mu.Lock()
		defer tc.mu.Unlock()
		before = tc.content
	}
	eachUnit(len(us), func(i int) {
		c, ok := before[us[i].Content]
		if !ok {
			c = lexical.Count(us[i].Content)
		}
		content[i], symbol[i] = c, lexical.Count(us[i].Symbol)
	})
	if tc != nil {
		// Keyed by the texts themselves, so a count is only ever reused
		// for the very text it was made from.
		tc.content = make(map[string]lexical.Counted, len(us))
		for i := range us {
			tc.content[us[i].Content] = content[i]
		}
	}
	return content, symbol
}

// newEngine starts an engine over units already in engine order.
func newEngine(us []mss.Unit, opts Options) *Engine {
	e := &Engine{
		opts:     opts,
		n:        len(us),
		units:    us,
		info:     make([]unitInfo, len(us)),
		byID:     make(map[string]int, len(us)),
		byPath:   map[string][]int{},
		baseName: map[string][]string{},
		names:    newNameMaps(),
		off:      offViews(opts),
	}
	return e
}

// offViews is the set of views opts leaves out.
func offViews(opts Options) map[string]bool {
	off := map[string]bool{}
	for _, v := range opts.Disable {
		off[v] = true
	}
	return off
}

// tables fills the per-unit facts and the name tables from the units
// (sels as unitFacts takes it).
func (e *Engine) tables(sels map[string]map[string]segment.NameUse) {
	for i := range e.units {
		u := &e.units[i]
		in := &e.info[i]
		*in = unitFacts(u, sels)
		if i > 0 && u.Path == e.units[i-1].Path {
			in.class = e.info[i-1].class // units are in path order
		} else {
			in.class = Classify(u.Path)
		}
	}
	e.maps()
}

// unitFacts derives what the views compare of a unit, but its class. Its
// selections are sels[u.ID] when sels is not nil, else lexed from it.
func unitFacts(u *mss.Unit, sels map[string]map[string]segment.NameUse) unitInfo {
	var in unitInfo
	in.qual = strings.ToLower(normSymbol(u.Symbol))
	in.setName()
	// A unit defines few names: they are told apart by a scan, but for
	// the rare unit that defines many.
	var seen map[string]bool
	defined := func(n string) bool {
		if seen != nil {
			return seen[n]
		}
		return slices.Contains(in.defines, n)
	}
	add := func(n string) {
		n = strings.ToLower(n)
		if n == "" || defined(n) {
			return
		}
		in.defines = append(in.defines, n)
		if seen != nil {
			seen[n] = true
		} else if len(in.defines) > 16 {
			seen = make(map[string]bool, len(u.Defines)+1)
			for _, d := range in.defines {
				seen[d] = true
			}
		}
	}
	add(in.name)
	for _, d := range u.Defines {
		add(lastComponent(normSymbol(d)))
	}
	// The referenced names but those defined, sorted, each once.
	if len(u.References) > 0 {
		refs := make([]string, 0, len(u.References))
		for _, r := range u.References {
			if r = strings.ToLower(lastComponent(normSymbol(r))); r != "" && !defined(r) {
				refs = append(refs, r)
			}
		}
		slices.Sort(refs)
		if refs = slices.Compact(refs); len(refs) > 0 {
			in.refs = slices.Clip(refs)
		}
	}
	in.selectable = segment.Selectable(u.Symbol, u.Kind)
	if len(in.refs) > 0 {
		var sel map[string]segment.NameUse
		if sels != nil {
			sel = sels[u.ID]
		} else {
			sel = segment.Selections(u.Content, u.Language, in.refs)
		}
		for _, r := range in.refs {
			if use, ok := sel[r]; ok {
				in.sel = append(in.sel, selection{r, use})
			}
		}
	}
	return in
}

// setName derives name, parent and nameParts from qual.
func (in *unitInfo) setName() {
	in.name, in.parent = in.qual, ""
	if k := strings.LastIndexByte(in.qual, '.'); k >= 0 {
		in.name, in.parent = in.qual[k+1:], in.qual[:k]
	}
	if strings.HasPrefix(in.name, "<") {
		in.name = ""
	}
	in.nameParts = nameParts(in.name)
}

// maps fills the name tables from the units and their facts, three at a
// time.
func (e *Engine) maps() {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := range e.units {
			u := &e.units[i]
			if _, dup := e.byID[u.ID]; !dup {
				e.byID[u.ID] = i
			}
			if _, ok := e.byPath[u.Path]; !ok {
				e.paths = append(e.paths, u.Path)
				base := strings.ToLower(u.Path[strings.LastIndexByte(u.Path, '/')+1:])
				e.baseName[base] = append(e.baseName[base], u.Path)
			}
			e.byPath[u.Path] = append(e.byPath[u.Path], i)
		}
		sort.Strings(e.paths)
	}()
	go func() {
		defer wg.Done()
		for i := range e.info {
			e.names.addDefined(i, &e.info[i])
		}
	}()
	for i := range e.info {
		e.names.addReferenced(i, &e.info[i])
	}
	wg.Wait()
}

// nameKind is one of an engine's name tables.
type nameKind int

const (
	namesDefined    nameKind = iota // lower-cased defined name -> defining units
	namesQualified                  // lower-cased symbol path -> its units
	namesReferenced                 // lower-cased name -> referencing units
)

// nameTableKeys names the stored tables of each kind.
var nameTableKeys = [...]string{namesDefined: "defs", namesQualified: "quals", namesReferenced: "refs"}

// nameMaps are the name tables of units held in memory.
type nameMaps [3]map[string][]int

func newNameMaps() nameMaps { return nameMaps{{}, {}, {}} }

// addDefined files unit i under the names it defines and its symbol path.
func (t *nameMaps) addDefined(i int, in *unitInfo) {
	for _, n := range in.defines {
		t[namesDefined][n] = append(t[namesDefined][n], i)
	}
	if in.qual != "" && !strings.HasPrefix(in.qual, "<") {
		t[namesQualified][in.qual] = append(t[namesQualified][in.qual], i)
	}
}

// addReferenced files unit i under the names it references.
func (t *nameMaps) addReferenced(i int, in *unitInfo) {
	for _, r := range in.refs {
		t[namesReferenced][r] = append(t[namesReferenced][r], i)
	}
}

// edgeDir is a direction of explicit edges.
type edgeDir int

const (
	edgesOut edgeDir = iota
	edgesIn
)

// openHistory turns on the history view when the options name a commit.
func (e *Engine) openHistory() {
	opts := e.opts
	if opts.GitDir != "" && opts.Commit != "" && !e.off[ViewHistory] {
		h, err := loadHistory(opts.GitDir, opts.Commit, opts.GitPrefix, historyCommits(opts), e)
		if err != nil {
			e.warn = append(e.warn, fmt.Sprintf("history view off: %v", err))
		} else {
			e.hist = h
		}
	}
}

func (e *Engine) setEmbedder() {
	if e.opts.Embedder != nil && !e.off[ViewEmbedding] {
		e.emb = &embedIndex{emb: e.opts.Embedder}
	}
}

// Warnings lists what the engine could not set up (a view left off and
// why). They are repeated in every candidate list's explanation.
func (e *Engine) Warnings() []string { return e.warn }

func normSymbol(s string) string {
	s = strings.ReplaceAll(s, "::", ".")
	s = strings.ReplaceAll(s, "#", ".")
	s = strings.ReplaceAll(s, "->", ".")
	return s
}

func lastComponent(s string) string {
	if k := strings.LastIndexByte(s, '.'); k >= 0 {
		return s[k+1:]
	}
	return s
}

// nameParts splits a lower-cased name into its snake/camel parts.
func nameParts(name string) []string {
	var out []string
	for _, p := range strings.Split(name, "_") {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Pool ranks a supplied candidate pool for a state (the SERBench pool
// track): every pool unit is returned once, fused order, best first, with
// Observed set for the units the state has seen (mss.Observed).
func Pool(state *mss.State, pool []mss.Unit) []mss.Candidate {
	cands, _ := PoolRank(state, mss.ObservedOf(state), pool)
	return cands
}

// PoolRank is Pool with what the state has seen already derived
// (mss.ObservedOf), and it also returns the state's mentions (see
// Engine.Rank).
func PoolRank(state *mss.State, obs *mss.Observed, pool []mss.Unit) ([]mss.Candidate, *Mentions) {
	e := NewEngine(pool, nil, Options{})
	cands, m, _ := e.Rank(context.Background(), state, obs, len(pool))
	if len(cands) < len(pool) {
		// Units no view reached keep their pool order at the end.
		seen := make(map[string]bool, len(cands))
		for _, c := range cands {
			seen[c.Unit.ID] = true
		}
		observed := e.observed(state, obs)
		for _, u := range pool {
			if u.ID != "" && seen[u.ID] {
				continue
			}
			i, ok := e.idIndex(u.ID)
			c := mss.Candidate{Unit: u}
			if ok {
				c.Unit = *e.unitAt(i)
				c.Observed = observed[i]
			}
			cands = append(cands, c)
		}
	}
	return cands, m
}

// query is one state's precomputed facets, shared by the views.
type query struct {
	state    *mss.State
	text     string
	terms    map[string]int
	mentions *Mentions
	observed map[int]bool
	// obsOrder lists the observed units in engine order.
	obsOrder []int
	// files named by the state (paths and frames), path -> strength.
	files   map[string]float64
	lexHits []hit
	// lexTerms are the terms the lexical view searched for, with their
	// counts (none when it is off).
	lexTerms map[string]int
	// lex and sem hold what the lexical and semantic views read of the
	// query's terms.
	lex *lexical.View
	sem *semantic
	// title holds the units' scores for the issue's title (titleScores).
	title map[int]float64
}

// hit is one unit's score in one view.
type hit struct {
	idx   int
	score float64
}

// observed marks the units the state has seen (mss.Observed): named by id,
// or sharing a line with an observed span.
func (e *Engine) observed(s *mss.State, obs *mss.Observed) map[int]bool {
	out := map[int]bool{}
	for _, id := range s.ObservedEvidenceIDs {
		if i, ok := e.idIndex(id); ok {
			out[i] = true
		}
	}
	for _, p := range obs.Paths() {
		for _, i := range e.unitsOf(p) {
			if obs.Unit(e.unitAt(i)) {
				out[i] = true
			}
		}
	}
	return out
}

// Candidates ranks units for a state: every view ranks, the ranks are fused
// by weighted reciprocal rank, and the best limit candidates (all when
// limit <= 0... bounded by DefaultCandidates) come back best first.
// Observed units are included and flagged; controllers decide what to do
// with them.
func (e *Engine) Candidates(ctx context.Context, state *mss.State, limit int) ([]mss.Candidate, error) {
	cands, _, err := e.Rank(ctx, state, mss.ObservedOf(state), limit)
	return cands, err
}

// Rank is Candidates with what the state has seen already derived
// (mss.ObservedOf), so a request derives it once, and it also returns the
// mentions it read from the state's text, for the policy
// (mss.Request.Mentions): the state is read once per request.
func (e *Engine) Rank(ctx context.Context, state *mss.State, obs *mss.Observed, limit int) ([]mss.Candidate, *Mentions, error) {
	if state == nil {
		return nil, nil, fmt.Errorf("retrieve: nil state")
	}
	if limit <= 0 {
		limit = DefaultCandidates
	}
	if e.n == 0 {
		return nil, ExtractWith(state, e.opts.IssueTemplate), nil
	}
	q, err := e.prepare(state, obs)
	if err != nil {
		return nil, nil, err
	}
	views := map[string][]hit{}
	run := func(name string, f func(*query) []hit) {
		if e.off[name] {
			return
		}
		if hs := f(q); len(hs) > 0 {
			views[name] = hs
		}
	}
	run(ViewLexical, e.lexicalView)
	run(ViewEntity, e.entityView)
	run(ViewRecency, e.recencyView)
	run(ViewStructural, func(q *query) []hit { return e.structuralView(q, views[ViewEntity]) })
	if e.hist != nil {
		run(ViewHistory, func(q *query) []hit { return e.historyView(q, views) })
	}
	if e.sem != nil {
		run(ViewSemantic, e.semanticView)
	}
	if e.emb != nil {
		hs, err := e.embeddingView(ctx, q)
		if err != nil {
			return nil, nil, fmt.Errorf("retrieve: embedding view: %w", err)
		}
		if len(hs) > 0 {
			views[ViewEmbedding] = hs
		}
	}
	q.title = e.titleScores(q)
	cands, err := e.fill(ctx, e.fuse(q, views, limit))
	if err != nil {
		return nil, nil, err
	}
	cands = withRemainders(cands, obs)
	return e.opts.OrderModel().Reorder(cands, q.mentions), q.mentions, nil
}

// prepare extracts the state's facets once for all views, and reads what
// the views need of its terms.
func (e *Engine) prepare(s *mss.State, obs *mss.Observed) (*query, error) {
	text, m := readState(s, e.opts.IssueTemplate)
	q := &query{state: s, text: text, mentions: m}
	q.terms = lexical.QueryTerms(q.text)
	var err error
	if !e.off[ViewLexical] {
		if q.lex, err = e.lex.Lookup(sortedKeys(q.terms)); err != nil {
			return nil, fmt.Errorf("retrieve: %w", err)
		}
	}
	if e.sem != nil && !e.off[ViewSemantic] {
		if q.sem, err = e.sem.lookup(q.terms); err != nil {
			return nil, fmt.Errorf("retrieve: %w", err)
		}
	}
	q.observed = e.observed(s, obs)
	q.obsOrder = sortedInts(q.observed)
	q.files = map[string]float64{}
	for _, p := range q.mentions.Paths {
		for path, s := range e.resolvePath(p) {
			q.files[path] = max(q.files[path], s)
		}
	}
	for _, qual := range q.mentions.Qualified {
		for path, s := range e.resolveModule(qual) {
			q.files[path] = max(q.files[path], s)
		}
	}
	return q, nil
}

// resolvePath maps a mentioned path to repository files with a match
// strength in (0,1]: 1 for the whole path, less for a shorter suffix.
func (e *Engine) resolvePath(p string) map[string]float64 {
	out := map[string]float64{}
	parts := strings.Split(strings.ToLower(p), "/")
	cands := e.basePaths(parts[len(parts)-1])
	if len(cands) == 0 {
		return out
	}
	best := 0
	scores := map[string]int{}
	for _, c := range cands {
		cp := strings.Split(strings.ToLower(c), "/")
		n := 0
		for n < len(cp) && n < len(parts) && cp[len(cp)-1-n] == parts[len(parts)-1-n] {
			n++
		}
		scores[c] = n
		best = max(best, n)
	}
	// A bare file name shared by many files names none of them.
	if best == 1 && len(cands) > 3 {
		return out
	}
	for c, n := range scores {
		if n == best {
			out[c] = float64(n) / float64(max(len(parts), n))
			if best == 1 {
				out[c] *= 0.5
			}
		}
	}
	return out
}

// resolveModule maps a dotted name (package.module.Class.method) to the
// source files its prefixes name, e.g. _pytest.mark.structures ->
// src/_pytest/mark/structures.py.
func (e *Engine) resolveModule(qual string) map[string]float64 {
	parts := strings.Split(qual, ".")
	out := map[string]float64{}
	for n := len(parts); n >= 2; n-- {
		stem := strings.Join(parts[:n], "/")
		for _, suffix := range []string{".py", "/__init__.py"} {
			for path, s := range e.resolvePath(stem + suffix) {
				if s >= 0.99 || float64(n)/float64(len(parts)) > 0.5 {
					out[path] = max(out[path], s)
				}
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return out
}

// sortHits orders hits best first, ties by the units' order (orderKey),
// and keeps the first ViewDepth. The order is total, so keeping the best
// ViewDepth on a heap first gives what sorting them all would.
func (e *Engine) sortHits(hs []hit) []hit {
	better := func(a, b hit) bool {
		if a.score != b.score {
			return a.score > b.score
		}
		return e.before(a.idx, b.idx)
	}
	if len(hs) > 2*ViewDepth {
		top := worstFirst{hs: make([]hit, 0, ViewDepth), better: better}
		for _, h := range hs {
			if len(top.hs) < ViewDepth {
				heap.Push(&top, h)
			} else if better(h, top.hs[0]) {
				top.hs[0] = h
				heap.Fix(&top, 0)
			}
		}
		hs = top.hs
	}
	sort.Slice(hs, func(i, j int) bool { return better(hs[i], hs[j]) })
	if len(hs) > ViewDepth {
		hs = hs[:ViewDepth]
	}
	return hs
}

// worstFirst is a heap of hits whose root is the worst.
type worstFirst struct {
	hs     []hit
	better func(a, b hit) bool
}

func (w *worstFirst) Len() int           { return len(w.hs) }
func (w *worstFirst) Less(i, j int) bool { return w.better(w.hs[j], w.hs[i]) }
func (w *worstFirst) Swap(i, j int)      { w.hs[i], w.hs[j] = w.hs[j], w.hs[i] }
func (w *worstFirst) Push(x any)         { w.hs = append(w.hs, x.(hit)) }
func (w *worstFirst) Pop() any {
	h := w.hs[len(w.hs)-1]
	w.hs = w.hs[:len(w.hs)-1]
	return h
}

// mapHits turns a score map into sorted hits, dropping non-positive scores.
func (e *Engine) mapHits(m map[int]float64) []hit {
	hs := make([]hit, 0, len(m))
	for i, s := range m {
		if s > 0 && !math.IsNaN(s) {
			hs = append(hs, hit{i, s})
		}
	}
	return e.sortHits(hs)
}
