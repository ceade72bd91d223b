package mss

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/missingcomplement/mss/internal/jsonkey"
)

// Limits on one state card. Every surface (CLI, HTTP, MCP, benchmark
// runners) reads cards through DecodeState and checks them with
// State.Validate, so the same card is accepted or refused everywhere.
const (
	// MaxStateBytes bounds a state card's encoded size.
	MaxStateBytes = 4 << 20
	// MaxTextBytes bounds each free-text field of a card.
	MaxTextBytes = 256 << 10
	// MaxObservedSpans bounds the spans one card may name.
	MaxObservedSpans = 2048
	// MaxLine bounds the line numbers of a span.
	MaxLine = 1 << 30
)

// StateError is a state card that cannot be used. It names where the card
// came from, the line of the encoded card when known, and the field.
type StateError struct {
	Source string // file name, "<stdin>", "request body", ...; may be empty
	Line   int    // 1-based line in the encoded card; 0 when unknown
	Field  string // JSON field path, e.g. "observed_spans[2].path"; may be empty
	Msg    string
}

func (e *StateError) Error() string {
	var b strings.Builder
	b.WriteString("state")
	if e.Source != "" {
		b.WriteString(" ")
		b.WriteString(e.Source)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
	} else if e.Line > 0 {
		fmt.Fprintf(&b, " line %d", e.Line)
	}
	b.WriteString(": ")
	if e.Field != "" {
		fmt.Fprintf(&b, "field %s: ", e.Field)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// stateTextFields are the fields a card needs at least one of.
var stateTextFields = []string{"issue", "information_need", "current_observation", "current_hypothesis",
	"current_subgoal", "latest_test_output", "current_diff", "search_queries"}

// DecodeState reads one state card (a JSON object with the state-card
// fields) from r and validates it. source names r in errors. It reads at
// most MaxStateBytes, skips a UTF-8 byte-order mark, and refuses unknown
// fields, trailing values and anything State.Validate refuses.
func DecodeState(source string, r io.Reader) (*State, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxStateBytes+1))
	if err != nil {
		return nil, &StateError{Source: source, Msg: err.Error()}
	}
	if len(data) > MaxStateBytes {
		return nil, &StateError{Source: source, Msg: fmt.Sprintf("larger than %d bytes; a state card is one JSON object", MaxStateBytes)}
	}
	return ParseState(source, data)
}

// TrimByteOrderMark drops the UTF-8 byte order mark (U+FEFF) that may
// open data: it is no text, and every reader of outside input skips it.
func TrimByteOrderMark(data []byte) []byte { return bytes.TrimPrefix(data, byteOrderMark) }

var byteOrderMark = []byte("\uFEFF")

// ParseState is DecodeState over bytes already read.
func ParseState(source string, data []byte) (*State, error) {
	if len(data) > MaxStateBytes {
		return nil, &StateError{Source: source, Msg: fmt.Sprintf("larger than %d bytes; a state card is one JSON object", MaxStateBytes)}
	}
	data = TrimByteOrderMark(data)
	if len(bytes.TrimSpace(data)) == 0 {
		what := "empty"
		if len(data) > 0 {
			what = "only white space"
		}
		return nil, &StateError{Source: source, Msg: what + "; want one JSON object"}
	}
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		// encoding/json reads null as an empty card.
		return nil, &StateError{Source: source, Line: lineAt(data, int64(bytes.Index(data, []byte("null")))), Msg: "want a JSON object, got JSON null"}
	}
	if err := CheckUTF8(data); err != nil {
		err.Source = source
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var st State
	if err := dec.Decode(&st); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return nil, &StateError{Source: source, Line: lineAt(data, syn.Offset), Msg: syn.Error()}
		case errors.As(err, &typ):
			se := TypeError(data, typ)
			se.Source = source
			return nil, se
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, &StateError{Source: source, Line: lineAt(data, int64(len(data))), Msg: "unexpected end of JSON"}
		}
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			name = strings.Trim(name, `"`)
			// The decoder reads on to the end of the object before it
			// reports the field: the line is the key's own.
			field, line := name, lineAt(data, dec.InputOffset())
			if f, off, found := unknownKey(data, name); found {
				field, line = f, lineAt(data, off)
			}
			return nil, &StateError{Source: source, Line: line, Field: field, Msg: "unknown field (see the state-card fields in docs/recover.md)"}
		}
		return nil, &StateError{Source: source, Msg: err.Error()}
	}
	if dec.More() {
		return nil, &StateError{Source: source, Line: lineAt(data, dec.InputOffset()), Msg: "more than one JSON value; give one state card"}
	}
	if err := CheckKeys(data); err != nil {
		err.Source = source
		return nil, err
	}
	if err := st.Validate(); err != nil {
		var se *StateError
		if errors.As(err, &se) {
			se.Source = source
			se.Locate(data)
		}
		return nil, err
	}
	return &st, nil
}

