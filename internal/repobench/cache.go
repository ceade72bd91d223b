package repobench

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/internal/jsonkey"
	"github.com/missingcomplement/mss/pipeline"
	"github.com/missingcomplement/mss/retrieve"
)

// A candidate cache holds, for every state of a states file, the
// candidates retrieval offered (units, per-view ranks, raw view scores and
// the prior) and the units of every file those candidates are in. Selection
// replays from it in memory, so tuning a policy or the fusion's weights
// never runs retrieval again.
//
// The cache is one JSONL file of records: a "file" record holds the units
// of one file, keyed by a digest of their ids (files unchanged between two
// base commits are stored once); a "state" record holds a state's
// candidates and the file key of each path they are in. File records come
// before the state records that use them. A torn last line left by an
// interrupted build is dropped when the cache is read.
//
// A cache records each state once, and each file key once: a state a
// cache holds already is not recorded again, its first retrieval kept.
// Earlier versions recorded a state again each time bench repo --cache
// retrieved it; such a record, the same as the first byte for byte, is
// read once, while one that differs from it (two retrievals of a state,
// or a damaged file) is refused, naming both lines, as is a key given
// twice within a record.
//
// A state record names the format of its candidates (CacheFormat), so
// that a cache retrieved by a version of mss whose candidates lack what
// replay reads now is refused, never replayed as if its candidates had
// it.

// CacheFormat is the format of the candidates of a cache's state records:
// 2 since candidates carry the score of the issue's title
// (retrieve.SignalTitle), which the learned order reads; 3 since they
// carry their fused places (retrieve.SignalFusedRank), so that replay
// puts candidates of equal fused scores back in fusion's order, not in
// the order of the model that retrieved them.
const CacheFormat = 3

// CacheRecord is one line of a candidate cache.
type CacheRecord struct {
	Kind string `json:"kind"` // "file" or "state"
	// File records.
	Key   string     `json:"key,omitempty"`
	Units []mss.Unit `json:"units,omitempty"`
	// State records.
	Format     int               `json:"format,omitempty"`
	StateID    string            `json:"state_id,omitempty"`
	Candidates []mss.Candidate   `json:"candidates,omitempty"`
	Files      map[string]string `json:"files,omitempty"` // path -> file key
	// Template holds the lines of the repository's issue template that
	// the views left out of the state's text (retrieve.IssueTemplate),
	// so that a replay reads the state as retrieval did.
	Template []string `json:"template,omitempty"`
}

// cacheRecordStart is how every encoded CacheRecord begins (its first
// field).
const cacheRecordStart = `{"kind":`

// CacheWriter records snapshots' candidates into a cache file. It is safe
// for concurrent use.
type CacheWriter struct {
	mu   sync.Mutex
	w    *bufio.Writer
	f    *os.File
	have map[string]bool // file keys written
	done map[string]bool // states written
	kept int             // states retrieved again and not recorded
	made bool            // the file did not exist before CreateCache
}

// CreateCache opens a cache file for appending, keeping what a previous
// build wrote (a torn last line is dropped).
func CreateCache(path string) (*CacheWriter, error) {
	cw := &CacheWriter{have: map[string]bool{}, done: map[string]bool{}}
	// Its records are checked below; a device or a link is never a cache.
	// It is held from reading what an earlier run recorded to the last
	// record this run adds: a second run on it is refused.
	f, made, err := openAppend(path, "--cache")
	cw.made = made
	if err != nil {
		return nil, err
	}
	good, err := scanCache(path, false, func(r *CacheRecord) {
		if r.Kind == "file" {
			cw.have[r.Key] = true
		} else {
			cw.done[r.StateID] = true
		}
	})
	if err == nil {
		err = f.Truncate(good)
	}
	if err != nil {
		closeOutput(f, cw.made)
		return nil, err
	}
	cw.f, cw.w = f, bufio.NewWriterSize(f, 1<<20)
	return cw, nil
}

// Kept counts the states Record was given that the cache held already:
// it keeps their first record.
func (cw *CacheWriter) Kept() int {
	cw.mu.Lock()
	defer cw.mu.Unlock()
	return cw.kept
}

// Done reports whether the cache holds the state.
func (cw *CacheWriter) Done(stateID string) bool {
	cw.mu.Lock()
	defer cw.mu.Unlock()
	return cw.done[stateID]
}

// Close flushes and closes the file; closing again does nothing. A
// file CreateCache made that is still empty (a run refused, or one that
// recorded nothing) is removed: the run leaves none behind.
func (cw *CacheWriter) Close() error {
	cw.mu.Lock()
	defer cw.mu.Unlock()
	if cw.f == nil {
		return nil
	}
	f := cw.f
	cw.f = nil
	if err := cw.w.Flush(); err != nil {
		f.Close()
		return err
	}
	removeMadeEmpty(f, cw.made)
	return f.Close()
}

