package index

// An index is one SQLite file (written by modernc.org/sqlite, pure Go).
// Its format:
//
//	The SQLite header's application_id is 0x6d737331 ("mss1"): Build
//	overwrites an existing file only if it carries this id (or, for
//	indexes older than format 3, a meta table of ours).
//
//	meta(key TEXT PRIMARY KEY, value TEXT)
//	    format_version   FormatVersion: the layout of these tables
//	    feature_version  FeatureVersion: what segmentation produced the units
//	    options_hash     hash of the build options that change content
//	    repo             the repository as given (absolute path)
//	    root             the work tree read, "" for a commit of a git directory
//	    git_dir          the git directory, "" for a plain directory
//	    commit           the indexed commit, "" for working tree files
//	    source           "commit", "worktree" or "directory"
//	    built            build time, RFC 3339 UTC
//	    started          when the build started, RFC 3339 with nanoseconds
//	    files, units     counts, for the checker
//	    derived          version of the derived data (derived.go), if any
//	    derived_id       id of its file
//	    base, base_id, base_units
//	                     derived data a build that changed units kept, to
//	                     be overlaid (Options.DeferDerive): its version,
//	                     file and unit count
//	    units_gen        how many builds changed units (Derive compares it)
//	    The source identity (root, git_dir, and commit for a commit) is
//	    what Build compares with the repository it is asked to index: an
//	    index recorded for another source is rebuilt, never trusted.
//
//	files(path TEXT PRIMARY KEY, blob TEXT, size INTEGER, language TEXT,
//	      units INTEGER, status TEXT, stat TEXT)
//	    Every candidate file of the tree (regular files; symlinks and
//	    submodules are not candidates), indexed or not. blob is git's
//	    object id of the bytes (computed for work tree files; "size:N" for
//	    a work tree file over the size cap, which is not read, and
//	    "unreadable" for one that could not be read), which is what an
//	    incremental build compares. size is in bytes, -1 for a
//	    commit's file skipped before it was read. status is "parsed", a window
//	    fallback reason ("no grammar", "syntax errors", "parse failed:
//	    ..."), or why the file was skipped ("vendored", "generated",
//	    "too large", "binary", "ignored" (.mssignore), "unusable name"
//	    (a backslash, or in a commit a line break), "unreadable: ...",
//	    "missing: ..." for a blob absent from a partial clone). stat is
//	    a work tree file's size, times, inode and device when it was
//	    listed (git's stat cache does the same): a build trusts the
//	    recorded blob id of a file whose stat is unchanged and was taken
//	    more than statSettle before the recorded build started ("started"
//	    in meta), and reads every other file.
//
//	units(rowid INTEGER PRIMARY KEY, id TEXT UNIQUE, path TEXT,
//	      start_line INTEGER, end_line INTEGER, symbol TEXT, kind TEXT,
//	      language TEXT, content TEXT, hash TEXT, tokens INTEGER,
//	      defines TEXT, refs TEXT, calls TEXT, imports TEXT, context TEXT)
//	    One row per mss.Unit; the name lists are joined with "\n". An
//	    index on (path, start_line) gives Units its order.
//
//	A file beside the index holds retrieval structures computed from all
//	    units (see derived.go), among them the BM25 postings of their
//	    code-aware terms, which searches read (retrieve.Engine.Search).
//
// Edges are not stored: Edges derives them from the stored names when
// asked, so moving an index to another commit re-parses only changed
// files and never re-resolves the rest.
//
// Versions. FormatVersion changes when the tables change; FeatureVersion
// when segmentation or file selection changes what units are. Open
// refuses an index of another version (ErrVersionMismatch); Build rebuilds
// it from scratch. The options hash also covers the feature version.
//
//	format 1: first version.
//	format 2: units.context (signature of a split definition's later parts).
//	feature 1: first version.
//	feature 2: C/C++ names found through macros; files fall back to windows
//	           only above one syntax error per 3 lines.
//	feature 3: references and calls lexed from unit text (comments and
//	           strings skipped); Python imports found inside functions too;
//	           split parts carry their definition's signature as context.
//	feature 4: *.pack.js bundles count as vendored.
//	format 3: application_id; meta root and git_dir (the source identity).
//	feature 5: a line of Unicode white space is blank; files listed in
//	           .mssignore are recorded as "ignored"; blobs missing from a
//	           partial clone are recorded as "missing: ...".
//	feature 6: C/C++ parsed with annotation macros blanked when that fits
//	           the grammar better (FMT_BEGIN_NAMESPACE, FMT_CONSTEXPR, ...);
//	           the definitions inside an anonymous JavaScript module
//	           function (export default (...) => {...}, an IIFE) are units.
//	feature 7: a JavaScript/TypeScript constant bound to an object or array
//	           literal of 3 lines or more is a unit of kind "value".
//	feature 8: an anonymous module function whose body returns a value (a
//	           component, a factory) stays one piece of code.
//	feature 9: a .h file whose code uses C++ syntax (a scope, namespace,
//	           template, class or access label) is parsed as C++ only.
//	feature 10: a definition's unit starts and ends on its first and last
//	           lines that are not blank (a node the parser made up can
//	           put its start or end on a blank line).
//	feature 11: in a test framework's own tree (most of its code under
//	           catch2/, gtest/, googletest/, ...) those directories, its
//	           single header and its amalgamated source are not vendored.
//	feature 12: a file whose first lines say it is an amalgamation of
//	           others is generated.
//	feature 13: generation markers are read only in a file's opening
//	           comments and docstring, and a banner only where a line
//	           begins with it (not a generator's template, not prose).
//	format 4: a derived file beside the index (see derived.go); meta
//	          "derived" and "derived_id".
//	format 5: files.stat, meta "started": a work tree file whose stat is
//	          the one recorded, from before the last build started, is
//	          not read again.
//	format 6: no units_fts table: searches read the derived BM25
//	          postings (retrieve.Engine.Search).
//	feature 14: Python is parsed with its function bodies masked
//	           (segment.maskPythonBodies): the same units, but a syntax
//	           error inside a masked statement no longer counts against
//	           the file.
//	feature 15: so is Go (segment.maskGoBodies).
//	feature 16: and Rust (segment.maskRustBodies).
//	feature 17: and Java (segment.maskJavaBodies).
//	feature 18: Python files with Windows line ends are masked too.
//	feature 19: a Go unit's references and calls leave out what it
//	           selects from a standard-library package (Split of
//	           strings.Split).
//	feature 20: and a Java unit's, what it selects from a class of the
//	           Java platform (equals of Objects.equals).
//	feature 21: and a JavaScript or TypeScript unit's, what it selects
//	           from a global object (keys of Object.keys, log of
//	           console.log).
//	feature 22: and a Python unit's, what it selects from what its file
//	           imports from the standard library (join of os.path.join);
//	           a chain of selections is the qualifier's all along
//	           (println of System.out.println).
//	feature 23: a Rust function defines its name only, never a name its
//	           signature holds (Ordering of "-> cmp::Ordering").
//	feature 24: a file whose last line points to its source map
//	           ("//# sourceMappingURL=...") is generated: what a bundler or
//	           a compiler emitted from sources the tree holds.
//	feature 25: a unit's references and calls leave out the words of
//	           string literals the lexer ended early: Rust's strings
//	           across lines and its raw strings (r#"..."#), C++'s raw
//	           strings (R"d(...)d"), Java's text blocks, and a Go raw
//	           string ending in a backslash.
//	feature 26: and read as code what a string interpolates: a template
//	           literal's ${...} (JavaScript, TypeScript) and a Python
//	           f-string's replacement fields.
//	feature 27: a TypeScript declaration file's (.d.ts) interfaces and
//	           declared classes are split into their members, and an
//	           exported declared class (export declare class) is a class.
//	feature 28: a JavaScript or TypeScript export list (export { a, b },
//	           export { a } from './x') defines none of the names it
//	           lists.
//	feature 29: a Rust module declared by its name alone (mod plan;) is
//	           an import of the module's file (self::plan).
//	feature 30: a C or C++ test written as a macro with a body is a unit
//	           of its own, named by the macro's head (TEST(Suite, Name),
//	           TEST_CASE("name")) and defining no name; Catch2's
//	           TEST_CASE("name") { … } is no longer module code.
//	feature 31: a file is cut into windows for its syntax errors when
//	           more than one non-blank line in three has one, not one
//	           error node per three lines (a line of macro arguments
//	           made an error of every argument); the lock files of uv,
//	           pdm, Pipenv, Bundler, Bun and npm's shrinkwrap are
//	           generated, as those of npm, Cargo and Go were.
//	feature 32: a C or C++ conditional whose branches leave braces
//	           unpaired (a function opened two ways under #ifdef) is
//	           parsed with its first branch alone when that fits the
//	           grammar better, and the definition it splits is one unit
//	           from the #if to the #endif; names declared inside a
//	           transparent node (extern "C" { }, a conditional, a parse
//	           error) are defined as if they stood outside it.
//	feature 33: a class's members (methods, nested classes, the runs
//	           between them) carry the class's signature as context, the
//	           innermost class's; a signature holds the line its body
//	           opens on when code stands before the body there.
//	feature 34: a class's header run cut for size is read, past its
//	           first part, under the class's signature, and a later part
//	           of a class's run keeps it.
//	feature 35: a later part of a run of module statements that starts
//	           inside a long statement (a table, a macro's block, a
//	           function passed as an argument) is read under that
//	           statement's first lines.
//	feature 36: a Go grouped type declaration (type ( A int; B string ))
//	           defines every type it lists, not only the first, and a
//	           var or const spec every name it lists (var a, b = 1, 2).
//	feature 37: a chained assignment (a = b = 1) defines every name it
//	           assigns, and what the blocks of a Python module's (or
//	           class's) if, try, with and for define is the module's.
//	feature 38: a JavaScript destructuring declaration defines every
//	           name its pattern binds, and a JavaScript class field its
//	           name.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/internal/safefile"
	_ "modernc.org/sqlite" // database/sql driver "sqlite"
)

