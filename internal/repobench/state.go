package repobench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sync"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/internal/jsonkey"
)

// maxLine bounds one JSONL line (state cards carry whole issue texts).
const maxLine = 64 << 20

// LoadStates reads a repository-track states file: one state card a line,
// each read by mss.ParseState (the reader every surface uses, so a card is
// refused here exactly when it would be refused anywhere else). Blank
// lines are skipped. Every state needs state_id, repo, base_commit and
// state_type; a state_id may appear once.
func LoadStates(path string) ([]*mss.State, error) {
	states, _, err := loadStates(path)
	return states, err
}

// loadStates is LoadStates, with the line of the file each state is on.
func loadStates(path string) ([]*mss.State, []int, error) {
	var out []*mss.State
	var lines []int
	seen := map[string]int{}
	err := eachLine(path, func(lineNo int, line []byte) error {
		s, err := mss.ParseState(path, line)
		if err != nil {
			var se *mss.StateError
			if errors.As(err, &se) {
				se.Line = lineNo // the card is this one line of the file
			}
			return err
		}
		for _, f := range []struct{ name, val string }{
			{"state_id", s.StateID}, {"repo", s.Repo}, {"base_commit", s.BaseCommit}, {"state_type", s.StateType},
		} {
			if f.val == "" {
				return fmt.Errorf("field %s: missing or empty", f.name)
			}
		}
		if err := checkSpanPaths(line, s); err != nil {
			return err
		}
		if prev, dup := seen[s.StateID]; dup {
			return fmt.Errorf("field state_id: %q already defined on line %d", s.StateID, prev)
		}
		seen[s.StateID] = lineNo
		out = append(out, s)
		lines = append(lines, lineNo)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if len(out) == 0 {
		return nil, nil, fmt.Errorf("%s: no states", path)
	}
	return out, lines, nil
}

// checkSpanPaths refuses an observed span whose path, as the line writes
// it, is not the clean path mss.ParseState made of it ("./a.py",
// "d\\e.py", "d//e.py"): score.py counts an answer unit as already read
// by comparing its path with the span's as written, so the cleaned path
// would count other units than score.py counts.
func checkSpanPaths(line []byte, s *mss.State) error {
	var raw struct {
		ObservedSpans []struct {
			Path string `json:"path"`
		} `json:"observed_spans"`
	}
	if err := json.Unmarshal(mss.TrimByteOrderMark(line), &raw); err != nil {
		return err // mss.ParseState took the line: not met
	}
	for i, sp := range raw.ObservedSpans {
		if i < len(s.ObservedSpans) && sp.Path != s.ObservedSpans[i].Path {
			return fmt.Errorf("field observed_spans[%d].path: %q is not written as the clean path %q; write it so (score.py compares it as written with the answer's paths)", i, sp.Path, s.ObservedSpans[i].Path)
		}
	}
	return nil
}

// eachLine calls fn for each non-blank line of a JSONL file, prefixing any
// error with file:line.
func eachLine(path string, fn func(lineNo int, line []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), maxLine)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if err := fn(n, line); err != nil {
			if se := (*mss.StateError)(nil); errors.As(err, &se) && se.Source != "" {
				return err // it names the file and line itself
			}
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s:%d: %w", path, n+1, err)
	}
	return nil
}

// decodeLine unmarshals one JSON object into v (a pointer to a struct),
// naming the offending field when a value has the wrong type. What
// encoding/json would take without a word is refused as state cards refuse
// it: text that is not UTF-8, a key given twice (it keeps the last value),
// a key that is a field only by folding case ("Units" for "units"), or no
// field at all ("unit"), in v's object and in every object within it; and
// a null where it would read an absent list or number (score.py fails on
// such a null).
func decodeLine(line []byte, v any) error {
	if se := mss.CheckUTF8(line); se != nil {
		return fieldError(se.Field, se.Msg)
	}
	err := json.Unmarshal(line, v)
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case err == nil:
	case errors.As(err, &te) && te.Field == "":
		return fmt.Errorf("want a JSON object, got JSON %s", te.Value)
	case errors.As(err, &te):
		return fmt.Errorf("field %s: got JSON %s, want %s", mss.ElementField(line, te.Field, te.Offset), te.Value, te.Type)
	case errors.As(err, &se):
		return fmt.Errorf("malformed JSON at byte %d: %v", se.Offset, err)
	default:
		return err
	}
	if bytes.Equal(line, []byte("null")) {
		return fmt.Errorf("want a JSON object, got JSON null")
	}
	t := reflect.TypeOf(v)
	if se := mss.CheckKeys(line, keysOf(t).own...); se != nil {
		return fieldError(se.Field, se.Msg)
	}
	// The objects within are looked at one by one only when a key may
	// fold to a field's name or a null may stand for a list.
	_, _, _, folded := jsonkey.Folded(line, keysOf(t).all)
	if folded || bytes.Contains(line, []byte("null")) {
		if err := checkObject(line, t, "", folded); err != nil {
			return err
		}
	}
	// A key that is no field where it stands (a misspelt "unit") is
	// refused: encoding/json would drop it, and the field it was meant
	// for would read as absent.
	if field, _, found := jsonkey.Unknown(line, v); found {
		return fieldError(field, "unknown field")
	}
	return nil
}

