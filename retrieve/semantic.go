package retrieve

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/missingcomplement/mss/lexical"
)

// The semantic view needs no downloaded model. It learns term vectors from
// the repository itself by reflective random indexing, a cheap stand-in for
// latent semantic analysis: every unit gets a fixed sparse random signature;
// a term's vector is the idf-weighted sum of the signatures of the units it
// occurs in, so terms used in the same units get similar vectors. A unit's
// (and a state's) vector is the tf-idf-weighted sum of its terms' vectors.
// Ranking by cosine then finds units that use vocabulary related to the
// state's even when they share few exact words with it.
const (
	semDim      = 256 // vector size
	semNonZero  = 8   // nonzero entries per random signature
	semMinDF    = 2   // terms in fewer units carry no co-occurrence
	semMaxShare = 0.2 // terms in more than this share of units are noise
	semMinMaxDF = 50  // ... unless they are in no more than this many
)

type semantic struct {
	termVec map[string][]float32 // unit-normalized
	idf     map[string]float64
	docVec  [][]float32 // unit-normalized, nil for units with no known term
	// terms, for a structure built from units, are termVec's keys in
	// sorted order (their vectors are in one block, in that order), and
	// docBlob the semdoc blob (stored.go) docVec's vectors are in, on a
	// little-endian machine (nil on another: derive encodes them).
	terms   []string
	docBlob []byte
	// get, for a stored structure, finds a term's encoded entry
	// (putSemTerm); termVec and idf are then empty.
	get func(term string) ([]byte, bool)
}

// lookup returns a structure holding the vectors of terms: s itself when
// it holds every term, else the terms found through get.
func (s *semantic) lookup(terms map[string]int) (*semantic, error) {
	if s.get == nil {
		return s, nil
	}
	out := &semantic{termVec: map[string][]float32{}, idf: map[string]float64{}}
	for t := range terms {
		b, ok := s.get(t)
		if !ok {
			continue
		}
		v, idf, err := decodeSemTerm(b)
		if err != nil {
			return nil, fmt.Errorf("semantic term %q: %w", t, err)
		}
		out.termVec[t], out.idf[t] = v, idf
	}
	return out, nil
}

// semTermSize is the size of a term's encoded entry with every entry of
// its vector stored (dense).
const semTermSize = 8 + 4*semDim

// A term in few units has a vector with few entries that are not zero
// (each unit adds semNonZero): its entry holds only those, as their
// count's worth of indexes (a byte each) and then their values, when
// that is smaller than the dense entry. A sparse entry's size, 8+5k with
// k < semDim·4/5, is never a dense entry's. Zero is +0: a −0 is stored.
const semSparseMax = 4 * semDim / 5

// semTermLen is the size of v's entry (putSemTerm).
func semTermLen(v []float32) int {
	k := 0
	for _, x := range v {
		if math.Float32bits(x) != 0 {
			k++
		}
	}
	if k < semSparseMax {
		return 8 + 5*k
	}
	return semTermSize
}

// putSemTerm stores a term's idf and vector in b, little-endian, b being
// semTermLen(v) long.
func putSemTerm(b []byte, idf float64, v []float32) {
	binary.LittleEndian.PutUint64(b, math.Float64bits(idf))
	if len(b) == semTermSize {
		putFloats(b[8:], v)
		return
	}
	k := (len(b) - 8) / 5
	at, vals := b[8:8+k], b[8+k:]
	j := 0
	for i, x := range v {
		if bits := math.Float32bits(x); bits != 0 {
			at[j] = byte(i)
			binary.LittleEndian.PutUint32(vals[4*j:], bits)
			j++
		}
	}
}

// putFloats stores v in b, little-endian: one copy on a little-endian
// machine.
func putFloats(b []byte, v []float32) {
	if len(v) == 0 {
		return
	}
	if nativeLittle {
		copy(b, unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v)))
		return
	}
	putFloatsEach(b, v)
}

// putFloatsEach is putFloats on any machine.
func putFloatsEach(b []byte, v []float32) {
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
}

