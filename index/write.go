package index

// Building an index. The hard parts:
//
// Atomicity. A new index (none existed, or the existing one is of another
// version or built with other options) is never written in place: Build
// writes it into a temporary file in the index's directory
// (index.db.tmp-<pid>-<random>) with SQLite's journal off, syncs it, and
// renames it over the index. A run killed at any point leaves the previous
// index as it was plus, at worst, a stale temporary file, which the next
// Build removes once its process is gone (a file of that name that holds
// no mss index is the user's, and left alone).
//
// Incrementality. Every candidate file is recorded with its git blob id.
// When a compatible index exists (same format, feature version and options
// hash), Build updates it in one SQLite transaction: it deletes the rows of
// files that changed or vanished and parses only new and changed files;
// the units of unchanged files keep their rows and ids. That transaction
// runs with SQLite's rollback journal and full syncs, so it too is atomic:
// a run killed before the commit leaves a journal that the next open rolls
// back, restoring the previous index. (Copying the index to a temporary
// file instead would cost a copy and a sync of the whole file, most of a
// second for a large repository, on every move.) For a git directory the
// blob ids come from `git ls-tree -r` and only the blobs to parse are read,
// through one `git cat-file --batch` process, so moving an index between
// two commits costs the changed files.
//
// Order. Files are parsed in parallel but written in path order, so the
// same tree gives the same rows, byte for byte.

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/segment"
)

// DefaultMaxFileBytes caps the size of an indexed file. 2 MiB, as zoekt's
// default: the largest hand-written sources run past 1 MiB (picocli's
// CommandLine.java, 1.2 MB, holds most of that project's code), while
// what is larger is most often generated, vendored or data.
const DefaultMaxFileBytes = 2 << 20

// DefaultMaxTextBytes caps the size of an indexed file no grammar parses
// (documentation, configuration, data). Past 1 MiB such a file is most
// often an asset written as text (rich's 1.2 MB logo.ai and 1.1 MB
// logo.svg) or a data set, whose windows only crowd the code out.
const DefaultMaxTextBytes = 1 << 20

// Options configure Build.
type Options struct {
	Repo string // a working tree, or a git directory (bare or .git)
	Rev  string // commit to index when Repo is a git directory (or to read from a work tree's git); "" = working tree files
	DB   string // index file; default <repo>/.mss/index.db for a work tree

	MaxFileBytes     int64 // 0 means DefaultMaxFileBytes
	MaxTextBytes     int64 // files no grammar parses, within MaxFileBytes too; 0 means DefaultMaxTextBytes
	IncludeVendored  bool  // index vendor/, third_party/, node_modules/, bundled test frameworks, minified files
	IncludeGenerated bool  // index generated files (protobuf output, lock files, "Code generated" headers)

	Workers  int                   // parallel parsers; 0 means GOMAXPROCS
	Progress func(done, total int) // optional, called as files are decided; total = candidate files

	// IntegrityCheck runs SQLite's quick_check on an existing index before
	// updating it in place, and rebuilds it when the check fails; it also
	// parses again the files whose stored units disagree with their
	// hashes or ids (a row changed in the database), which SQLite cannot
	// see. It reads every page (about 0.2 s for a 10 MB index), so it is
	// off for moves;
	// without it, damage is still found when the update itself meets it,
	// or when a reader does (Index.Health), after which a caller builds
	// again with IntegrityCheck set.
	IntegrityCheck bool

	// Rebuild writes the index from scratch even when a compatible one
	// exists: the repair for an index whose Health is "tampered" (its
	// rows disagree with the source; quick_check cannot see that).
	Rebuild bool

	// Derive, when set, computes the retrieval structures stored beside
	// the units (see Deriver); without it an index holds none, and a
	// build that changes units removes any it had.
	Derive *Deriver
	// DeferDerive, with Derive, leaves deriving to a later Derive when an
	// existing index's units change and it holds Derive's structures (or
	// keeps them already): they are kept as Meta.Base, which an engine
	// overlays with the files changed since. A new index still derives.
	// Without Derive, structures are kept so whenever units change.
	DeferDerive bool

	// LockWait bounds the wait for another writer of the same index; 0
	// means DefaultLockWait.
	LockWait time.Duration
	// Logf, if set, is told of events worth a log line: an index rebuilt
	// because it was corrupt, foreign or tracked by git; retrieval
	// structures derived again because their file was missing or damaged.
	Logf func(format string, args ...any)

	// ownFramework is set by a build whose tree is a test framework's own
	// (frameworkTree): its framework directories are not vendored. It is
	// not looked for when IncludeVendored keeps them anyway.
	ownFramework bool
}

// Summary reports a build.
type Summary struct {
	Files      int            `json:"files"`      // files indexed (with units)
	Candidates int            `json:"candidates"` // files recorded: indexed, or skipped with a reason
	Units      int            `json:"units"`      // units in the index
	Parsed     int            `json:"parsed"`     // files segmented by this run
	Reused     int            `json:"reused"`     // files whose units were kept from the previous index
	Skipped    map[string]int `json:"skipped,omitempty"`
	// NotRead counts the entries the tree lists that are not files and
	// are never read or followed: "symbolic link" (a link, or a file
	// reached through a linked directory) and "submodule".
	NotRead   map[string]int `json:"not_read,omitempty"`
	Languages map[string]int `json:"languages"` // units per language ("" = text)
	Seconds   float64        `json:"seconds"`
	Commit    string         `json:"commit,omitempty"`
	DB        string         `json:"db"`
	// Rebuilt says why an existing index was not updated in place.
	Rebuilt string `json:"rebuilt,omitempty"`
	// Rederived says why the retrieval structures were derived again
	// though no unit changed: the file recorded was missing or damaged.
	Rederived string `json:"rederived,omitempty"`
	// LargeSource lists the files a grammar parses that were left out as
	// too large, largest first: code the index does not hold, which
	// Options.MaxFileBytes (mss index --max-file-bytes) can bring in.
	LargeSource []SkippedFile `json:"large_source,omitempty"`
}

