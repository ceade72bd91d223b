// Package lexical is an in-memory BM25 index over documents with named
// fields, tokenized by package tokenize. It serves the pool track (a pool is
// a small corpus built per state) and the lexical views over a repository
// index (built once per index and reused across states).
//
// Each field is scored with its own BM25 statistics (Robertson–Sparck Jones
// idf, k1 = 1.2, b = 0.75) and the field scores are summed with the field's
// weight, so a query term naming a symbol or a path counts more than the
// same term buried in a body.
package lexical

import (
	"math"
	"sort"

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

// Index is an immutable BM25 index. Build it with NewBuilder.
type Index struct {
	fields []Field
	n      int
	// per field
	avgLen   []float64
	docLen   [][]int32
	postings []map[string][]posting
}

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
	ix := &Index{fields: fields}
	ix.avgLen = make([]float64, len(fields))
	ix.docLen = make([][]int32, len(fields))
	ix.postings = make([]map[string][]posting, len(fields))
	for i := range fields {
		ix.postings[i] = map[string][]posting{}
	}
	return &Builder{ix: ix}
}

// Add appends a document; texts are given in field order. It returns the
// document number (0-based, in order of addition).
func (b *Builder) Add(texts ...string) int {
	ix := b.ix
	doc := int32(ix.n)
	ix.n++
	counts := map[string]int32{}
	for f := range ix.fields {
		var text string
		if f < len(texts) {
			text = texts[f]
		}
		clear(counts)
		var n int32
		tokenize.Each(text, func(t string) { counts[t]++; n++ })
		ix.docLen[f] = append(ix.docLen[f], n)
		for t, c := range counts {
			ix.postings[f][t] = append(ix.postings[f][t], posting{doc, c})
		}
	}
	return int(doc)
}

// Build finishes the index.
func (b *Builder) Build() *Index {
	ix := b.ix
	for f := range ix.fields {
		var sum int64
		for _, l := range ix.docLen[f] {
			sum += int64(l)
		}
		if ix.n > 0 {
			ix.avgLen[f] = float64(sum) / float64(ix.n)
		}
	}
	b.ix = nil
	return ix
}

// Len is the number of documents.
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
// by document number so results are deterministic.
func (ix *Index) Search(query map[string]int, limit int) []Hit {
	scores := ix.Scores(query)
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

// Scores returns the BM25 score of every matching document.
func (ix *Index) Scores(query map[string]int) map[int32]float64 {
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
			ps := ix.postings[f][t]
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

// DocFreq is the number of documents whose field contains term.
func (ix *Index) DocFreq(field, term string) int {
	for f, fl := range ix.fields {
		if fl.Name == field {
			return len(ix.postings[f][term])
		}
	}
	return 0
}

func (ix *Index) idf(df int) float64 {
	n := float64(ix.n)
	return math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
}
