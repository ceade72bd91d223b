package repobench

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// LineGroup is one edited code region of a certificate: covered when a unit
// on Path overlaps any of Lines.
type LineGroup struct {
	Path            string   `json:"path"`
	Symbol          string   `json:"symbol,omitempty"`
	Span            []int    `json:"span,omitempty"`
	Lines           [][2]int `json:"lines"`
	GroupID         string   `json:"group_id,omitempty"`
	MinimumRequired *int     `json:"minimum_required,omitempty"` // 1 when given (score.py: one overlapping unit covers a group)
	NecessityWeight *float64 `json:"necessity_weight,omitempty"` // nil means 1
	Role            string   `json:"role,omitempty"`
}

// Weight is the group's necessity weight, 1 when the label leaves it out.
func (g *LineGroup) Weight() float64 {
	if g.NecessityWeight == nil {
		return 1
	}
	return *g.NecessityWeight
}

// Label is the certificate of one state: AND over RequiredGroups, or every
// group of any one AlternativeSets entry.
type Label struct {
	StateID         string        `json:"state_id"`
	RequiredGroups  []LineGroup   `json:"required_groups"`
	AlternativeSets [][]LineGroup `json:"alternative_sets,omitempty"`
}

// rawLabel is a label's line ranges as written: a range of another length
// decodes into [2]int without a word (zeros added, the rest dropped).
type rawLabel struct {
	RequiredGroups  []rawGroup   `json:"required_groups"`
	AlternativeSets [][]rawGroup `json:"alternative_sets"`
}

type rawGroup struct {
	Lines [][]json.RawMessage `json:"lines"`
}

// LoadLabels reads a labels file into a map by state id.
func LoadLabels(path string) (map[string]*Label, error) {
	out := map[string]*Label{}
	lineOf := map[string]int{}
	err := eachLine(path, func(lineNo int, line []byte) error {
		var l Label
		if err := decodeLine(line, &l); err != nil {
			return err
		}
		var raw rawLabel
		if err := json.Unmarshal(line, &raw); err != nil {
			return err // decodeLine took the line: not met
		}
		if l.StateID == "" {
			return fmt.Errorf("field state_id: missing or empty")
		}
		if prev, dup := lineOf[l.StateID]; dup {
			return fmt.Errorf("field state_id: %q already defined on line %d", l.StateID, prev)
		}
		if len(l.RequiredGroups) == 0 {
			return fmt.Errorf("field required_groups: empty")
		}
		check := func(field string, g *LineGroup, r *rawGroup) error {
			if g.Path == "" {
				return fmt.Errorf("field %s.path: missing or empty", field)
			}
			if strings.ContainsRune(g.Path, 0) {
				// No file's path holds one; score.py marks a unit that
				// names no file with such a path, and would count it
				// as covering the group.
				return fmt.Errorf("field %s.path: %q holds a NUL character, which no file's path does", field, g.Path)
			}
			if len(g.Lines) == 0 {
				return fmt.Errorf("field %s.lines: empty", field)
			}
			for k, lr := range g.Lines {
				if n := len(r.Lines[k]); n != 2 {
					return fmt.Errorf("field %s.lines[%d]: want two numbers, [first line, last line], got %d", field, k, n)
				}
				for j, v := range r.Lines[k] {
					if string(v) == "null" {
						// encoding/json leaves the number 0 for it.
						return fmt.Errorf("field %s.lines[%d][%d]: null; want a line number", field, k, j)
					}
				}
				if lr[0] < 1 || lr[1] < lr[0] {
					return fmt.Errorf("field %s.lines[%d]: [%d, %d] is not a 1-based range of lines", field, k, lr[0], lr[1])
				}
			}
			if m := g.MinimumRequired; m != nil && *m != 1 {
				return fmt.Errorf("field %s.minimum_required: %d; want 1 (a group is covered by any one unit that overlaps its lines, as score.py covers it)", field, *m)
			}
			switch w := g.Weight(); {
			case math.IsNaN(w) || math.IsInf(w, 0):
				return fmt.Errorf("field %s.necessity_weight: %v is not a finite number", field, w)
			case w < 0:
				return fmt.Errorf("field %s.necessity_weight: %v is negative; want a weight of 0 or more", field, w)
			}
			return nil
		}
		var wsum float64
		for i := range l.RequiredGroups {
			if err := check(fmt.Sprintf("required_groups[%d]", i), &l.RequiredGroups[i], &raw.RequiredGroups[i]); err != nil {
				return err
			}
			wsum += l.RequiredGroups[i].Weight()
		}
		if wsum == 0 {
			return fmt.Errorf("field required_groups: necessity weights sum to zero")
		}
		if math.IsInf(wsum, 0) {
			// necessity@k would be NaN or 0 for every answer.
			return fmt.Errorf("field required_groups: necessity weights sum to %v; want a finite total", wsum)
		}
		for i, alt := range l.AlternativeSets {
			if len(alt) == 0 {
				return fmt.Errorf("field alternative_sets[%d]: empty set", i)
			}
			for j := range alt {
				if err := check(fmt.Sprintf("alternative_sets[%d][%d]", i, j), &alt[j], &raw.AlternativeSets[i][j]); err != nil {
					return err
				}
			}
		}
		lineOf[l.StateID] = lineNo
		out[l.StateID] = &l
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
