package index

// Health. An index is "corrupt" only when SQLite says so (SQLITE_CORRUPT,
// SQLITE_NOTADB, a failed quick_check) or its meta table is missing or
// unreadable as ours; a busy database (another process holds a lock) and
// a hot journal that cannot be rolled back on a read-only filesystem are
// different states with their own errors, and never lead to a rebuild.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/missingcomplement/mss/internal/safefile"
	sqlite "modernc.org/sqlite"
)

// State is what is known of an index file, in the manner of zoekt's
// IndexState.
type State string

// Index states.
const (
	StateOK              State = "ok"
	StateMissing         State = "missing"
	StateCorrupt         State = "corrupt"          // failed an integrity check: Build rebuilds it
	StateVersionMismatch State = "version-mismatch" // another format or feature version: Build rebuilds it
	StateBusy            State = "busy"             // another process holds a lock
	StateHotJournal      State = "read-only-journal"
	StateNotIndex        State = "not-an-index" // a file mss did not write: never overwritten
	StateTampered        State = "tampered"     // content disagrees with its source: Build rebuilds it
	StateUnreadable      State = "unreadable"   // cannot be read (permissions, I/O error)
)

// Health is an index's state and, when not ok, why.
type Health struct {
	State   State     `json:"state"`
	Detail  string    `json:"detail,omitempty"`
	Checked time.Time `json:"checked"`
}

// Errors besides ErrCorrupt and ErrVersionMismatch.
var (
	// ErrBusy: another process holds the index's lock past the timeout.
	ErrBusy = errors.New("index busy")
	// ErrHotJournal: an interrupted update left a journal that cannot be
	// rolled back because the index cannot be written (read-only
	// filesystem or permissions).
	ErrHotJournal = errors.New("index has an interrupted update that cannot be rolled back on a read-only filesystem")
	// ErrNotIndex: the file exists and is not an mss index.
	ErrNotIndex = errors.New("not an mss index")
)

// SQLite primary result codes this package tells apart.
const (
	sqliteBusy     = 5
	sqliteLocked   = 6
	sqliteReadOnly = 8
	sqliteCorrupt  = 11
	sqliteCantOpen = 14
	sqliteNotADB   = 26
)

func sqliteCode(err error) int {
	var e *sqlite.Error
	if errors.As(err, &e) {
		return e.Code() & 0xff
	}
	return 0
}

// classify wraps a SQLite error of the index at path with the sentinel
// its kind deserves: ErrCorrupt only for a real integrity failure.
func classify(path string, err error) error {
	if err == nil || errors.Is(err, ErrCorrupt) || errors.Is(err, ErrBusy) || errors.Is(err, ErrHotJournal) {
		return err
	}
	switch sqliteCode(err) {
	case sqliteCorrupt, sqliteNotADB:
		return fmt.Errorf("%v: %w", err, ErrCorrupt)
	case sqliteBusy, sqliteLocked:
		return fmt.Errorf("%v (another process is using %s): %w", err, path, ErrBusy)
	case sqliteReadOnly, sqliteCantOpen:
		if jerr := checkJournal(path); jerr != nil {
			return fmt.Errorf("%v: %w", err, jerr)
		}
		if hotJournal(path) {
			return fmt.Errorf("%v (%s-journal): %w", err, path, ErrHotJournal)
		}
	}
	return err
}

// checkJournal refuses a journal beside the index at path that is a
// symbolic link: SQLite neither follows it nor creates the journal over
// it, and mss reads and writes nothing through a link it did not make.
// It refuses as well a journal that is not a file, or a file SQLite did
// not write: SQLite goes by the name alone, and would roll such a file
// back into the index or delete it (a reader as a writer). A rollback
// journal SQLite writes is empty, or starts with its magic number, or
// with that number zeroed (a journal not yet synced, which holds no
// change of the index yet); a file of the user's named <db>-journal
// starts with neither.
func checkJournal(path string) error {
	j := path + "-journal"
	st, err := os.Lstat(j)
	if err != nil {
		return nil
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symbolic link: refusing to read or write the index's journal through it (remove it)", j)
	}
	notOurs := func(what string) error {
		return fmt.Errorf("%s %s, so not a journal SQLite wrote: refusing to read or write the index beside it, which would take the file for its journal and roll it back or delete it (move it away)", j, what)
	}
	if !st.Mode().IsRegular() {
		return notOurs("is " + safefile.Kind(st.Mode()))
	}
	f, err := os.OpenFile(j, os.O_RDONLY|noFollow, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w: cannot tell whether it is SQLite's journal; refusing to read or write the index beside it", j, err)
	}
	defer f.Close()
	head := make([]byte, len(journalMagic))
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return fmt.Errorf("%s: %w: cannot tell whether it is SQLite's journal; refusing to read or write the index beside it", j, err)
	}
	head = head[:n]
	if bytes.HasPrefix(journalMagic, head) || !bytes.ContainsFunc(head, func(r rune) bool { return r != 0 }) {
		return nil
	}
	return notOurs("starts with neither SQLite's journal magic number nor zeros")
}

// journalMagic starts each rollback journal SQLite writes, once synced
// (SQLite's file format, "The Rollback Journal").
var journalMagic = []byte{0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7}

// hotJournal reports whether a rollback journal lies beside the index.
func hotJournal(path string) bool {
	st, err := os.Stat(path + "-journal")
	return err == nil && st.Size() > 0
}

// stateOf names the state an error puts an index in.
func stateOf(err error) State {
	switch {
	case err == nil:
		return StateOK
	case errors.Is(err, os.ErrNotExist):
		return StateMissing
	case errors.Is(err, ErrVersionMismatch):
		return StateVersionMismatch
	case errors.Is(err, ErrBusy):
		return StateBusy
	case errors.Is(err, ErrHotJournal):
		return StateHotJournal
	case errors.Is(err, ErrNotIndex):
		return StateNotIndex
	case errors.Is(err, ErrTampered):
		return StateTampered
	case errors.Is(err, ErrCorrupt):
		return StateCorrupt
	}
	return ""
}

// health records the worst state queries on an open index have met.
type health struct {
	mu sync.Mutex
	h  Health
}

func (h *health) get() Health {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.h
}

// note records err if it says the index is damaged; it returns err
// classified.
func (h *health) note(path string, err error) error {
	err = classify(path, err)
	if s := stateOf(err); s == StateCorrupt || s == StateTampered {
		h.mu.Lock()
		if h.h.State == StateOK || h.h.State == "" {
			h.h = Health{State: s, Detail: err.Error(), Checked: time.Now().UTC()}
		}
		h.mu.Unlock()
	}
	return err
}

// Health is the index's state as far as this process has seen it: ok when
// opened, corrupt once a query met SQLite corruption, tampered once Verify
// found stored content that disagrees with its source. A server reports it
// and rebuilds (Build) when it is not ok.
func (ix *Index) Health() Health { return ix.health.get() }

// Probe reports the state of the index file at path without changing it.
// With check, it also runs SQLite's quick_check (which reads every page).
func Probe(path string, check bool) Health {
	now := time.Now().UTC()
	ix, err := Open(path)
	if err != nil {
		s := stateOf(err)
		if s == "" {
			s = StateUnreadable
		}
		return Health{State: s, Detail: err.Error(), Checked: now}
	}
	defer ix.Close()
	if check {
		if err := ix.quickCheck(); err != nil {
			s := stateOf(err)
			if s == "" {
				s = StateUnreadable
			}
			return Health{State: s, Detail: err.Error(), Checked: now}
		}
	}
	return Health{State: StateOK, Checked: now}
}
