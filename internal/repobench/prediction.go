package repobench

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/missingcomplement/mss"
)

// PredUnit is one returned unit as a prediction names it.
type PredUnit struct {
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Symbol    string `json:"symbol,omitempty"`
	// Symbols lists every symbol the unit holds, in line order, when it
	// holds more than its Symbol (a unit grown into its neighbours).
	Symbols []string `json:"symbols,omitempty"`
	Tokens  int      `json:"tokens,omitempty"` // the method's own count; scoring recomputes it
}

// predUnit is a delivered unit as a prediction names it.
func predUnit(u *mss.Unit) PredUnit {
	p := PredUnit{Path: u.Path, StartLine: u.StartLine, EndLine: u.EndLine, Symbol: u.Symbol, Tokens: u.Tokens}
	if len(u.Symbols) > 1 || len(u.Symbols) == 1 && u.Symbols[0] != u.Symbol {
		p.Symbols = u.Symbols
	}
	return p
}

// Prediction is one line of a predictions file: a method's units for one
// state, in rank order. The runner also records what the answer cost.
type Prediction struct {
	StateID string     `json:"state_id"`
	Method  string     `json:"method"`
	Config  string     `json:"config,omitempty"`
	Units   []PredUnit `json:"units"`
	// Candidates is how many candidates retrieval offered the method.
	Candidates int `json:"candidates,omitempty"`
	// RetrieveMS and SelectMS time retrieval and selection for this state
	// (index building excluded). They are the only fields that vary
	// between runs.
	RetrieveMS float64 `json:"retrieve_ms,omitempty"`
	SelectMS   float64 `json:"select_ms,omitempty"`
	// Fallback flags a row a model method answered with its fallback
	// policy (written only with RunOptions.AllowFallback).
	Fallback *mss.Fallback `json:"fallback,omitempty"`
}

// LatencyMS is retrieval plus selection time.
func (p *Prediction) LatencyMS() float64 { return p.RetrieveMS + p.SelectMS }

// PredictionSet holds predictions by method and state id, as score.py
// gathers them: a later line for the same method and state replaces an
// earlier one, and lines for states outside the states file are dropped.
type PredictionSet struct {
	ByMethod map[string]map[string]*Prediction
	// Unknown counts, per file, lines whose state_id the states file does
	// not hold; UnknownExample names the first of them.
	Unknown        map[string]int
	UnknownExample map[string]string
}

// Methods lists the methods in the set, sorted.
func (ps *PredictionSet) Methods() []string {
	var out []string
	for m := range ps.ByMethod {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// LoadPredictionsFor reads predictions files as the scorers do: lines for
// states the states file does not hold are ignored, as score.py ignores
// them, and reported on w, one line a file; no prediction for any known
// state is an error.
func LoadPredictionsFor(w io.Writer, paths []string, known map[string]bool) (*PredictionSet, error) {
	ps, err := LoadPredictions(paths, known)
	if err != nil {
		return nil, err
	}
	var files []string
	for f := range ps.Unknown {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		fmt.Fprintf(w, "%s: ignored %d predictions for states not in the states file (first: %s)\n", f, ps.Unknown[f], ps.UnknownExample[f])
	}
	if len(ps.ByMethod) == 0 {
		return nil, fmt.Errorf("no predictions for any state of the states file in %v", paths)
	}
	return ps, nil
}

// LoadPredictions reads predictions files against a set of known state ids.
func LoadPredictions(paths []string, known map[string]bool) (*PredictionSet, error) {
	ps := &PredictionSet{
		ByMethod:       map[string]map[string]*Prediction{},
		Unknown:        map[string]int{},
		UnknownExample: map[string]string{},
	}
	for _, path := range paths {
		err := eachLine(path, func(_ int, line []byte) error {
			p, err := parsePrediction(line)
			if err != nil {
				return err
			}
			if !known[p.StateID] {
				if ps.Unknown[path] == 0 {
					ps.UnknownExample[path] = p.StateID
				}
				ps.Unknown[path]++
				return nil
			}
			m := ps.ByMethod[p.Method]
			if m == nil {
				m = map[string]*Prediction{}
				ps.ByMethod[p.Method] = m
			}
			m[p.StateID] = p
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return ps, nil
}

// maxMS is the longest time a prediction may record for retrieval or
// selection: a day. No state takes that long, and a time past it (up to
// 1e308) would be printed as a latency figure of hundreds of digits.
const maxMS = 24 * 60 * 60 * 1000

// parsePrediction decodes and checks one predictions line. It needs
// units, [] for an empty answer, and every unit path, start_line and
// end_line (score.py fails without them). The
// timings, when given, are 0 ms or more and at most a day: a negative one
// was left out of the latency figures, and a huge one made them absurd.
// The counts (candidates, a unit's tokens) are 0 or more.
func parsePrediction(line []byte) (*Prediction, error) {
	var p Prediction
	if err := decodeLine(line, &p); err != nil {
		return nil, err
	}
	if p.StateID == "" {
		return nil, fmt.Errorf("field state_id: missing or empty")
	}
	if p.Method == "" {
		return nil, fmt.Errorf("field method: missing or empty")
	}
	if p.Units == nil {
		// score.py reads a missing list as an empty answer; a line
		// without one is more likely a broken writer's than an abstention.
		return nil, fmt.Errorf("field units: missing; want the answer's units ([] for none)")
	}
	for _, f := range []struct {
		name string
		ms   float64
	}{{"retrieve_ms", p.RetrieveMS}, {"select_ms", p.SelectMS}} {
		if f.ms < 0 || f.ms > maxMS {
			return nil, fmt.Errorf("field %s: %v; want a time of 0 ms or more, up to a day (%d ms)", f.name, f.ms, maxMS)
		}
	}
	if p.Candidates < 0 {
		return nil, fmt.Errorf("field candidates: %d; want a count of 0 or more", p.Candidates)
	}
	var presence struct {
		Units []struct {
			Start *int `json:"start_line"`
			End   *int `json:"end_line"`
		} `json:"units"`
	}
	if err := json.Unmarshal(line, &presence); err != nil {
		return nil, err // decodeLine took the line: not met
	}
	for i, u := range p.Units {
		if u.Path == "" {
			return nil, fmt.Errorf("field units[%d].path: missing or empty", i)
		}
		if presence.Units[i].Start == nil {
			return nil, fmt.Errorf("field units[%d].start_line: missing", i)
		}
		if presence.Units[i].End == nil {
			return nil, fmt.Errorf("field units[%d].end_line: missing", i)
		}
		if u.Tokens < 0 {
			return nil, fmt.Errorf("field units[%d].tokens: %d; want a count of 0 or more", i, u.Tokens)
		}
	}
	return &p, nil
}