// CheckUTF8 refuses data that is not UTF-8 text: encoding/json would
// read each such byte as U+FFFD without a word. The error names the line
// of the first such byte and, when it is in a field's value, the field
// (as Validate names fields). ParseState runs it on every card; a surface
// that decodes a card, or any text from a user, inside its own request
// runs it on the request.
//
// An escape of half a surrogate pair ("\ud800" alone) is no character
// either, and encoding/json reads it as U+FFFD too: it is refused the same
// way.
func CheckUTF8(data []byte) *StateError {
	if utf8.Valid(data) {
		if off := loneSurrogate(data); off >= 0 {
			return &StateError{Line: lineAt(data, int64(off)), Field: fieldAt(data, int64(off)),
				Msg: fmt.Sprintf("%s is half a UTF-16 surrogate pair, no character", data[off:off+6])}
		}
		return nil
	}
	off := 0
	for off < len(data) {
		r, n := utf8.DecodeRune(data[off:])
		if r == utf8.RuneError && n == 1 {
			break
		}
		off += n
	}
	return &StateError{Line: lineAt(data, int64(off)), Field: fieldAt(data, int64(off)), Msg: "not UTF-8 text"}
}

// loneSurrogate is the offset of the first \uXXXX escape in data that
// is half a surrogate pair without its other half, or -1.
func loneSurrogate(data []byte) int {
	hex4 := func(i int) (rune, bool) {
		if i+6 > len(data) || data[i] != '\\' || data[i+1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(string(data[i+2:i+6]), 16, 16)
		return rune(v), err == nil
	}
	for i := 0; i < len(data); i++ {
		if data[i] != '\\' {
			continue
		}
		r, ok := hex4(i)
		switch {
		case !ok:
			i++ // an escaped byte: "\\", "\""
		case !utf16.IsSurrogate(r):
			i += 5
		default:
			if lo, ok := hex4(i + 6); ok && utf16.DecodeRune(r, lo) != utf8.RuneError {
				i += 11
				continue
			}
			return i
		}
	}
	return -1
}

// fieldAt names the innermost field of the card in data whose value holds
// the byte at off, or "" when none does (the byte is in a key).
func fieldAt(data []byte, off int64) string {
	starts := map[string]int64{}
	last := ""
	walkCard(data, func(field string, at int64, _ bool) bool {
		if at > off {
			return false
		}
		starts[field], last = at, field
		return true
	})
	for f := last; f != ""; f = parentField(f) {
		at, ok := starts[f]
		if !ok {
			return ""
		}
		dec := json.NewDecoder(bytes.NewReader(data[at:]))
		var raw json.RawMessage
		if dec.Decode(&raw) != nil || at+dec.InputOffset() > off {
			return f
		}
	}
	return ""
}

// parentField is the field that holds field ("observed_spans[2]" for
// "observed_spans[2].path", "observed_spans" for "observed_spans[2]"),
// or "" for a top-level field.
func parentField(field string) string {
	if i := strings.LastIndexAny(field, ".["); i > 0 {
		return field[:i]
	}
	return ""
}

// Locate sets e.Line, when e names a field but no line, to the line of
// data (the encoded card e is about, or a request object that holds the
// card's fields at its top level) where that field's value starts, or,
// when the text does not give the field (a span's missing path), where
// the nearest field that holds it starts.
func (e *StateError) Locate(data []byte) {
	if e.Line > 0 || e.Field == "" {
		return
	}
	starts := map[string]int64{}
	walkCard(data, func(field string, off int64, _ bool) bool {
		if _, ok := starts[field]; !ok {
			starts[field] = off
		}
		return field != e.Field
	})
	for f := e.Field; f != ""; f = parentField(f) {
		if off, ok := starts[f]; ok {
			e.Line = lineAt(data, off)
			return
		}
	}
}

// TypeError is typ, a value of the wrong type met decoding data, as a
// StateError naming its line and, by its element, its field
// (ElementField).
func TypeError(data []byte, typ *json.UnmarshalTypeError) *StateError {
	line := lineAt(data, typ.Offset)
	if typ.Field == "" {
		return &StateError{Line: line, Msg: fmt.Sprintf("want a JSON object, got JSON %s", typ.Value)}
	}
	return &StateError{Line: line, Field: ElementField(data, typ.Field, typ.Offset), Msg: fmt.Sprintf("want %v, got JSON %s", typ.Type, typ.Value)}
}

// ElementField names field of the card in data, as encoding/json names a
// mistyped one (json.UnmarshalTypeError: no array indexes,
// "observed_spans.start_line"), by the element it is in
// ("observed_spans[3].start_line"): the last such field whose value starts
// before end, the offset where decoding failed. A surface that decodes a
// card inside its own request names the field the same way.
func ElementField(data []byte, field string, end int64) string {
	out := field
	walkCard(data, func(f string, off int64, _ bool) bool {
		if off >= end {
			return false
		}
		if f != field && stripIndexes(f) == field {
			out = f
		}
		return true
	})
	return out
}

// stripIndexes drops the array indexes of a field path.
func stripIndexes(f string) string {
	var b strings.Builder
	depth := 0
	for _, c := range f {
		switch {
		case c == '[':
			depth++
		case c == ']':
			depth--
		case depth == 0:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// repeatedOrNull refuses a card that gives one field twice in the same
// object: encoding/json would keep the last value without a word. It
// refuses a null for a field of the card, of an observed span, or an
// element of a list too, which encoding/json would read as the field
// left out, an empty span, or an empty string.
func repeatedOrNull(data []byte) *StateError {
	var err *StateError
	walkCard(data, func(field string, off int64, dup bool) bool {
		if dup {
			err = &StateError{Line: lineAt(data, off), Field: field, Msg: "given twice; each field is named once"}
			return false
		}
		if !bytes.HasPrefix(data[off:], []byte("null")) {
			return true
		}
		if msg := nullMsg(field); msg != "" {
			err = &StateError{Line: lineAt(data, off), Field: field, Msg: msg}
			return false
		}
		return true
	})
	return err
}

// nullMsg is why a null for field (as walkCard names it) is refused, or
// "" when field is none of the card's (a request's own field beside the
// card's).
func nullMsg(field string) string {
	name, rest, _ := strings.Cut(field, "[")
	kind, ok := stateKinds[name]
	switch {
	case !ok:
		return ""
	case rest == "": // the field itself
		if kind == reflect.Slice {
			return "null; want a list ([] for none), or leave the field out"
		}
		return "null; want a string (\"\" for none), or leave the field out"
	case name == "observed_spans" && !strings.Contains(rest, "."):
		return "null; want a span object (path, start_line, end_line)"
	case name == "observed_spans":
		_, key, _ := strings.Cut(rest, ".")
		if spanKind, ok := spanKinds[key]; ok && !strings.ContainsAny(key, ".[") {
			if spanKind == reflect.Int {
				return "null; want a line number"
			}
			return "null; want a string, or leave the field out"
		}
		return ""
	}
	return "null; want a string" // an element of a list of strings
}

// stateKinds and spanKinds give the kind of each field of a card and of
// a span, by its JSON key.
var stateKinds, spanKinds = kindsOf(State{}), kindsOf(Span{})

func kindsOf(v any) map[string]reflect.Kind {
	t := reflect.TypeOf(v)
	out := map[string]reflect.Kind{}
	for i := 0; i < t.NumField(); i++ {
		if name, ok := jsonkey.FieldName(t.Field(i)); ok {
			out[name] = t.Field(i).Type.Kind()
		}
	}
	return out
}

// walkCard calls fn, in text order, for each field of a JSON card and each
// element of its arrays, named as Validate names them ("issue",
// "observed_spans[2]", "observed_spans[2].path"), with the offset where
// its value starts and whether its object already had that key. The
// opaque trajectory_prefix is not entered. It stops when fn returns false
// or the text ends; data need not be valid.
func walkCard(data []byte, fn func(field string, off int64, dup bool) bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	start := func() int64 {
		off := dec.InputOffset()
		for off < int64(len(data)) && strings.IndexByte(" \t\r\n,:", data[off]) >= 0 {
			off++
		}
		return off
	}
	var walk func(path string) bool
	walk = func(path string) bool {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return false
				}
				k, _ := kt.(string)
				field := k
				if path != "" {
					field = path + "." + k
				}
				if !fn(field, start(), seen[k]) {
					return false
				}
				seen[k] = true
				if path == "" && k == "trajectory_prefix" {
					var raw json.RawMessage
					if dec.Decode(&raw) != nil {
						return false
					}
					continue
				}
				if !walk(field) {
					return false
				}
			}
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				field := fmt.Sprintf("%s[%d]", path, i)
				if !fn(field, start(), false) || !walk(field) {
					return false
				}
			}
		default:
			return true
		}
		_, err = dec.Token()
		return err == nil
	}
	walk("")
}

