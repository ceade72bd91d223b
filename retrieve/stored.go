package retrieve

// A stored engine. Everything NewEngine computes from all units is
// computed once, when the units change, and kept in the index
// (index.Deriver): the units' metadata in engine order, the resolved
// edges, the BM25 field lengths and, per term, its postings, and the
// semantic vectors (one per unit, and per term). Opening reads the
// metadata, the edges, the lengths and the unit vectors, and rebuilds the
// name tables from the metadata; a query reads the postings and term
// vectors of its own terms, and the content of the units it returns.
// Answers are the same as an engine built in memory from the same units.
//
// Blobs (little-endian, integers as unsigned varints, strings as a length
// and bytes):
//
//	units     count, then per unit in engine order: id, path, symbol,
//	          kind, language, hash, context, start line, end line, tokens,
//	          the defines, references and imports lists (count, then
//	          strings), and the facts the views compare (unitFacts): the
//	          lower-cased symbol path, defined names and referenced names
//	edges     per unit: outgoing count, then (target, kind code) pairs;
//	          then per unit the incoming list the same way
//	lexical   lexical.Index.Export's head
//	semdoc    per unit a byte, 1 when it has a vector; zero bytes to a
//	          multiple of 4; then the vectors of those units, semDim
//	          float32s each
//
// Term parts: partLexical+f holds field f's postings, partSemantic the
// semantic term entries (idf as a float64, then the vector).

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/index"
	"github.com/missingcomplement/mss/lexical"
)

// storedVersion names the layout above and every computation behind it;
// it changes whenever either does, so an index holding another one is
// re-derived, never misread.
const storedVersion = "engine-1"

const (
	partLexical  = 0 // + field number
	partSemantic = 10
)

// Deriver computes the stored engine of an index when its units change
// (index.Options.Derive): FromIndex then opens it without recomputing.
var Deriver = &index.Deriver{Version: storedVersion, Func: derive}

var errStored = errors.New("bad stored engine")

func derive(units []mss.Unit, edges []index.Edge) (*index.Derived, error) {
	e := NewEngine(units, edges, Options{})
	d := &index.Derived{Blobs: map[string][]byte{}, Terms: map[int]map[string][]byte{}}
	d.Blobs["units"] = encodeUnits(e.units, e.info)
	d.Blobs["edges"] = encodeEdges(e)
	head, terms := e.lex.Export()
	d.Blobs["lexical"] = head
	for f, m := range terms {
		d.Terms[partLexical+f] = m
	}
	if e.sem != nil {
		var b []byte
		for _, v := range e.sem.docVec {
			if v == nil {
				b = append(b, 0)
			} else {
				b = append(b, 1)
			}
		}
		b = append(b, make([]byte, (4-len(b)%4)%4)...)
		for _, v := range e.sem.docVec {
			for _, x := range v {
				b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
			}
		}
		d.Blobs["semdoc"] = b
		m := make(map[string][]byte, len(e.sem.termVec))
		for t, v := range e.sem.termVec {
			m[t] = encodeSemTerm(e.sem.idf[t], v)
		}
		d.Terms[partSemantic] = m
	}
	return d, nil
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendList(b []byte, l []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(l)))
	for _, s := range l {
		b = appendString(b, s)
	}
	return b
}

func encodeUnits(us []mss.Unit, info []unitInfo) []byte {
	b := binary.AppendUvarint(nil, uint64(len(us)))
	for i := range us {
		u := &us[i]
		for _, s := range []string{u.ID, u.Path, u.Symbol, u.Kind, u.Language, u.Hash, u.Context} {
			b = appendString(b, s)
		}
		for _, n := range []int{u.StartLine, u.EndLine, u.Tokens} {
			b = binary.AppendUvarint(b, uint64(n))
		}
		for _, l := range [][]string{u.Defines, u.References, u.Imports} {
			b = appendList(b, l)
		}
		b = appendString(b, info[i].qual)
		b = appendList(b, info[i].defines)
		b = appendList(b, info[i].refs)
	}
	return b
}

func encodeEdges(e *Engine) []byte {
	var b []byte
	for _, adj := range [][][]edgeTo{e.out, e.in} {
		for i := range e.units {
			var l []edgeTo
			if adj != nil {
				l = adj[i]
			}
			b = binary.AppendUvarint(b, uint64(len(l)))
			for _, t := range l {
				b = binary.AppendUvarint(b, uint64(t.unit))
				b = append(b, t.kind)
			}
		}
	}
	return b
}

