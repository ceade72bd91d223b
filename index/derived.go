package index

// Derived data. What retrieval needs from all units at once (term
// statistics and postings, name tables, resolved edges, semantic vectors)
// is computed by a Deriver when the units change and stored in the index
// beside them, in the same transaction, so that opening an index reads
// these tables instead of recomputing them from every unit:
//
//	<index file>.<id>.derived, beside the index file
//	    whole structures, read at open (e.g. unit metadata, edges,
//	    vectors): "MSSDERIV1\n", the 16-byte id, the count of blobs,
//	    then per blob its name, offset and length (unsigned varints and
//	    length-prefixed strings), and the blobs, each at an offset that
//	    is a multiple of 8. SQLite reads a large blob at a fraction of
//	    the speed of a file read, so these live outside the database.
//	    The file is written (and synced) under a new random id before
//	    the transaction that records it commits, and files of other ids
//	    are removed after it: a killed build leaves the recorded file in
//	    place, and at worst an unrecorded one, removed by the next build.
//	derived_terms(part INTEGER, term TEXT, data BLOB), key (part, term)
//	    keyed structures, read a few keys per query (e.g. the postings
//	    of one field, or term vectors)
//	meta "derived", "derived_id"
//	    the Deriver's version the data was computed by, and the id of
//	    its file; absent when there is none
//
// The package stores bytes and does not read them: the Deriver owns their
// layout and names it by its version. A reader that finds another
// version (or none) must not use the rows. Build recomputes them whenever
// a file's units changed, the version differs, or none are stored; a
// Build without a Deriver that changes units removes them (one that
// changes nothing leaves them), so rows are never stale.

import (
	"bufio"
	"context"
	"crypto/rand"
	"database/sql"
	varint "encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/missingcomplement/mss"
)

// Derived is what a Deriver computed from an index's units.
type Derived struct {
	// Blobs are whole structures by name.
	Blobs map[string][]byte
	// Terms are keyed structures: part, then key.
	Terms map[int]map[string][]byte
}

// Deriver computes derived data from every unit of an index (in path and
// line order, with content) and the resolved edges between them.
type Deriver struct {
	// Version names the layout and the computation; rows of another
	// version are recomputed, never read.
	Version string
	Func    func(units []mss.Unit, edges []Edge) (*Derived, error)
}

