package index

// Derived data. What retrieval needs from all units at once (term
// statistics and postings, name tables, resolved edges, semantic vectors)
// is computed by a Deriver when the units change (in the build that
// changes them, or later by Derive) and stored beside the index, so that
// opening an index reads it instead of recomputing it from every unit:
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
//	    A table (Derived.Tables; a blob named "table:" + its name) maps
//	    sorted keys to values: n; key offsets (n+1); value offsets (n+1),
//	    all uint32; the keys; the values. A lookup is a binary search.
//	    The file is mapped into memory, not read: an open touches only
//	    what it uses, and a query only the keys and values it looks up.
//	meta "derived", "derived_id", "units_gen"
//	    the Deriver's version the data was computed by, and the id of
//	    its file (absent when there is none); how many builds changed
//	    the units, which Derive compares before it records its file
//	meta "base", "base_id", "base_units"
//	    derived data that is no longer current, kept to be overlaid with
//	    the files changed since (Meta.Base): its version, file, and the
//	    count of units it was computed from
//
// The package stores bytes and does not read them: the Deriver owns their
// layout and names it by its version. A reader that finds another
// version (or none) must not use the data. Build recomputes it whenever
// a file's units changed, the version differs, or none is stored. A
// Build without a Deriver (or one told to DeferDerive) that changes units
// records none as current, so current data is never stale, and keeps what
// was current as the base; recording new current data drops the base.

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/segment"
)

// Derived is what a Deriver computed from an index's units.
type Derived struct {
	// Blobs are whole structures by name.
	Blobs map[string][]byte
	// Tables are keyed structures: table name, then key.
	Tables map[string]map[string][]byte
	// Encoded are tables laid out already (LayoutTable), by name: a
	// large table whose keys come sorted need not be held twice. A name
	// is in Tables or here, not in both.
	Encoded map[string][]byte
}

// Deriver computes derived data from every unit of an index.
type Deriver struct {
	// Version names the layout and the computation; data of another
	// version is recomputed, never read.
	Version string
	Func    func(in *DeriveInput) (*Derived, error)
}

// DeriveInput is what a Deriver reads.
type DeriveInput struct {
	Units []mss.Unit // in path and line order, with content
	Edges []Edge     // resolved between them
	// Selections holds, by unit id, what each unit's text only selects
	// of the names it references (segment.Selections; no entry: none),
	// as the edges were resolved with it, so that a Deriver need not
	// lex the units again.
	Selections map[string]map[string]segment.NameUse
	// GitDir and Commit name the indexed commit ("" for a plain
	// directory): its history may be derived too.
	GitDir, Commit string
	// Early, when not nil, takes a structure the Deriver has finished
	// while it goes on deriving the rest, so that the file is written
	// and synced meanwhile: name is as the file names it (a blob's name,
	// or TableName of a table laid out already), and the bytes are the
	// same the Deriver returns under that name. It may be called from
	// any goroutine; the file holds the structures in the order given.
	Early func(name string, b []byte)
}

// TableName is the name a derived file gives the table name.
func TableName(name string) string { return tablePrefix + name }

