package repobench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/missingcomplement/mss/internal/safefile"
)

// Resume reads a predictions file the runner is about to append to and
// returns the predictions it already holds, by state id. Every complete
// line must be a prediction of method for a state the states file holds,
// made live with one configuration (a replay's answers carry no timings),
// each state once, or it is an error and the file is left as it is. A
// last line without its newline that is the start of a prediction record
// (a killed run cut it short) is removed from the file and reported
// through notice; one that is a whole record gets its newline back;
// anything else is an error.
// A missing file is an empty result.
func Resume(path, method string, known map[string]bool, notice func(string)) (map[string]*Prediction, error) {
	done := map[string]*Prediction{}
	// Its lines are checked below; a device or a link is never an output.
	if err := safefile.Writable(path, nil); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return done, nil
	}
	if err != nil {
		return nil, err
	}
	cut := len(data)
	if cut > 0 && data[cut-1] != '\n' {
		cut = bytes.LastIndexByte(data, '\n') + 1
	}
	lineNo := 0
	lineOf := map[string]int{}
	var config *string
	take := func(line []byte) error {
		p, err := parsePrediction(line)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", path, lineNo, err)
		}
		if p.Method != method {
			return fmt.Errorf("%s:%d: field method: %q, but this run writes %q; use another --output", path, lineNo, p.Method, method)
		}
		if !known[p.StateID] {
			return fmt.Errorf("%s:%d: field state_id: %q is not in the states file; use another --output", path, lineNo, p.StateID)
		}
		// A run answers a state once: a second answer is another run's,
		// and the file rewritten in states-file order would keep one of
		// the two without a word.
		if prev, again := lineOf[p.StateID]; again {
			return fmt.Errorf("%s:%d: field state_id: %q answered already on line %d; use another --output", path, lineNo, p.StateID, prev)
		}
		// A live run times every retrieval (to the microsecond, never
		// 0); a replay from a cache records no timing.
		if p.RetrieveMS == 0 {
			return fmt.Errorf("%s:%d: field retrieve_ms: missing, so a replay's answer (bench tune --replay), not a live run's; use another --output", path, lineNo)
		}
		if config == nil {
			config = &p.Config
		} else if p.Config != *config {
			return fmt.Errorf("%s:%d: field config: %q, but the lines before it have %q: answers of two configurations; use another --output", path, lineNo, p.Config, *config)
		}
		done[p.StateID] = p
		lineOf[p.StateID] = lineNo
		return nil
	}
	for _, line := range bytes.Split(data[:cut], []byte("\n")) {
		lineNo++
		if line = bytes.TrimSpace(line); len(line) > 0 {
			if err := take(line); err != nil {
				return nil, err
			}
		}
	}
	if cut == len(data) {
		return done, nil
	}
	lineNo = bytes.Count(data[:cut], []byte("\n")) + 1
	tail := data[cut:]
	if _, perr := parsePrediction(bytes.TrimSpace(tail)); perr == nil {
		// A complete record whose newline was lost: keep it.
		if err := take(bytes.TrimSpace(tail)); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return nil, err
		}
		_, werr := f.Write([]byte("\n"))
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return nil, fmt.Errorf("%s: %w", path, werr)
		}
		return done, nil
	}
	if !tornRecord(tail, predictionStart, len(done) == 0) {
		return nil, fmt.Errorf("%s:%d: not a prediction record, and the file does not end with a newline: not a file this command writes; use another --output", path, lineNo)
	}
	if err := os.Truncate(path, int64(cut)); err != nil {
		return nil, fmt.Errorf("%s: dropping torn line %d: %w", path, lineNo, err)
	}
	notice(fmt.Sprintf("%s:%d: dropped a torn last line (%d bytes) left by an interrupted run", path, lineNo, len(tail)))
	return done, nil
}

// ReplayedCheck accepts a file a replay answering as method (its label)
// may replace, an earlier replay's output of it: empty, or every line a
// prediction of method holding only fields a replay writes. A line of
// another method, a key no prediction has, or what only a live run
// records (the timings retrieve_ms and select_ms, a fallback flag) is
// refused, naming the line: such a file is a live run's or someone
// else's, and a replay's answers would take its place without a word.
func ReplayedCheck(method string) safefile.Check {
	return func(data []byte) error {
		for i, line := range bytes.Split(data, []byte("\n")) {
			if line = bytes.TrimSpace(line); len(line) == 0 {
				continue
			}
			p, err := parsePrediction(line)
			if err != nil {
				return fmt.Errorf("line %d: not a prediction record (%v), so not a file a replay writes", i+1, err)
			}
			if p.Method != method {
				return fmt.Errorf("line %d: field method: %q, but this replay writes %q", i+1, p.Method, method)
			}
			var rec map[string]json.RawMessage
			if err := json.Unmarshal(line, &rec); err != nil {
				return fmt.Errorf("line %d: %w", i+1, err)
			}
			// A key no prediction has was refused above.
			for _, k := range slices.Sorted(maps.Keys(rec)) {
				if slices.Contains(liveOnlyKeys, k) {
					return fmt.Errorf("line %d: field %s: a live run's record (a replay records no timings and no fallback), so not a file a replay writes", i+1, k)
				}
			}
		}
		return nil
	}
}

// liveOnlyKeys are the keys of a prediction that only a live run writes.
var liveOnlyKeys = []string{"retrieve_ms", "select_ms", "fallback"}

// predictionStart is how every line appendLine writes for a Prediction
// begins (its first field).
const predictionStart = `{"state_id":`

// tornRecord reports whether tail, a last line without its newline, can
// be the start of a record whose encoding begins with start: what a run
// killed while writing it leaves. A whole JSON value is no torn record,
// and a file with no whole record before tail (alone) must hold all of
// start: one that holds less, or a JSON value of its own, was not
// written by the command and is left as it is.
func tornRecord(tail []byte, start string, alone bool) bool {
	if len(tail) == 0 || json.Valid(tail) {
		return false
	}
	if len(tail) <= len(start) {
		return !alone && strings.HasPrefix(start, string(tail))
	}
	return strings.HasPrefix(string(tail), start)
}

// appendLine writes one JSON record and its newline in a single write, so
// an interrupted run leaves at most one torn line.
func appendLine(w io.Writer, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	data = append(data, '\n')
	_, err = w.Write(data)
	return err
}

// rewriteInOrder replaces the predictions file with its records in
// states-file order (temp file, then rename).
func rewriteInOrder(path string, order []string, preds map[string]*Prediction) error {
	var buf bytes.Buffer
	for _, id := range order {
		if p := preds[id]; p != nil {
			if err := appendLine(&buf, p); err != nil {
				return err
			}
		}
	}
	return safefile.Replace(path, buf.Bytes(), nil)
}
