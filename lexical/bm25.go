// Package lexical is a BM25 index over documents with named fields,
// tokenized by package tokenize. It serves the pool track (a pool is a
// small corpus built per state, held in memory) and the lexical view over
// a repository index, whose postings are stored (Export) and read per
// query, a few terms at a time (Stored, Lookup).
//
// Each field is scored with its own BM25 statistics (Robertson–Sparck Jones
// idf, k1 = 1.2, b = 0.75) and the field scores are summed with the field's
// weight, so a query term naming a symbol or a path counts more than the
// same term buried in a body.
package lexical

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/missingcomplement/mss/tokenize"
)

// BM25 parameters.
const (
	K1 = 1.2
	B  = 0.75
)

// Field is one weighted text field of a document.
type Field struct {
	Name   string
	Weight float64
}

// Index is an immutable BM25 index. Build it with NewBuilder, or open a
// stored one with Stored.
type Index struct {
	fields []Field
	n      int
	// per field
	avgLen   []float64
	docLen   [][]int32
	postings []map[string][]posting
	// get, for a stored index, finds the encoded postings of a term of
	// one field; postings is then empty.
	get Postings
	// under, dead and over make an overlay (Overlay): under's documents
	// but those dead, then over's.
	under *Index
	dead  []bool
	over  *Index
}

// Postings finds the encoded postings (Export) of term in field f.
type Postings func(f int, term string) ([]byte, bool)

type posting struct {
	doc int32
	tf  int32
}

// Builder accumulates documents.
type Builder struct {
	ix *Index
}

// NewBuilder starts an index with the given fields.
func NewBuilder(fields ...Field) *Builder {
	return &Builder{ix: newIndex(fields)}
}

// newIndex is an empty index of fields.
func newIndex(fields []Field) *Index {
	return &Index{fields: fields, avgLen: make([]float64, len(fields)), docLen: make([][]int32, len(fields)), postings: emptyPostings(len(fields))}
}

func emptyPostings(fields int) []map[string][]posting {
	ps := make([]map[string][]posting, fields)
	for f := range ps {
		ps[f] = map[string][]posting{}
	}
	return ps
}

// Add appends a document; texts are given in field order. It returns the
// document number (0-based, in order of addition).
func (b *Builder) Add(texts ...string) int {
	fields := make([]Counted, len(texts))
	for f, t := range texts {
		fields[f] = Count(t)
	}
	return b.AddCounted(fields...)
}

// Counted is one field of a document, tokenized: its distinct terms with
// their counts, in the order the text first has them, and its length in
// terms. What is built from it does not depend on that order: postings
// are in document order, and the semantic structure sorts the terms.
type Counted struct {
	Terms []TermCount
	Len   int32
}

// TermCount is a term and how often a field has it.
type TermCount struct {
	Term  string
	Count int32
}

// counter counts the terms of one text: counts in the order the terms
// come, and an open-addressing table of their places (a place plus one;
// 0 is empty) with each term's hash beside it; buf is where the tokenizer
// lower-cases terms.
type counter struct {
	slots  []counterSlot // a power of two long
	counts []TermCount
	buf    []byte
}

type counterSlot struct {
	hash  uint32
	place int32 // in counts, plus one
}

// counterSlots is a new counter's table size.
const counterSlots = 256

// counters lend Count a counter.
var counters = sync.Pool{New: func() any { return &counter{slots: make([]counterSlot, counterSlots)} }}

// termHash is FNV-1a over a term's bytes (terms are short).
func termHash(t string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(t); i++ {
		h = (h ^ uint32(t[i])) * 16777619
	}
	return h
}