// Versions of the on-disk format, see the comment at the top of this file.
const (
	FormatVersion  = 6
	FeatureVersion = 51
)

// applicationID marks an SQLite file as an mss index ("mss1").
const applicationID = 0x6d737331

// ErrVersionMismatch is returned by Open for an index written by another
// format or feature version; Build rebuilds such an index.
var ErrVersionMismatch = errors.New("index version mismatch")

// ErrCorrupt is returned when an index fails a consistency check.
var ErrCorrupt = errors.New("index corrupt")

const schema = `
PRAGMA application_id = 1836282673;
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files(path TEXT PRIMARY KEY, blob TEXT NOT NULL, size INTEGER NOT NULL,
	language TEXT NOT NULL, units INTEGER NOT NULL, status TEXT NOT NULL, stat TEXT NOT NULL DEFAULT '');
CREATE TABLE units(rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, path TEXT NOT NULL,
	start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, symbol TEXT NOT NULL, kind TEXT NOT NULL,
	language TEXT NOT NULL, content TEXT NOT NULL, hash TEXT NOT NULL, tokens INTEGER NOT NULL,
	defines TEXT NOT NULL, refs TEXT NOT NULL, calls TEXT NOT NULL, imports TEXT NOT NULL,
	context TEXT NOT NULL);
CREATE INDEX units_path ON units(path, start_line);
`