// derive recomputes the derived rows when the units changed or the rows
// are not of d's version, inside the build transaction.
func (w *writer) derive(d *Deriver, changed bool, src *source) error {
	have, err := metaValue(w.ctx, w.tx, "derived")
	if err != nil {
		return err
	}
	if !changed && (d == nil || have == d.Version) {
		if d == nil || recordedIntact(w.ctx, w.tx, w.dbPath) {
			return nil
		}
		// The recorded file is gone or damaged: derive it again.
		if w.sum != nil {
			w.sum.Rederived = "its derived file was missing or damaged"
		}
	}
	base, err := metaValue(w.ctx, w.tx, "base")
	if err != nil {
		return err
	}
	if !changed && d != nil && w.deferDerive && !w.collect && have == "" && base == d.Version {
		// Deferred already, and nothing changed since: the base stays
		// what engines overlay, until something derives on purpose.
		return nil
	}
	w.derivedChanged = true
	if d != nil && w.deferDerive && !w.collect && changed && (have == d.Version || have == "" && base == d.Version) {
		d = nil
	}
	if d == nil {
		if changed && have != "" {
			// The structures become the base later engines overlay.
			if err := w.keepBase(have); err != nil {
				return err
			}
		} else if id, err := metaValue(w.ctx, w.tx, "base_id"); err != nil {
			return err
		} else if id != "" {
			w.base = sidecarPath(w.dbPath, id)
		}
		return recordDerived(w.ctx, w.tx, "", "")
	}
	var in *DeriveInput
	if w.collect {
		in = newDeriveInput(w.units, w.names)
		w.units, w.names = nil, nil
	} else if in, err = deriveInput(w.ctx, w.tx); err != nil {
		return err
	}
	in.GitDir, in.Commit = src.gitDir, src.commit
	if in.Commit == "" && in.GitDir != "" {
		in.Commit = src.headCommit(w.ctx)
	}
	id, side, blobs, err := deriveToSidecar(d, in, w.dbPath)
	if err != nil {
		return err
	}
	if w.collect {
		// A new index: nothing can read the file before the index is
		// renamed into place, so it is finished (and synced) while the
		// build finishes, and waited for before the rename
		// (writer.sidecarWritten).
		done := make(chan error, 1)
		go func() { done <- side.finish(blobs) }()
		w.sidecarDone = done
	} else if err := side.finish(blobs); err != nil {
		return err
	}
	w.sidecar, w.side = sidecarPath(w.dbPath, id), side
	return recordDerived(w.ctx, w.tx, d.Version, id)
}

// recordedIntact reports whether the derived file the index at dbPath
// records (read through q) is there and its head and directory read back
// (readSidecar; its tables are checked by Check).
func recordedIntact(ctx context.Context, q querier, dbPath string) bool {
	id, err := metaValue(ctx, q, "derived_id")
	if err != nil || id == "" {
		return false
	}
	_, err = readSidecar(dbPath, id, &sidecar{})
	return err == nil
}

// sidecarWritten waits for the derived file written in the background,
// if any, and returns the error writing it met.
func (w *writer) sidecarWritten() error {
	if w.sidecarDone != nil {
		w.sidecarErr = <-w.sidecarDone
		w.sidecarDone = nil
	}
	return w.sidecarErr
}

// keepBase records the derived data of version, current until this
// build, as the base (Meta.Base), with the unit count it was derived from
// (the count the index recorded until this build).
func (w *writer) keepBase(version string) error {
	id, err := metaValue(w.ctx, w.tx, "derived_id")
	if err != nil {
		return err
	}
	units, err := metaValue(w.ctx, w.tx, "units")
	if err != nil {
		return err
	}
	w.base = sidecarPath(w.dbPath, id)
	return writeMeta(w.ctx, w.tx, map[string]string{"base": version, "base_id": id, "base_units": units})
}

// recordDerived records the derived data of version in the file of id,
// which replaces any kept base, or that there is none (version "").
func recordDerived(ctx context.Context, tx *sql.Tx, version, id string) error {
	if version == "" {
		return writeMeta(ctx, tx, nil, "derived", "derived_id")
	}
	return writeMeta(ctx, tx, map[string]string{"derived": version, "derived_id": id}, "base", "base_id", "base_units")
}

// metaValue reads one meta key ("" when absent).
func metaValue(ctx context.Context, q querier, key string) (string, error) {
	var v string
	err := q.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, key).Scan(&v)
	if err != nil && err != sql.ErrNoRows {
		return "", fmt.Errorf("index: reading meta %s: %w", key, err)
	}
	return v, nil
}

// unitsGen reads how many builds changed the units (meta units_gen, 0
// when absent).
func unitsGen(ctx context.Context, q querier) (int, error) {
	v, err := metaValue(ctx, q, "units_gen")
	if err != nil || v == "" {
		return 0, err
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("index: meta field \"units_gen\" = %q: %w", v, ErrCorrupt)
	}
	return n, nil
}