// Record writes a state's candidates and the units of their files, and
// the issue template retrieval read the state with (nil: none). A state
// the cache holds already is not written again (Kept counts it).
func (cw *CacheWriter) Record(st *mss.State, cands []mss.Candidate, src mss.UnitSource, tmpl *retrieve.IssueTemplate) error {
	files := map[string]string{}
	var recs []*CacheRecord
	cw.mu.Lock()
	defer cw.mu.Unlock()
	if cw.f == nil {
		return fmt.Errorf("candidate cache closed")
	}
	if cw.done[st.StateID] {
		cw.kept++
		return nil
	}
	if src != nil {
		for _, c := range cands {
			p := c.Unit.Path
			if _, ok := files[p]; ok {
				continue
			}
			us := src.FileUnits(p)
			h := sha256.New()
			io.WriteString(h, p)
			for _, u := range us {
				io.WriteString(h, "\x00"+u.ID)
			}
			key := hex.EncodeToString(h.Sum(nil))[:24]
			files[p] = key
			if !cw.have[key] {
				cw.have[key] = true
				recs = append(recs, &CacheRecord{Kind: "file", Key: key, Units: us})
			}
		}
	}
	recs = append(recs, &CacheRecord{Kind: "state", Format: CacheFormat, StateID: st.StateID, Candidates: cands, Files: files, Template: tmpl.Within(st.Text()).Lines()})
	for _, r := range recs {
		if err := appendLine(cw.w, r); err != nil {
			return err
		}
	}
	// A state's lines reach the file together, so a kill tears at most
	// the state being written.
	if err := cw.w.Flush(); err != nil {
		return err
	}
	cw.done[st.StateID] = true
	return nil
}

// cacheHead is what a scan for the records a cache holds reads of each
// (CacheRecord's fields of the same names): decoding the candidates and
// units is most of what reading a record costs.
type cacheHead struct {
	Kind    string `json:"kind"`
	Key     string `json:"key"`
	Format  int    `json:"format"`
	StateID string `json:"state_id"`
}

// scanCache reads a cache file, calling fn for every whole record, and
// returns the length of the good prefix (a torn last line is left out).
// Unless full, a record holds only the fields of cacheHead. A record of a
// state or file key an earlier record had, the same byte for byte, is
// passed over; one that differs, or a key given twice in a record, is an
// error naming the line.
func scanCache(path string, full bool, fn func(*CacheRecord)) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	var good int64
	// first holds where each state's and file key's record is.
	type place struct {
		line        int
		offset, len int64
	}
	first := map[string]place{}
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			// A last line without its newline is torn when it is the
			// start of a record (a killed run); anything else is not a
			// cache this command wrote.
			if len(line) > 0 && !tornRecord(line, cacheRecordStart, good == 0) {
				return 0, fmt.Errorf("%s:%d: not a cache record, and the file does not end with a newline: not a file this command writes", path, n)
			}
			return good, nil
		}
		if err != nil {
			return 0, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		var rec CacheRecord
		if full {
			err = json.Unmarshal(line, &rec)
		} else {
			var h cacheHead
			err = json.Unmarshal(line, &h)
			rec = CacheRecord{Kind: h.Kind, Key: h.Key, Format: h.Format, StateID: h.StateID}
		}
		if err != nil {
			return 0, fmt.Errorf("%s:%d: %w", path, n, cacheDecodeError(line, err))
		}
		if field, _, dup := jsonkey.Repeated(line); dup {
			return 0, fmt.Errorf("%s:%d: field %s: given twice; each field is named once", path, n, field)
		}
		if rec.Kind != "file" && rec.Kind != "state" {
			return 0, fmt.Errorf("%s:%d: field kind: want file or state, got %q", path, n, rec.Kind)
		}
		id := "file key " + strconv.Quote(rec.Key)
		if rec.Kind == "state" {
			id = "state " + strconv.Quote(rec.StateID)
		}
		if p, again := first[id]; again {
			earlier := make([]byte, p.len)
			if _, err := f.ReadAt(earlier, p.offset); err != nil {
				return 0, fmt.Errorf("%s:%d: %w", path, p.line, err)
			}
			if !bytes.Equal(earlier, line) {
				return 0, fmt.Errorf("%s:%d: %s recorded again, other than on line %d (a cache records each once); retrieve into a new --cache", path, n, id, p.line)
			}
			good += int64(len(line))
			continue
		}
		first[id] = place{n, good, int64(len(line))}
		if rec.Kind == "state" && rec.Format != CacheFormat {
			return 0, fmt.Errorf("%s:%d: field format: candidates of format %d, want %d (retrieved by another version of mss); retrieve them again into a new --cache", path, n, rec.Format, CacheFormat)
		}
		if full {
			if err := checkRecord(line, &rec); err != nil {
				return 0, fmt.Errorf("%s:%d: %w", path, n, err)
			}
		}
		fn(&rec)
		good += int64(len(line))
	}
}