var (
	stateKeys = jsonkey.Names(State{})
	spanKeys  = jsonkey.Names(Span{})
	cardKeys  = append(append([]string(nil), stateKeys...), spanKeys...)
)

// unknownKey finds the first key of the card in data named name that is
// no field where it stands (a top-level key no state field has, or a key
// of an observed span no span field has): its path, as ElementField names
// fields, and the offset of its value.
func unknownKey(data []byte, name string) (field string, off int64, found bool) {
	walkCard(data, func(f string, at int64, _ bool) bool {
		key, known := f, stateKeys
		if parent, k, nested := strings.Cut(f, "."); nested {
			if !strings.HasPrefix(parent, "observed_spans[") || strings.Contains(k, ".") {
				return true
			}
			key, known = k, spanKeys
		}
		if key == name && !slices.Contains(known, key) {
			field, off, found = f, at, true
			return false
		}
		return true
	})
	return field, off, found
}

// CheckKeys refuses what encoding/json reads from a card without a word: a
// key it took for a field only by folding case, a field given twice (it
// keeps the last value), and a null for a field of the card or of a span,
// or for an element of its lists (to it, the field left out, an empty
// span or string). data is a card that has already decoded, or
// a request object holding a card's fields at its top level beside its
// own, which extra names. ParseState runs it on every card; a surface
// that decodes a card inside its own request runs it on the request.
func CheckKeys(data []byte, extra ...string) *StateError {
	if err := foldedKey(data, extra); err != nil {
		return err
	}
	return repeatedOrNull(data)
}