// deriveInput reads every unit and its edges.
func deriveInput(ctx context.Context, q querier) (*DeriveInput, error) {
	// One pass reads the units and their names (as readUnits and
	// readNameRows would).
	rows, err := q.QueryContext(ctx, `SELECT `+unitColumns+`, calls FROM units ORDER BY path, start_line`)
	if err != nil {
		return nil, fmt.Errorf("index: reading units to derive: %w", err)
	}
	defer rows.Close()
	var units []mss.Unit
	var names []nameRow
	for rows.Next() {
		var calls string
		u, err := scanUnit(scanPlus{rows, &calls})
		if err != nil {
			return nil, fmt.Errorf("index: reading units to derive: %w", err)
		}
		units = append(units, u)
		names = append(names, newNameRow(&u, splitList(calls)))
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("index: reading units to derive: %w", err)
	}
	return newDeriveInput(units, names), nil
}

// scanPlus scans a row's leading columns as its caller asks, and the
// last into extra.
type scanPlus struct {
	rows  *sql.Rows
	extra any
}

func (s scanPlus) Scan(dest ...any) error { return s.rows.Scan(append(dest, s.extra)...) }

// runDeriver derives and writes the file beside dbPath; it returns its id,
// and the file, whose lock the caller releases once it is recorded.
func runDeriver(d *Deriver, in *DeriveInput, dbPath string) (string, *sidecarFile, error) {
	id, side, blobs, err := deriveToSidecar(d, in, dbPath)
	if err != nil {
		return "", nil, err
	}
	if err := side.finish(blobs); err != nil {
		return "", nil, err
	}
	return id, side, nil
}

// deriveToSidecar derives with d into a new derived file beside dbPath,
// the structures given early written as they come; the rest, blobs, is
// left for the file's finish. On an error no file is left.
func deriveToSidecar(d *Deriver, in *DeriveInput, dbPath string) (id string, side *sidecarFile, blobs map[string][]byte, err error) {
	if id, err = newSidecarID(); err != nil {
		return "", nil, nil, err
	}
	if side, err = createSidecar(dbPath, id); err != nil {
		return "", nil, nil, err
	}
	in.Early = side.early
	if blobs, err = deriveBlobs(d, in); err != nil {
		side.abort()
		return "", nil, nil, err
	}
	return id, side, blobs, nil
}

// deriveBlobs derives, and encodes the tables: the blobs of the file.
func deriveBlobs(d *Deriver, in *DeriveInput) (map[string][]byte, error) {
	out, err := d.Func(in)
	if err != nil {
		return nil, fmt.Errorf("index: deriving %s: %w", d.Version, err)
	}
	blobs := make(map[string][]byte, len(out.Blobs)+len(out.Tables)+len(out.Encoded))
	for k, v := range out.Blobs {
		blobs[k] = v
	}
	for name, b := range out.Encoded {
		if _, dup := out.Tables[name]; dup {
			return nil, fmt.Errorf("index: deriving %s: table %s given twice", d.Version, name)
		}
		blobs[tablePrefix+name] = b
	}
	for name, m := range out.Tables {
		blobs[tablePrefix+name] = EncodeTable(m)
	}
	return blobs, nil
}

// ErrUnitsChanged is returned by Derive when a build changed the units
// while it derived: nothing is recorded.
var ErrUnitsChanged = errors.New("index units changed while deriving")

