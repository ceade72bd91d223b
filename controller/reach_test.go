package controller

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/missingcomplement/mss"
)

// A unit whose tied neighbour is itself a relevant candidate goes first:
// its growth delivers both in one place. Untied, read or out of reach,
// the neighbour adds nothing.
func TestComplementReach(t *testing.T) {
	alpha := unit("a.py", 1, "alpha", "def alpha(x):\n    return x + 1")
	beta := unit("a.py", 3, "beta", "def beta(x):\n    return alpha(x) * 2")
	beta.References = []string{"alpha"}
	loose := unit("a.py", 3, "beta", "def beta(x):\n    return x * 2")
	gamma := unit("b.py", 1, "gamma", "def gamma(y):\n    return y")
	for _, u := range []*mss.Unit{&alpha, &beta, &loose, &gamma} {
		u.Kind = "function"
	}
	type want struct {
		first string
		why   bool // the trace names the reach
	}
	for _, tc := range []struct {
		name     string
		below    mss.Unit
		settings map[string]string
		read     []mss.Span
		want     want
	}{
		{"tied neighbour", beta, nil, nil, want{"a.py:1-4", true}},
		{"reach off", beta, map[string]string{"reach_weight": "0"}, nil, want{"b.py:1-2", false}},
		{"growth off", beta, map[string]string{"grow": "false"}, nil, want{"b.py:1-2", false}},
		{"untied neighbour", loose, nil, nil, want{"b.py:1-2", false}},
		// Read, beta is no reach; alpha is chosen as the read code's companion.
		{"neighbour read", beta, nil, []mss.Span{{Path: "a.py", StartLine: 4, EndLine: 4}}, want{"a.py:1-2", false}},
		{"neighbour out of reach", beta, map[string]string{"reach_share": "0.0001"}, nil, want{"b.py:1-2", false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := refillSource{"a.py": {alpha, tc.below}, "b.py": {gamma}}
			cands := []mss.Candidate{{Unit: gamma, Score: 10}, {Unit: alpha, Score: 9}, {Unit: tc.below, Score: 8}}
			c, err := mss.NewMethod(NameComplement, mss.MethodOptions{Settings: tc.settings})
			if err != nil {
				t.Fatal(err)
			}
			st := &mss.State{Issue: "the result is off by one", ObservedSpans: tc.read}
			res, err := c.Select(context.Background(), &mss.Request{State: st, Candidates: cands, MinUnits: 1, MaxUnits: 1, Source: src})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Units) != 1 {
				t.Fatalf("%d units, want 1", len(res.Units))
			}
			u := res.Units[0]
			if got := fmt.Sprintf("%s:%d-%d", u.Path, u.StartLine, u.EndLine); got != tc.want.first {
				t.Errorf("answer %s, want %s; trace %v", got, tc.want.first, res.Trace)
			}
			why := traceHas(res.Trace, "its growth would take in a.py:3") && traceHas(res.Trace, "+ reach ")
			if why != tc.want.why {
				t.Errorf("trace names the reach: %v, want %v; trace %v", why, tc.want.why, res.Trace)
			}
		})
	}
	if _, err := mss.NewMethod(NameComplement, mss.MethodOptions{Settings: map[string]string{"reach_share": "2"}}); err == nil || !strings.Contains(err.Error(), "reach_share") {
		t.Errorf("reach_share=2: error %v, want one naming the setting", err)
	}
}
