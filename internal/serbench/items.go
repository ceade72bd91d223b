package serbench

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/internal/jsonkey"
)

// Evidence is one unit of a state's candidate pool as the release ships it.
type Evidence struct {
	ID         string // evidence_id
	Path       string // source_path
	StartLine  int    // line_start, 0 when not given
	EndLine    int    // line_end, 0 when not given
	Content    string // content_excerpt
	Symbol     string // symbol, when given
	Language   string // language, when given
	SourceType string // source_type, e.g. repo_chunk
	// SHA256 is the release's content_sha256. It may hash the upstream
	// unit rather than the shipped excerpt, so it is kept apart from
	// mss.Unit.Hash, which always hashes Content.
	SHA256 string
	// ObservedByState is the release's per-unit flag that the unit lies in
	// a file the agent had opened. It is metadata only: what counts as
	// observed for the contract and the scorer is observed_evidence_ids.
	ObservedByState bool
}

// Unit returns the pool unit as an mss.Unit.
func (ev *Evidence) Unit() mss.Unit {
	sum := sha256.Sum256([]byte(ev.Content))
	return mss.Unit{
		ID:        ev.ID,
		Path:      ev.Path,
		StartLine: ev.StartLine,
		EndLine:   ev.EndLine,
		Symbol:    ev.Symbol,
		Language:  ev.Language,
		Content:   ev.Content,
		Hash:      hex.EncodeToString(sum[:]),
		Tokens:    mss.TokenCost(ev.Content),
	}
}

// Item is one SERBench state with its candidate pool.
type Item struct {
	Line  int // line of the items file it came from
	State mss.State
	Pool  []Evidence
	// PoolTruncated and CandidateCount are the release's
	// candidate_pool_truncated and candidate_count.
	PoolTruncated  bool
	CandidateCount int

	poolIDs map[string]int // evidence id -> index in Pool
}

// Units returns the pool as mss.Units, in pool order.
func (it *Item) Units() []mss.Unit {
	us := make([]mss.Unit, len(it.Pool))
	for i := range it.Pool {
		us[i] = it.Pool[i].Unit()
	}
	return us
}

// InPool reports whether id names a unit of the pool.
func (it *Item) InPool(id string) bool {
	_, ok := it.poolIDs[id]
	return ok
}

// ObservedInPool is the number of observed_evidence_ids that are pool units.
func (it *Item) ObservedInPool() int {
	n := 0
	for _, id := range it.State.ObservedEvidenceIDs {
		if it.InPool(id) {
			n++
		}
	}
	return n
}

// Items is a loaded items file.
type Items struct {
	File  string
	Items []*Item
	byID  map[string]*Item
}

// Get returns the item of a state, or nil.
func (s *Items) Get(stateID string) *Item { return s.byID[stateID] }