// decoder reads a blob; the first error sticks.
type decoder struct {
	s   string // the blob, as one string that decoded strings share
	err error
}

func (d *decoder) uint() uint64 {
	if d.err != nil {
		return 0
	}
	var x uint64
	for i := 0; i < len(d.s) && i < binary.MaxVarintLen64; i++ {
		c := d.s[i]
		if c < 0x80 {
			d.s = d.s[i+1:]
			return x | uint64(c)<<(7*i)
		}
		x |= uint64(c&0x7f) << (7 * i)
	}
	d.err = errStored
	return 0
}

func (d *decoder) int(limit int) int {
	n := d.uint()
	if n > uint64(limit) {
		d.err = errStored
		return 0
	}
	return int(n)
}

func (d *decoder) string() string {
	n := d.uint()
	if d.err != nil || n > uint64(len(d.s)) {
		d.err = errStored
		return ""
	}
	s := d.s[:n]
	d.s = d.s[n:]
	return s
}

func (d *decoder) list() []string {
	n := d.int(len(d.s))
	if n == 0 || d.err != nil {
		return nil
	}
	l := make([]string, n)
	for i := range l {
		l[i] = d.string()
	}
	return l
}

func (d *decoder) byte() byte {
	if d.err != nil || len(d.s) == 0 {
		d.err = errStored
		return 0
	}
	c := d.s[0]
	d.s = d.s[1:]
	return c
}

func decodeUnits(b []byte) ([]mss.Unit, []unitInfo, error) {
	d := &decoder{s: string(b)}
	n := d.int(len(b))
	us := make([]mss.Unit, n)
	info := make([]unitInfo, n)
	for i := 0; i < n && d.err == nil; i++ {
		u := &us[i]
		u.ID, u.Path, u.Symbol, u.Kind = d.string(), d.string(), d.string(), d.string()
		u.Language, u.Hash, u.Context = d.string(), d.string(), d.string()
		u.StartLine, u.EndLine, u.Tokens = d.int(math.MaxInt32), d.int(math.MaxInt32), d.int(math.MaxInt32)
		u.Defines, u.References, u.Imports = d.list(), d.list(), d.list()
		in := &info[i]
		in.qual, in.defines, in.refs = d.string(), d.list(), d.list()
		in.setName()
		if i > 0 && us[i-1].Path == u.Path {
			u.Path = us[i-1].Path // one string per file
			in.class = info[i-1].class
		} else {
			in.class = Classify(u.Path)
		}
	}
	if d.err == nil && len(d.s) != 0 {
		d.err = errStored
	}
	if d.err != nil {
		return nil, nil, fmt.Errorf("units: %w", d.err)
	}
	return us, info, nil
}

func (e *Engine) decodeEdges(b []byte) error {
	d := &decoder{s: string(b)}
	n := len(e.units)
	any := false
	adj := [2][][]edgeTo{make([][]edgeTo, n), make([][]edgeTo, n)}
	for a := range adj {
		for i := 0; i < n && d.err == nil; i++ {
			c := d.int(len(d.s))
			if c == 0 {
				continue
			}
			l := make([]edgeTo, c)
			for k := range l {
				t := d.int(n - 1)
				kind := d.byte()
				if int(kind) >= len(edgeKinds) {
					d.err = errStored
				}
				if d.err != nil {
					break
				}
				l[k] = edgeTo{t, edgeWeight(edgeKinds[kind]), kind}
			}
			adj[a][i], any = l, true
		}
	}
	if d.err == nil && len(d.s) != 0 {
		d.err = errStored
	}
	if d.err != nil {
		return fmt.Errorf("edges: %w", d.err)
	}
	if any {
		e.out, e.in = adj[0], adj[1]
	}
	return nil
}