func decodeSemTerm(b []byte) ([]float32, float64, error) {
	k := (len(b) - 8) / 5 // a sparse entry's count
	if len(b) != semTermSize && (len(b) < 8 || 8+5*k != len(b) || k >= semSparseMax) {
		return nil, 0, fmt.Errorf("%d bytes, neither a dense entry (%d) nor a sparse one (8 and 5 a value, fewer than %d values): %w",
			len(b), semTermSize, semSparseMax, errStored)
	}
	idf := math.Float64frombits(binary.LittleEndian.Uint64(b))
	v := make([]float32, semDim)
	if len(b) == semTermSize {
		return decodeFloats(b[8:], v), idf, nil
	}
	at, vals := b[8:8+k], b[8+k:]
	for j, i := range at {
		if j > 0 && i <= at[j-1] {
			return nil, 0, fmt.Errorf("sparse entry's indexes out of order: %w", errStored)
		}
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(vals[4*j:]))
	}
	return v, idf, nil
}

func decodeFloats(b []byte, v []float32) []float32 {
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// buildSemantic learns the structure from the units' tokenized content
// and symbols (a symbol's terms count twice). Terms are numbered in
// sorted order, so that a unit's terms, kept sorted by number, are summed
// in the order vector sums a state's: a unit's vector is the one vector
// would give it.
func buildSemantic(e *Engine, content, symbol []lexical.Counted) *semantic {
	n := len(e.units)
	if n < 2 {
		return nil
	}
	// Number the terms, then renumber them in sorted order.
	docs, vocab := numberTerms(content, symbol)
	order, rank := sortedOrder(vocab)
	df := make([]int32, len(vocab))
	eachUnit(n, func(i int) { docs[i] = mergeTerms(docs[i], rank) })
	for _, d := range docs {
		for _, tc := range d {
			df[tc.id]++
		}
	}
	// Small corpora (pools) keep common terms: a share of a few units is
	// no evidence that a term is noise.
	maxDF := max(int(semMaxShare*float64(n))+1, min(n-1, semMinMaxDF))
	known := 0
	for r := range order {
		if d := int(df[r]); d >= semMinDF && d <= maxDF {
			known++
		}
	}
	idf := make([]float64, len(vocab))
	vecs := make([][]float32, len(vocab))
	s := &semantic{termVec: make(map[string][]float32, known), idf: make(map[string]float64, known),
		docVec: make([][]float32, n), terms: make([]string, 0, known)}
	block := make([]float32, known*semDim)
	// Written before it is read: memory new from the system is read as
	// one shared page of zeros, and the first write to it faults again
	// (clear makes it one fault a page, not two).
	clear(block)
	for r, id := range order {
		if d := int(df[r]); d >= semMinDF && d <= maxDF {
			t := vocab[id]
			idf[r] = math.Log(float64(n) / float64(d))
			vecs[r], block = block[:semDim:semDim], block[semDim:]
			s.idf[t], s.termVec[t] = idf[r], vecs[r]
			s.terms = append(s.terms, t)
		}
	}
	// Each term's vector adds its units' signatures in unit order.
	for i, d := range docs {
		sig := signature(e.units[i].ID)
		for _, tc := range d {
			v := vecs[tc.id]
			if v == nil {
				continue
			}
			w := float32(idf[tc.id])
			for _, p := range sig {
				v[p.pos] += p.sign * w
			}
		}
	}
	for _, v := range vecs {
		if v != nil {
			normalize(v)
		}
	}
	// A unit has a vector when it has a known term; the vectors are
	// laid out in one block, as the stored structure holds them.
	has := make([]bool, n)
	present := 0
	for i, d := range docs {
		for _, tc := range d {
			if vecs[tc.id] != nil {
				has[i] = true
				present++
				break
			}
		}
	}
	var flat []float32
	s.docBlob, flat = layoutSemDocs(has, present)
	for i := range has {
		if has[i] {
			s.docVec[i], flat = flat[:semDim:semDim], flat[semDim:]
		}
	}
	// As vector does, over the unit's terms in sorted order.
	eachUnit(n, func(i int) {
		v := s.docVec[i]
		if v == nil {
			return
		}
		clear(v) // written before it is read, as block above
		// In batches: addScaledAll keeps v in registers through one.
		var ws [64]float32
		var xs [64]*float32
		k := 0
		for _, tc := range docs[i] {
			tv := vecs[tc.id]
			if tv == nil {
				continue
			}
			ws[k], xs[k] = float32(logCount(tc.count)*idf[tc.id]), &tv[0]
			if k++; k == len(ws) {
				addScaledAll(v, ws[:], xs[:])
				k = 0
			}
		}
		addScaledAll(v, ws[:k], xs[:k])
		normalize(v)
	})
	return s
}

// layoutSemDocs lays out the semdoc blob (stored.go) of units that have
// a vector or not, and returns it with its vectors, zero, to fill in
// place; on a big-endian machine (or, were it to happen, a misaligned
// allocation) the blob is nil and the vectors are apart.
func layoutSemDocs(has []bool, present int) ([]byte, []float32) {
	n := len(has)
	off := n + (4-n%4)%4
	b := make([]byte, off+4*semDim*present)
	for i, h := range has {
		if h {
			b[i] = 1
		}
	}
	if present == 0 {
		return b, nil
	}
	if !nativeLittle || uintptr(unsafe.Pointer(&b[off]))%4 != 0 {
		return nil, make([]float32, semDim*present)
	}
	return b, unsafe.Slice((*float32)(unsafe.Pointer(&b[off])), semDim*present)
}

// addScaledGo adds w·x to v element by element (v at least as long as
// x), eight at a time. Each product is rounded before it is added (the
// conversion keeps a compiler from fusing the two), as the vector
// instructions of addScaled do, so every machine gives the same vectors.
func addScaledGo(v []float32, w float32, x []float32) {
	v = v[:len(x)]
	for len(x) >= 8 {
		v[0] += float32(w * x[0])
		v[1] += float32(w * x[1])
		v[2] += float32(w * x[2])
		v[3] += float32(w * x[3])
		v[4] += float32(w * x[4])
		v[5] += float32(w * x[5])
		v[6] += float32(w * x[6])
		v[7] += float32(w * x[7])
		v, x = v[8:], x[8:]
	}
	for k := range x {
		v[k] += float32(w * x[k])
	}
}

// logCounts[c] is 1 + log(c) for the counts most of a unit's terms have.
var logCounts = func() (t [64]float64) {
	for c := 1; c < len(t); c++ {
		t[c] = 1 + math.Log(float64(c))
	}
	return t
}()

// logCount is 1 + log(c), looked up when it can be.
func logCount(c int32) float64 {
	if c > 0 && int(c) < len(logCounts) {
		return logCounts[c]
	}
	return 1 + math.Log(float64(c))
}

// termCount is a term's number and count in one unit.
type termCount struct {
	id, count int32
}

// numberTerms lists each unit's symbol terms (counted twice) and
// content terms by term number, and the terms by number, on every core:
// each run of units numbers the terms it meets first, then the runs'
// terms are numbered on in run order. The numbers depend on the runs;
// what is built from them depends only on the terms' sorted order.
func numberTerms(content, symbol []lexical.Counted) ([][]termCount, []string) {
	n := len(content)
	docs := make([][]termCount, n)
	runs := min(runtime.GOMAXPROCS(0), max(1, n/256))
	type run struct {
		num   map[string]int32
		vocab []string
	}
	rs := make([]run, runs)
	bound := func(r int) int { return r * n / runs }
	var wg sync.WaitGroup
	for r := range rs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			num := map[string]int32{}
			var vocab []string
			for i := bound(r); i < bound(r+1); i++ {
				d := make([]termCount, 0, len(symbol[i].Terms)+len(content[i].Terms))
				for _, c := range []struct {
					terms  []lexical.TermCount
					weight int32
				}{{symbol[i].Terms, 2}, {content[i].Terms, 1}} {
					for _, tc := range c.terms {
						id, ok := num[tc.Term]
						if !ok {
							id = int32(len(vocab))
							num[tc.Term] = id
							vocab = append(vocab, tc.Term)
						}
						d = append(d, termCount{id, c.weight * tc.Count})
					}
				}
				docs[i] = d
			}
			rs[r] = run{num, vocab}
		}()
	}
	wg.Wait()
	// The first run's numbers stand; the others' terms are looked up
	// once each, and their units renumbered.
	num, vocab := rs[0].num, rs[0].vocab
	for r := 1; r < runs; r++ {
		to := make([]int32, len(rs[r].vocab))
		for k, t := range rs[r].vocab {
			id, ok := num[t]
			if !ok {
				id = int32(len(vocab))
				num[t] = id
				vocab = append(vocab, t)
			}
			to[k] = id
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := bound(r); i < bound(r+1); i++ {
				for k := range docs[i] {
					docs[i][k].id = to[docs[i][k].id]
				}
			}
		}()
	}
	wg.Wait()
	return docs, vocab
}