// add counts one occurrence of t; scratch says t must be copied to be
// kept.
func (c *counter) add(t string, scratch bool) {
	h := termHash(t)
	mask := uint32(len(c.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := c.slots[i]
		if s.place == 0 {
			break
		}
		if s.hash == h && c.counts[s.place-1].Term == t {
			c.counts[s.place-1].Count++
			return
		}
	}
	if scratch {
		t = strings.Clone(t) // allocated once per distinct term
	}
	c.counts = append(c.counts, TermCount{Term: t, Count: 1})
	if 2*len(c.counts) > len(c.slots) {
		c.rehash(2 * len(c.slots))
		return
	}
	c.put(h, int32(len(c.counts)))
}

// put places a term's place (plus one) in the first free slot from its
// hash.
func (c *counter) put(h uint32, place int32) {
	mask := uint32(len(c.slots) - 1)
	i := h & mask
	for c.slots[i].place != 0 {
		i = (i + 1) & mask
	}
	c.slots[i] = counterSlot{h, place}
}

// rehash lays every counted term out in a table of size slots.
func (c *counter) rehash(size int) {
	c.slots = make([]counterSlot, size)
	for k := range c.counts {
		c.put(termHash(c.counts[k].Term), int32(k+1))
	}
}

// reset empties the counter for the next text: a table grown by a long
// text is dropped.
func (c *counter) reset() {
	if len(c.slots) > 4*counterSlots {
		c.slots = make([]counterSlot, counterSlots)
	} else {
		clear(c.slots)
	}
	clear(c.counts)
	c.counts = c.counts[:0]
	if cap(c.counts) > 4096 {
		c.counts = nil
	}
	if cap(c.buf) > 4096 {
		c.buf = nil
	}
}

// Count tokenizes a field's text.
func Count(text string) Counted {
	c := counters.Get().(*counter)
	n := int32(0)
	tokenize.EachScratch(text, &c.buf, func(t string, scratch bool) {
		n++
		c.add(t, scratch)
	})
	out := Counted{Terms: make([]TermCount, len(c.counts)), Len: n}
	copy(out.Terms, c.counts)
	c.reset()
	counters.Put(c)
	return out
}

// AddCounted appends a document whose fields are tokenized already (in
// field order; see Count): the same as Add of their texts.
func (b *Builder) AddCounted(fields ...Counted) int {
	ix := b.ix
	doc := int32(ix.n)
	ix.n++
	for f := range ix.fields {
		var c Counted
		if f < len(fields) {
			c = fields[f]
		}
		ix.docLen[f] = append(ix.docLen[f], c.Len)
		for _, tc := range c.Terms {
			ix.postings[f][tc.Term] = append(ix.postings[f][tc.Term], posting{doc, tc.Count})
		}
	}
	return int(doc)
}

// BuildColumns builds the index of documents whose fields are tokenized
// already (see Count), a column per field, in field order, each holding
// every document's (a field without a column is empty): the index a
// Builder gives when the documents are added in order. Each field's
// postings are counted first and laid out in one block.
func BuildColumns(fields []Field, cols ...[]Counted) *Index {
	ix := newIndex(fields)
	for _, c := range cols {
		ix.n = max(ix.n, len(c))
	}
	var wg sync.WaitGroup
	for f := range fields {
		var col []Counted
		if f < len(cols) {
			col = cols[f]
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ix.docLen[f], ix.postings[f] = buildField(col, ix.n)
		}()
	}
	wg.Wait()
	ix.average()
	return ix
}

// buildField gives the lengths and postings of one field of n documents.
func buildField(col []Counted, n int) ([]int32, map[string][]posting) {
	lens := make([]int32, n)
	total := 0
	for d := range col {
		lens[d] = col[d].Len
		total += len(col[d].Terms)
	}
	// Number the terms as they come, counting their documents.
	num := map[string]int32{}
	var terms []string
	var df []int32
	ids := make([]int32, 0, total)
	for d := range col {
		for _, tc := range col[d].Terms {
			id, ok := num[tc.Term]
			if !ok {
				id = int32(len(terms))
				num[tc.Term] = id
				terms = append(terms, tc.Term)
				df = append(df, 0)
			}
			df[id]++
			ids = append(ids, id)
		}
	}
	// Each term's postings, in document order, in one block.
	next := make([]int32, len(terms)+1)
	for id, c := range df {
		next[id+1] = next[id] + c
	}
	block := make([]posting, total)
	m := make(map[string][]posting, len(terms))
	for id, t := range terms {
		lo, hi := next[id], next[id+1]
		m[t] = block[lo:hi:hi]
	}
	k := 0
	for d := range col {
		for _, tc := range col[d].Terms {
			id := ids[k]
			block[next[id]] = posting{int32(d), tc.Count}
			next[id]++
			k++
		}
	}
	return lens, m
}

// Build finishes the index.
func (b *Builder) Build() *Index {
	ix := b.ix
	ix.average()
	b.ix = nil
	return ix
}

// average sets each field's average length over the live documents
// (ix.n of them: an overlay's dead ones are left out).
func (ix *Index) average() {
	for f := range ix.fields {
		var sum int64
		for d, l := range ix.docLen[f] {
			if d >= len(ix.dead) || !ix.dead[d] {
				sum += int64(l)
			}
		}
		if ix.n > 0 {
			ix.avgLen[f] = float64(sum) / float64(ix.n)
		}
	}
}

// Export encodes an in-memory index for storage: head holds the document
// count and every document's field lengths; terms[f] maps each term of
// field f to its encoded postings. Stored opens what Export wrote.
func (ix *Index) Export() (head []byte, terms []map[string][]byte) {
	head = ix.exportHead()
	terms = make([]map[string][]byte, len(ix.fields))
	for f := range ix.fields {
		terms[f] = make(map[string][]byte, len(ix.postings[f]))
		for t, ps := range ix.postings[f] {
			terms[f][t] = encodePostings(make([]byte, 0, 2+3*len(ps)), ps)
		}
	}
	return head, terms
}

// exportHead encodes the document count and every document's field
// lengths.
func (ix *Index) exportHead() []byte {
	size := 2 * binary.MaxVarintLen64
	for f := range ix.fields {
		size += 2 * len(ix.docLen[f])
	}
	head := binary.AppendUvarint(make([]byte, 0, size), uint64(ix.n))
	head = binary.AppendUvarint(head, uint64(len(ix.fields)))
	for f := range ix.fields {
		for _, l := range ix.docLen[f] {
			head = binary.AppendUvarint(head, uint64(l))
		}
	}
	return head
}

// FieldExport is one field's postings as Export encodes them, term by
// term in sorted order, for a caller that lays them out itself.
type FieldExport struct {
	Terms []string // sorted
	ps    [][]posting
}

// ExportFields is Export with each field's terms in sorted order, their
// postings encoded on demand (Size, Put).
func (ix *Index) ExportFields() (head []byte, fields []*FieldExport) {
	head = ix.exportHead()
	fields = make([]*FieldExport, len(ix.fields))
	for f := range ix.fields {
		fe := &FieldExport{Terms: make([]string, 0, len(ix.postings[f]))}
		for t := range ix.postings[f] {
			fe.Terms = append(fe.Terms, t)
		}
		slices.Sort(fe.Terms)
		fe.ps = make([][]posting, len(fe.Terms))
		for i, t := range fe.Terms {
			fe.ps[i] = ix.postings[f][t]
		}
		fields[f] = fe
	}
	return head, fields
}

// Size is the size of term i's encoded postings.
func (fe *FieldExport) Size(i int) int {
	ps := fe.ps[i]
	n := uvarintLen(uint64(len(ps)))
	prev := int32(0)
	for _, p := range ps {
		n += uvarintLen(uint64(p.doc-prev)) + uvarintLen(uint64(p.tf))
		prev = p.doc
	}
	return n
}

// Put encodes term i's postings into b, of Size(i) bytes.
func (fe *FieldExport) Put(i int, b []byte) {
	encodePostings(b[:0], fe.ps[i])
}

func uvarintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

func encodePostings(b []byte, ps []posting) []byte {
	b = binary.AppendUvarint(b, uint64(len(ps)))
	prev := int32(0)
	for _, p := range ps {
		b = binary.AppendUvarint(b, uint64(p.doc-prev))
		b = binary.AppendUvarint(b, uint64(p.tf))
		prev = p.doc
	}
	return b
}

var errEncoding = errors.New("bad encoding")

// Stored opens an index Export wrote: head is decoded now, postings are
// found through get as queries need them (Lookup).
func Stored(fields []Field, head []byte, get Postings) (*Index, error) {
	ix := newIndex(fields)
	ix.get = get
	n, k := binary.Uvarint(head)
	if k <= 0 || n > uint64(len(head)) {
		return nil, fmt.Errorf("lexical: stored head: %w", errEncoding)
	}
	head = head[k:]
	nf, k := binary.Uvarint(head)
	if k <= 0 || nf != uint64(len(fields)) {
		return nil, fmt.Errorf("lexical: stored head has %d fields, want %d: %w", nf, len(fields), errEncoding)
	}
	head = head[k:]
	ix.n = int(n)
	for f := range fields {
		ls := make([]int32, ix.n)
		for d := range ls {
			l, k := binary.Uvarint(head)
			if k <= 0 || l > math.MaxInt32 {
				return nil, fmt.Errorf("lexical: stored lengths: %w", errEncoding)
			}
			ls[d], head = int32(l), head[k:]
		}
		ix.docLen[f] = ls
	}
	if len(head) != 0 {
		return nil, fmt.Errorf("lexical: stored head: %d bytes left over: %w", len(head), errEncoding)
	}
	ix.average()
	return ix, nil
}

func decodePostings(b []byte, n int) ([]posting, error) {
	c, k := binary.Uvarint(b)
	if k <= 0 || c > uint64(len(b)) {
		return nil, errEncoding
	}
	b = b[k:]
	ps := make([]posting, c)
	doc := uint64(0)
	for i := range ps {
		d, k := binary.Uvarint(b)
		if k <= 0 {
			return nil, errEncoding
		}
		b = b[k:]
		tf, k := binary.Uvarint(b)
		if k <= 0 || tf > math.MaxInt32 {
			return nil, errEncoding
		}
		b = b[k:]
		doc += d
		if doc >= uint64(n) || (i > 0 && d == 0) {
			return nil, errEncoding
		}
		ps[i] = posting{int32(doc), int32(tf)}
	}
	if len(b) != 0 {
		return nil, errEncoding
	}
	return ps, nil
}

// View is what one query reads of an index: the postings of its terms.
type View struct {
	ix       *Index
	postings []map[string][]posting
}

// Lookup reads the postings of terms (all fields). An in-memory index
// holds them all already; a stored one decodes them (an error for
// damaged postings); an overlay reads its base's and adds its delta's.
func (ix *Index) Lookup(terms []string) (*View, error) {
	if ix.under != nil {
		return ix.lookupOverlay(terms)
	}
	if ix.get == nil {
		return ix.view(), nil
	}
	v := &View{ix: ix, postings: emptyPostings(len(ix.fields))}
	for f := range ix.fields {
		for _, t := range terms {
			b, ok := ix.get(f, t)
			if !ok {
				continue
			}
			ps, err := decodePostings(b, ix.n)
			if err != nil {
				return nil, fmt.Errorf("lexical: postings of %q in field %s: %w", t, ix.fields[f].Name, err)
			}
			v.postings[f][t] = ps
		}
	}
	return v, nil
}

// Overlay is base with the documents dead marks left out and delta's
// documents added after them, numbered from base.Len() on (delta has
// base's fields). Its statistics (document count, average field lengths,
// document frequencies) are those of the live documents, so a document
// scores what it would in an index built from the live documents alone.
// Like a stored index, it answers through Lookup only. base is not an
// overlay itself.
func Overlay(base *Index, dead []bool, delta *Index) (*Index, error) {
	if base.under != nil {
		return nil, errors.New("lexical: an overlay over an overlay")
	}
	if len(dead) != base.n || len(delta.fields) != len(base.fields) {
		return nil, fmt.Errorf("lexical: overlay of %d documents and %d fields over %d and %d", len(dead), len(delta.fields), base.n, len(base.fields))
	}
	ix := newIndex(base.fields)
	ix.under, ix.dead, ix.over = base, dead, delta
	ix.n = delta.n
	for _, d := range dead {
		if !d {
			ix.n++
		}
	}
	for f := range base.fields {
		ix.docLen[f] = append(append(make([]int32, 0, base.n+delta.n), base.docLen[f]...), delta.docLen[f]...)
	}
	ix.average()
	return ix, nil
}

// lookupOverlay reads base's postings of terms without its dead
// documents, then delta's, renumbered.
func (ix *Index) lookupOverlay(terms []string) (*View, error) {
	bv, err := ix.under.Lookup(terms)
	if err != nil {
		return nil, err
	}
	shift := int32(ix.under.n)
	v := &View{ix: ix, postings: emptyPostings(len(ix.fields))}
	for f := range ix.fields {
		for _, t := range terms {
			base, delta := bv.postings[f][t], ix.over.postings[f][t]
			ps := make([]posting, 0, len(base)+len(delta))
			for _, p := range base {
				if !ix.dead[p.doc] {
					ps = append(ps, p)
				}
			}
			for _, p := range delta {
				ps = append(ps, posting{p.doc + shift, p.tf})
			}
			if len(ps) > 0 {
				v.postings[f][t] = ps
			}
		}
	}
	return v, nil
}

// view is the whole of an in-memory index (empty for a stored one).
func (ix *Index) view() *View { return &View{ix: ix, postings: ix.postings} }

// Len is the number of documents (of an overlay, the live ones).
func (ix *Index) Len() int { return ix.n }

// Hit is a scored document.
type Hit struct {
	Doc   int
	Score float64
}

// QueryTerms counts the terms of a query text; repeated terms weigh more.
func QueryTerms(text string) map[string]int {
	q := map[string]int{}
	tokenize.Each(text, func(t string) { q[t]++ })
	return q
}

// Search scores every document matching at least one query term and
// returns the best limit hits (all when limit <= 0), best first; ties break
// by document number so results are deterministic. A stored index answers
// through Lookup only.
func (ix *Index) Search(query map[string]int, limit int) []Hit {
	scores := ix.view().Scores(query)
	hits := make([]Hit, 0, len(scores))
	for d, s := range scores {
		hits = append(hits, Hit{int(d), s})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].Doc < hits[j].Doc
	})
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}

