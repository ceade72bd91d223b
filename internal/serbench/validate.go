package serbench

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Options tunes validation.
type Options struct {
	// Partial allows a method to leave states without a prediction. Keep it
	// off for reported results: omitting failed states inflates scores.
	Partial bool
}

// Validate checks the rules of the release contract that join files. The
// rules that concern one file alone are checked by its loader.
//
// With items, every label must be for a known state and name only pool
// units; every state needs a label; a label's observed ids must equal the
// item's; no required or alternative id may be observed. Every prediction
// must be for a known state and rank only pool units of that state (an
// observed unit is a valid, if wasted, slot: it is never removed). Unless
// opt.Partial, each method must predict every state.
//
// Without items (labels only), the labelled states are the known states
// and pool membership is not checked.
func Validate(items *Items, labels *Labels, preds *Predictions, opt Options) Errors {
	var out Errors
	if items != nil && labels != nil {
		out = append(out, validateLabels(items, labels)...)
	}
	if preds != nil && (items != nil || labels != nil) {
		out = append(out, validatePredictions(items, labels, preds, opt)...)
	}
	return out
}

func validateLabels(items *Items, labels *Labels) Errors {
	e := &errs{file: labels.File}
	for _, l := range labels.Labels {
		it := items.Get(l.Cert.StateID)
		if it == nil {
			e.add(l.Line, l.prefix+"state_id", "unknown state_id %q: not in %s", l.Cert.StateID, items.File)
			continue
		}
		checkPool := func(field string, ids []string) {
			if out := notInPool(it, ids); len(out) > 0 {
				e.add(l.Line, l.prefix+field, "evidence id(s) not in the candidate pool of %q: %s", l.Cert.StateID, quoteList(out))
			}
		}
		for i, g := range l.Cert.Groups {
			checkPool(fmt.Sprintf("required_evidence_groups[%d].acceptable_evidence_ids", i), g.AcceptableIDs)
		}
		for i, set := range l.Cert.AlternativeSets {
			checkPool(fmt.Sprintf("alternative_minimal_sets[%d]", i), set)
		}
		checkPool("optional_evidence_ids", l.OptionalIDs)

		if !sameSet(l.Cert.ObservedIDs, it.State.ObservedEvidenceIDs) {
			e.add(l.Line, l.prefix+"observed_evidence_ids", "disagree with %s:%d: %s here, %s there",
				items.File, it.Line, quoteList(l.Cert.ObservedIDs), quoteList(it.State.ObservedEvidenceIDs))
		}
		observed := setOf(it.State.ObservedEvidenceIDs)
		var overlap []string
		for _, id := range l.GoldIDs() {
			if observed[id] {
				overlap = append(overlap, id)
			}
		}
		if len(overlap) > 0 {
			e.add(l.Line, l.prefix+"required_evidence_groups", "residual gold overlaps observed evidence: %s", quoteList(overlap))
		}
	}
	// Every state needs its certificate.
	ie := &errs{file: items.File}
	for _, it := range items.Items {
		if labels.Get(it.State.StateID) == nil {
			ie.add(it.Line, "state_id", "state %q has no label in %s", it.State.StateID, labels.File)
		}
	}
	return append(e.list, ie.list...)
}

func validatePredictions(items *Items, labels *Labels, preds *Predictions, opt Options) Errors {
	e := &errs{file: preds.File}
	known := func(id string) bool {
		if items != nil {
			return items.Get(id) != nil
		}
		return labels.Get(id) != nil
	}
	var universe string
	if items != nil {
		universe = items.File
	} else {
		universe = labels.File
	}
	covered := map[string]map[string]bool{} // method -> states
	for _, p := range preds.Predictions {
		if !known(p.StateID) {
			e.add(p.Line, "state_id", "unknown state_id %q: not in %s", p.StateID, universe)
			continue
		}
		if covered[p.Method] == nil {
			covered[p.Method] = map[string]bool{}
		}
		covered[p.Method][p.StateID] = true
		if items == nil {
			continue
		}
		it := items.Get(p.StateID)
		for i, id := range p.RankedIDs {
			if !it.InPool(id) {
				e.add(p.Line, fmt.Sprintf("ranked_evidence_ids[%d]", i), "evidence id %q is not a candidate of state %q", id, p.StateID)
			}
		}
	}
	if opt.Partial {
		return e.list
	}
	// Coverage: report each missing state at the line that defines it.
	methods := preds.Methods()
	ue := &errs{file: universe}
	type state struct {
		id   string
		line int
	}
	var states []state
	if items != nil {
		for _, it := range items.Items {
			states = append(states, state{it.State.StateID, it.Line})
		}
	} else {
		for _, l := range labels.Labels {
			states = append(states, state{l.Cert.StateID, l.Line})
		}
	}
	for _, m := range methods {
		if covered[m] == nil {
			continue // every row of the method was for an unknown state
		}
		for _, s := range states {
			if !covered[m][s.id] {
				ue.add(s.line, "state_id", "method %q has no prediction for state %q in %s", m, s.id, preds.File)
			}
		}
	}
	sort.SliceStable(ue.list, func(i, j int) bool { return ue.list[i].Line < ue.list[j].Line })
	return append(e.list, ue.list...)
}

func notInPool(it *Item, ids []string) []string {
	var out []string
	for _, id := range ids {
		if !it.InPool(id) {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

func setOf(ids []string) map[string]bool {
	m := make(map[string]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}

func sameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(slices.Compact(x), slices.Compact(y))
}

func quoteList(ids []string) string {
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = fmt.Sprintf("%q", id)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