// Derive computes the derived data of an existing index outside a build,
// for a caller that built it without a Deriver (to answer sooner) and
// derives later: it reads the units in one read transaction, derives and
// writes the file without holding the writers' lock (builds go on
// meanwhile), then records it only if no build changed the units since it
// read them (ErrUnitsChanged otherwise, and the file is removed). An index
// whose derived data is of d's version already is left as it is.
func Derive(ctx context.Context, dbPath string, d *Deriver) error {
	ix, err := Open(dbPath)
	if err != nil {
		return err
	}
	in, gen, done, err := func() (*DeriveInput, int, bool, error) {
		defer ix.Close()
		tx, err := ix.conn().BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			return nil, 0, false, fmt.Errorf("index %s: %w", dbPath, err)
		}
		defer tx.Rollback()
		have, err := metaValue(ctx, tx, "derived")
		if err != nil {
			return nil, 0, false, err
		}
		if have == d.Version && recordedIntact(ctx, tx, dbPath) {
			return nil, 0, true, nil
		}
		gen, err := unitsGen(ctx, tx)
		if err != nil {
			return nil, 0, false, err
		}
		in, err := deriveInput(ctx, tx)
		if err != nil {
			return nil, 0, false, err
		}
		in.GitDir, in.Commit = ix.meta.GitDir, ix.meta.Commit
		return in, gen, false, nil
	}()
	if err != nil || done {
		return err
	}
	id, file, err := runDeriver(d, in, dbPath)
	if err != nil {
		return err
	}
	defer file.release()
	side := sidecarPath(dbPath, id)
	recorded := false
	defer func() {
		if !recorded {
			os.Remove(side)
		}
	}()
	lock, err := lockIndex(ctx, dbPath, 0)
	if err != nil {
		return err
	}
	defer lock.release()
	if err := checkJournal(dbPath); err != nil {
		return fmt.Errorf("index: %w", err)
	}
	db, err := sql.Open("sqlite", dsn(dbPath, false)+"&_pragma=journal_mode(DELETE)&_pragma=synchronous(FULL)")
	if err != nil {
		return fmt.Errorf("index %s: %w", dbPath, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("index %s: %w", dbPath, classify(dbPath, err))
	}
	defer tx.Rollback()
	if now, err := unitsGen(ctx, tx); err != nil {
		return err
	} else if now != gen {
		return ErrUnitsChanged
	}
	if err := recordDerived(ctx, tx, d.Version, id); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("index %s: commit: %w", dbPath, classify(dbPath, err))
	}
	recorded = true
	removeSidecars(dbPath, side)
	return nil
}

const sidecarMagic = "MSSDERIV1\n"

func sidecarPath(dbPath, id string) string { return dbPath + "." + id + ".derived" }

// newSidecarID names a new derived file: 16 random bytes, in hex.
func newSidecarID() (string, error) {
	var r [16]byte
	if _, err := rand.Read(r[:]); err != nil {
		return "", fmt.Errorf("index: %w", err)
	}
	return hex.EncodeToString(r[:]), nil
}

// sidecarHeadRoom is the room a derived file leaves before the structures
// given early (DeriveInput.Early) for its head and directory; a directory
// that outgrows it has the file written again, whole.
var sidecarHeadRoom = 64 << 10

// sidecarFile is a derived file being written: the structures a Deriver
// gives early are written where they stay, and begin going to the disk,
// while it derives the rest; finish writes the rest and the directory.
type sidecarFile struct {
	path  string
	id    []byte
	f     *os.File
	mu    sync.Mutex
	pos   int               // where the next structure goes
	at    map[string][2]int // those given early: offset and size
	err   error             // the first error writing one
	syncs sync.WaitGroup    // background syncs begun after them
	// syncErr is the first error a background sync met: a failed
	// write-back is reported once, to whichever sync meets it.
	syncMu  sync.Mutex
	syncErr error
	// hold keeps an advisory lock on the file from its creation until it
	// is recorded or given up (release), so that removeSidecars in another
	// build neither takes it for a killed writer's leftover while it is
	// written nor removes it, finished, before it is recorded.
	hold *os.File
}

// createSidecar creates the new file of id (newSidecarID) beside dbPath.
func createSidecar(dbPath, id string) (*sidecarFile, error) {
	r, err := hex.DecodeString(id)
	if err != nil || len(r) != 16 {
		return nil, fmt.Errorf("index: derived file id %q: not 16 bytes in hex", id)
	}
	p := sidecarPath(dbPath, id)
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL|noFollow, 0o644)
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	// Hold it, and make sure what is held is the file just made: a
	// leftover-removal in another process cannot have taken it for a
	// killed writer's (it leaves young files alone), but if it did, the
	// build fails rather than record a file that is not there.
	h, err := os.OpenFile(p, os.O_RDONLY|noFollow, 0)
	if err == nil {
		a, errA := f.Stat()
		b, errB := h.Stat()
		ok, errL := tryLock(h)
		if err = cmp.Or(errA, errB, errL); err == nil && (!ok || !os.SameFile(a, b)) {
			err = errors.New("another process has it")
		}
		if err != nil {
			h.Close()
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("index: derived file %s: cannot hold it while it is written: %w", p, err)
	}
	return &sidecarFile{path: p, id: r, f: f, pos: sidecarHeadRoom, at: map[string][2]int{}, hold: h}, nil
}