// SkippedFile is a file left out of an index, and its size.
type SkippedFile struct {
	Path  string `json:"path"`
	Bytes int64  `json:"bytes"`
}

// nameFew names up to three paths, and how many more there are.
func nameFew(paths []string) string {
	s := strings.Join(paths[:min(len(paths), 3)], ", ")
	if len(paths) > 3 {
		s += fmt.Sprintf(" and %d more", len(paths)-3)
	}
	return s
}

// NameFiles names the first most files with their sizes, and how many
// more there are: "a.go (3000 bytes), b.go (2900 bytes), and 2 more".
func NameFiles(files []SkippedFile, most int) string {
	var names []string
	for _, f := range files[:min(len(files), most)] {
		names = append(names, fmt.Sprintf("%s (%d bytes)", f.Path, f.Bytes))
	}
	if len(files) > most {
		names = append(names, fmt.Sprintf("and %d more", len(files)-most))
	}
	return strings.Join(names, ", ")
}

func (o *Options) maxBytes() int64 {
	if o.MaxFileBytes <= 0 {
		return DefaultMaxFileBytes
	}
	return o.MaxFileBytes
}

func (o *Options) maxTextBytes() int64 {
	if o.MaxTextBytes <= 0 {
		return DefaultMaxTextBytes
	}
	return o.MaxTextBytes
}

// limit is the largest file at path p that is indexed: MaxFileBytes for
// source a grammar parses, and for other text the smaller of that and
// MaxTextBytes.
func (o *Options) limit(p string) int64 {
	if segment.Language(p) != "" {
		return o.maxBytes()
	}
	return min(o.maxBytes(), o.maxTextBytes())
}

// optionsHash identifies the options that change an index's content, and
// whether the tree was a test framework's own: when that changes, every
// file's skip is decided again.
func (o *Options) optionsHash() string {
	own := ""
	if o.ownFramework {
		own = " own-framework"
	}
	h := sha256.Sum256([]byte(fmt.Sprintf("max=%d text=%d vendored=%t generated=%t feature=%d%s",
		o.maxBytes(), o.maxTextBytes(), o.IncludeVendored, o.IncludeGenerated, FeatureVersion, own)))
	return hex.EncodeToString(h[:8])
}

// parsed is one file's outcome.
type parsed struct {
	e      entry
	lang   string
	status string
	res    *segment.Result
}

// Build creates the index of opts.Repo, or updates an existing compatible
// one incrementally. On any error the previous index is left untouched. It
// never overwrites a file that is not an mss index (ErrNotIndex), waits for
// another writer of the same index (ErrBusy past Options.LockWait), and
// rebuilds from the source an index that is corrupt, of another version,
// recorded for another source, or tracked by git (Summary.Rebuilt says
// which, and Options.Logf is told).
func Build(ctx context.Context, opts Options) (*Summary, error) {
	t0 := time.Now()
	if opts.Repo == "" {
		return nil, errors.New("index: no repository given")
	}
	src, err := openSource(ctx, opts.Repo, opts.Rev)
	if err != nil {
		return nil, err
	}
	defer src.close()
	dbPath, owned := opts.DB, false
	if dbPath == "" {
		if src.root == "" {
			return nil, fmt.Errorf("index: %s is a git directory: name the index file (--db)", opts.Repo)
		}
		if dbPath, owned, err = defaultIndexPath(src.root); err != nil {
			return nil, err
		}
	}
	dbPath, err = filepath.Abs(dbPath)
	if err != nil {
		return nil, err
	}
	if err := checkInsideRoot(src.root, dbPath); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(dbPath), 0o755); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	// Refuse a foreign file before taking the lock (which creates a file).
	if _, err := checkTarget(dbPath, owned); err != nil {
		return nil, err
	}
	lock, err := lockIndex(ctx, dbPath, opts.LockWait)
	if err != nil {
		return nil, err
	}
	defer lock.release()
	damaged, err := checkTarget(dbPath, owned) // again, now that no writer runs
	if err != nil {
		return nil, err
	}
	if err := checkJournal(dbPath); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	removeStaleTemps(dbPath)

	entries, notRead, err := src.list(ctx)
	if err != nil {
		return nil, fmt.Errorf("index %s: listing files: %w", opts.Repo, err)
	}
	entries = withoutIndexFiles(entries, src.root, dbPath)
	opts.ownFramework = !opts.IncludeVendored && frameworkTree(entries)
	ignore, err := src.ignoreRules(ctx)
	if err != nil {
		return nil, err
	}

	sum := &Summary{DB: dbPath, Commit: src.commit, Languages: map[string]int{}, Skipped: map[string]int{}}
	var old map[string]string
	var stats *prevStats
	if damaged {
		sum.Rebuilt = "corrupt: not recognisable as an index"
	} else if old, stats, sum.Rebuilt, err = previousFiles(ctx, dbPath, opts.optionsHash(), src, opts.IntegrityCheck); err != nil {
		return nil, err
	}
	if old != nil && opts.Rebuild {
		old, sum.Rebuilt = nil, "rebuild requested"
	}
	if old != nil && src.tracked(ctx, dbPath) {
		old, sum.Rebuilt = nil, "tracked by git: an index committed to the repository is never trusted"
	}
	if sum.Rebuilt != "" && opts.Logf != nil {
		opts.Logf("index %s: %s; rebuilding it from %s", dbPath, sum.Rebuilt, src.describe())
	}
	if old != nil && stats != nil && len(stats.damaged) > 0 && opts.Logf != nil {
		opts.Logf("index %s: the stored units of %s disagree with their hashes (changed in the database); parsing them again", dbPath, nameFew(stats.damaged))
	}

	err = writeIndex(ctx, opts, src, entries, ignore, dbPath, old, stats, t0, sum)
	if err != nil && old != nil && stateOf(classify(dbPath, err)) == StateCorrupt {
		// The update in place met damage quick_check was not asked to
		// look for: rebuild from the source.
		sum = &Summary{DB: dbPath, Commit: src.commit, Languages: map[string]int{}, Skipped: map[string]int{},
			Rebuilt: "corrupt: " + err.Error()}
		if opts.Logf != nil {
			opts.Logf("index %s: %s; rebuilding it from %s", dbPath, sum.Rebuilt, src.describe())
		}
		err = writeIndex(ctx, opts, src, entries, ignore, dbPath, nil, nil, t0, sum)
	}
	if err != nil {
		return nil, err
	}
	sum.Seconds = time.Since(t0).Seconds()
	if len(sum.Skipped) == 0 {
		sum.Skipped = nil
	}
	if len(notRead) > 0 {
		sum.NotRead = notRead
	}
	return sum, nil
}