// derive recomputes the derived rows when the units changed or the rows
// are not of d's version, inside the build transaction.
func (w *writer) derive(d *Deriver, changed bool) error {
	var have string
	err := w.tx.QueryRowContext(w.ctx, `SELECT value FROM meta WHERE key = 'derived'`).Scan(&have)
	if err != nil && err != sql.ErrNoRows {
		return fmt.Errorf("index: reading derived version: %w", err)
	}
	if !changed && (d == nil || have == d.Version) {
		return nil
	}
	w.derivedChanged = true
	for _, q := range []string{`DELETE FROM derived_terms`, `DELETE FROM meta WHERE key IN ('derived', 'derived_id')`} {
		if _, err := w.tx.ExecContext(w.ctx, q); err != nil {
			return fmt.Errorf("index: clearing derived data: %w", err)
		}
	}
	if d == nil {
		return nil
	}
	units, err := readUnits(w.ctx, w.tx, `ORDER BY path, start_line`)
	if err != nil {
		return fmt.Errorf("index: reading units to derive: %w", err)
	}
	rows, err := readNameRows(w.ctx, w.tx)
	if err != nil {
		return fmt.Errorf("index: reading names to derive: %w", err)
	}
	out, err := d.Func(units, edgesOf(rows))
	if err != nil {
		return fmt.Errorf("index: deriving %s: %w", d.Version, err)
	}
	id, err := writeSidecar(w.dbPath, out.Blobs)
	if err != nil {
		return err
	}
	w.sidecar = sidecarPath(w.dbPath, id)
	insT, err := w.tx.PrepareContext(w.ctx, `INSERT INTO derived_terms(part, term, data) VALUES(?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("index: prepare: %w", err)
	}
	defer insT.Close()
	parts := make([]int, 0, len(out.Terms))
	for p := range out.Terms {
		parts = append(parts, p)
	}
	sort.Ints(parts)
	for _, p := range parts {
		m := out.Terms[p]
		for _, k := range sortedKeys(m) {
			if _, err := insT.ExecContext(w.ctx, p, k, m[k]); err != nil {
				return fmt.Errorf("index: writing derived terms: %w", err)
			}
		}
	}
	if _, err := w.tx.ExecContext(w.ctx, `INSERT INTO meta(key, value) VALUES('derived', ?), ('derived_id', ?)`, d.Version, id); err != nil {
		return fmt.Errorf("index: writing derived version: %w", err)
	}
	return nil
}

const sidecarMagic = "MSSDERIV1\n"

func sidecarPath(dbPath, id string) string { return dbPath + "." + id + ".derived" }

// writeSidecar writes blobs to a new file beside dbPath and returns its id.
func writeSidecar(dbPath string, blobs map[string][]byte) (string, error) {
	var r [16]byte
	if _, err := rand.Read(r[:]); err != nil {
		return "", fmt.Errorf("index: %w", err)
	}
	id := hex.EncodeToString(r[:])
	names := sortedKeys(blobs)
	// The directory's size depends on the offsets' sizes: grow the
	// assumed data start until it holds.
	start := 0
	var head []byte
	for {
		head = append([]byte(sidecarMagic), r[:]...)
		head = varint.AppendUvarint(head, uint64(len(names)))
		off := start
		for _, n := range names {
			head = varint.AppendUvarint(head, uint64(len(n)))
			head = append(head, n...)
			head = varint.AppendUvarint(head, uint64(off))
			head = varint.AppendUvarint(head, uint64(len(blobs[n])))
			off = align8(off + len(blobs[n]))
		}
		if align8(len(head)) == start {
			break
		}
		start = align8(len(head))
	}
	p := sidecarPath(dbPath, id)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, 0o644)
	if err != nil {
		return "", fmt.Errorf("index: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(p)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	bw.Write(head)
	pos := len(head)
	for _, n := range names {
		bw.Write(make([]byte, align8(pos)-pos))
		pos = align8(pos)
		bw.Write(blobs[n])
		pos += len(blobs[n])
	}
	if err := bw.Flush(); err != nil {
		return "", fmt.Errorf("index: writing %s: %w", p, err)
	}
	if err := f.Sync(); err != nil {
		return "", fmt.Errorf("index: writing %s: %w", p, err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("index: writing %s: %w", p, err)
	}
	ok = true
	return id, nil
}

func align8(n int) int { return (n + 7) &^ 7 }

// removeSidecars deletes the derived files of dbPath other than keep (a
// path, or "" for all): files named like ours and starting with our magic.
func removeSidecars(dbPath, keep string) {
	matches, _ := filepath.Glob(dbPath + ".*.derived")
	for _, m := range matches {
		id := strings.TrimSuffix(strings.TrimPrefix(m, dbPath+"."), ".derived")
		if m == keep || len(id) != 32 || strings.Trim(id, "0123456789abcdef") != "" {
			continue
		}
		f, err := os.OpenFile(m, os.O_RDONLY|noFollow, 0)
		if err != nil {
			continue
		}
		head := make([]byte, len(sidecarMagic))
		_, err = io.ReadFull(f, head)
		f.Close()
		if err == nil && string(head) == sidecarMagic {
			os.Remove(m)
		}
	}
}

// sidecar is a derived file read into memory.
type sidecar struct {
	once  sync.Once
	blobs map[string][]byte
	err   error
}

func (ix *Index) loadSidecar() (map[string][]byte, error) {
	ix.side.once.Do(func() {
		ix.side.blobs, ix.side.err = readSidecar(ix.path, ix.meta.DerivedID)
	})
	return ix.side.blobs, ix.side.err
}

func readSidecar(dbPath, id string) (map[string][]byte, error) {
	p := sidecarPath(dbPath, id)
	bad := func(why string) error {
		return fmt.Errorf("index %s: derived file %s: %s: %w", dbPath, filepath.Base(p), why, ErrCorrupt)
	}
	f, err := os.OpenFile(p, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return nil, fmt.Errorf("index %s: derived file: %w", dbPath, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("index %s: derived file: %w", dbPath, err)
	}
	if !st.Mode().IsRegular() {
		return nil, bad("not a regular file")
	}
	data := make([]byte, st.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, fmt.Errorf("index %s: derived file: %w", dbPath, err)
	}
	want, _ := hex.DecodeString(id)
	if len(data) < len(sidecarMagic)+16 || string(data[:len(sidecarMagic)]) != sidecarMagic || string(data[len(sidecarMagic):len(sidecarMagic)+16]) != string(want) {
		return nil, bad("not the file this index recorded")
	}
	d := data[len(sidecarMagic)+16:]
	next := func() (uint64, bool) {
		x, k := varint.Uvarint(d)
		if k <= 0 {
			return 0, false
		}
		d = d[k:]
		return x, true
	}
	n, ok := next()
	if !ok || n > uint64(len(d)) {
		return nil, bad("bad directory")
	}
	out := make(map[string][]byte, n)
	for range n {
		l, ok := next()
		if !ok || l > uint64(len(d)) {
			return nil, bad("bad directory")
		}
		name := string(d[:l])
		d = d[l:]
		off, ok1 := next()
		size, ok2 := next()
		if !ok1 || !ok2 || off > uint64(len(data)) || size > uint64(len(data))-off {
			return nil, bad("bad directory")
		}
		out[name] = data[off : off+size : off+size]
	}
	return out, nil
}

// DerivedBlob returns the derived structure name (nil when the derived
// data has none). Callers check Meta().Derived first, and must not modify
// the bytes.
func (ix *Index) DerivedBlob(name string) ([]byte, error) {
	if ix.meta.DerivedID == "" {
		return nil, fmt.Errorf("index %s: no derived data", ix.path)
	}
	blobs, err := ix.loadSidecar()
	if err != nil {
		return nil, err
	}
	return blobs[name], nil
}

// DerivedTerms returns the rows of part for the given keys; keys without a
// row are absent from the map.
func (ix *Index) DerivedTerms(ctx context.Context, part int, keys []string) (map[string][]byte, error) {
	out := make(map[string][]byte, len(keys))
	// SQLite binds at most 32766 parameters; chunks stay far below.
	const chunk = 500
	for len(keys) > 0 {
		n := min(chunk, len(keys))
		args := make([]any, 0, n+1)
		args = append(args, part)
		for _, k := range keys[:n] {
			args = append(args, k)
		}
		keys = keys[n:]
		rows, err := ix.db.QueryContext(ctx, `SELECT term, data FROM derived_terms WHERE part = ? AND term IN (?`+strings.Repeat(",?", n-1)+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("index %s: derived terms: %w", ix.path, ix.health.note(ix.path, err))
		}
		for rows.Next() {
			var k string
			var b []byte
			if err := rows.Scan(&k, &b); err != nil {
				rows.Close()
				return nil, fmt.Errorf("index %s: derived terms: %w", ix.path, ix.health.note(ix.path, err))
			}
			out[k] = b
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("index %s: derived terms: %w", ix.path, ix.health.note(ix.path, err))
		}
	}
	return out, nil
}

// UnitsByID returns the stored units with the given ids (content
// included); ids without a unit are absent from the map.
func (ix *Index) UnitsByID(ctx context.Context, ids []string) (map[string]mss.Unit, error) {
	out := make(map[string]mss.Unit, len(ids))
	const chunk = 500
	for len(ids) > 0 {
		n := min(chunk, len(ids))
		args := make([]any, n)
		for i, id := range ids[:n] {
			args[i] = id
		}
		ids = ids[n:]
		us, err := readUnits(ctx, ix.db, `WHERE id IN (?`+strings.Repeat(",?", n-1)+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("index %s: units: %w", ix.path, ix.health.note(ix.path, err))
		}
		for _, u := range us {
			out[u.ID] = u
		}
	}
	return out, nil
}

// readUnits reads units with a WHERE or ORDER BY clause.
func readUnits(ctx context.Context, db querier, clause string, args ...any) ([]mss.Unit, error) {
	rows, err := db.QueryContext(ctx, `SELECT `+unitColumns+` FROM units `+clause, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []mss.Unit
	for rows.Next() {
		u, err := scanUnit(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