// release drops the file's lock (hold): it is recorded, or removed.
func (s *sidecarFile) release() {
	if s != nil && s.hold != nil {
		s.hold.Close()
		s.hold = nil
	}
}

// early writes the structure name at the file's end, and begins syncing
// the file in the background (DeriveInput.Early).
func (s *sidecarFile) early(name string, b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return
	}
	if _, dup := s.at[name]; dup {
		s.err = fmt.Errorf("index: derived structure %s given early twice", name)
		return
	}
	if _, err := s.f.WriteAt(b, int64(s.pos)); err != nil {
		s.err = fmt.Errorf("index: writing %s: %w", s.path, err)
		return
	}
	s.at[name] = [2]int{s.pos, len(b)}
	s.pos = align8(s.pos + len(b))
	s.syncs.Go(func() {
		if err := s.f.Sync(); err != nil {
			s.syncMu.Lock()
			s.syncErr = cmp.Or(s.syncErr, err)
			s.syncMu.Unlock()
		}
	})
}

// abort closes and removes the file.
func (s *sidecarFile) abort() {
	s.syncs.Wait()
	s.f.Close()
	os.Remove(s.path)
	s.release()
}

// finish writes the structures not given early after those that were, in
// name order, and the directory before them, then syncs and closes the
// file; on an error it removes it.
func (s *sidecarFile) finish(blobs map[string][]byte) (err error) {
	defer func() {
		if err != nil {
			s.abort()
		}
	}()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	names := sortedKeys(blobs)
	offs := make(map[string]int, len(names))
	for n, at := range s.at {
		if b, ok := blobs[n]; !ok || len(b) != at[1] {
			return fmt.Errorf("index: derived structure %s given early is not the one derived", n)
		}
		offs[n] = at[0]
	}
	pos := s.pos
	for _, n := range names {
		if _, ok := offs[n]; !ok {
			offs[n], pos = pos, align8(pos+len(blobs[n]))
		}
	}
	head := sidecarHead(s.id, names, blobs, offs)
	if len(s.at) == 0 || align8(len(head)) > sidecarHeadRoom {
		// Nothing was written early, or the directory does not fit
		// before it: the structures go right after the directory (the
		// file written again, whole).
		if len(s.at) > 0 {
			s.syncs.Wait()
			if err := s.f.Truncate(0); err != nil {
				return fmt.Errorf("index: writing %s: %w", s.path, err)
			}
			clear(s.at)
		}
		clear(offs)
		for start := 0; ; {
			pos := start
			for _, n := range names {
				offs[n], pos = pos, align8(pos+len(blobs[n]))
			}
			head = sidecarHead(s.id, names, blobs, offs)
			if align8(len(head)) == start {
				break
			}
			start = align8(len(head))
		}
	}
	if _, err := s.f.WriteAt(head, 0); err != nil {
		return fmt.Errorf("index: writing %s: %w", s.path, err)
	}
	// The rest, in offset order, through one buffer.
	rest := slices.DeleteFunc(slices.Clone(names), func(n string) bool { _, ok := s.at[n]; return ok })
	slices.SortFunc(rest, func(a, b string) int { return offs[a] - offs[b] })
	if len(rest) > 0 {
		at := offs[rest[0]]
		bw := bufio.NewWriterSize(io.NewOffsetWriter(s.f, int64(at)), 1<<20)
		for _, n := range rest {
			bw.Write(make([]byte, offs[n]-at))
			bw.Write(blobs[n])
			at = offs[n] + len(blobs[n])
		}
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("index: writing %s: %w", s.path, err)
		}
	}
	s.syncs.Wait()
	if err := cmp.Or(s.syncErr, s.f.Sync()); err != nil {
		return fmt.Errorf("index: writing %s: %w", s.path, err)
	}
	if err := s.f.Close(); err != nil {
		return fmt.Errorf("index: writing %s: %w", s.path, err)
	}
	return nil
}

