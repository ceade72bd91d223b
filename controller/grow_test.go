package controller

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/retrieve"
)

// TestComplementGrows checks step 5: with the engine as the request's
// source, chosen units grow into neighbouring units while the budget
// allows, never into observed lines; grow=false keeps them as chosen.
func TestComplementGrows(t *testing.T) {
	e := retrieve.NewEngine(fixture(), nil, retrieve.Options{})
	st := &mss.State{
		Issue:         "`encode_request` sends header values unquoted.",
		ObservedSpans: []mss.Span{{Path: "lib/parse.py", StartLine: 20, EndLine: 21}},
	}
	cands, err := e.Candidates(context.Background(), st, 0)
	if err != nil {
		t.Fatal(err)
	}
	run := func(settings map[string]string, budget int) *mss.Result {
		t.Helper()
		c, err := mss.NewMethod(NameComplement, mss.MethodOptions{Settings: settings})
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Select(context.Background(), &mss.Request{State: st, Candidates: cands, Budget: budget, MaxUnits: 2, Source: e})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	spans := func(res *mss.Result) map[string]string {
		out := map[string]string{}
		for _, u := range res.Units {
			out[u.Symbol] = fmt.Sprintf("%s:%d-%d", u.Path, u.StartLine, u.EndLine)
		}
		return out
	}

	plain := run(map[string]string{"grow": "false"}, 6144)
	grown := run(nil, 6144)
	if len(plain.Units) == 0 || len(grown.Units) != len(plain.Units) {
		t.Fatalf("grow changed the number of units: %d -> %d", len(plain.Units), len(grown.Units))
	}
	for i, u := range grown.Units {
		p := plain.Units[i]
		if u.Path != p.Path || u.StartLine > p.StartLine || u.EndLine < p.EndLine {
			t.Errorf("unit %d: grown %s:%d-%d does not contain chosen %s:%d-%d", i, u.Path, u.StartLine, u.EndLine, p.Path, p.StartLine, p.EndLine)
		}
		for _, o := range st.ObservedSpans {
			if u.Overlaps(o) {
				t.Errorf("grown unit %s:%d-%d reaches into observed %v", u.Path, u.StartLine, u.EndLine, o)
			}
		}
	}
	// parse_header (lines 1-3) is chosen; it grows over parse_headers
	// (10-11) and stops at the observed parse_header_value (20-21).
	if got, want := spans(grown)["parse_header"], "lib/parse.py:1-11"; got != want {
		t.Errorf("parse_header grew to %s, want %s", got, want)
	}
	var grewSome bool
	for i := range grown.Units {
		if grown.Units[i].EndLine-grown.Units[i].StartLine > plain.Units[i].EndLine-plain.Units[i].StartLine {
			grewSome = true
		}
	}
	if !grewSome {
		t.Errorf("no unit grew with a 6,144-token budget: %v", spans(grown))
	}
	// A budget the chosen set already fills leaves nothing to grow.
	tight := 0
	for _, u := range plain.Units {
		tight += u.Tokens
	}
	if d := cmp.Diff(spans(run(map[string]string{"grow": "false"}, tight)), spans(run(nil, tight))); d != "" {
		t.Errorf("a full budget still grew units (-plain +grown):\n%s", d)
	}
	if _, err := mss.NewMethod(NameComplement, mss.MethodOptions{Settings: map[string]string{"grow": "maybe"}}); err == nil {
		t.Error("grow=maybe accepted")
	}
	if _, err := mss.NewMethod(NameComplement, mss.MethodOptions{Settings: map[string]string{"grow_order": "sideways"}}); err == nil {
		t.Error("grow_order=sideways accepted")
	}
	if _, err := mss.NewMethod(NameRRFGrow, mss.MethodOptions{Settings: map[string]string{"grow_join": "sometimes"}}); err == nil {
		t.Error("grow_join=sometimes accepted")
	}
	for _, v := range []string{"-1", "far"} {
		if _, err := mss.NewMethod(NameRRFGrow, mss.MethodOptions{Settings: map[string]string{"grow_bridge": v}}); err == nil || !strings.Contains(err.Error(), "grow_bridge") {
			t.Errorf("grow_bridge=%s: error %v, want one naming the setting", v, err)
		}
	}
	if c := run(nil, 6144).Config; strings.Contains(c, "grow_bridge") {
		t.Errorf("config %q names grow_bridge, which is off", c)
	}
	if c := run(map[string]string{"grow_bridge": "40"}, 6144).Config; !strings.Contains(c, "grow_bridge=40") {
		t.Errorf("config %q does not name grow_bridge=40", c)
	}
	if _, err := mss.NewMethod(NameComplement, mss.MethodOptions{Settings: map[string]string{"grow_held_ties": "some"}}); err == nil || !strings.Contains(err.Error(), "grow_held_ties") {
		t.Errorf("grow_held_ties=some: error %v, want one naming the setting", err)
	}
	if c := run(nil, 6144).Config; strings.Contains(c, "grow_held_ties") {
		t.Errorf("config %q names grow_held_ties, which is off", c)
	}
	if c := run(map[string]string{"grow_held_ties": "true"}, 6144).Config; !strings.Contains(c, "grow_held_ties=true") {
		t.Errorf("config %q does not name grow_held_ties=true", c)
	}
	for _, v := range []string{"-1", "whole"} {
		if _, err := mss.NewMethod(NameComplement, mss.MethodOptions{Settings: map[string]string{"grow_class": v}}); err == nil || !strings.Contains(err.Error(), "grow_class") {
			t.Errorf("grow_class=%s: error %v, want one naming the setting", v, err)
		}
	}
	if c := run(nil, 6144).Config; !strings.Contains(c, "grow_class=1500") {
		t.Errorf("config %q does not name the default grow_class=1500", c)
	}
	if c := run(map[string]string{"grow_class": "0"}, 6144).Config; strings.Contains(c, "grow_class") {
		t.Errorf("config %q names grow_class, which is off", c)
	}
	// By position, parse_header still stops at the observed lines.
	if got := spans(run(map[string]string{"grow_order": "position"}, 6144))["parse_header"]; got != "lib/parse.py:1-11" {
		t.Errorf("grow_order=position: parse_header grew to %s, want lib/parse.py:1-11", got)
	}
}

// refillSource serves fixed units by file (mss.UnitSource).
type refillSource map[string][]mss.Unit

func (s refillSource) FileUnits(path string) []mss.Unit { return s[path] }

// TestGrowRefill checks that the slot a join frees goes to the method's
// next choice that fits, in its order, skipping what was read, what
// overlaps a delivered unit and what the budget left cannot hold, and
// that grow_refill=false leaves it empty.
func TestGrowRefill(t *testing.T) {
	mk := func(path string, start, lines int, sym string) mss.Unit {
		var b strings.Builder
		for i := 0; i < lines; i++ {
			fmt.Fprintf(&b, "%s_%d = %d\n", strings.ToLower(sym), i, i)
		}
		c := b.String()
		return mss.Unit{ID: fmt.Sprintf("%s:%d", path, start), Path: path, StartLine: start, EndLine: start + lines - 1,
			Symbol: sym, Kind: "function", Content: c, Tokens: mss.TokenCost(c)}
	}
	f, g := mk("a.py", 1, 3, "F"), mk("a.py", 4, 3, "G")                                 // adjacent: joined
	big, h, k := mk("b.py", 1, 400, "Big"), mk("c.py", 1, 3, "H"), mk("d.py", 1, 3, "K") // the next choices
	inside := mk("a.py", 2, 2, "Inner")                                                  // overlaps the joined unit
	e := mk("a.py", 7, 3, "E")                                                           // meets g
	h2 := mk("c.py", 4, 3, "H2")                                                         // meets h: refills that join
	src := refillSource{"a.py": {f, g, e}, "b.py": {big}, "c.py": {h, h2}, "d.py": {k}}
	cands := func(us ...mss.Unit) []mss.Candidate {
		out := make([]mss.Candidate, len(us))
		for i, u := range us {
			out[i] = mss.Candidate{Unit: u, Score: float64(len(us) - i)}
		}
		return out
	}
	run := func(t *testing.T, settings map[string]string, st *mss.State, budget, maxUnits int, cs []mss.Candidate) *mss.Result {
		t.Helper()
		c, err := mss.NewMethod(NameRRFGrow, mss.MethodOptions{Settings: settings})
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Select(context.Background(), &mss.Request{State: st, Candidates: cs, Budget: budget, MaxUnits: maxUnits, MinUnits: 1, Source: src})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	ranges := func(res *mss.Result) []string {
		var out []string
		for _, u := range res.Units {
			out = append(out, fmt.Sprintf("%s:%d-%d", u.Path, u.StartLine, u.EndLine))
		}
		return out
	}
	plain := &mss.State{Issue: "F and G"}
	budget := f.Tokens + g.Tokens + e.Tokens + h.Tokens + h2.Tokens + k.Tokens + 50 // Big never fits
	for _, tt := range []struct {
		name     string
		settings map[string]string
		st       *mss.State
		cands    []mss.Candidate
		want     []string
	}{
		{"refilled with the next that fits", nil, plain, cands(f, g, inside, big, h, k), []string{"a.py:1-6", "c.py:1-3"}},
		{"off", map[string]string{"grow_refill": "false"}, plain, cands(f, g, inside, big, h, k), []string{"a.py:1-6"}},
		{"what was read is skipped", nil, &mss.State{Issue: "F and G", ObservedSpans: []mss.Span{{Path: "c.py", StartLine: 2, EndLine: 2}}},
			cands(f, g, big, h, k), []string{"a.py:1-6", "d.py:1-3"}},
		{"in the method's order", nil, plain, cands(f, g, k, h), []string{"a.py:1-6", "d.py:1-3"}},
		{"no join, no slot", nil, plain, cands(f, h, k), []string{"a.py:1-3", "c.py:1-3"}},
		{"a refill next to a unit before it stays apart", nil, plain, cands(f, g, e, h, k), []string{"a.py:1-6", "a.py:7-9"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, tt.settings, tt.st, budget, 2, tt.cands)
			if d := cmp.Diff(tt.want, ranges(res)); d != "" {
				t.Errorf("units (-want +got):\n%s", d)
			}
			spent := 0
			for _, u := range res.Units {
				spent += u.Tokens
				if len(u.Symbols) == 0 {
					t.Errorf("%s:%d-%d lists no symbols", u.Path, u.StartLine, u.EndLine)
				}
			}
			if spent > budget {
				t.Errorf("%d tokens delivered, budget %d", spent, budget)
			}
			refilled := 0
			for _, s := range res.Trace {
				if s.Stage == "refill" {
					refilled++
				}
			}
			want := len(tt.want) - 1
			if tt.name == "no join, no slot" {
				want = 0
			}
			if refilled != want {
				t.Errorf("%d refill steps in the trace, want %d", refilled, want)
			}
			if c := res.Config; strings.Contains(c, "grow_refill=true") != (tt.settings == nil) {
				t.Errorf("config %q", c)
			}
		})
	}
	// Refills that meet join, and the place that frees is refilled: three
	// chosen units joined into one leave two places, refilled by H and H2,
	// which join, leaving one for K.
	res := run(t, nil, plain, budget, 3, cands(f, g, e, h, h2, k))
	if d := cmp.Diff([]string{"a.py:1-9", "c.py:1-6", "d.py:1-3"}, ranges(res)); d != "" {
		t.Errorf("refills that meet: units (-want +got):\n%s", d)
	}
	// The set policy refills from its own further choices.
	c, err := mss.NewMethod(NameComplement, mss.MethodOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err = c.Select(context.Background(), &mss.Request{State: plain, Candidates: cands(f, g, big, h, k), Budget: budget, MaxUnits: 2, MinUnits: 1, Source: src})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"a.py:1-6", "c.py:1-3"}, ranges(res)); d != "" {
		t.Errorf("complement: units (-want +got):\n%s", d)
	}
	// Its further choices are not cut at the answer's size: two choices
	// that fit the budget but not beside the joined F and G, then K.
	b1, b2, one := mk("e.py", 1, 12, "B1"), mk("f.py", 1, 12, "B2"), mk("d.py", 1, 1, "K")
	room := f.Tokens + g.Tokens + one.Tokens + 21 // the joined unit within a unit's share
	if left := room - f.Tokens - g.Tokens; b1.Tokens <= left || b2.Tokens <= left || b1.Tokens > room || one.Tokens > left {
		t.Fatalf("fixture: B1 %d, B2 %d and K %d tokens against %d left of %d", b1.Tokens, b2.Tokens, one.Tokens, left, room)
	}
	cs := []mss.Candidate{{Unit: f, Score: 10}, {Unit: g, Score: 9}, {Unit: b1, Score: 8}, {Unit: b2, Score: 7}, {Unit: one, Score: 1}}
	res, err = c.Select(context.Background(), &mss.Request{State: plain, Candidates: cs, Budget: room, MaxUnits: 2, MinUnits: 1, Source: src})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"a.py:1-6", "d.py:1-1"}, ranges(res)); d != "" {
		t.Errorf("complement, past choices that do not fit: units (-want +got):\n%s", d)
	}
	if _, err := mss.NewMethod(NameComplement, mss.MethodOptions{Settings: map[string]string{"grow_refill": "often"}}); err == nil || !strings.Contains(err.Error(), "grow_refill") {
		t.Errorf("grow_refill=often: error %v, want one naming the setting", err)
	}
}