// withoutIndexFiles drops the index's own files from a work tree's
// entries, when the index lives in the tree outside .mss (OwnFile); a
// file of the user's named like the index (index-helpers.js beside an
// index named index) stays.
func withoutIndexFiles(entries []entry, root, dbPath string) []entry {
	if root == "" {
		return entries
	}
	rel, err := filepath.Rel(root, dbPath)
	if err != nil || strings.HasPrefix(rel, "..") {
		return entries
	}
	rel = filepath.ToSlash(rel)
	out := entries[:0]
	for _, e := range entries {
		if !OwnFile(e.path, rel) {
			out = append(out, e)
		}
	}
	return out
}

// OwnFile reports whether p is the index file db or one the index writes
// beside it, as named here: its lock (db.lock), SQLite's journals
// (db-journal, db-wal, db-shm), a build's temporary file and its journal
// (db.tmp-<pid>-<12 hex digits>) and a derived file (db.<32 hex
// digits>.derived). p and db are spelled alike (both absolute, or both
// relative to one root).
func OwnFile(p, db string) bool {
	rest, ok := strings.CutPrefix(p, db)
	if !ok {
		return false
	}
	switch rest {
	case "", ".lock", "-journal", "-wal", "-shm":
		return true
	}
	if t, ok := strings.CutPrefix(rest, ".tmp-"); ok {
		t = strings.TrimSuffix(t, "-journal")
		pid, id, ok := strings.Cut(t, "-")
		return ok && pid != "" && strings.Trim(pid, "0123456789") == "" && isHex(id, 12)
	}
	if t, ok := strings.CutPrefix(rest, "."); ok {
		id, ok := strings.CutSuffix(t, ".derived")
		return ok && isHex(id, 32)
	}
	return false
}

// isHex reports whether s is n lower-case hex digits.
func isHex(s string, n int) bool {
	return len(s) == n && strings.Trim(s, "0123456789abcdef") == ""
}