// sidecarHead is a derived file's head: its magic, id and directory.
func sidecarHead(id []byte, names []string, blobs map[string][]byte, offs map[string]int) []byte {
	head := append([]byte(sidecarMagic), id...)
	head = binary.AppendUvarint(head, uint64(len(names)))
	for _, n := range names {
		head = binary.AppendUvarint(head, uint64(len(n)))
		head = append(head, n...)
		head = binary.AppendUvarint(head, uint64(offs[n]))
		head = binary.AppendUvarint(head, uint64(len(blobs[n])))
	}
	return head
}

func align8(n int) int { return (n + 7) &^ 7 }

// leftoverAge is how long an unfinished derived file must have been left
// unwritten before removeSidecars takes it for a killed writer's: a
// writer holds its file from a moment after making it.
const leftoverAge = time.Minute

// removeSidecars deletes the derived files of dbPath other than those
// kept (paths; "" keeps none): files named like ours that start with our
// magic, and, where files can be locked, files named like ours that are
// unfinished (their head is not written yet) and untouched for
// leftoverAge: a writer was killed. A file whose writer still holds it
// (sidecarFile.hold) is left alone, finished or not: it is being written,
// or about to be recorded.
func removeSidecars(dbPath string, keep ...string) {
	matches, _ := filepath.Glob(dbPath + ".*.derived")
	for _, m := range matches {
		id := strings.TrimSuffix(strings.TrimPrefix(m, dbPath+"."), ".derived")
		if slices.Contains(keep, m) || len(id) != 32 || strings.Trim(id, "0123456789abcdef") != "" {
			continue
		}
		f, err := os.OpenFile(m, os.O_RDONLY|noFollow, 0)
		if err != nil {
			continue
		}
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			head := make([]byte, len(sidecarMagic))
			n, _ := io.ReadFull(f, head)
			finished := n == len(head) && string(head) == sidecarMagic
			unfinished := haveLocks && time.Since(st.ModTime()) > leftoverAge &&
				!bytes.ContainsFunc(head[:n], func(r rune) bool { return r != 0 })
			if finished || unfinished {
				if free, err := tryLock(f); err == nil && free {
					os.Remove(m)
				}
			}
		}
		f.Close()
	}
}

// sidecar is a derived file, mapped into memory.
type sidecar struct {
	once  sync.Once
	blobs map[string][]byte
	err   error

	mu   sync.Mutex
	data []byte // the file's mapping, once read
}

// release lets the system reclaim the memory the mapping holds: its
// pages are dropped from the process and read from the file again (the
// page cache, mostly) if used after, so bytes taken from it stay valid.
// An index that is closed keeps no pages in memory that way, while the
// mapping itself goes only once nothing references it.
func (s *sidecar) release() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	dropPages(s.data)
}

func (ix *Index) loadSidecar() (map[string][]byte, error) {
	if ix.side == nil {
		return nil, fmt.Errorf("index %s: no derived data", ix.path)
	}
	s := ix.side
	s.once.Do(func() {
		s.blobs, s.err = readSidecar(ix.path, ix.meta.DerivedID, s)
	})
	return s.blobs, s.err
}

func readSidecar(dbPath, id string, holder *sidecar) (map[string][]byte, error) {
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
	data, err := mapFile(f, st.Size(), holder)
	if err != nil {
		return nil, fmt.Errorf("index %s: derived file: %w", dbPath, err)
	}
	holder.mu.Lock()
	holder.data = data
	holder.mu.Unlock()
	blobs, why := parseSidecar(data, id)
	if why != "" {
		return nil, bad(why)
	}
	return blobs, nil
}

