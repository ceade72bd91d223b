package retrieve

// A stored engine. Everything NewEngine computes from all units is
// computed once, when the units change, and kept beside the index
// (index.Deriver), laid out to be read in place from the mapped file:
// opening an engine decodes almost nothing, and a query touches the keys,
// units and vectors it uses. Answers are the same as an engine built in
// memory from the same units (TestStoredEngineSameAnswers).
//
// Blobs (little-endian uint32s unless said otherwise):
//
//	units     n, then n records of recWords uint32s: path position (in
//	          the paths table), start line, end line, and the offsets in
//	          strings of the id, the symbol and the facts
//	strings   length-prefixed strings (unsigned varint length); the facts
//	          at an offset are the lower-cased symbol path, then the
//	          defined and the referenced names (each a varint count and
//	          strings), a varint 1 when the unit is selectable (0 when
//	          not), and the selections: a varint count, then each as a
//	          list of its name and its qualifiers; as unitFacts gives them
//	edges     the out-edges, then the in-edges, each as n+1 offsets and
//	          then one uint32 per edge: target unit << 2 | kind code;
//	          empty when there are none
//	lexical   lexical.Index.Export's head
//	semdoc    per unit a byte, 1 when it has a vector; zero bytes to a
//	          multiple of 4; then the vectors of those units, semDim
//	          float32s each
//	history   the git log the history view reads at the indexed commit
//	          (absent without one): the commit, the number of commits
//	          asked for, the count read, then per commit its message and
//	          its files (varints and length-prefixed strings)
//
// Tables (index.Table; unit lists are uint32 arrays):
//
//	paths     path -> first unit, unit count (units are in path order)
//	base      lower-cased file name -> path positions
//	ids       unit id -> unit
//	defs, quals, refs   the name tables: name -> units
//	lex0, lex1, lex2    a BM25 field's postings, by term
//	sem       term -> idf (float64) and vector: semDim float32s, or,
//	          when fewer of them are not zero, their indexes (a byte
//	          each) and then their values (semTermLen)

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"unsafe"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/index"
	"github.com/missingcomplement/mss/lexical"
	"github.com/missingcomplement/mss/segment"
)

// storedVersion names the layout above and every computation behind it;
// it changes whenever either does, so an index holding another one is
// re-derived, never misread. engine-3: the history log's paths are
// unquoted as git quotes them (engine-2 kept a quoted path as printed).
// engine-4: a term's vector with few entries that are not zero is stored
// sparse (semTermLen). engine-5: the facts hold the names a unit only
// selects (x.name), and the index edges resolve them (segment.RefersTo).
// engine-6: a TypeScript module's import of ./x.js is an edge to x.ts
// (x.mjs to x.mts), as TypeScript resolves it. engine-7: a Java import of
// a member or a nested class (static imports) is an edge to its
// outermost class's file. engine-8: a Java wildcard import (com.x.*) is
// an edge to each class of the package's directories. engine-9: imports
// resolve by the manifests too (a tsconfig's paths and baseUrl, a
// workspace package's name, a Cargo crate's name and root, a go.mod's
// module path), and a Rust path from crate, self or super by the module
// files below its root. engine-10: a C or C++ include that several files
// end with is the one nearest the including file's directory. engine-11:
// a Cargo.toml's names may be literal strings ('x'), and a section's
// header may carry a comment. engine-12: a Rust mod plan; is an edge to
// the module's file (plan.rs or plan/mod.rs beside the declaring file).
const storedVersion = "engine-12"

// Deriver computes the stored engine of an index when its units change
// (index.Options.Derive): FromIndex then opens it without recomputing.
var Deriver = &index.Deriver{Version: storedVersion, Func: derive}

var errStored = errors.New("bad stored engine")

var le = binary.LittleEndian

const recWords = 6

