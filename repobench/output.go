package repobench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/missingcomplement/mss/internal/safefile"
)

// Resume reads a predictions file the runner is about to append to and
// returns the predictions it already holds, by state id. A last line cut
// short by a killed run (no final newline, not valid JSON) is removed from
// the file and reported through notice; any other malformed line, a line
// for another method, or a state the states file does not hold is an error.
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
	if n := len(data); n > 0 && data[n-1] != '\n' {
		cut := bytes.LastIndexByte(data, '\n') + 1
		tail := data[cut:]
		if _, perr := parsePrediction(bytes.TrimSpace(tail)); perr != nil {
			lineNo := bytes.Count(data[:cut], []byte("\n")) + 1
			if err := os.Truncate(path, int64(cut)); err != nil {
				return nil, fmt.Errorf("%s: dropping torn line %d: %w", path, lineNo, err)
			}
			notice(fmt.Sprintf("%s:%d: dropped a torn last line (%d bytes) left by an interrupted run", path, lineNo, len(tail)))
			data = data[:cut]
		} else {
			// A complete record whose newline was lost: keep it.
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
		}
	}
	for i, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		p, err := parsePrediction(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
		if p.Method != method {
			return nil, fmt.Errorf("%s:%d: field method: %q, but this run writes %q; use another --output", path, i+1, p.Method, method)
		}
		if !known[p.StateID] {
			return nil, fmt.Errorf("%s:%d: field state_id: %q is not in the states file; use another --output", path, i+1, p.StateID)
		}
		done[p.StateID] = p
	}
	return done, nil
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