// parseSidecar reads a derived file's directory; why says what is wrong.
func parseSidecar(data []byte, id string) (blobs map[string][]byte, why string) {
	want, _ := hex.DecodeString(id)
	if len(data) < len(sidecarMagic)+16 || string(data[:len(sidecarMagic)]) != sidecarMagic || string(data[len(sidecarMagic):len(sidecarMagic)+16]) != string(want) {
		return nil, "not the file this index recorded"
	}
	d := data[len(sidecarMagic)+16:]
	next := func() (uint64, bool) {
		x, k := binary.Uvarint(d)
		if k <= 0 {
			return 0, false
		}
		d = d[k:]
		return x, true
	}
	n, ok := next()
	if !ok || n > uint64(len(d)) {
		return nil, "bad directory"
	}
	out := make(map[string][]byte, n)
	for range n {
		l, ok := next()
		if !ok || l > uint64(len(d)) {
			return nil, "bad directory"
		}
		name := string(d[:l])
		d = d[l:]
		off, ok1 := next()
		size, ok2 := next()
		if !ok1 || !ok2 || off > uint64(len(data)) || size > uint64(len(data))-off {
			return nil, "bad directory"
		}
		out[name] = data[off : off+size : off+size]
	}
	return out, ""
}

// DerivedBlob returns the derived structure name (nil when the derived
// data has none). Callers check Meta().Derived first, and must not modify
// the bytes.
func (ix *Index) DerivedBlob(name string) ([]byte, error) {
	blobs, err := ix.loadSidecar()
	if err != nil {
		return nil, err
	}
	return blobs[name], nil
}

const tablePrefix = "table:"

// EncodeTable lays out a table as a derived file holds it (see
// ParseTable).
func EncodeTable(m map[string][]byte) []byte {
	type entry struct {
		k string
		v []byte
	}
	es := make([]entry, 0, len(m))
	n := len(m)
	size := 4 + 8*(n+1)
	for k, v := range m {
		es = append(es, entry{k, v})
		size += len(k) + len(v)
	}
	slices.SortFunc(es, func(a, b entry) int { return strings.Compare(a.k, b.k) })
	b := make([]byte, 0, size)
	b = le.AppendUint32(b, uint32(n))
	off := 0
	for _, e := range es {
		b = le.AppendUint32(b, uint32(off))
		off += len(e.k)
	}
	b = le.AppendUint32(b, uint32(off))
	off = 0
	for _, e := range es {
		b = le.AppendUint32(b, uint32(off))
		off += len(e.v)
	}
	b = le.AppendUint32(b, uint32(off))
	for _, e := range es {
		b = append(b, e.k...)
	}
	for _, e := range es {
		b = append(b, e.v...)
	}
	return b
}

// LayoutTable lays out a table as EncodeTable does, from its keys in
// strictly increasing order and the size of each one's value: fill then
// writes key i's value in place, into v of size(i) bytes (zeroed), in key
// order.
func LayoutTable(keys []string, size func(i int) int, fill func(i int, v []byte)) ([]byte, error) {
	n := len(keys)
	kl, vl := 0, 0
	for i, k := range keys {
		if i > 0 && keys[i-1] >= k {
			return nil, fmt.Errorf("index: table keys %q, %q: not in increasing order", keys[i-1], k)
		}
		kl += len(k)
		vl += size(i)
	}
	head := 4 + 8*(n+1)
	if uint64(head)+uint64(kl)+uint64(vl) > math.MaxUint32 {
		return nil, fmt.Errorf("index: a table of %d keys and %d bytes: too large", n, kl+vl)
	}
	b := make([]byte, head+kl+vl)
	le.PutUint32(b, uint32(n))
	keyOff, valOff := b[4:4+4*(n+1)], b[4+4*(n+1):head]
	keys0, vals := b[head:head+kl], b[head+kl:]
	ko, vo := 0, 0
	for i, k := range keys {
		le.PutUint32(keyOff[4*i:], uint32(ko))
		le.PutUint32(valOff[4*i:], uint32(vo))
		copy(keys0[ko:], k)
		ko += len(k)
		sz := size(i)
		if sz < 0 || sz > len(vals)-vo {
			return nil, fmt.Errorf("index: table value %q: size changed", k)
		}
		fill(i, vals[vo:vo+sz:vo+sz])
		vo += sz
	}
	le.PutUint32(keyOff[4*n:], uint32(ko))
	le.PutUint32(valOff[4*n:], uint32(vo))
	return b, nil
}