// writeIndex writes the index: in place over old (the previous index's
// files), or into a new file renamed over dbPath when old is nil.
func writeIndex(ctx context.Context, opts Options, src *source, entries []entry, ignore *ignoreList, dbPath string, old map[string]string, stats *prevStats, started time.Time, sum *Summary) (err error) {
	// target is the file written: the index itself for an update in
	// place, a temporary file for a new index.
	target, conn := dbPath, dsn(dbPath, false)+"&_pragma=journal_mode(DELETE)&_pragma=synchronous(FULL)"
	if old == nil {
		if target, err = tempPath(dbPath); err != nil {
			return err
		}
		conn = dsn(target, false) + "&_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)"
	}
	ok := false
	defer func() {
		if !ok && target != dbPath {
			os.Remove(target)
		}
	}()
	db, err := sql.Open("sqlite", conn)
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	db.SetMaxOpenConns(1)
	defer db.Close()
	if old == nil {
		if _, err := db.ExecContext(ctx, schema); err != nil {
			return fmt.Errorf("index: creating %s: %w", target, err)
		}
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("index: %w", classify(target, err))
	}
	defer tx.Rollback()
	w, err := newWriter(ctx, tx)
	if err != nil {
		return err
	}
	defer w.close()
	w.dbPath, w.started = dbPath, started
	w.collect = old == nil && opts.Derive != nil
	w.deferDerive = opts.DeferDerive
	w.sum = sum
	defer func() {
		switch {
		case ok && w.derivedChanged:
			removeSidecars(dbPath, w.sidecar, w.base)
		case !ok && w.sidecar != "":
			w.sidecarWritten()
			os.Remove(w.sidecar)
		}
		w.side.release()
	}()

	// Decide what to parse. For a work tree the bytes are read now to get
	// blob ids, and read again when parsed (from the page cache), so that
	// memory holds only the files in flight; a file whose stat is the one
	// recorded, from well before the last build, keeps its blob id unread,
	// and a new index reads each file once, when it parses it.
	var toParse []entry
	keep := map[string]bool{}
	decided := 0
	read, done := src.reader()
	defer done()
	for _, e := range entries {
		switch {
		case e.blob == skipBadName:
			// Recorded as skipped below, never read.
		case ignore.match(e.path):
			e.blob = skipIgnored
		case src.commit == "" && e.size > opts.limit(e.path):
			e.blob = "size:" + strconv.FormatInt(e.size, 10)
		case src.commit == "" && old == nil:
			// parseAll reads it and takes its blob id.
		case src.commit == "" && stats.settled(e) && isBlobID(old[e.path]):
			// A file recorded as skipped ("ignored" by a pattern since
			// removed) is read again.
			e.blob = old[e.path]
		case src.commit == "":
			b, err := read(e.path)
			if err != nil {
				// Unreadable files are recorded, never silently dropped.
				e.blob = "unreadable"
				keep[e.path] = true
				if err := w.deleteFile(e.path, old); err != nil {
					return err
				}
				if err := w.file(e, "", 0, unreadable(err)); err != nil {
					return err
				}
				decided++
				continue
			}
			e.blob = BlobID(b)
		}
		keep[e.path] = true
		if prev, found := old[e.path]; found && prev == e.blob {
			if e.stat != "" && (stats == nil || stats.stat[e.path] != e.stat) {
				// Same bytes, new stat (touched, checked out again).
				if err := w.restat(e); err != nil {
					return err
				}
			}
			sum.Reused++
			decided++
			continue
		}
		if err := w.deleteFile(e.path, old); err != nil {
			return err
		}
		if reason := skipByName(e, &opts); reason != "" {
			if err := w.file(e, segment.Language(e.path), 0, reason); err != nil {
				return err
			}
			decided++
			continue
		}
		toParse = append(toParse, e)
	}
	for p := range old {
		if !keep[p] {
			if err := w.deleteFile(p, old); err != nil {
				return err
			}
		}
	}

	// Progress counts every candidate file, the same number that the
	// index records and `mss index check` reports.
	progress := opts.Progress
	if progress != nil {
		progress(decided, len(entries))
		opts.Progress = func(done, _ int) { progress(decided+done, len(entries)) }
	}
	if err := parseAll(ctx, src, toParse, &opts, w, sum); err != nil {
		return err
	}
	if err := w.flushUnits(); err != nil {
		return err
	}
	var early *earlySync
	if target != dbPath {
		// The new file holds its units now: its pages go to the disk
		// while the structures are derived, not all at the end.
		early = startSync(target)
		defer early.wait() // on an error return; the rename's path checks its error
	}

	changed := w.changed > 0 || old == nil
	if w.unitsGen, err = unitsGen(ctx, w.tx); err != nil {
		return err
	}
	if changed {
		w.unitsGen++
	}
	if err := w.derive(opts.Derive, changed, src); err != nil {
		return err
	}
	if sum.Rederived != "" && opts.Logf != nil {
		opts.Logf("index %s: %s; deriving its retrieval structures again", dbPath, sum.Rederived)
	}

	// Totals and per-language counts come from the final tables, so reused
	// files count the same as parsed ones.
	if err := w.finish(sum, src, &opts); err != nil {
		return err
	}
	w.close()
	if target == dbPath {
		if err := w.sidecarWritten(); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("index: commit %s: %w", target, classify(target, err))
	}
	if err := db.Close(); err != nil {
		return fmt.Errorf("index: closing %s: %w", target, err)
	}
	if target != dbPath {
		if err := early.wait(); err != nil { // its descriptor closed before the rename
			return fmt.Errorf("index: syncing %s: %w", target, err)
		}
		if err := syncFile(target); err != nil {
			return fmt.Errorf("index: %w", err)
		}
		if err := w.sidecarWritten(); err != nil {
			return err
		}
		if err := os.Rename(target, dbPath); err != nil {
			return fmt.Errorf("index: %w", err)
		}
		syncDir(filepath.Dir(dbPath))
	}
	ok = true
	return nil
}

// skipByName says why a file is left out before reading it, or "".
func skipByName(e entry, o *Options) string {
	switch {
	case e.blob == skipBadName, e.blob == skipIgnored:
		return e.blob
	case !o.IncludeVendored && vendored(e.path, o.ownFramework):
		return skipVendored
	case e.size > o.limit(e.path):
		return skipLarge
	}
	return ""
}

// skipByContent says why a file is left out after reading it, or "".
func skipByContent(e entry, data []byte, o *Options) string {
	switch {
	case e.size > o.limit(e.path):
		return skipLarge
	case isBinary(data):
		return skipBinary
	case !o.IncludeGenerated && generated(e.path, data):
		return skipGenerated
	}
	return ""
}