// sortedOrder gives the term numbers in the terms' sorted order, and
// each number's place in it: the two halves are sorted on two cores and
// merged.
func sortedOrder(vocab []string) (order, rank []int32) {
	type entry struct {
		term string
		id   int32
	}
	es := make([]entry, len(vocab))
	for id, t := range vocab {
		es[id] = entry{t, int32(id)}
	}
	byTerm := func(a, b entry) int { return strings.Compare(a.term, b.term) }
	half := len(es) / 2
	done := make(chan struct{})
	go func() {
		slices.SortFunc(es[:half], byTerm)
		close(done)
	}()
	slices.SortFunc(es[half:], byTerm)
	<-done
	order = make([]int32, 0, len(es))
	a, b := es[:half], es[half:]
	for len(a) > 0 && len(b) > 0 {
		if a[0].term < b[0].term {
			order, a = append(order, a[0].id), a[1:]
		} else {
			order, b = append(order, b[0].id), b[1:]
		}
	}
	for _, e := range a {
		order = append(order, e.id)
	}
	for _, e := range b {
		order = append(order, e.id)
	}
	rank = make([]int32, len(vocab))
	for r, id := range order {
		rank[id] = int32(r)
	}
	return order, rank
}

// mergeTerms renumbers a unit's terms by rank, sorts them and adds up the
// counts of a term found in both its symbol and its content.
func mergeTerms(d []termCount, rank []int32) []termCount {
	for k := range d {
		d[k].id = rank[d[k].id]
	}
	slices.SortFunc(d, func(a, b termCount) int { return cmp.Compare(a.id, b.id) })
	out := d[:0]
	for _, tc := range d {
		if len(out) > 0 && out[len(out)-1].id == tc.id {
			out[len(out)-1].count += tc.count
			continue
		}
		out = append(out, tc)
	}
	return out
}