// Meta describes an index.
type Meta struct {
	Repo           string    `json:"repo"`
	Root           string    `json:"root,omitempty"`
	GitDir         string    `json:"git_dir,omitempty"`
	Commit         string    `json:"commit,omitempty"`
	Source         string    `json:"source"`
	FormatVersion  int       `json:"format_version"`
	FeatureVersion int       `json:"feature_version"`
	OptionsHash    string    `json:"options_hash"`
	Files          int       `json:"files"`
	Units          int       `json:"units"`
	Built          time.Time `json:"built"`
	// Derived is the version of the stored retrieval structures ("" when
	// the index has none; see Deriver).
	Derived   string `json:"derived,omitempty"`
	DerivedID string `json:"-"`
	// Base is the version of the retrieval structures an earlier build
	// derived and a later one, changing units without deriving, kept
	// ("" when there are none): an engine overlays them with the files
	// changed since (Options.DeferDerive). BaseID names their file and
	// BaseUnits counts the units they were derived from.
	Base      string `json:"base,omitempty"`
	BaseID    string `json:"-"`
	BaseUnits int    `json:"-"`
	// Started is when the build that wrote the index started (zero for
	// an index written before it was recorded).
	Started time.Time `json:"-"`
}

// Index is an open, read-only index.
type Index struct {
	db     *sql.DB // read-only
	frozen *sql.DB // immutable: for the file once replaced (conn)
	file   os.FileInfo
	path   string
	meta   Meta
	health health
	side   *sidecar // nil without derived data
	base   *Index   // the kept structures (Meta.Base), nil without
}

