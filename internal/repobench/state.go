package repobench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/missingcomplement/mss"
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

// decodeLine unmarshals one JSON object, naming the offending field when a
// value has the wrong type.
func decodeLine(line []byte, v any) error {
	err := json.Unmarshal(line, v)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Errorf("field %s: got JSON %s, want %s", te.Field, te.Value, te.Type)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("malformed JSON at byte %d: %v", se.Offset, err)
	}
	return err
}