// eachUnit calls f for every unit index below n, on every core: f must
// touch only what is unit i's own.
func eachUnit(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), max(1, n/64))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				f(i)
			}
		}()
	}
	wg.Wait()
}

// semTerms counts a unit's terms for the semantic view: a symbol's
// terms count twice.
func semTerms(content, symbol lexical.Counted) map[string]int {
	m := make(map[string]int, len(content.Terms)+len(symbol.Terms))
	for _, tc := range symbol.Terms {
		m[tc.Term] += 2 * int(tc.Count)
	}
	for _, tc := range content.Terms {
		m[tc.Term] += int(tc.Count)
	}
	return m
}

// vector is the tf-idf-weighted, normalized sum of known term vectors.
func (s *semantic) vector(terms map[string]int) []float32 {
	var v []float32
	for _, t := range sortedKeys(terms) {
		tv, ok := s.termVec[t]
		if !ok {
			continue
		}
		if v == nil {
			v = make([]float32, semDim)
		}
		w := float32((1 + math.Log(float64(terms[t]))) * s.idf[t])
		addScaled(v, w, tv)
	}
	if v != nil {
		normalize(v)
	}
	return v
}

type sigEntry struct {
	pos  int
	sign float32
}

// signature is a unit's deterministic sparse random ±1 vector.
func signature(id string) []sigEntry {
	h := fnv.New64a()
	h.Write([]byte(id))
	x := h.Sum64() | 1
	// Positions are drawn until semNonZero are distinct, then read off
	// the bit sets in order: the entries sorted by position.
	var used, negative [(semDim + 63) / 64]uint64
	for n := 0; n < semNonZero; {
		// xorshift64*
		x ^= x >> 12
		x ^= x << 25
		x ^= x >> 27
		r := x * 2685821657736338717
		pos := int(r % semDim)
		w, bit := pos/64, uint64(1)<<(pos%64)
		if used[w]&bit != 0 {
			continue
		}
		used[w] |= bit
		if r>>63 == 1 {
			negative[w] |= bit
		}
		n++
	}
	out := make([]sigEntry, 0, semNonZero)
	for w, set := range used {
		for set != 0 {
			b := bits.TrailingZeros64(set)
			sign := float32(1)
			if negative[w]&(1<<b) != 0 {
				sign = -1
			}
			out = append(out, sigEntry{64*w + b, sign})
			set &= set - 1
		}
	}
	return out
}

// semanticView ranks units by cosine similarity to the state's vector.
func (e *Engine) semanticView(q *query) []hit {
	qv := q.sem.vector(q.terms)
	if qv == nil {
		return nil
	}
	hs := make([]hit, 0, 512)
	for i, v := range e.sem.docVec {
		if v == nil {
			continue
		}
		if s := dot(v, qv); s > 0 {
			hs = append(hs, hit{i, float64(s)})
		}
	}
	return e.sortHits(hs)
}