// Table is a derived keyed structure, read in place: its keys in sorted
// order, each with a value. Its bytes stay valid while the Index that gave
// it is reachable (also after Close).
type Table struct {
	n          int
	keyOff     []byte // n+1 little-endian uint32
	valOff     []byte
	keys, vals []byte
}

// ParseTable reads a table's bytes as DerivedTable does, checking them:
// bytes that are not a table are ErrCorrupt.
func ParseTable(b []byte) (*Table, error) {
	if len(b) < 4 {
		return nil, errBadTable
	}
	n := int(le.Uint32(b))
	if n > len(b) {
		return nil, errBadTable
	}
	t := &Table{n: n}
	b = b[4:]
	if len(b) < 8*(n+1) {
		return nil, errBadTable
	}
	t.keyOff, t.valOff = b[:4*(n+1)], b[4*(n+1):8*(n+1)]
	b = b[8*(n+1):]
	kl, vl := int(le.Uint32(t.keyOff[4*n:])), int(le.Uint32(t.valOff[4*n:]))
	if kl+vl != len(b) {
		return nil, errBadTable
	}
	t.keys, t.vals = b[:kl], b[kl:]
	// Offsets must not decrease: then every slice below is in bounds.
	for _, offs := range [][]byte{t.keyOff, t.valOff} {
		prev := uint32(0)
		for i := 0; i <= n; i++ {
			o := le.Uint32(offs[4*i:])
			if o < prev {
				return nil, errBadTable
			}
			prev = o
		}
	}
	// Keys must be in strictly increasing order, or lookups would miss.
	for i := 1; i < n; i++ {
		if t.Key(i-1) >= t.Key(i) {
			return nil, errBadTable
		}
	}
	return t, nil
}

var errBadTable = fmt.Errorf("bad table: %w", ErrCorrupt)

// Len is the number of keys.
func (t *Table) Len() int { return t.n }

// Key is the i-th key in sorted order. The string shares the table's
// bytes: copy it (strings.Clone) to keep it past the Index's life.
func (t *Table) Key(i int) string {
	a, b := le.Uint32(t.keyOff[4*i:]), le.Uint32(t.keyOff[4*i+4:])
	if a == b {
		return ""
	}
	return unsafe.String(&t.keys[a], b-a)
}

// Value is the i-th key's value (shared, read-only).
func (t *Table) Value(i int) []byte {
	a, b := le.Uint32(t.valOff[4*i:]), le.Uint32(t.valOff[4*i+4:])
	return t.vals[a:b:b]
}

// Find returns the position of key, or -1.
func (t *Table) Find(key string) int {
	i := sort.Search(t.n, func(i int) bool { return t.Key(i) >= key })
	if i < t.n && t.Key(i) == key {
		return i
	}
	return -1
}

// Get returns key's value.
func (t *Table) Get(key string) ([]byte, bool) {
	if i := t.Find(key); i >= 0 {
		return t.Value(i), true
	}
	return nil, false
}

// DerivedTable returns the derived table name.
func (ix *Index) DerivedTable(name string) (*Table, error) {
	b, err := ix.DerivedBlob(tablePrefix + name)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return nil, fmt.Errorf("index %s: derived data has no table %s: %w", ix.path, name, ErrCorrupt)
	}
	t, err := ParseTable(b)
	if err != nil {
		return nil, fmt.Errorf("index %s: derived table %s: %w", ix.path, name, err)
	}
	return t, nil
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
		us, err := readUnits(ctx, ix.conn(), `WHERE id IN (?`+strings.Repeat(",?", n-1)+`)`, args...)
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

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

var le = binary.LittleEndian