// foldedKey refuses a key that encoding/json took for a field only by
// folding case ("Issue" for "issue"): the card format is case-sensitive,
// so such a key is an unknown field, not a silent spelling of a known one.
// extra are further top-level keys of the object data holds.
func foldedKey(data []byte, extra []string) *StateError {
	topKeys, allKeys := stateKeys, cardKeys
	if len(extra) > 0 {
		topKeys = append(append([]string(nil), stateKeys...), extra...)
		allKeys = append(append([]string(nil), cardKeys...), extra...)
	}
	// One scan of the text settles the usual card; only a card with such
	// a key somewhere (a trajectory step may have its own "Path") is
	// decoded again to see where it stands.
	if _, _, _, found := jsonkey.Folded(data, allKeys); !found {
		return nil
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return nil
	}
	check := func(obj map[string]json.RawMessage, names []string, field func(string) string) *StateError {
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if name, ok := jsonkey.Fold(k, names); ok {
				line := 0
				if _, _, at, found := jsonkey.Folded(data, []string{name}); found {
					line = lineAt(data, int64(at))
				}
				return &StateError{Line: line, Field: field(k), Msg: fmt.Sprintf("unknown field (field names are case-sensitive; did you mean %q?)", name)}
			}
		}
		return nil
	}
	if err := check(top, topKeys, func(k string) string { return k }); err != nil {
		return err
	}
	var spans []map[string]json.RawMessage
	if raw, ok := top["observed_spans"]; ok && json.Unmarshal(raw, &spans) == nil {
		for i, sp := range spans {
			if err := check(sp, spanKeys, func(k string) string { return fmt.Sprintf("observed_spans[%d].%s", i, k) }); err != nil {
				return err
			}
		}
	}
	return nil
}