// parseAll segments files with opts.Workers goroutines and writes the
// results in path order.
func parseAll(ctx context.Context, src *source, files []entry, opts *Options, w *writer, sum *Summary) error {
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	type job struct {
		seq     int
		e       entry
		data    []byte
		readErr error // the work tree file could not be read
	}
	type done struct {
		seq int
		p   parsed
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan job, 2*workers)
	results := make(chan done, 2*workers)
	readErr := make(chan error, 1)
	go func() {
		defer close(jobs)
		send := func(seq int, e entry, b []byte, rerr error) error {
			select {
			case jobs <- job{seq, e, b, rerr}:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if src.commit != "" {
			seq := 0
			readErr <- src.catFile(ctx, files, opts.maxBytes(), func(e entry, b []byte, missing error) error {
				seq++
				if missing != nil {
					// Recorded under another blob id, so that the next
					// build tries again once the object is there.
					e.blob = "missing:" + e.blob
				}
				return send(seq-1, e, b, missing)
			})
			return
		}
		read, done := src.reader()
		defer done()
		for i, e := range files {
			b, rerr := read(e.path)
			if rerr == nil {
				// The bytes parsed are the bytes recorded, even if the
				// file changed since it was listed.
				e.blob, e.size = BlobID(b), int64(len(b))
			} else {
				e.blob = "unreadable"
			}
			if err := send(i, e, b, rerr); err != nil {
				readErr <- err
				return
			}
		}
		readErr <- nil
	}()
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				var p parsed
				if j.readErr != nil {
					p = parsed{e: j.e, lang: segment.Language(j.e.path), status: unreadable(j.readErr)}
				} else {
					p = parseOne(j.e, j.data, opts)
				}
				select {
				case results <- done{j.seq, p}:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()

	pending := map[int]parsed{}
	next := 0
	var werr error
	for d := range results {
		if werr != nil {
			continue
		}
		pending[d.seq] = d.p
		for {
			p, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			if err := w.parsed(p); err != nil {
				werr = err
				cancel()
				break
			}
			if p.res != nil {
				sum.Parsed++
			}
			if opts.Progress != nil {
				opts.Progress(next, len(files))
			}
		}
	}
	if werr != nil {
		return werr
	}
	if err := <-readErr; err != nil {
		return fmt.Errorf("index: reading files: %w", err)
	}
	if next != len(files) {
		return fmt.Errorf("index: %d of %d files processed", next, len(files))
	}
	return ctx.Err()
}

// unreadable is the status of a file that could not be read.
func unreadable(err error) string {
	if errors.Is(err, ErrMissingObject) {
		return skipMissing + ": " + err.Error()
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return "unreadable: " + pe.Err.Error()
	}
	return "unreadable: " + err.Error()
}

// parseOne segments one file, recovering from a panic in a grammar so one
// bad file cannot take the build down: such a file is cut into windows.
func parseOne(e entry, data []byte, o *Options) (p parsed) {
	p.e = e
	if r := skipByContent(e, data, o); r != "" {
		p.status = r
		p.lang = segment.Language(e.path)
		return p
	}
	defer func() {
		if r := recover(); r != nil {
			res := segment.Segment(e.path+".txt", data) // no grammar: windows
			for i := range res.Units {
				res.Units[i].Path = e.path
				res.Units[i].ID = segment.UnitID(e.path, res.Units[i].StartLine, res.Units[i].EndLine, res.Units[i].Hash)
			}
			p.res, p.lang = res, segment.Language(e.path)
			p.status = fmt.Sprintf("%s: panic: %v", segment.FallbackParseFailed, r)
		}
	}()
	res := segmentOf(e.path, data)
	p.res, p.lang = res, res.Language
	p.status = "parsed"
	if res.Fallback != "" {
		p.status = res.Fallback
	}
	if res.OverBudget {
		// What the file became hangs on the machine's load: recorded
		// under another blob id, so that the next build parses it again.
		p.e.blob = unsettledPrefix + p.e.blob
	}
	return p
}

// segmentOf is segment.Segment, but in tests.
var segmentOf = segment.Segment

// unsettledPrefix marks the recorded blob id of a file whose parse ran
// past its time budget (segment.Result.OverBudget).
const unsettledPrefix = "unsettled:"

// prevStats is what the previous index recorded of the work tree's
// files' stats, and when its build started.
type prevStats struct {
	stat    map[string]string
	started time.Time
	// damaged lists the files whose stored units disagree with their
	// hashes (Options.IntegrityCheck): they are parsed again.
	damaged []string
}

// settled reports whether e's stat is the one recorded and was taken long
// enough before the previous build started that the file cannot have been
// written after that build read it without its stat changing.
func (ps *prevStats) settled(e entry) bool {
	return ps != nil && e.stat != "" && ps.stat[e.path] == e.stat && !ps.started.IsZero() &&
		e.mtime.Before(ps.started.Add(-statSettle))
}

// statSettle is how long before a build a file's last write must be for
// its unchanged stat to be trusted (file systems keep coarse times).
const statSettle = 2 * time.Second

// sameDir reports whether a and b name one directory, however they spell
// it (a link to a work tree, and its real path), or are both "".
func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	if a == "" || b == "" {
		return false
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && sa.IsDir() && os.SameFile(sa, sb)
}

// previousFiles returns the path -> blob table of a compatible existing
// index, or nil and why it cannot be updated in place ("" if none exists).
// The index is rebuilt when it is of another version or options, recorded
// for another source, or corrupt (SQLite's quick_check, with check); a busy index, a
// hot journal on a read-only filesystem or any other failure to read it
// is an error, never a reason to rebuild over it.
func previousFiles(ctx context.Context, dbPath, optsHash string, src *source, check bool) (map[string]string, *prevStats, string, error) {
	if _, err := os.Stat(dbPath); errors.Is(err, fs.ErrNotExist) {
		return nil, nil, "", nil
	}
	// Read-write, so that a journal left by an interrupted update is
	// rolled back before the files table is read.
	db, err := sql.Open("sqlite", dsn(dbPath, false)+"&mode=rw&_pragma=query_only(1)")
	if err != nil {
		return nil, nil, "", fmt.Errorf("index %s: %w", dbPath, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	fail := func(err error) (map[string]string, *prevStats, string, error) {
		err = classify(dbPath, err)
		if errors.Is(err, ErrCorrupt) {
			return nil, nil, "corrupt: " + err.Error(), nil
		}
		return nil, nil, "", fmt.Errorf("index %s: %w", dbPath, err)
	}
	m, err := readMeta(db)
	if err != nil {
		if st, serr := os.Stat(dbPath); serr == nil && st.Size() == 0 {
			return nil, nil, "", nil // an empty file: a new index, nothing to rebuild
		}
		return fail(err)
	}
	if m.FormatVersion != FormatVersion || m.FeatureVersion != FeatureVersion {
		return nil, nil, fmt.Sprintf("version: format %d feature %d, want %d %d", m.FormatVersion, m.FeatureVersion, FormatVersion, FeatureVersion), nil
	}
	if m.OptionsHash != optsHash {
		return nil, nil, "options changed (the build options, or whether the tree is a test framework's own)", nil
	}
	if !sameDir(m.Root, src.root) || !sameDir(m.GitDir, src.gitDir) {
		return nil, nil, fmt.Sprintf("recorded for another source (root %q, git dir %q)", m.Root, m.GitDir), nil
	}
	var damaged map[string]bool
	if check {
		if err := quickCheck(db, dbPath); err != nil {
			return fail(err)
		}
		if damaged, err = damagedFiles(ctx, db); err != nil {
			return fail(err)
		}
	}
	ps := &prevStats{stat: map[string]string{}, started: m.Started}
	rows, err := db.QueryContext(ctx, `SELECT path, blob, stat FROM files`)
	if err != nil {
		return fail(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var p, b, st string
		if err := rows.Scan(&p, &b, &st); err != nil {
			return fail(err)
		}
		out[p] = b
		if st != "" {
			ps.stat[p] = st
		}
		if damaged[p] {
			// Parsed again: a blob id no file has, and no stat to trust.
			out[p] = damagedBlob
			delete(ps.stat, p)
			ps.damaged = append(ps.damaged, p)
		}
	}
	if err := rows.Err(); err != nil {
		return fail(err)
	}
	return out, ps, "", nil
}

// damagedBlob stands for the recorded blob id of a file whose stored
// units are damaged: no file's blob id is it, so the file is parsed again.
const damagedBlob = "damaged"

// damagedFiles returns the files whose stored units disagree with
// themselves: a unit's content whose hash, or an id whose hash, path and
// lines, is not the one stored (a row changed in the database). Reading
// and hashing every unit costs about a tenth of quick_check's time.
func damagedFiles(ctx context.Context, db *sql.DB) (map[string]bool, error) {
	rows, err := db.QueryContext(ctx, `SELECT id, path, start_line, end_line, content, hash FROM units`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var stored, want mss.Unit
		if err := rows.Scan(&stored.ID, &want.Path, &want.StartLine, &want.EndLine, &want.Content, &stored.Hash); err != nil {
			return nil, err
		}
		segment.Identify(&want)
		if want.Hash != stored.Hash || want.ID != stored.ID {
			out[want.Path] = true
		}
	}
	return out, rows.Err()
}

// writer holds the prepared statements of one build transaction.
type writer struct {
	tx *sql.Tx
	// changed counts files whose rows were removed or written.
	changed int
	// dbPath is the index the build ends in; sidecar the derived file
	// this build wrote, if any; base the one it keeps (Meta.Base).
	dbPath, sidecar, base string
	// sidecarDone reports the end of the sidecar's writing, when it is
	// written in the background (sidecarWritten); sidecarErr keeps it.
	sidecarDone <-chan error
	sidecarErr  error
	// side is the derived file this build wrote (sidecar), locked until
	// the build is in place or given up.
	side *sidecarFile
	// derivedChanged says the derived data recorded was replaced or
	// removed: files of other ids go once the build is in place.
	derivedChanged bool
	// deferDerive is Options.DeferDerive.
	deferDerive bool
	// sum is the build's summary.
	sum *Summary
	// collect keeps every unit written (a new index's, for its Deriver,
	// which then need not read them back).
	collect bool
	units   []mss.Unit
	names   []nameRow
	// unitsGen counts the builds that changed units (meta units_gen).
	unitsGen                                     int
	ctx                                          context.Context
	insFile, insUnit, delUnits, delFile, setStat *sql.Stmt
	started                                      time.Time
	// Units are inserted unitBatch rows a statement (insUnits): the rows
	// waiting are pending, their columns in order, and pendingAt the
	// units' places, for an error.
	insUnits  *sql.Stmt
	pending   []any
	pendingAt []unitPlace
}

// unitPlace is where a unit is: its file and lines.
type unitPlace struct {
	path       string
	start, end int
}

func (p unitPlace) String() string { return fmt.Sprintf("%s:%d-%d", p.path, p.start, p.end) }

// unitBatch is how many units one INSERT writes: a statement per unit
// spent as much on the statement as on the row.
const unitBatch = 64

// insertColumns are the units table's columns an INSERT writes: those a
// unit is read back from, and its calls.
const insertColumns = unitColumns + ", calls"

// insertUnits is the INSERT of n units.
func insertUnits(n int) string {
	row := "(" + strings.Repeat("?,", strings.Count(insertColumns, ",")) + "?)"
	return "INSERT INTO units(" + insertColumns + ") VALUES" + strings.Repeat(row+",", n-1) + row
}

// addUnit queues a unit's row (its columns, in insertColumns' order), and
// writes the queue when it holds a full batch.
func (w *writer) addUnit(at unitPlace, cols ...any) error {
	w.pending = append(w.pending, cols...)
	w.pendingAt = append(w.pendingAt, at)
	if len(w.pendingAt) < unitBatch {
		return nil
	}
	return w.flushUnits()
}

// flushUnits writes the queued units. When the statement fails (it
// writes none of them then), they are written one at a time, so that
// the error names the unit it is about.
func (w *writer) flushUnits() error {
	n := len(w.pendingAt)
	if n == 0 {
		return nil
	}
	st := w.insUnits
	if n < unitBatch { // the last batch, once a build
		var err error
		if st, err = w.tx.PrepareContext(w.ctx, insertUnits(n)); err != nil {
			return fmt.Errorf("index: prepare: %w", err)
		}
		defer st.Close()
	}
	if _, err := st.ExecContext(w.ctx, w.pending...); err != nil {
		cols := len(w.pending) / n
		for k := range n {
			if _, err := w.insUnit.ExecContext(w.ctx, w.pending[k*cols:(k+1)*cols]...); err != nil {
				return fmt.Errorf("index: writing %s: %w", w.pendingAt[k], err)
			}
		}
		return fmt.Errorf("index: writing %d units from %s: %w", n, w.pendingAt[0], err)
	}
	w.pending, w.pendingAt = w.pending[:0], w.pendingAt[:0]
	return nil
}

func newWriter(ctx context.Context, tx *sql.Tx) (*writer, error) {
	w := &writer{tx: tx, ctx: ctx}
	for _, s := range []struct {
		dst **sql.Stmt
		sql string
	}{
		{&w.insFile, `INSERT INTO files(path, blob, size, language, units, status, stat) VALUES(?,?,?,?,?,?,?)`},
		{&w.setStat, `UPDATE files SET stat = ? WHERE path = ?`},
		{&w.insUnit, insertUnits(1)},
		{&w.insUnits, insertUnits(unitBatch)},
		{&w.delUnits, `DELETE FROM units WHERE path = ?`},
		{&w.delFile, `DELETE FROM files WHERE path = ?`},
	} {
		st, err := tx.PrepareContext(ctx, s.sql)
		if err != nil {
			return nil, fmt.Errorf("index: prepare: %w", err)
		}
		*s.dst = st
	}
	return w, nil
}

func (w *writer) close() {
	for _, s := range []*sql.Stmt{w.insFile, w.insUnit, w.insUnits, w.delUnits, w.delFile, w.setStat} {
		if s != nil {
			s.Close()
		}
	}
}

// deleteFile removes a file's rows if the previous index had it.
func (w *writer) deleteFile(path string, old map[string]string) error {
	if _, ok := old[path]; !ok {
		return nil
	}
	delete(old, path)
	for _, st := range []*sql.Stmt{w.delUnits, w.delFile} {
		r, err := st.ExecContext(w.ctx, path)
		if err != nil {
			return fmt.Errorf("index: removing %s: %w", path, err)
		}
		if st == w.delUnits {
			// Only a file that had units changes what is derived.
			if n, err := r.RowsAffected(); err != nil || n > 0 {
				w.changed++
			}
		}
	}
	return nil
}

func (w *writer) file(e entry, lang string, units int, status string) error {
	if _, err := w.insFile.ExecContext(w.ctx, e.path, e.blob, e.size, lang, units, status, e.stat); err != nil {
		return fmt.Errorf("index: writing %s: %w", e.path, err)
	}
	return nil
}

// restat records a reused file's new stat.
func (w *writer) restat(e entry) error {
	if _, err := w.setStat.ExecContext(w.ctx, e.stat, e.path); err != nil {
		return fmt.Errorf("index: writing %s: %w", e.path, err)
	}
	return nil
}

func (w *writer) parsed(p parsed) error {
	n := 0
	if p.res != nil {
		n = len(p.res.Units)
	}
	if err := w.file(p.e, p.lang, n, p.status); err != nil {
		return err
	}
	if p.res == nil {
		return nil
	}
	w.changed++
	if n := len(p.res.Units); w.collect && len(w.units)+n > cap(w.units) {
		// Doubled, not grown by a quarter as append grows a long slice:
		// fewer copies of a new index's every unit.
		w.units = slices.Grow(w.units, max(n, len(w.units)))
		w.names = slices.Grow(w.names, max(n, len(w.names)))
	}
	for i, u := range p.res.Units {
		defs, refs, calls, imps := joinList(u.Defines), joinList(u.References), joinList(p.res.Calls[i]), joinList(u.Imports)
		if err := w.addUnit(unitPlace{u.Path, u.StartLine, u.EndLine}, u.ID, u.Path, u.StartLine, u.EndLine,
			u.Symbol, u.Kind, u.Language, u.Content, u.Hash, u.Tokens, defs, refs, imps, u.Context, calls); err != nil {
			return err
		}
		if w.collect {
			// As readUnits and readNameRows would read the row back (the
			// lists are shared: neither is changed).
			defines, references, imports := splitList(defs), splitList(refs), splitList(imps)
			w.units = append(w.units, mss.Unit{ID: u.ID, Path: u.Path, StartLine: u.StartLine, EndLine: u.EndLine,
				Symbol: u.Symbol, Kind: u.Kind, Language: u.Language, Content: u.Content, Hash: u.Hash, Tokens: u.Tokens,
				Defines: defines, References: references, Imports: imports, Context: u.Context})
			w.names = append(w.names, newNameRow(&w.units[len(w.units)-1], splitList(calls)))
		}
	}
	return nil
}

// finish writes meta and fills the summary's totals from the tables.
func (w *writer) finish(sum *Summary, src *source, o *Options) error {
	q := func(query string, dst ...any) error {
		return w.tx.QueryRowContext(w.ctx, query).Scan(dst...)
	}
	// Counts come from the small files table: scanning units would read
	// every unit's content.
	var nfiles int
	if err := q(`SELECT COUNT(*), COALESCE(SUM(units), 0), COUNT(CASE WHEN units > 0 THEN 1 END) FROM files`, &nfiles, &sum.Units, &sum.Files); err != nil {
		return fmt.Errorf("index: counting: %w", err)
	}
	sum.Candidates = nfiles
	rows, err := w.tx.QueryContext(w.ctx, `SELECT language, SUM(units) FROM files WHERE units > 0 GROUP BY language`)
	if err != nil {
		return fmt.Errorf("index: counting: %w", err)
	}
	for rows.Next() {
		var l string
		var n int
		if err := rows.Scan(&l, &n); err != nil {
			rows.Close()
			return fmt.Errorf("index: counting: %w", err)
		}
		sum.Languages[l] = n
	}
	rows.Close()
	rows, err = w.tx.QueryContext(w.ctx, `SELECT status, COUNT(*) FROM files WHERE units = 0 GROUP BY status`)
	if err != nil {
		return fmt.Errorf("index: counting: %w", err)
	}
	for rows.Next() {
		var s string
		var n int
		if err := rows.Scan(&s, &n); err != nil {
			rows.Close()
			return fmt.Errorf("index: counting: %w", err)
		}
		// Every candidate without units is counted under a reason, so
		// that indexed + skipped = candidates.
		sum.Skipped[SkipReason(s)] += n
	}
	rows.Close()
	if sum.Skipped[skipLarge] > 0 {
		rows, err = w.tx.QueryContext(w.ctx, `SELECT path, size FROM files WHERE status = ? ORDER BY size DESC, path`, skipLarge)
		if err != nil {
			return fmt.Errorf("index: counting: %w", err)
		}
		for rows.Next() {
			var f SkippedFile
			if err := rows.Scan(&f.Path, &f.Bytes); err != nil {
				rows.Close()
				return fmt.Errorf("index: counting: %w", err)
			}
			if segment.Language(f.Path) != "" {
				sum.LargeSource = append(sum.LargeSource, f)
			}
		}
		rows.Close()
	}
	source := "commit"
	commit := src.commit
	switch {
	case src.commit == "" && src.gitDir != "":
		source = "worktree"
		commit = src.headCommit(w.ctx)
	case src.commit == "":
		source = "directory"
	}
	sum.Commit = commit
	repo := src.root
	if repo == "" {
		repo = src.gitDir
	}
	meta := map[string]string{
		"format_version":  strconv.Itoa(FormatVersion),
		"feature_version": strconv.Itoa(FeatureVersion),
		"options_hash":    o.optionsHash(),
		"repo":            repo,
		"root":            src.root,
		"git_dir":         src.gitDir,
		"commit":          commit,
		"source":          source,
		"built":           time.Now().UTC().Format(time.RFC3339),
		"started":         w.started.UTC().Format(time.RFC3339Nano),
		"files":           strconv.Itoa(nfiles),
		"units":           strconv.Itoa(sum.Units),
		"units_gen":       strconv.Itoa(w.unitsGen),
	}
	return writeMeta(w.ctx, w.tx, meta)
}

// writeMeta sets the meta keys of set, in key order, and removes those of
// remove.
func writeMeta(ctx context.Context, tx *sql.Tx, set map[string]string, remove ...string) error {
	for _, k := range remove {
		if _, err := tx.ExecContext(ctx, `DELETE FROM meta WHERE key = ?`, k); err != nil {
			return fmt.Errorf("index: writing meta: %w", err)
		}
	}
	for _, k := range sortedKeys(set) {
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)`, k, set[k]); err != nil {
			return fmt.Errorf("index: writing meta: %w", err)
		}
	}
	return nil
}

// tempPath names a new temporary file beside dbPath.
func tempPath(dbPath string) (string, error) {
	var r [6]byte
	if _, err := rand.Read(r[:]); err != nil {
		return "", err
	}
	p := fmt.Sprintf("%s.tmp-%d-%s", dbPath, os.Getpid(), hex.EncodeToString(r[:]))
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return "", fmt.Errorf("index: creating temporary file: %w", err)
	}
	return p, f.Close()
}

// removeStaleTemps deletes the temporary files of builds whose process is
// gone: files named as tempPath names them (<db>.tmp-<pid>-<12 hex
// digits>) that hold an mss index (SQLite with mss's application id,
// which a build writes first). A file of the user's with a name of that
// shape (notes.db.tmp-4242-draft, or any that is not an mss index) is
// left as it is.
func removeStaleTemps(dbPath string) {
	matches, _ := filepath.Glob(dbPath + ".tmp-*")
	for _, m := range matches {
		rest := strings.TrimPrefix(m, dbPath+".tmp-")
		pidStr, random, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidStr)
		if err != nil || pid <= 0 || len(random) != 12 || strings.Trim(random, "0123456789abcdef") != "" {
			continue
		}
		if pid == os.Getpid() || processAlive(pid) {
			continue
		}
		if st, err := os.Lstat(m); err != nil || !st.Mode().IsRegular() {
			continue
		}
		if id, ok := sqliteAppID(m); ok && id == applicationID {
			os.Remove(m)
		}
	}
}

func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}

func syncFile(p string) error {
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// earlySync is an fsync of a file begun in the background.
type earlySync struct {
	f    *os.File
	done chan struct{}
	err  error // what the sync met: a write error it reports is not reported again
}

// startSync begins writing the file at p out to the disk while its writer
// goes on (nil when it cannot be opened): the fsync that makes it durable
// then has little left to write. Its descriptor stays open until wait, so
// that closing it cannot drop the locks SQLite holds on the file (POSIX
// locks belong to the process and go with any descriptor's close).
func startSync(p string) *earlySync {
	f, err := os.OpenFile(p, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return nil
	}
	s := &earlySync{f: f, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		s.err = f.Sync()
	}()
	return s
}

// wait waits for the background sync, closes its descriptor and returns
// the error the sync met (a failed write-back is reported once, to
// whichever sync meets it, so it must not be dropped); once is enough,
// and more is harmless.
func (s *earlySync) wait() error {
	if s == nil || s.f == nil {
		return nil
	}
	<-s.done
	s.f.Close()
	s.f = nil
	return s.err
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