// Edge links two units: From refers to (calls, names, imports) To.
type Edge struct {
	From string `json:"from"`
	To   string `json:"to"`
	Kind string `json:"kind"` // "call", "ref", "import"
}

// Edge kinds.
const (
	EdgeCall   = "call"
	EdgeRef    = "ref"
	EdgeImport = "import"
)

// busyTimeoutMillis is how long a connection waits for SQLite's locks
// held by another process before failing with ErrBusy.
var busyTimeoutMillis = 5000

// frozenDSN names the database at path read without locks or a journal
// (SQLite's immutable): a reader that neither waits for nor disturbs a
// writer of the file.
func frozenDSN(path string) string {
	v := url.Values{}
	v.Set("mode", "ro")
	v.Set("immutable", "1")
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + v.Encode()
}

func dsn(path string, readOnly bool) string {
	v := url.Values{}
	if readOnly {
		v.Set("mode", "ro")
	}
	v.Add("_pragma", "busy_timeout("+strconv.Itoa(busyTimeoutMillis)+")")
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + v.Encode()
}

// Open opens an index for reading. It fails with ErrVersionMismatch for an
// index of another version, ErrNotIndex for a file that is not one (not a
// regular file, not SQLite, another program's database), ErrCorrupt for
// an index that is damaged, ErrBusy when another process holds a lock past the timeout and
// ErrHotJournal for an interrupted update that cannot be rolled back.
func Open(path string) (*Index, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("open index %s: %s, not an index file: %w", path, safefile.Kind(st.Mode()), ErrNotIndex)
	}
	if err := checkJournal(path); err != nil {
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	db, frozen, file, err := openReaders(path, st)
	if err != nil {
		return nil, err
	}
	m, err := readMeta(db)
	if err != nil {
		db.Close()
		frozen.Close()
		if cerr := classify(path, err); !errors.Is(cerr, ErrCorrupt) || isIndexFile(path) {
			return nil, fmt.Errorf("open index %s: %w", path, cerr)
		}
		// Someone else's file (text, another program's database), not a
		// damaged index.
		what := "not an SQLite database"
		if _, ok := sqliteAppID(path); ok {
			what = "an SQLite database mss did not write"
		}
		return nil, fmt.Errorf("open index %s: %s: %w", path, what, ErrNotIndex)
	}
	if m.FormatVersion != FormatVersion || m.FeatureVersion != FeatureVersion {
		db.Close()
		frozen.Close()
		return nil, fmt.Errorf("open index %s: written by format %d feature %d, this build reads format %d feature %d (re-run mss index): %w",
			path, m.FormatVersion, m.FeatureVersion, FormatVersion, FeatureVersion, ErrVersionMismatch)
	}
	ix := &Index{db: db, frozen: frozen, file: file, path: path, meta: m}
	if m.DerivedID != "" {
		ix.side = &sidecar{}
	}
	if m.BaseID != "" {
		bm := m
		bm.Derived, bm.DerivedID, bm.Units = m.Base, m.BaseID, m.BaseUnits
		bm.Base, bm.BaseID, bm.BaseUnits = "", "", 0
		ix.base = &Index{db: db, frozen: frozen, file: file, path: path, meta: bm, side: &sidecar{}}
	}
	ix.health.h = Health{State: StateOK, Checked: time.Now().UTC()}
	return ix, nil
}

