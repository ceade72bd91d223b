package serbench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Prediction is one ranked answer of one method for one state. Config,
// when present, is any JSON value recording how the method was configured;
// scorers ignore it.
type Prediction struct {
	StateID   string          `json:"state_id"`
	Method    string          `json:"method"`
	RankedIDs []string        `json:"ranked_evidence_ids"`
	Config    json.RawMessage `json:"config,omitempty"`

	Line int `json:"-"` // line of the predictions file it came from
}

// Predictions is a loaded predictions file.
type Predictions struct {
	File        string
	Predictions []*Prediction
}

// Methods returns the distinct method names in order of first appearance.
func (s *Predictions) Methods() []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range s.Predictions {
		if !seen[p.Method] {
			seen[p.Method] = true
			out = append(out, p.Method)
		}
	}
	return out
}

// LoadPredictions reads a predictions file (.jsonl or .jsonl.gz). Each row
// must have a non-empty state_id and method and a list of distinct
// non-empty ranked_evidence_ids (an empty list is a valid abstention), and
// no state/method pair may repeat. As with LoadItems, row problems come
// back as Errors alongside the rows that could be read.
func LoadPredictions(name string) (*Predictions, error) {
	rc, err := Open(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return ReadPredictions(rc, name)
}

// ReadPredictions reads predictions from r; name is used in messages.
func ReadPredictions(r io.Reader, name string) (*Predictions, error) {
	e := &errs{file: name}
	lines, err := readLines(r, e)
	if err != nil {
		return nil, err
	}
	s := &Predictions{File: name}
	type key struct{ state, method string }
	first := map[key]int{}
	for _, ln := range lines {
		p := parsePrediction(ln, e)
		if p == nil {
			continue
		}
		k := key{p.StateID, p.Method}
		if prev, dup := first[k]; dup {
			e.add(ln.n, "state_id", "duplicate prediction for state_id %q and method %q (first on line %d)", p.StateID, p.Method, prev)
			continue
		}
		first[k] = ln.n
		s.Predictions = append(s.Predictions, p)
	}
	if len(lines) == 0 && len(e.list) == 0 {
		e.add(0, "", "no predictions: the file is empty")
	}
	return s, e.list.Err()
}

func parsePrediction(ln line, e *errs) *Prediction {
	r := &fieldReader{e: e, line: ln.n, obj: ln.obj}
	p := &Prediction{Line: ln.n}
	n := r.problems()
	p.StateID = r.str("state_id")
	if r.problems() == n && strings.TrimSpace(p.StateID) == "" {
		r.fail("state_id", "must be a non-empty string")
	}
	n = r.problems()
	p.Method = r.str("method")
	if r.problems() == n && strings.TrimSpace(p.Method) == "" {
		r.fail("method", "must be a non-empty string")
	}
	if raw, ok := r.obj["ranked_evidence_ids"]; !ok || isNull(raw) {
		r.fail("ranked_evidence_ids", "missing (a list of evidence ids; [] abstains)")
	} else {
		p.RankedIDs = checkIDs(r, "ranked_evidence_ids", r.strings("ranked_evidence_ids", raw))
	}
	if raw, ok := r.obj["config"]; ok && !isNull(raw) {
		var b bytes.Buffer
		if err := json.Compact(&b, raw); err != nil {
			r.fail("config", "invalid JSON value")
		}
		p.Config = b.Bytes()
	}
	if strings.TrimSpace(p.StateID) == "" || strings.TrimSpace(p.Method) == "" {
		return nil
	}
	// A row with other problems is kept (they are reported), so that it
	// still counts toward its method's coverage.
	return p
}

// WritePredictions writes rows as JSON Lines, one object per row with keys
// in a fixed order.
func WritePredictions(w io.Writer, rows []*Prediction) error {
	bw := bufio.NewWriter(w)
	for _, p := range rows {
		ids := p.RankedIDs
		if ids == nil {
			ids = []string{}
		}
		q := *p
		q.RankedIDs = ids
		b, err := json.Marshal(&q)
		if err != nil {
			return fmt.Errorf("prediction for %s: %w", p.StateID, err)
		}
		bw.Write(b)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