func derive(in *index.DeriveInput) (*index.Derived, error) {
	type logRead struct {
		log *historyLog
		err error
	}
	var logc chan logRead
	if in.GitDir != "" && in.Commit != "" {
		// git reads the log while the engine is built.
		logc = make(chan logRead, 1)
		go func() {
			log, err := readHistory(in.GitDir, in.Commit, DefaultHistoryCommits)
			logc <- logRead{log, err}
		}()
	}
	e := buildEngine(in.Units, in.Edges, in.Selections, Options{})
	d := &index.Derived{Blobs: map[string][]byte{}, Encoded: map[string][]byte{}}
	n := e.n
	// What is finished goes to the file while the rest is laid out
	// (index.DeriveInput.Early), in the order made here: the unit
	// records and strings, the edges, the semantic vectors and then their
	// table, whenever its layout is done.
	early := func(name string, b []byte) {
		if in.Early != nil {
			in.Early(name, b)
		}
	}
	// The tables are laid out from their sorted keys, on every core,
	// while the blobs are made: the largest (the semantic and lexical
	// ones) first, and each table's keys sorted where it is laid out.
	var mu sync.Mutex
	var wg sync.WaitGroup
	var layErr error
	layout := func(name string, keys []string, size func(int) int, fill func(int, []byte)) []byte {
		t, err := index.LayoutTable(keys, size, fill)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			layErr = fmt.Errorf("table %s: %w", name, err)
			return nil
		}
		d.Encoded[name] = t
		return t
	}
	// async runs f on a core of its own; wg waits for it.
	async := func(f func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f()
		}()
	}
	lay := func(name string, keys []string, size func(int) int, fill func(int, []byte)) {
		async(func() { layout(name, keys, size, fill) })
	}
	var semTable chan []byte
	if s := e.sem; s != nil {
		semTable = make(chan []byte, 1)
		go func() {
			semTable <- layout("sem", s.terms, func(i int) int { return semTermLen(s.termVec[s.terms[i]]) }, func(i int, v []byte) {
				putSemTerm(v, s.idf[s.terms[i]], s.termVec[s.terms[i]])
			})
		}()
	}
	var lexHead []byte
	exported := make(chan struct{})
	go func() {
		defer close(exported)
		head, fields := e.lex.ExportFields()
		lexHead = head
		for f, fe := range fields {
			lay("lex"+strconv.Itoa(f), fe.Terms, fe.Size, fe.Put)
		}
	}()
	uint32Lists := func(name string, m map[string][]int) {
		async(func() {
			keys := sortedKeys(m)
			layout(name, keys, func(i int) int { return 4 * len(m[keys[i]]) }, func(i int, v []byte) {
				for j, u := range m[keys[i]] {
					le.PutUint32(v[4*j:], uint32(u))
				}
			})
		})
	}
	pathPos := make(map[string]int, len(e.paths))
	for k, p := range e.paths {
		pathPos[p] = k
	}
	lay("paths", e.paths, func(int) int { return 8 }, func(i int, v []byte) {
		us := e.byPath[e.paths[i]]
		le.PutUint32(v, uint32(us[0]))
		le.PutUint32(v[4:], uint32(len(us)))
	})
	base := make(map[string][]int, len(e.baseName))
	for b, ps := range e.baseName {
		pos := make([]int, len(ps))
		for k, p := range ps {
			pos[k] = pathPos[p]
		}
		base[b] = pos
	}
	uint32Lists("base", base)
	recs := le.AppendUint32(make([]byte, 0, 4+4*recWords*n), uint32(n))
	// Room for the unit strings, each with a length of up to two bytes
	// (a longer one grows the slice, as may a list's count).
	size := 0
	for i := range e.units {
		u, f := &e.units[i], &e.info[i]
		size += len(f.qual) + len(u.ID) + len(u.Symbol) + 2*3 + 2
		for _, l := range [][]string{f.defines, f.refs} {
			for _, s := range l {
				size += len(s) + 2
			}
		}
		for _, x := range f.sel {
			size += len(x.name) + 3
			for _, q := range x.use.Qualifiers {
				size += len(q) + 2
			}
		}
		size += 2
	}
	strs := make([]byte, 0, size)
	str := func(s string) uint32 {
		off := uint32(len(strs))
		strs = appendString(strs, s)
		return off
	}
	for i := range e.units {
		u, f := &e.units[i], &e.info[i]
		facts := uint32(len(strs))
		strs = appendString(strs, f.qual)
		strs = appendList(strs, f.defines)
		strs = appendList(strs, f.refs)
		strs = appendFlag(strs, f.selectable)
		strs = binary.AppendUvarint(strs, uint64(len(f.sel)))
		for _, x := range f.sel {
			strs = binary.AppendUvarint(strs, uint64(1+len(x.use.Qualifiers)))
			strs = appendString(strs, x.name)
			for _, q := range x.use.Qualifiers {
				strs = appendString(strs, q)
			}
		}
		for _, w := range []uint32{uint32(pathPos[u.Path]), uint32(u.StartLine), uint32(u.EndLine), str(u.ID), str(u.Symbol), facts} {
			recs = le.AppendUint32(recs, w)
		}
	}
	if uint64(len(strs)) > math.MaxUint32 {
		return nil, fmt.Errorf("unit strings of %d bytes: too many", len(strs))
	}
	d.Blobs["units"], d.Blobs["strings"] = recs, strs
	early("units", recs)
	early("strings", strs)
	async(func() {
		ids := sortedKeys(e.byID)
		layout("ids", ids, func(int) int { return 4 }, func(i int, v []byte) { le.PutUint32(v, uint32(e.byID[ids[i]])) })
	})
	for k, m := range e.names {
		uint32Lists(nameTableKeys[k], m)
	}
	if e.adj[edgesOut] != nil {
		edges := 0
		for _, adj := range e.adj[edgesOut] {
			edges += len(adj)
		}
		b := make([]byte, 0, 4*2*(n+1+edges))
		for _, adj := range e.adj {
			off := 0
			for i := 0; i <= n; i++ {
				b = le.AppendUint32(b, uint32(off))
				if i < n {
					off += len(adj[i])
				}
			}
			for i := range n {
				for _, t := range adj[i] {
					b = le.AppendUint32(b, uint32(t.unit)<<2|uint32(t.kind))
				}
			}
		}
		d.Blobs["edges"] = b
	} else {
		d.Blobs["edges"] = []byte{}
	}
	early("edges", d.Blobs["edges"])
	if s := e.sem; s != nil {
		// The vectors are laid out as stored already, but on a
		// big-endian machine.
		b := s.docBlob
		if b == nil {
			b = encodeSemDocs(s.docVec)
		}
		d.Blobs["semdoc"] = b
		early("semdoc", b)
		if t := <-semTable; t != nil {
			early(index.TableName("sem"), t)
		}
	}
	<-exported // its tables are under way (wg)
	d.Blobs["lexical"] = lexHead
	wg.Wait()
	if layErr != nil {
		return nil, layErr
	}
	if logc != nil {
		// A log that cannot be read is read again, and its error
		// reported, when an engine opens.
		if r := <-logc; r.err == nil {
			log := r.log
			b := appendString(nil, in.Commit)
			b = binary.AppendUvarint(b, DefaultHistoryCommits)
			b = binary.AppendUvarint(b, uint64(len(log.files)))
			for k := range log.files {
				b = appendString(b, log.messages[k])
				b = appendList(b, log.files[k])
			}
			d.Blobs["history"] = b
		}
	}
	return d, nil
}