// openReaders opens the two connections of an Index on the file at path
// (st is its stat): db, read-only, and frozen, which reads without locks
// or a journal (immutable), and returns the file they read. A journal
// an interrupted update left behind is first rolled back where the file
// can be written. Readers never write: a reader that could would, on a
// file a rebuild has renamed another over, take the new file's journal
// for its own (both go by the path's name), roll it back into the old
// file and delete it under its writer. Index.conn reads the old file
// through frozen instead.
func openReaders(path string, st os.FileInfo) (db, frozen *sql.DB, file os.FileInfo, err error) {
	for range 3 {
		if rw, err := sql.Open("sqlite", dsn(path, false)+"&mode=rw&_pragma=query_only(1)"); err == nil {
			var v int
			rw.QueryRow(`PRAGMA schema_version`).Scan(&v) // errors are read below
			rw.Close()
		}
		if db, err = sql.Open("sqlite", dsn(path, true)); err != nil {
			return nil, nil, nil, fmt.Errorf("open index %s: %w", path, err)
		}
		db.SetMaxOpenConns(1)
		if frozen, err = sql.Open("sqlite", frozenDSN(path)); err != nil {
			db.Close()
			return nil, nil, nil, fmt.Errorf("open index %s: %w", path, err)
		}
		frozen.SetMaxOpenConns(1)
		// Both connections open the file now: the one at path when it
		// is still the one stat described.
		db.Ping()
		frozen.Ping()
		now, err := os.Stat(path)
		if err == nil && os.SameFile(st, now) {
			return db, frozen, st, nil
		}
		db.Close()
		frozen.Close()
		if err != nil {
			return nil, nil, nil, fmt.Errorf("open index: %w", err)
		}
		st = now
	}
	return nil, nil, nil, fmt.Errorf("open index %s: replaced while being opened, again and again: %w", path, ErrBusy)
}

// conn is the connection a query reads through: the index's own while the
// file at its path is the one it opened, else (a rebuild renamed a new
// index over it, or it was removed) the one that reads the file without
// locks or journal. Nothing writes a file once it has been replaced (a
// writer holds the writers' lock from the moment it opens the index to its
// rename), and SQLite, which goes by the path's name, would take the
// journal of the new file's writer for a journal of the old one.
func (ix *Index) conn() *sql.DB {
	if st, err := os.Stat(ix.path); err == nil && os.SameFile(st, ix.file) {
		return ix.db
	}
	return ix.frozen
}

// quickCheck runs SQLite's quick_check: ErrCorrupt if it finds damage.
func (ix *Index) quickCheck() error {
	return quickCheck(ix.conn(), ix.path)
}

func quickCheck(db *sql.DB, path string) error {
	rows, err := db.Query(`PRAGMA quick_check`)
	if err != nil {
		return fmt.Errorf("index %s: quick_check: %w", path, classify(path, err))
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return fmt.Errorf("index %s: quick_check: %w", path, classify(path, err))
		}
		if s != "ok" && len(problems) < 3 {
			problems = append(problems, s)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("index %s: quick_check: %w", path, classify(path, err))
	}
	if len(problems) > 0 {
		return fmt.Errorf("index %s: quick_check: %s: %w", path, strings.Join(problems, "; "), ErrCorrupt)
	}
	return nil
}