// LoadItems reads an items file (.jsonl or .jsonl.gz). Problems with
// individual rows are returned as Errors together with every row that
// could be read; any other error means the file could not be read.
func LoadItems(name string) (*Items, error) {
	rc, err := Open(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return ReadItems(rc, name)
}

// ReadItems reads items from r; name is used in messages.
func ReadItems(r io.Reader, name string) (*Items, error) {
	e := &errs{file: name}
	lines, err := scanLines(r, e, true)
	if err != nil {
		return nil, err
	}
	s := &Items{File: name, byID: map[string]*Item{}}
	first := map[string]int{}
	for _, ln := range lines {
		it := parseItem(ln, e)
		if it == nil {
			continue
		}
		checkCard(it, e)
		id := it.State.StateID
		if prev, dup := first[id]; dup {
			e.add(ln.n, "state_id", "duplicate state_id %q (first on line %d)", id, prev)
			continue
		}
		first[id] = ln.n
		s.Items = append(s.Items, it)
		s.byID[id] = it
	}
	if len(lines) == 0 && len(e.list) == 0 {
		e.add(0, "", "no items: the file is empty")
	}
	return s, e.list.Err()
}

// checkCard reports what makes an item's state card one no method can be
// asked with (mss.State.Validate: no text, an opened file outside the
// repository, a field past its limit), as the card reader of every other
// surface refuses it: serbench run would stop at it, so validate and the
// scorers refuse it too. The item is kept, so the rows that join it find
// it.
func checkCard(it *Item, e *errs) {
	st := it.State
	st.OpenedFiles = slices.Clone(st.OpenedFiles) // Validate cleans them in place
	if err := st.Validate(); err != nil {
		var se *mss.StateError
		if errors.As(err, &se) {
			e.add(it.Line, se.Field, "%s", se.Msg)
		} else {
			e.add(it.Line, "", "%v", err)
		}
	}
}

// checkEvidence refuses what no pool unit can be: a source_path that is
// no repository-relative path (absolute, or climbing out with ..), and
// lines, when given, that are not a 1-based range a span may name.
func checkEvidence(ev *Evidence) (field, msg string) {
	if ev.Path != "" {
		if _, err := mss.CleanPath(ev.Path); err != nil {
			return "source_path", err.Error()
		}
	}
	if ev.StartLine != 0 || ev.EndLine != 0 {
		if ev.StartLine < 1 || ev.EndLine < ev.StartLine || ev.EndLine > mss.MaxLine {
			return "line_start", fmt.Sprintf("lines %d-%d (line_start-line_end) are not a 1-based range (want 1 <= line_start <= line_end <= %d)", ev.StartLine, ev.EndLine, mss.MaxLine)
		}
	}
	return "", ""
}

// itemJSON is the typed shape of a well-formed item row. Decoding a line
// into it takes one pass; only a row that fails to decode, or breaks a
// rule, is decoded again field by field to say exactly what is wrong.
type itemJSON struct {
	StateID             string            `json:"state_id"`
	ItemID              string            `json:"item_id"`
	InstanceID          string            `json:"instance_id"`
	Repo                string            `json:"repo"`
	BaseCommit          string            `json:"base_commit"`
	Split               string            `json:"split"`
	StateType           string            `json:"state_type"`
	Issue               string            `json:"issue"`
	InformationNeed     string            `json:"information_need"`
	CurrentObservation  string            `json:"current_observation"`
	CurrentHypothesis   string            `json:"current_hypothesis"`
	CurrentSubgoal      string            `json:"current_subgoal"`
	CurrentDiff         string            `json:"current_diff"`
	LatestTestOutput    string            `json:"latest_test_output"`
	OpenedFiles         []string          `json:"opened_files"`
	SearchQueries       []string          `json:"search_queries"`
	TrajectoryPrefix    []json.RawMessage `json:"trajectory_prefix"`
	ObservedEvidenceIDs json.RawMessage   `json:"observed_evidence_ids"`
	PoolTruncated       bool              `json:"candidate_pool_truncated"`
	CandidateCount      int               `json:"candidate_count"`
	CandidateEvidence   *[]evidenceJSON   `json:"candidate_evidence"`
}

type evidenceJSON struct {
	EvidenceID      *string `json:"evidence_id"`
	SourcePath      string  `json:"source_path"`
	LineStart       int     `json:"line_start"`
	LineEnd         int     `json:"line_end"`
	ContentExcerpt  string  `json:"content_excerpt"`
	Symbol          string  `json:"symbol"`
	Language        string  `json:"language"`
	SourceType      string  `json:"source_type"`
	ContentSHA256   string  `json:"content_sha256"`
	ObservedByState bool    `json:"observed_by_state"`
}

// itemKeys are the keys fastItem decodes, in item rows and their evidence.
var itemKeys = append(jsonkey.Names(itemJSON{}), jsonkey.Names(evidenceJSON{})...)

// fastItem decodes a well-formed item row in one pass, or returns nil when
// the row needs the careful path.
func fastItem(b []byte, n int) *Item {
	// encoding/json matches keys case-insensitively when no key matches
	// exactly; the exact keys must be there and no key may merely fold to
	// one, so a "State_ID" or "sourCe_pAth" row is judged by the careful
	// path as the reference would judge it.
	if !utf8.Valid(b) || !bytes.Contains(b, []byte(`"state_id"`)) || !bytes.Contains(b, []byte(`"candidate_evidence"`)) {
		return nil
	}
	if _, _, _, folded := jsonkey.Folded(b, itemKeys); folded {
		return nil
	}
	if _, _, dup := jsonkey.Repeated(b); dup {
		return nil // a key given twice: decodeLine reports it
	}
	var j itemJSON
	if json.Unmarshal(b, &j) != nil || j.CandidateEvidence == nil || strings.TrimSpace(j.StateID) == "" {
		return nil
	}
	if len(*j.CandidateEvidence) > bytes.Count(b, []byte(`"evidence_id"`)) {
		return nil
	}
	it := &Item{Line: n, PoolTruncated: j.PoolTruncated, CandidateCount: j.CandidateCount}
	if len(j.ObservedEvidenceIDs) > 0 {
		if json.Unmarshal(j.ObservedEvidenceIDs, &it.State.ObservedEvidenceIDs) != nil || it.State.ObservedEvidenceIDs == nil {
			return nil
		}
		seen := map[string]bool{}
		for _, id := range it.State.ObservedEvidenceIDs {
			if strings.TrimSpace(id) == "" || seen[id] {
				return nil
			}
			seen[id] = true
		}
	}
	it.State = mss.State{
		StateID: j.StateID, ItemID: j.ItemID, InstanceID: j.InstanceID, Repo: j.Repo,
		BaseCommit: j.BaseCommit, Split: j.Split, StateType: j.StateType, Issue: j.Issue,
		InformationNeed: j.InformationNeed, CurrentObservation: j.CurrentObservation,
		CurrentHypothesis: j.CurrentHypothesis, CurrentSubgoal: j.CurrentSubgoal,
		CurrentDiff: j.CurrentDiff, LatestTestOutput: j.LatestTestOutput,
		OpenedFiles: j.OpenedFiles, SearchQueries: j.SearchQueries,
		TrajectoryPrefix: j.TrajectoryPrefix, ObservedEvidenceIDs: it.State.ObservedEvidenceIDs,
	}
	pool := *j.CandidateEvidence
	it.Pool = make([]Evidence, 0, len(pool))
	it.poolIDs = make(map[string]int, len(pool))
	for _, c := range pool {
		if c.EvidenceID == nil || strings.TrimSpace(*c.EvidenceID) == "" {
			return nil
		}
		if _, dup := it.poolIDs[*c.EvidenceID]; dup {
			return nil
		}
		ev := Evidence{
			ID: *c.EvidenceID, Path: c.SourcePath, StartLine: c.LineStart, EndLine: c.LineEnd,
			Content: c.ContentExcerpt, Symbol: c.Symbol, Language: c.Language,
			SourceType: c.SourceType, SHA256: c.ContentSHA256, ObservedByState: c.ObservedByState,
		}
		if f, _ := checkEvidence(&ev); f != "" {
			return nil
		}
		it.poolIDs[*c.EvidenceID] = len(it.Pool)
		it.Pool = append(it.Pool, ev)
	}
	return it
}

func parseItem(ln line, e *errs) *Item {
	if ln.raw != nil {
		if it := fastItem(ln.raw, ln.n); it != nil {
			return it
		}
		if ln.obj == nil {
			var ok bool
			if ln.obj, ok = decodeLine(ln.raw, ln.n, e); !ok {
				return nil
			}
		}
	}
	r := &fieldReader{e: e, line: ln.n, obj: ln.obj}
	it := &Item{Line: ln.n}
	st := &it.State
	st.StateID = r.str("state_id")
	if strings.TrimSpace(st.StateID) == "" {
		r.fail("state_id", "must be a non-empty string")
		return nil
	}
	st.ItemID = r.str("item_id")
	st.InstanceID = r.str("instance_id")
	st.Repo = r.str("repo")
	st.BaseCommit = r.str("base_commit")
	st.Split = r.str("split")
	st.StateType = r.str("state_type")
	st.Issue = r.str("issue")
	st.InformationNeed = r.str("information_need")
	st.CurrentObservation = r.str("current_observation")
	st.CurrentHypothesis = r.str("current_hypothesis")
	st.CurrentSubgoal = r.str("current_subgoal")
	st.CurrentDiff = r.str("current_diff")
	st.LatestTestOutput = r.str("latest_test_output")
	st.OpenedFiles, _ = r.strList("opened_files")
	st.SearchQueries, _ = r.strList("search_queries")
	if tp, _ := r.list("trajectory_prefix"); tp != nil {
		st.TrajectoryPrefix = tp
	}
	st.ObservedEvidenceIDs = uniqueIDs(r, "observed_evidence_ids", false)
	it.PoolTruncated = r.boolean("candidate_pool_truncated")
	it.CandidateCount, _ = r.integer("candidate_count")

	pool, present := r.list("candidate_evidence")
	if raw, ok := r.obj["candidate_evidence"]; ok && isNull(raw) {
		r.fail("candidate_evidence", "must be a list, not null")
	} else if !present {
		r.fail("candidate_evidence", "missing: every item needs its candidate pool (a list)")
	}
	it.poolIDs = make(map[string]int, len(pool))
	for i, raw := range pool {
		field := fmt.Sprintf("candidate_evidence[%d]", i)
		cr := r.sub(field, raw)
		if cr == nil {
			continue
		}
		ev := Evidence{
			ID:              cr.str("evidence_id"),
			Path:            cr.str("source_path"),
			Content:         cr.str("content_excerpt"),
			Symbol:          cr.str("symbol"),
			Language:        cr.str("language"),
			SourceType:      cr.str("source_type"),
			SHA256:          cr.str("content_sha256"),
			ObservedByState: cr.boolean("observed_by_state"),
		}
		n := cr.problems()
		ev.StartLine, _ = cr.integer("line_start")
		ev.EndLine, _ = cr.integer("line_end")
		if f, msg := checkEvidence(&ev); f != "" && cr.problems() == n {
			cr.fail(field+"."+f, "%s", msg)
		}
		if strings.TrimSpace(ev.ID) == "" {
			cr.fail(field+".evidence_id", "must be a non-empty string")
			continue
		}
		if j, dup := it.poolIDs[ev.ID]; dup {
			cr.fail(field+".evidence_id", "duplicate candidate evidence_id %q (also candidate_evidence[%d])", ev.ID, j)
			continue
		}
		it.poolIDs[ev.ID] = len(it.Pool)
		it.Pool = append(it.Pool, ev)
	}
	return it
}

// uniqueIDs reads an optional list of distinct non-empty id strings,
// reporting empty and repeated entries. With required, absence is an error.
func uniqueIDs(r *fieldReader, name string, required bool) []string {
	raw, ok := r.obj[name]
	if ok && isNull(raw) {
		r.fail(r.path(name), "must be a list, not null")
		return nil
	}
	list, present := r.strList(name)
	if !present {
		if required {
			r.fail(r.path(name), "missing (a list of evidence ids)")
		}
		return nil
	}
	return checkIDs(r, r.path(name), list)
}

// checkIDs reports empty and repeated ids of a list read from field.
func checkIDs(r *fieldReader, field string, list []string) []string {
	seen := make(map[string]bool, len(list))
	out := list[:0:0]
	for i, id := range list {
		switch {
		case strings.TrimSpace(id) == "":
			r.fail(fmt.Sprintf("%s[%d]", field, i), "must be a non-empty string")
		case seen[id]:
			r.fail(fmt.Sprintf("%s[%d]", field, i), "duplicate id %q", id)
		default:
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// rawList decodes a JSON list value into raw elements.
func rawList(raw json.RawMessage) ([]json.RawMessage, bool) {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil, false
	}
	return items, true
}