func lineAt(data []byte, offset int64) int {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	if offset < 0 {
		offset = 0
	}
	return 1 + bytes.Count(data[:offset], []byte("\n"))
}

// Validate checks a card: at least one field with text to recover evidence
// for, every text field within MaxTextBytes, observed spans naming clean
// repository-relative paths and 1-based line ranges. It cleans span paths
// in place (backslashes to slashes, "./" dropped) and changes nothing else.
func (s *State) Validate() error {
	if strings.TrimSpace(s.Text()) == "" {
		return &StateError{Msg: "no text to recover evidence for: set at least one of " + strings.Join(stateTextFields, ", ")}
	}
	for _, f := range []struct{ name, v string }{
		{"issue", s.Issue}, {"information_need", s.InformationNeed},
		{"current_observation", s.CurrentObservation}, {"current_hypothesis", s.CurrentHypothesis},
		{"current_subgoal", s.CurrentSubgoal}, {"current_diff", s.CurrentDiff},
		{"latest_test_output", s.LatestTestOutput},
	} {
		if len(f.v) > MaxTextBytes {
			return &StateError{Field: f.name, Msg: fmt.Sprintf("%d bytes, limit %d", len(f.v), MaxTextBytes)}
		}
	}
	for _, l := range []struct {
		name string
		v    []string
	}{{"search_queries", s.SearchQueries}, {"opened_files", s.OpenedFiles}, {"observed_evidence_ids", s.ObservedEvidenceIDs}} {
		if len(l.v) > MaxObservedSpans {
			return &StateError{Field: l.name, Msg: fmt.Sprintf("%d entries, limit %d", len(l.v), MaxObservedSpans)}
		}
		total := 0
		for _, v := range l.v {
			total += len(v)
		}
		if total > MaxTextBytes {
			return &StateError{Field: l.name, Msg: fmt.Sprintf("%d bytes in all, limit %d", total, MaxTextBytes)}
		}
	}
	for i, f := range s.OpenedFiles {
		p, err := CleanPath(f)
		if err != nil {
			return &StateError{Field: fmt.Sprintf("opened_files[%d]", i), Msg: err.Error()}
		}
		s.OpenedFiles[i] = p
	}
	return ValidateSpans(s.ObservedSpans)
}

// ValidateSpans checks observed spans as Validate checks a card's, with
// the same errors: at most MaxObservedSpans, clean repository-relative
// paths, 1-based line ranges. It cleans the paths in place. A surface
// that takes spans outside a card (an agent reporting what it read)
// checks them with it.
func ValidateSpans(spans []Span) error {
	if len(spans) > MaxObservedSpans {
		return &StateError{Field: "observed_spans", Msg: fmt.Sprintf("%d spans, limit %d", len(spans), MaxObservedSpans)}
	}
	for i := range spans {
		sp := &spans[i]
		p, err := CleanPath(sp.Path)
		if err != nil {
			return &StateError{Field: fmt.Sprintf("observed_spans[%d].path", i), Msg: err.Error()}
		}
		if err := CheckLines(sp.StartLine, sp.EndLine); err != nil {
			return &StateError{Field: fmt.Sprintf("observed_spans[%d]", i), Msg: fmt.Sprintf("(%s) %v", sp.Path, err)}
		}
		sp.Path = p
	}
	return nil
}

// CheckLines refuses lines start..end that a span cannot name: not a
// 1-based range, or ending past MaxLine.
func CheckLines(start, end int) error {
	switch {
	case start < 1 || end < start:
		return fmt.Errorf("lines %d-%d are not a 1-based range (want 1 <= start_line <= end_line)", start, end)
	case end > MaxLine:
		return fmt.Errorf("lines %d-%d end past line %d, the last a span may name", start, end, MaxLine)
	}
	return nil
}

// ErrBadPath is returned for a path that is not a clean repository-relative path.
var ErrBadPath = errors.New("not a repository-relative path")