func readMeta(db *sql.DB) (Meta, error) {
	rows, err := db.Query(`SELECT key, value FROM meta`)
	if err != nil {
		if c := sqliteCode(err); c != 1 && c != sqliteCorrupt && c != sqliteNotADB {
			// Busy, read-only with a hot journal, I/O: not damage.
			return Meta{}, fmt.Errorf("reading meta: %w", err)
		}
		// SQLITE_ERROR "no such table", or real corruption.
		return Meta{}, fmt.Errorf("reading meta: %v: %w", err, ErrCorrupt)
	}
	defer rows.Close()
	kv := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return Meta{}, fmt.Errorf("reading meta: %v: %w", err, ErrCorrupt)
		}
		kv[k] = v
	}
	if err := rows.Err(); err != nil {
		return Meta{}, fmt.Errorf("reading meta: %v: %w", err, ErrCorrupt)
	}
	var m Meta
	num := func(key string) (int, error) {
		n, err := strconv.Atoi(kv[key])
		if err != nil {
			return 0, fmt.Errorf("meta field %q = %q: %w", key, kv[key], ErrCorrupt)
		}
		return n, nil
	}
	if m.FormatVersion, err = num("format_version"); err != nil {
		return m, err
	}
	if m.FeatureVersion, err = num("feature_version"); err != nil {
		return m, err
	}
	if m.FormatVersion != FormatVersion || m.FeatureVersion != FeatureVersion {
		return m, nil // the caller reports the mismatch; other fields may differ
	}
	if m.Files, err = num("files"); err != nil {
		return m, err
	}
	if m.Units, err = num("units"); err != nil {
		return m, err
	}
	m.Repo, m.Commit, m.Source, m.OptionsHash = kv["repo"], kv["commit"], kv["source"], kv["options_hash"]
	m.Root, m.GitDir, m.Derived, m.DerivedID = kv["root"], kv["git_dir"], kv["derived"], kv["derived_id"]
	if s, ok := kv["started"]; ok {
		if m.Started, err = time.Parse(time.RFC3339Nano, s); err != nil {
			return m, fmt.Errorf("meta field \"started\" = %q: %w", s, ErrCorrupt)
		}
	}
	if m.Derived != "" && (len(m.DerivedID) != 32 || strings.Trim(m.DerivedID, "0123456789abcdef") != "") {
		return m, fmt.Errorf("meta field \"derived_id\" = %q: %w", m.DerivedID, ErrCorrupt)
	}
	if m.Base, m.BaseID = kv["base"], kv["base_id"]; m.Base != "" {
		if len(m.BaseID) != 32 || strings.Trim(m.BaseID, "0123456789abcdef") != "" {
			return m, fmt.Errorf("meta field \"base_id\" = %q: %w", m.BaseID, ErrCorrupt)
		}
		if m.BaseUnits, err = num("base_units"); err != nil {
			return m, err
		}
	}
	if m.Built, err = time.Parse(time.RFC3339, kv["built"]); err != nil {
		return m, fmt.Errorf("meta field \"built\" = %q: %w", kv["built"], ErrCorrupt)
	}
	return m, nil
}

// Base is a view of the index whose derived data is the kept one
// (Meta.Base), nil when there is none. It shares the index's database: it
// is not closed on its own.
func (ix *Index) Base() *Index { return ix.base }

// Meta returns the index's description.
func (ix *Index) Meta() Meta { return ix.meta }

// Path is the index file.
func (ix *Index) Path() string { return ix.path }

// Close releases the index: its database, and the memory that the pages
// of its derived files hold (those of its Base too). Bytes read from a
// derived file before stay valid while the Index is reachable; using them
// reads the file again.
func (ix *Index) Close() error {
	ix.side.release()
	if ix.base != nil {
		ix.base.side.release()
	}
	return errors.Join(ix.db.Close(), ix.frozen.Close())
}

const unitColumns = `id, path, start_line, end_line, symbol, kind, language, content, hash, tokens, defines, refs, imports, context`

func scanUnit(sc interface{ Scan(...any) error }) (mss.Unit, error) {
	var u mss.Unit
	var defs, refs, imps string
	err := sc.Scan(&u.ID, &u.Path, &u.StartLine, &u.EndLine, &u.Symbol, &u.Kind, &u.Language,
		&u.Content, &u.Hash, &u.Tokens, &defs, &refs, &imps, &u.Context)
	u.Defines, u.References, u.Imports = splitList(defs), splitList(refs), splitList(imps)
	return u, err
}

func joinList(s []string) string { return strings.Join(s, "\n") }

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// Units returns every unit, with content and names, ordered by path and
// start line.
func (ix *Index) Units() ([]mss.Unit, error) {
	out, err := readUnits(context.Background(), ix.conn(), `ORDER BY path, start_line`)
	if err != nil {
		return nil, fmt.Errorf("index %s: units: %w", ix.path, ix.health.note(ix.path, err))
	}
	return out, nil
}

// UnitRef names a unit and its file.
type UnitRef struct {
	ID, Path string
}

// UnitRefs lists every unit's id and file, ordered by path and start
// line: enough to tell which files' units differ from an earlier
// snapshot's (a unit's id names its path, lines and content) without
// reading any content.
func (ix *Index) UnitRefs(ctx context.Context) ([]UnitRef, error) {
	rows, err := ix.conn().QueryContext(ctx, `SELECT id, path FROM units ORDER BY path, start_line`)
	if err != nil {
		return nil, fmt.Errorf("index %s: unit ids: %w", ix.path, ix.health.note(ix.path, err))
	}
	defer rows.Close()
	out := make([]UnitRef, 0, ix.meta.Units)
	for rows.Next() {
		var r UnitRef
		if err := rows.Scan(&r.ID, &r.Path); err != nil {
			return nil, fmt.Errorf("index %s: unit ids: %w", ix.path, ix.health.note(ix.path, err))
		}
		out = append(out, r)
	}
	return out, ix.health.note(ix.path, rows.Err())
}

