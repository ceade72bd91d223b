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
	// By position, parse_header still stops at the observed lines.
	if got := spans(run(map[string]string{"grow_order": "position"}, 6144))["parse_header"]; got != "lib/parse.py:1-11" {
		t.Errorf("grow_order=position: parse_header grew to %s, want lib/parse.py:1-11", got)
	}
}