// encodeSemDocs lays out the semdoc blob of units' vectors.
func encodeSemDocs(docVec [][]float32) []byte {
	n, present := len(docVec), 0
	for _, v := range docVec {
		if v != nil {
			present++
		}
	}
	off := n + (4-n%4)%4
	b := make([]byte, off+4*semDim*present)
	for i, v := range docVec {
		if v != nil {
			b[i] = 1
			putFloats(b[off:], v)
			off += 4 * semDim
		}
	}
	return b
}

// storedHistory gives the history cache the log stored for opts' commit,
// when the index holds it: the history view then runs no git.
func storedHistory(ix store, opts Options) error {
	if opts.GitDir == "" || opts.Commit == "" || disabled(opts, ViewHistory) {
		return nil
	}
	b, err := ix.DerivedBlob("history")
	if err != nil || b == nil {
		return err
	}
	d := &decoder{b: b}
	commit, n := d.string(), d.uint()
	if d.err != nil || commit != opts.Commit || n != uint64(historyCommits(opts)) {
		return d.err
	}
	c := d.int(len(b))
	log := &historyLog{files: make([][]string, 0, c), messages: make([]string, 0, c)}
	for k := 0; k < c && d.err == nil; k++ {
		log.messages = append(log.messages, d.string())
		log.files = append(log.files, d.list())
	}
	if err := d.end(); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	historyLogs.put(historyKey(opts.GitDir, opts.Commit, int(n)), log)
	return nil
}