// CleanPath validates a repository-relative path from outside input:
// relative, forward slashes or backslashes, no ".." component, no NUL, not
// the root. It returns the cleaned forward-slash form ("./a//b" -> "a/b").
func CleanPath(p string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("%w: empty", ErrBadPath)
	}
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("%w: %q contains NUL", ErrBadPath, p)
	}
	q := strings.ReplaceAll(p, `\`, "/")
	if strings.HasPrefix(q, "/") || (len(q) >= 2 && q[1] == ':') {
		return "", fmt.Errorf("%w: %q is absolute", ErrBadPath, p)
	}
	for _, part := range strings.Split(q, "/") {
		if part == ".." {
			return "", fmt.Errorf("%w: %q climbs out of the repository with a .. element", ErrBadPath, p)
		}
	}
	q = path.Clean(q)
	if q == "." {
		return "", fmt.Errorf("%w: %q names the root", ErrBadPath, p)
	}
	return q, nil
}

// Text is the text of a card that retrieval reads, field by field in a
// fixed order, then the search queries, one a line.
func (s *State) Text() string {
	var b strings.Builder
	for _, t := range []string{s.Issue, s.InformationNeed, s.CurrentHypothesis, s.CurrentSubgoal,
		s.CurrentObservation, s.LatestTestOutput, s.CurrentDiff} {
		if t != "" {
			b.WriteString(t)
			b.WriteByte('\n')
		}
	}
	for _, q := range s.SearchQueries {
		b.WriteString(q)
		b.WriteByte('\n')
	}
	return b.String()
}

// Observed is the one definition of what a card has already seen: a unit
// is observed when its id is among ObservedEvidenceIDs or it shares a line
// with an observed span on the same path. Paths compare in their cleaned
// form. Build it once per card; it is read-only afterwards.
type Observed struct {
	ids   map[string]bool
	spans map[string][]Span // cleaned path -> spans
}

// ObservedOf collects what s has seen.
func ObservedOf(s *State) *Observed {
	o := &Observed{ids: map[string]bool{}, spans: map[string][]Span{}}
	if s == nil {
		return o
	}
	for _, id := range s.ObservedEvidenceIDs {
		o.ids[id] = true
	}
	for _, sp := range s.ObservedSpans {
		p, err := CleanPath(sp.Path)
		if err != nil {
			continue // Validate refuses such a card; an unvalidated one excludes nothing by it
		}
		sp.Path = p
		o.spans[p] = append(o.spans[p], sp)
	}
	return o
}

// Unit reports whether u has been seen.
func (o *Observed) Unit(u *Unit) bool {
	if u.ID != "" && o.ids[u.ID] {
		return true
	}
	return o.Lines(u.Path, u.StartLine, u.EndLine)
}

// Lines reports whether lines start..end of path share a line with an
// observed span.
func (o *Observed) Lines(path string, start, end int) bool {
	p, err := CleanPath(path)
	if err != nil {
		return false
	}
	for _, sp := range o.spans[p] {
		if start <= sp.EndLine && end >= sp.StartLine {
			return true
		}
	}
	return false
}

// Unread gives the runs of u's lines no observed span holds, in line
// order, when the card has read u in part: nil when u is named by id
// (read whole), shares no line with an observed span, or every line of
// it was read.
func (o *Observed) Unread(u *Unit) []Span {
	if u.ID != "" && o.ids[u.ID] {
		return nil
	}
	var read []Span
	for _, sp := range o.Spans(u.Path) {
		if u.StartLine <= sp.EndLine && u.EndLine >= sp.StartLine {
			read = append(read, sp)
		}
	}
	if len(read) == 0 {
		return nil
	}
	sort.Slice(read, func(i, j int) bool { return read[i].StartLine < read[j].StartLine })
	var out []Span
	next := u.StartLine // first line not yet placed in a run or read
	for _, sp := range read {
		if sp.StartLine > next {
			out = append(out, Span{Path: u.Path, StartLine: next, EndLine: sp.StartLine - 1})
		}
		next = max(next, sp.EndLine+1)
	}
	if next <= u.EndLine {
		out = append(out, Span{Path: u.Path, StartLine: next, EndLine: u.EndLine})
	}
	return out
}

// Spans lists the observed spans of path (cleaned), in card order.
func (o *Observed) Spans(path string) []Span {
	p, err := CleanPath(path)
	if err != nil {
		return nil
	}
	return o.spans[p]
}

// Paths lists every observed span's path (cleaned), sorted and unique.
func (o *Observed) Paths() []string {
	out := make([]string, 0, len(o.spans))
	for p := range o.spans {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