func (e *Engine) decodeSemantic(b []byte, ix *index.Index) error {
	n := len(e.units)
	bad := fmt.Errorf("semantic vectors: %w", errStored)
	if len(b) < n {
		return bad
	}
	present := 0
	for _, f := range b[:n] {
		switch f {
		case 0:
		case 1:
			present++
		default:
			return bad
		}
	}
	off := n + (4-n%4)%4
	if len(b) != off+4*semDim*present {
		return bad
	}
	flat := floats(b[off:])
	s := &semantic{docVec: make([][]float32, n)}
	for i, f := range b[:n] {
		if f == 1 {
			s.docVec[i] = flat[:semDim:semDim]
			flat = flat[semDim:]
		}
	}
	s.fetch = func(ctx context.Context, terms []string) (map[string][]byte, error) {
		return ix.DerivedTerms(ctx, partSemantic, terms)
	}
	e.sem = s
	return nil
}

// floats reads little-endian float32s: in place where the machine's order
// and the bytes' alignment allow (b must then not change), else copied.
func floats(b []byte) []float32 {
	n := len(b) / 4
	if n == 0 {
		return nil
	}
	if nativeLittle && uintptr(unsafe.Pointer(&b[0]))%4 == 0 {
		return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), n)
	}
	return decodeFloats(b, make([]float32, n))
}

var nativeLittle = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// openStored opens the engine stored in ix (ix.Meta().Derived is
// storedVersion).
func openStored(ix *index.Index, opts Options) (*Engine, error) {
	blob := func(name string) ([]byte, error) {
		b, err := ix.DerivedBlob(name)
		if err == nil && b == nil {
			err = fmt.Errorf("index %s: stored engine has no %s: %w", ix.Path(), name, errStored)
		}
		return b, err
	}
	ub, err := blob("units")
	if err != nil {
		return nil, err
	}
	us, info, err := decodeUnits(ub)
	if err != nil {
		return nil, fmt.Errorf("index %s: stored engine: %w", ix.Path(), err)
	}
	e := newEngine(us, opts)
	e.src, e.info = ix, info
	errc := make(chan error, 1)
	go func() {
		e.maps()
		errc <- nil
	}()
	var errs []error
	if b, err := blob("edges"); err != nil {
		errs = append(errs, err)
	} else if err := e.decodeEdges(b); err != nil {
		errs = append(errs, err)
	}
	if b, err := blob("lexical"); err != nil {
		errs = append(errs, err)
	} else {
		e.lex, err = lexical.Stored(lexicalFields, b, func(ctx context.Context, f int, terms []string) (map[string][]byte, error) {
			return ix.DerivedTerms(ctx, partLexical+f, terms)
		})
		if err == nil && e.lex.Len() != len(us) {
			err = fmt.Errorf("lexical index of %d units, want %d: %w", e.lex.Len(), len(us), errStored)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if !e.off[ViewSemantic] && len(us) >= 2 {
		if b, err := blob("semdoc"); err != nil {
			errs = append(errs, err)
		} else if err := e.decodeSemantic(b, ix); err != nil {
			errs = append(errs, err)
		}
	}
	<-errc
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("index %s: stored engine: %w", ix.Path(), err)
	}
	e.loadHistory()
	e.setEmbedder()
	return e, nil
}

// fill gives candidates of a stored engine their content (and every other
// stored field), read from the index.
func (e *Engine) fill(ctx context.Context, cands []mss.Candidate) error {
	if e.src == nil || len(cands) == 0 {
		return nil
	}
	ids := make([]string, len(cands))
	for i := range cands {
		ids[i] = cands[i].Unit.ID
	}
	full, err := e.src.UnitsByID(ctx, ids)
	if err != nil {
		return fmt.Errorf("retrieve: %w", err)
	}
	for i := range cands {
		u, ok := full[cands[i].Unit.ID]
		if !ok {
			return fmt.Errorf("retrieve: unit %s is gone from index %s", cands[i].Unit.ID, e.src.Path())
		}
		cands[i].Unit = u
	}
	return nil
}

// contents returns the content of every unit, in engine order.
func (e *Engine) contents(ctx context.Context) ([]string, error) {
	out := make([]string, len(e.units))
	if e.src == nil {
		for i := range e.units {
			out[i] = e.units[i].Content
		}
		return out, nil
	}
	all, err := e.src.Units()
	if err != nil {
		return nil, fmt.Errorf("retrieve: %w", err)
	}
	for _, u := range all {
		if i, ok := e.byID[u.ID]; ok {
			out[i] = u.Content
		}
	}
	return out, nil
}