// cacheDecodeError names the field of a cache record whose value has the
// wrong type by its place in the record ("candidates[3].unit.start_line"),
// rather than by Go's types (a unit decodes through unitFields). A unit
// decodes itself, so the error's offset is within the unit: the element
// is found by decoding the list's elements one by one.
func cacheDecodeError(line []byte, err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Field == "" {
		return err
	}
	field := strings.ReplaceAll(te.Field, "unitFields.", "")
	var lists struct {
		Units      []json.RawMessage `json:"units"`
		Candidates []json.RawMessage `json:"candidates"`
	}
	if json.Unmarshal(line, &lists) == nil {
		for _, l := range []struct {
			name  string
			elems []json.RawMessage
			elem  func() any
		}{
			{"units", lists.Units, func() any { return &mss.Unit{} }},
			{"candidates", lists.Candidates, func() any { return &mss.Candidate{} }},
		} {
			rest, ok := strings.CutPrefix(field, l.name+".")
			if !ok {
				continue
			}
			for i, e := range l.elems {
				if json.Unmarshal(e, l.elem()) != nil {
					field = fmt.Sprintf("%s[%d].%s", l.name, i, rest)
					break
				}
			}
		}
	}
	return fmt.Errorf("field %s: got JSON %s, want %s", field, te.Value, te.Type)
}

// cacheNulls are a record's lists and maps as their JSON values, to tell
// a null (refused) from a list left out (a file of no units, a state of
// no candidates: omitted as empty), which decode alike.
type cacheNulls struct {
	Units      nullProbe `json:"units"`
	Candidates nullProbe `json:"candidates"`
	Files      nullProbe `json:"files"`
	Template   nullProbe `json:"template"`
}

// nullProbe notes whether a value is null, without copying it.
type nullProbe struct{ null bool }

func (p *nullProbe) UnmarshalJSON(data []byte) error {
	p.null = string(data) == "null"
	return nil
}