// Scores returns the BM25 score of every matching document (see Search).
func (ix *Index) Scores(query map[string]int) map[int32]float64 {
	return ix.view().Scores(query)
}

// DocFreq is the number of documents whose field contains term (see
// Search).
func (ix *Index) DocFreq(field, term string) int {
	return ix.view().DocFreq(field, term)
}

// Scores returns the BM25 score of every document matching a query term
// the view holds.
func (v *View) Scores(query map[string]int) map[int32]float64 {
	ix := v.ix
	scores := map[int32]float64{}
	// Iterate terms in sorted order so floating-point sums are reproducible.
	terms := make([]string, 0, len(query))
	for t := range query {
		terms = append(terms, t)
	}
	sort.Strings(terms)
	for f, field := range ix.fields {
		if field.Weight == 0 {
			continue
		}
		avg := ix.avgLen[f]
		if avg == 0 {
			continue
		}
		for _, t := range terms {
			ps := v.postings[f][t]
			if len(ps) == 0 {
				continue
			}
			idf := ix.idf(len(ps))
			qw := float64(query[t])
			for _, p := range ps {
				tf := float64(p.tf)
				dl := float64(ix.docLen[f][p.doc])
				s := idf * tf * (K1 + 1) / (tf + K1*(1-B+B*dl/avg))
				scores[p.doc] += field.Weight * qw * s
			}
		}
	}
	return scores
}

// DocFreq is the number of documents whose field contains term, for a
// term the view holds.
func (v *View) DocFreq(field, term string) int {
	for f, fl := range v.ix.fields {
		if fl.Name == field {
			return len(v.postings[f][term])
		}
	}
	return 0
}

func (ix *Index) idf(df int) float64 {
	n := float64(ix.n)
	return math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
}