// decoder reads varints and length-prefixed strings; the first error
// sticks.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uint() uint64 {
	if d.err != nil {
		return 0
	}
	x, k := binary.Uvarint(d.b)
	if k <= 0 {
		d.err = errStored
		return 0
	}
	d.b = d.b[k:]
	return x
}

func (d *decoder) int(limit int) int {
	n := d.uint()
	if n > uint64(limit) {
		d.err = errStored
		return 0
	}
	return int(n)
}

// bytes reads a string in place.
func (d *decoder) bytes() []byte {
	n := d.uint()
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = errStored
		return nil
	}
	s := d.b[:n]
	d.b = d.b[n:]
	return s
}

// string reads a string, copied.
func (d *decoder) string() string { return string(d.bytes()) }

// list reads a list of strings, copied.
func (d *decoder) list() []string {
	n := d.int(len(d.b))
	if n == 0 || d.err != nil {
		return nil
	}
	l := make([]string, n)
	for i := range l {
		l[i] = d.string()
	}
	return l
}

// skipList reads past a list of strings.
func (d *decoder) skipList() {
	for range d.int(len(d.b)) {
		d.bytes()
	}
}

// end is the error met, or one for bytes left over.
func (d *decoder) end() error {
	if d.err == nil && len(d.b) != 0 {
		d.err = errStored
	}
	return d.err
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

func appendFlag(b []byte, f bool) []byte {
	if f {
		return append(b, 1)
	}
	return append(b, 0)
}

// store is where a stored engine reads: an index (*index.Index), or in
// tests what stands in for one.
type store interface {
	Path() string
	Meta() index.Meta
	DerivedBlob(name string) ([]byte, error)
	DerivedTable(name string) (*index.Table, error)
	UnitsByID(ctx context.Context, ids []string) (map[string]mss.Unit, error)
	Units() ([]mss.Unit, error)
}

// mapped is a stored engine's structures, in place in the derived file.
// Strings it returns share the file's bytes; Engine copies what leaves it.
type mapped struct {
	n         int
	recs      []byte
	strs      []byte
	paths     *index.Table
	class     []PathClass // by path position
	ids, base *index.Table
	names     [3]*index.Table // by nameKind
	edges     bool
	// off and rec hold the edges by direction: n+1 offsets into rec.
	off, rec [2][]byte
}

func (m *mapped) word(i, w int) uint32 { return le.Uint32(m.recs[4*(recWords*i+w):]) }

func (m *mapped) pathPos(i int) int { return int(m.word(i, 0)) }

// str reads the string at off. open checked every record's offsets.
func (m *mapped) str(off uint32) (string, uint32) {
	l, k := binary.Uvarint(m.strs[off:])
	off += uint32(k)
	if l == 0 {
		return "", off
	}
	return unsafe.String(&m.strs[off], int(l)), off + uint32(l)
}

func (m *mapped) strList(off uint32) ([]string, uint32) {
	c, k := binary.Uvarint(m.strs[off:])
	off += uint32(k)
	if c == 0 {
		return nil, off
	}
	l := make([]string, c)
	for i := range l {
		l[i], off = m.str(off)
	}
	return l, off
}

func (m *mapped) unit(i int) mss.Unit {
	id, _ := m.str(m.word(i, 3))
	sym, _ := m.str(m.word(i, 4))
	return mss.Unit{ID: id, Path: m.paths.Key(m.pathPos(i)), StartLine: int(m.word(i, 1)), EndLine: int(m.word(i, 2)), Symbol: sym}
}

func (m *mapped) facts(i int) unitInfo {
	var in unitInfo
	off := m.word(i, 5)
	in.qual, off = m.str(off)
	in.defines, off = m.strList(off)
	in.refs, off = m.strList(off)
	in.selectable = m.strs[off] == 1
	off++
	c, k := binary.Uvarint(m.strs[off:])
	off += uint32(k)
	if c > 0 {
		in.sel = make([]selection, c)
		for j := range in.sel {
			var l []string
			l, off = m.strList(off)
			in.sel[j] = selection{l[0], segment.NameUse{Qualifiers: l[1:]}}
		}
	}
	in.setName()
	in.class = m.class[m.pathPos(i)]
	return in
}

// span is where path's units are: first and count (0 for a path without).
func (m *mapped) span(path string) (first, n int) {
	k := m.paths.Find(path)
	if k < 0 {
		return 0, 0
	}
	v := m.paths.Value(k)
	return int(le.Uint32(v)), int(le.Uint32(v[4:]))
}

func (m *mapped) unitsOf(path string) []int {
	first, c := m.span(path)
	if c == 0 {
		return nil
	}
	out := make([]int, c)
	for j := range out {
		out[j] = first + j
	}
	return out
}

func (m *mapped) list(t *index.Table, key string) []int {
	v, ok := t.Get(key)
	if !ok {
		return nil
	}
	out := make([]int, len(v)/4)
	for j := range out {
		out[j] = int(le.Uint32(v[4*j:]))
	}
	return out
}

// adjacent is unit a's edges in direction d.
func (m *mapped) adjacent(d edgeDir, a int) []edgeTo {
	off, rec := m.off[d], m.rec[d]
	lo, hi := le.Uint32(off[4*a:]), le.Uint32(off[4*a+4:])
	if lo == hi {
		return nil
	}
	out := make([]edgeTo, hi-lo)
	for j := range out {
		r := le.Uint32(rec[4*(int(lo)+j):])
		kind := uint8(r & 3)
		out[j] = edgeTo{int(r >> 2), edgeWeight(edgeKinds[kind]), kind}
	}
	return out
}

// openStored opens the engine stored in ix (ix.Meta().Derived is
// storedVersion), checking that every offset and index in it is in
// bounds, so that reading it later cannot fail.
func openStored(ix store, opts Options) (*Engine, error) {
	fail := func(err error) (*Engine, error) {
		return nil, fmt.Errorf("index %s: stored engine: %w", ix.Path(), err)
	}
	bad := func(what string) (*Engine, error) { return fail(fmt.Errorf("%s: %w", what, errStored)) }
	blob := func(name string) ([]byte, error) {
		b, err := ix.DerivedBlob(name)
		if err == nil && b == nil {
			err = fmt.Errorf("no %s: %w", name, errStored)
		}
		return b, err
	}
	m := &mapped{}
	var err error
	tables := map[string]**index.Table{"paths": &m.paths, "ids": &m.ids, "base": &m.base}
	for k, name := range nameTableKeys {
		tables[name] = &m.names[k]
	}
	for _, name := range sortedKeys(tables) {
		if *tables[name], err = ix.DerivedTable(name); err != nil {
			return fail(err)
		}
	}
	if m.recs, err = blob("units"); err != nil {
		return fail(err)
	}
	if m.strs, err = blob("strings"); err != nil {
		return fail(err)
	}
	if len(m.recs) < 4 {
		return bad("units")
	}
	m.n = int(le.Uint32(m.recs))
	m.recs = m.recs[4:]
	if len(m.recs) != 4*recWords*m.n || m.n != ix.Meta().Units {
		return bad("units")
	}
	np := m.paths.Len()
	for i := 0; i < m.n; i++ {
		if m.pathPos(i) >= np {
			return bad("unit path")
		}
		for w := 3; w <= 5; w++ {
			if !m.stringsAt(m.word(i, w), w == 5) {
				return bad("unit strings")
			}
		}
	}
	for k := range np {
		if v := m.paths.Value(k); len(v) != 8 || uint64(le.Uint32(v))+uint64(le.Uint32(v[4:])) > uint64(m.n) {
			return bad("paths")
		}
	}
	for _, t := range append([]*index.Table{m.ids, m.base}, m.names[:]...) {
		limit := m.n
		if t == m.base {
			limit = np
		}
		for k := range t.Len() {
			v := t.Value(k)
			if len(v)%4 != 0 {
				return bad("name tables")
			}
			for j := 0; j < len(v); j += 4 {
				if int(le.Uint32(v[j:])) >= limit {
					return bad("name tables")
				}
			}
		}
	}
	eb, err := blob("edges")
	if err != nil {
		return fail(err)
	}
	if len(eb) > 0 {
		if m.off[edgesOut], m.rec[edgesOut], eb, err = csr(eb, m.n); err == nil {
			m.off[edgesIn], m.rec[edgesIn], eb, err = csr(eb, m.n)
		}
		if err != nil || len(eb) != 0 {
			return bad("edges")
		}
		m.edges = true
	}
	m.class = make([]PathClass, np)
	for k := range m.class {
		m.class[k] = Classify(m.paths.Key(k))
	}
	e := &Engine{opts: opts, n: m.n, m: m, src: ix, off: offViews(opts)}
	lb, err := blob("lexical")
	if err != nil {
		return fail(err)
	}
	var lexTables []*index.Table
	for f := range lexicalFields {
		t, err := ix.DerivedTable("lex" + strconv.Itoa(f))
		if err != nil {
			return fail(err)
		}
		lexTables = append(lexTables, t)
	}
	e.lex, err = lexical.Stored(lexicalFields, lb, func(f int, term string) ([]byte, bool) { return lexTables[f].Get(term) })
	if err != nil {
		return fail(err)
	}
	if e.lex.Len() != m.n {
		return bad("lexical")
	}
	if !e.off[ViewSemantic] && m.n >= 2 {
		b, err := blob("semdoc")
		if err != nil {
			return fail(err)
		}
		t, err := ix.DerivedTable("sem")
		if err != nil {
			return fail(err)
		}
		if err := e.decodeSemantic(b, t); err != nil {
			return fail(err)
		}
	}
	if err := storedHistory(ix, opts); err != nil {
		return fail(err)
	}
	e.openHistory()
	e.setEmbedder()
	return e, nil
}

// stringsAt checks the string (or, for facts, the string and two lists)
// at off.
func (m *mapped) stringsAt(off uint32, facts bool) bool {
	if uint64(off) > uint64(len(m.strs)) {
		return false
	}
	d := &decoder{b: m.strs[off:]}
	d.bytes()
	if facts {
		d.skipList()
		d.skipList()
		if f := d.uint(); f > 1 {
			return false
		}
		for range d.int(len(d.b)) {
			n := d.int(len(d.b))
			if n == 0 {
				return false // a selection without its name
			}
			for range n {
				d.bytes()
			}
		}
	}
	return d.err == nil
}

// csr splits n+1 offsets and the records they index off b.
func csr(b []byte, n int) (off, rec, rest []byte, err error) {
	if len(b) < 4*(n+1) {
		return nil, nil, nil, errStored
	}
	off, b = b[:4*(n+1)], b[4*(n+1):]
	prev := uint32(0)
	for i := 0; i <= n; i++ {
		o := le.Uint32(off[4*i:])
		if o < prev {
			return nil, nil, nil, errStored
		}
		prev = o
	}
	if uint64(len(b)) < 4*uint64(prev) {
		return nil, nil, nil, errStored
	}
	rec, rest = b[:4*prev], b[4*prev:]
	for j := 0; j < len(rec); j += 4 {
		r := le.Uint32(rec[j:])
		if int(r>>2) >= n || int(r&3) >= len(edgeKinds) {
			return nil, nil, nil, errStored
		}
	}
	return off, rec, rest, nil
}

func (e *Engine) decodeSemantic(b []byte, t *index.Table) error {
	n := e.n
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
	s.get = t.Get
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

// fill gives candidates of a stored engine their content (and every other
// stored field), read from the index. A unit the index no longer holds (a
// build replaced it since the engine opened; a server swaps engines right
// after) is dropped: what is served is what the index holds now, and the
// pipeline checks it against the source before serving it. (A unit's id
// names its path, lines and content.)
func (e *Engine) fill(ctx context.Context, cands []mss.Candidate) ([]mss.Candidate, error) {
	if e.src == nil || len(cands) == 0 {
		return cands, nil
	}
	ids := make([]string, len(cands))
	for i := range cands {
		ids[i] = cands[i].Unit.ID
	}
	full, err := e.src.UnitsByID(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("retrieve: %w", err)
	}
	out := cands[:0]
	for _, c := range cands {
		if u, ok := full[c.Unit.ID]; ok {
			c.Unit = u
			out = append(out, c)
		}
	}
	return out, nil
}

// contents returns the content of every unit, in engine order.
func (e *Engine) contents(ctx context.Context) ([]string, error) {
	out := make([]string, e.span())
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
		if i, ok := e.idIndex(u.ID); ok {
			out[i] = u.Content
		}
	}
	return out, nil
}
