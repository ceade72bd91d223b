package serbench

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/missingcomplement/mss"
)

// Label is one state's certificate. Labels come either flat or nested
// under graded_labels (with state_id on the envelope, inside, or in both
// places naming one state); both load to the same Label.
type Label struct {
	Line        int // line of the labels file it came from
	Cert        mss.Certificate
	OptionalIDs []string // optional_evidence_ids: helpful, never required

	// prefix is "graded_labels." for nested rows, so messages name the
	// field where it is.
	prefix string
}

// GoldIDs returns the distinct ids of every required group and every
// alternative set, sorted by first appearance.
func (l *Label) GoldIDs() []string {
	seen := map[string]bool{}
	var out []string
	add := func(id string) {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	for _, g := range l.Cert.Groups {
		for _, id := range g.AcceptableIDs {
			add(id)
		}
	}
	for _, set := range l.Cert.AlternativeSets {
		for _, id := range set {
			add(id)
		}
	}
	return out
}

// Labels is a loaded labels file.
type Labels struct {
	File   string
	Labels []*Label
	byID   map[string]*Label
}

// Get returns the label of a state, or nil.
func (s *Labels) Get(stateID string) *Label { return s.byID[stateID] }

// LoadLabels reads a labels file (.jsonl or .jsonl.gz). As with LoadItems,
// row problems come back as Errors alongside the rows that could be read.
//
// Every rule the release applies to a certificate on its own is checked
// here: a non-empty list of required groups; per group a non-empty role,
// an optional but unique non-empty group_id, a non-empty list of distinct
// acceptable ids, an integer minimum_required between 1 and the number of
// acceptable ids, and a finite positive necessity_weight (and a finite
// total of them); alternative sets non-empty lists of distinct ids;
// optional and observed ids distinct.
func LoadLabels(name string) (*Labels, error) {
	rc, err := Open(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return ReadLabels(rc, name)
}

// ReadLabels reads labels from r; name is used in messages.
func ReadLabels(r io.Reader, name string) (*Labels, error) {
	e := &errs{file: name}
	lines, err := readLines(r, e)
	if err != nil {
		return nil, err
	}
	s := &Labels{File: name, byID: map[string]*Label{}}
	first := map[string]int{}
	for _, ln := range lines {
		l := parseLabel(ln, e)
		if l == nil {
			continue
		}
		id := l.Cert.StateID
		if prev, dup := first[id]; dup {
			e.add(ln.n, l.prefix+"state_id", "duplicate label state_id %q (first on line %d)", id, prev)
			continue
		}
		first[id] = ln.n
		s.Labels = append(s.Labels, l)
		s.byID[id] = l
	}
	if len(lines) == 0 && len(e.list) == 0 {
		e.add(0, "", "no labels: the file is empty")
	}
	return s, e.list.Err()
}

func parseLabel(ln line, e *errs) *Label {
	r := &fieldReader{e: e, line: ln.n, obj: ln.obj}
	l := &Label{Line: ln.n}
	if raw, ok := ln.obj["graded_labels"]; ok && !isNull(raw) {
		top := r
		if r = top.sub("graded_labels", raw); r == nil {
			return nil
		}
		l.prefix = "graded_labels."
		if _, inner := r.obj["state_id"]; !inner {
			// Some exports keep state_id on the envelope only.
			return finishLabel(r, l, top.str("state_id"), "state_id")
		}
		// Others keep it in both places, where it names one state.
		n := r.problems()
		id := r.str("state_id")
		if _, outer := top.obj["state_id"]; outer && r.problems() == n {
			if env := top.str("state_id"); r.problems() == n && env != id {
				r.fail(r.path("state_id"), "%q, but the envelope's state_id is %q: which state the label is for is unclear", id, env)
				return nil
			}
		}
		return finishLabel(r, l, id, r.path("state_id"))
	}
	return finishLabel(r, l, r.str("state_id"), r.path("state_id"))
}

func finishLabel(r *fieldReader, l *Label, id, idField string) *Label {
	if strings.TrimSpace(id) == "" {
		r.fail(idField, "must be a non-empty string")
		return nil
	}
	c := &l.Cert
	c.StateID = id

	groupsField := r.path("required_evidence_groups")
	n := r.problems()
	groups, _ := r.list("required_evidence_groups")
	if len(groups) == 0 && r.problems() == n {
		r.fail(groupsField, "must be a non-empty list")
	}
	groupIDs := map[string]int{}
	var total float64
	for i, raw := range groups {
		gr := r.sub(fmt.Sprintf("%s[%d]", groupsField, i), raw)
		if gr == nil {
			continue
		}
		g := parseGroup(gr, i, groupIDs)
		c.Groups = append(c.Groups, g)
		total += g.NecessityWeight
	}
	// Each weight is finite, but the scores divide by their total.
	if math.IsInf(total, 0) || math.IsNaN(total) {
		r.fail(groupsField, "the necessity_weights sum to %v: the total must be finite", total)
	}

	if raw, ok := r.obj["alternative_minimal_sets"]; ok {
		field := r.path("alternative_minimal_sets")
		sets, ok := rawList(raw)
		if !ok {
			r.fail(field, "must be a list, not %s", kindOf(raw))
		}
		for i, raw := range sets {
			sf := fmt.Sprintf("%s[%d]", field, i)
			n := r.problems()
			set := r.strings(sf, raw)
			if r.problems() == n && len(set) == 0 {
				r.fail(sf, "must not be empty")
			}
			c.AlternativeSets = append(c.AlternativeSets, checkIDs(r, sf, set))
		}
	}
	l.OptionalIDs = uniqueIDs(r, "optional_evidence_ids", false)
	c.ObservedIDs = uniqueIDs(r, "observed_evidence_ids", false)
	return l
}

// parseGroup reads one required group; index is its position and ids the
// group_ids seen so far in the certificate.
func parseGroup(gr *fieldReader, index int, ids map[string]int) mss.Group {
	g := mss.Group{MinimumRequired: 1, NecessityWeight: 1}

	n := gr.problems()
	g.Role = gr.str("role")
	if gr.problems() == n && strings.TrimSpace(g.Role) == "" {
		gr.fail(gr.path("role"), "must be a non-empty string")
	}

	if raw, ok := gr.obj["group_id"]; ok && !isNull(raw) {
		n := gr.problems()
		g.GroupID = gr.str("group_id")
		switch {
		case gr.problems() != n:
		case strings.TrimSpace(g.GroupID) == "":
			gr.fail(gr.path("group_id"), "must be a non-empty string")
		default:
			if j, dup := ids[g.GroupID]; dup {
				gr.fail(gr.path("group_id"), "duplicate group_id %q (also group %d)", g.GroupID, j)
			} else {
				ids[g.GroupID] = index
			}
		}
	}

	accField := gr.path("acceptable_evidence_ids")
	var acc []string
	if raw, ok := gr.obj["acceptable_evidence_ids"]; !ok || isNull(raw) {
		gr.fail(accField, "missing (a non-empty list of evidence ids)")
	} else {
		n := gr.problems()
		acc = gr.strings(accField, raw)
		if gr.problems() == n && len(acc) == 0 {
			gr.fail(accField, "must not be empty")
		}
	}
	g.AcceptableIDs = checkIDs(gr, accField, acc)

	if min, ok := gr.integer("minimum_required"); ok {
		g.MinimumRequired = min
		switch {
		case min < 1:
			gr.fail(gr.path("minimum_required"), "must be a positive integer, not %d", min)
		case min > len(acc):
			gr.fail(gr.path("minimum_required"), "%d exceeds the %d acceptable evidence ids", min, len(acc))
		}
	} else if raw, has := gr.obj["minimum_required"]; !has || isNull(raw) {
		gr.fail(gr.path("minimum_required"), "missing (a positive integer)")
	}

	if w, ok := gr.number("necessity_weight"); ok {
		g.NecessityWeight = w
		if math.IsInf(w, 0) || math.IsNaN(w) || w <= 0 {
			gr.fail(gr.path("necessity_weight"), "must be finite and positive, not %v", w)
		}
	} else if raw, has := gr.obj["necessity_weight"]; !has || isNull(raw) {
		gr.fail(gr.path("necessity_weight"), "missing (a positive number)")
	}
	return g
}