// checkRecord refuses a record that could not have been retrieved: a
// null list or map (encoding/json reads it as none); units with no path,
// lines that are not a range of a file (1 <= start_line <= end_line), or
// a negative token count; candidates ranked by a view retrieval does not
// have, or at a place below 1, or with a signal it does not write. Replay
// would score them as no live run could, or read past their file.
func checkRecord(line []byte, rec *CacheRecord) error {
	var nulls cacheNulls
	if err := json.Unmarshal(line, &nulls); err != nil {
		return err // the record decoded: not met
	}
	for _, f := range []struct {
		name string
		null bool
	}{{"units", nulls.Units.null}, {"candidates", nulls.Candidates.null}, {"files", nulls.Files.null}, {"template", nulls.Template.null}} {
		if f.null {
			return fmt.Errorf("field %s: null; want a list or an object, or none", f.name)
		}
	}
	check := func(field string, u *mss.Unit) error {
		switch {
		case u.Path == "":
			return fmt.Errorf("field %s.path: empty", field)
		case u.StartLine < 1 || u.EndLine < u.StartLine:
			return fmt.Errorf("field %s: lines %d-%d, want 1 <= start_line <= end_line", field, u.StartLine, u.EndLine)
		case u.Tokens < 0:
			return fmt.Errorf("field %s.tokens: %d; want a count of 0 or more", field, u.Tokens)
		}
		return nil
	}
	for i := range rec.Units {
		if err := check(fmt.Sprintf("units[%d]", i), &rec.Units[i]); err != nil {
			return err
		}
	}
	for i := range rec.Candidates {
		c := &rec.Candidates[i]
		field := fmt.Sprintf("candidates[%d]", i)
		if err := check(field+".unit", &c.Unit); err != nil {
			return err
		}
		for _, v := range slices.Sorted(maps.Keys(c.Views)) {
			switch rank := c.Views[v]; {
			case retrieve.ViewWeight(v) == 0:
				return fmt.Errorf("field %s.views.%s: no view of retrieval's", field, v)
			case rank < 1:
				return fmt.Errorf("field %s.views.%s: rank %d; want a place of 1 or more", field, v, rank)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(c.Signals)) {
			if !retrieve.IsSignal(k) {
				return fmt.Errorf("field %s.signals.%s: no signal retrieval writes", field, k)
			}
		}
	}
	return nil
}

// Cache is a loaded candidate cache.
type Cache struct {
	States map[string]*CachedState
	// mentions keeps each state's mentions (by state id), read once
	// however often the state is replayed.
	mentions sync.Map
}

// Mentions returns what st's text names (retrieve.ExtractWith, less the
// issue template the state was retrieved with), extracted once per state.
func (c *Cache) Mentions(st *mss.State) *retrieve.Mentions {
	if m, ok := c.mentions.Load(st.StateID); ok {
		return m.(*retrieve.Mentions)
	}
	var tmpl *retrieve.IssueTemplate
	if cs := c.States[st.StateID]; cs != nil && len(cs.Template) > 0 {
		tmpl = retrieve.NewIssueTemplate(cs.Template)
	}
	m, _ := c.mentions.LoadOrStore(st.StateID, retrieve.ExtractWith(st, tmpl))
	return m.(*retrieve.Mentions)
}

// CachedState is one state's cached candidates and files.
type CachedState struct {
	Candidates []mss.Candidate
	Files      map[string][]mss.Unit
	// Template is the issue template's lines (CacheRecord.Template).
	Template []string
}

// FileUnits implements mss.UnitSource over the cached files.
func (c *CachedState) FileUnits(path string) []mss.Unit { return c.Files[path] }

// LoadCache reads a cache file.
func LoadCache(path string) (*Cache, error) {
	files := map[string][]mss.Unit{}
	c := &Cache{States: map[string]*CachedState{}}
	var missing []string
	names := names{}
	_, err := scanCache(path, true, func(r *CacheRecord) {
		if r.Kind == "file" {
			for i := range r.Units {
				names.unit(&r.Units[i])
			}
			files[r.Key] = r.Units
			return
		}
		cs := &CachedState{Candidates: r.Candidates, Files: map[string][]mss.Unit{}, Template: r.Template}
		for p, k := range r.Files {
			us, ok := files[k]
			if !ok {
				missing = append(missing, r.StateID+" "+p)
				continue
			}
			cs.Files[p] = us
		}
		for i := range cs.Candidates {
			u := &cs.Candidates[i].Unit
			names.unit(u)
			shareContent(u, cs.Files[u.Path])
		}
		c.States[r.StateID] = cs
	})
	if err != nil {
		return nil, err
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, fmt.Errorf("%s: %d state files name a file record the cache does not hold (first: %s)", path, len(missing), missing[0])
	}
	return c, nil
}

// shareContent points a candidate's content at the same text of its unit
// among its file's units, when they hold that unit: decoded apart, the
// two copies would hold most of a loaded cache's text twice.
func shareContent(u *mss.Unit, file []mss.Unit) {
	for _, f := range file {
		if f.StartLine == u.StartLine && f.EndLine == u.EndLine && f.Content == u.Content {
			u.Content = f.Content
			return
		}
	}
}

// names keeps one copy of each path and name the units of a loaded cache
// hold: decoded, each is a string of its own, tens of millions of them
// (every candidate's and file unit's names, defined, referenced and
// imported), of about a million distinct.
type names map[string]string

func (n names) one(s string) string {
	if v, ok := n[s]; ok {
		return v
	}
	n[s] = s
	return s
}

func (n names) list(l []string) {
	for i, s := range l {
		l[i] = n.one(s)
	}
}

// unit points u's path and names at the kept copies.
func (n names) unit(u *mss.Unit) {
	u.Path, u.Symbol, u.Kind, u.Language = n.one(u.Path), n.one(u.Symbol), n.one(u.Kind), n.one(u.Language)
	n.list(u.Symbols)
	n.list(u.Defines)
	n.list(u.References)
	n.list(u.Imports)
}

// CachingSnapshot records every candidate list its snapshot gives into a
// cache.
type CachingSnapshot struct {
	Snapshot
	Cache *CacheWriter
}

// Candidates implements Snapshot.
func (s *CachingSnapshot) Candidates(ctx context.Context, st *mss.State, lim pipeline.Limits) (*pipeline.Query, error) {
	q, err := s.Snapshot.Candidates(ctx, st, lim)
	if err != nil {
		return nil, err
	}
	var tmpl *retrieve.IssueTemplate
	if t, ok := s.Snapshot.(interface {
		IssueTemplate() *retrieve.IssueTemplate
	}); ok {
		tmpl = t.IssueTemplate()
	}
	if err := s.Cache.Record(st, q.Candidates, sourceOf(s.Snapshot), tmpl); err != nil {
		return nil, fmt.Errorf("candidate cache: %w", err)
	}
	return q, nil
}

// sourceOf gives policies the snapshot's units by file when it has them.
func sourceOf(s Snapshot) mss.UnitSource {
	src, _ := s.(mss.UnitSource)
	return src
}

// FileUnits implements mss.UnitSource when the snapshot does.
func (s *CachingSnapshot) FileUnits(path string) []mss.Unit {
	if src := sourceOf(s.Snapshot); src != nil {
		return src.FileUnits(path)
	}
	return nil
}

// Close closes the snapshot when it has a Close method.
func (s *CachingSnapshot) Close() error {
	if c, ok := s.Snapshot.(interface{ Close() error }); ok {
		return c.Close()
	}
	return nil
}