// FileUnits returns the units of one file in line order.
func (ix *Index) FileUnits(path string) ([]mss.Unit, error) {
	rows, err := ix.conn().Query(`SELECT `+unitColumns+` FROM units WHERE path = ? ORDER BY start_line`, path)
	if err != nil {
		return nil, fmt.Errorf("index %s: units of %s: %w", ix.path, path, ix.health.note(ix.path, err))
	}
	defer rows.Close()
	var out []mss.Unit
	for rows.Next() {
		u, err := scanUnit(rows)
		if err != nil {
			return nil, fmt.Errorf("index %s: units of %s: %w", ix.path, path, ix.health.note(ix.path, err))
		}
		out = append(out, u)
	}
	return out, ix.health.note(ix.path, rows.Err())
}

// File is one candidate file of the indexed tree and what became of it.
type File struct {
	Path     string `json:"path"`
	Blob     string `json:"blob"`
	Size     int64  `json:"size"`
	Language string `json:"language,omitempty"`
	Units    int    `json:"units"`
	Status   string `json:"status"` // "parsed", a fallback reason, or a skip reason
}

// SkipReason is the short reason a file with the given status has no
// units: "vendored", "generated", "too large", "binary", "ignored",
// "unusable name", "unreadable", "missing", or "empty" (read and
// segmented, nothing but blank lines).
func SkipReason(status string) string {
	switch {
	case strings.HasPrefix(status, "unreadable"):
		return "unreadable"
	case strings.HasPrefix(status, skipMissing+":"):
		return skipMissing
	}
	switch status {
	case skipVendored, skipGenerated, skipLarge, skipBinary, skipIgnored, skipBadName:
		return status
	}
	return "empty"
}

// PathsLike lists the paths of the files the index records (parsed or
// not) that match any of the SQL LIKE patterns (case-insensitive for
// ASCII letters), sorted.
func (ix *Index) PathsLike(patterns ...string) ([]string, error) {
	if len(patterns) == 0 {
		return nil, nil
	}
	args := make([]any, len(patterns))
	for i, p := range patterns {
		args[i] = p
	}
	files, err := ix.files(" WHERE "+strings.TrimSuffix(strings.Repeat("path LIKE ? OR ", len(patterns)), " OR "), args...)
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	return paths, err
}

// RecordedBlob is the blob id the index recorded of the file at path
// (BlobID of the bytes it indexed), "" when it recorded none, or when a
// later build has written the index since it was opened (what it records
// then is not what this Index's units came from).
func (ix *Index) RecordedBlob(path string) string {
	var blob, started string
	err := ix.conn().QueryRow(`SELECT f.blob, m.value FROM files f, meta m WHERE f.path = ? AND m.key = 'started'`, path).Scan(&blob, &started)
	if err != nil {
		return ""
	}
	if t, err := time.Parse(time.RFC3339Nano, started); err != nil || !t.Equal(ix.meta.Started) {
		return ""
	}
	return blob
}

// Files lists every candidate file, sorted by path.
func (ix *Index) Files() ([]File, error) { return ix.files("") }

// files lists the files a WHERE clause (or "") with its args selects,
// sorted by path.
func (ix *Index) files(where string, args ...any) ([]File, error) {
	rows, err := ix.conn().Query(`SELECT path, blob, size, language, units, status FROM files`+where+` ORDER BY path`, args...)
	if err != nil {
		return nil, fmt.Errorf("index %s: files: %w", ix.path, ix.health.note(ix.path, err))
	}
	defer rows.Close()
	var out []File
	for rows.Next() {
		var f File
		if err := rows.Scan(&f.Path, &f.Blob, &f.Size, &f.Language, &f.Units, &f.Status); err != nil {
			return nil, fmt.Errorf("index %s: files: %w", ix.path, ix.health.note(ix.path, err))
		}
		out = append(out, f)
	}
	return out, ix.health.note(ix.path, rows.Err())
}