// structKeys are the JSON keys of a struct type: its own, and those of
// every struct within it too.
type structKeys struct{ own, all []string }

// keys holds each type's structKeys, derived once (keysOf).
var keys sync.Map // reflect.Type -> *structKeys

// keysOf returns the keys of the struct t is, or points to or holds a
// list of.
func keysOf(t reflect.Type) *structKeys {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	if k, ok := keys.Load(t); ok {
		return k.(*structKeys)
	}
	k := &structKeys{}
	if t.Kind() == reflect.Struct {
		k.own = jsonkey.Names(reflect.New(t).Interface())
		k.all = append([]string(nil), k.own...)
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); f.IsExported() {
				k.all = append(k.all, keysOf(f.Type).all...)
			}
		}
	}
	keys.Store(t, k)
	return k
}

// checkObject refuses a null for a list or pointer field (encoding/json
// would read it as absent) in the object data holds and in each object
// within it; when some key folds, it runs mss.CheckKeys, the state cards'
// check, on each object within with the keys of its struct t as its
// fields. field is data's place in the line ("" for the line itself).
func checkObject(data []byte, t reflect.Type, field string, folded bool) error {
	switch t.Kind() {
	case reflect.Pointer:
		return checkObject(data, t.Elem(), field, folded)
	case reflect.Slice, reflect.Array:
		var elems []json.RawMessage
		json.Unmarshal(data, &elems) // it decoded into t: a list or null
		for i, e := range elems {
			if err := checkObject(e, t.Elem(), fmt.Sprintf("%s[%d]", field, i), folded); err != nil {
				return err
			}
		}
		return nil
	case reflect.Struct:
	default:
		return nil
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) != nil || obj == nil {
		return nil
	}
	if folded && field != "" { // decodeLine checked the line itself
		if se := mss.CheckKeys(data, keysOf(t).own...); se != nil {
			return fieldError(joinField(field, se.Field), se.Msg)
		}
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, ok := jsonkey.FieldName(f)
		if !ok {
			continue
		}
		raw, ok := obj[name]
		if !ok {
			continue
		}
		if k := f.Type.Kind(); string(raw) == "null" && (k == reflect.Pointer || k == reflect.Slice || k == reflect.Map) {
			return fieldError(joinField(field, name), "null; want a value")
		}
		if err := checkObject(raw, f.Type, joinField(field, name), folded); err != nil {
			return err
		}
	}
	return nil
}

func joinField(parent, field string) string {
	switch {
	case parent == "":
		return field
	case field == "":
		return parent
	}
	return parent + "." + field
}

func fieldError(field, msg string) error {
	if field == "" {
		return errors.New(msg)
	}
	return fmt.Errorf("field %s: %s", field, msg)
}
