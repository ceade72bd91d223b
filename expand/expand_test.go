package expand

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/segment"
)

// fileSource serves fixed units per path.
type fileSource map[string][]mss.Unit

func (f fileSource) FileUnits(path string) []mss.Unit { return f[path] }

// unit makes a unit of n lines starting at start, each line "xxxxxxx\n"
// (8 bytes, so 2 tokens a line).
func unit(path string, start, n int, sym string) mss.Unit {
	content := strings.Repeat("xxxxxxx\n", n)
	return mss.Unit{ID: fmt.Sprintf("%s:%d", path, start), Path: path, StartLine: start, EndLine: start + n - 1,
		Symbol: sym, Content: content, Tokens: mss.TokenCost(content)}
}

// kind gives u a kind and the names it defines.
func kind(u mss.Unit, k string, defines ...string) mss.Unit {
	u.Kind, u.Defines = k, defines
	return u
}

func ranges(us []mss.Unit) []string {
	var out []string
	for _, u := range us {
		out = append(out, fmt.Sprintf("%s:%d-%d", u.Path, u.StartLine, u.EndLine))
	}
	return out
}

func TestGrow(t *testing.T) {
	// a.py: units at 1-10, 12-21, 23-32, 34-43 (blank lines 11, 22, 33).
	a := []mss.Unit{unit("a.py", 1, 10, "A"), unit("a.py", 12, 10, "A.f"), unit("a.py", 23, 10, "A.g"), unit("a.py", 34, 10, "A.h")}
	b := []mss.Unit{unit("b.py", 1, 10, "B"), unit("b.py", 11, 10, "B.f")}
	src := fileSource{"a.py": a, "b.py": b}
	tests := []struct {
		name     string
		chosen   []mss.Unit
		observed []mss.Span
		budget   int
		want     []string
	}{
		{
			name:   "no room: unchanged",
			chosen: []mss.Unit{a[1]},
			budget: 20,
			want:   []string{"a.py:12-21"},
		},
		{
			// Budget 100, reserve 2 -> 98; cap 25 per unit: one neighbour
			// (20 tokens + a blank line) makes 41 > 25, so nothing grows.
			name:   "unit cap holds",
			chosen: []mss.Unit{a[1]},
			budget: 100,
			want:   []string{"a.py:12-21"},
		},
		{
			// Cap 200/4 = 50: the unit above first (tie), then nothing more fits the cap.
			name:   "grows upward first",
			chosen: []mss.Unit{a[1]},
			budget: 200,
			want:   []string{"a.py:1-21"},
		},
		{
			name:     "never into observed lines",
			chosen:   []mss.Unit{a[1]},
			observed: []mss.Span{{Path: "a.py", StartLine: 5, EndLine: 6}},
			budget:   200,
			want:     []string{"a.py:12-32"},
		},
		{
			name:   "never into another chosen unit; round robin",
			chosen: []mss.Unit{a[1], a[2], b[0]},
			budget: 400,
			want:   []string{"a.py:1-21", "a.py:23-43", "b.py:1-20"},
		},
		{
			name:   "unknown file unchanged",
			chosen: []mss.Unit{unit("c.py", 1, 5, "C")},
			budget: 400,
			want:   []string{"c.py:1-5"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := Grow(tt.chosen, src, tt.observed, tt.budget, nil, Options{})
			if diff := cmp.Diff(tt.want, ranges(got)); diff != "" {
				t.Errorf("Grow mismatch (-want +got):\n%s", diff)
			}
			checkDelivered(t, got, tt.budget)
		})
	}
}

// checkDelivered checks that each unit's token count is its content's
// cost, its content spans its lines, and all fit the budget.
func checkDelivered(t *testing.T, got []mss.Unit, budget int) {
	t.Helper()
	spent := 0
	for _, u := range got {
		spent += u.Tokens
		if u.Tokens != mss.TokenCost(u.Content) {
			t.Errorf("%s: tokens %d, content costs %d", u.ID, u.Tokens, mss.TokenCost(u.Content))
		}
		if n := strings.Count(u.Content, "\n"); n != u.EndLine-u.StartLine+1 {
			t.Errorf("%s: %d content lines for range %d-%d", u.ID, n, u.StartLine, u.EndLine)
		}
	}
	if spent > budget {
		t.Errorf("spent %d over budget %d", spent, budget)
	}
}

func TestGrowPrefersScoredNeighbour(t *testing.T) {
	a := []mss.Unit{unit("a.py", 1, 10, "A"), unit("a.py", 12, 10, "A.f"), unit("a.py", 23, 10, "A.g")}
	score := func(u *mss.Unit) float64 {
		if u.Symbol == "A.g" {
			return 1
		}
		return 0
	}
	got, trace := Grow([]mss.Unit{a[1]}, fileSource{"a.py": a}, nil, 200, score, Options{})
	if diff := cmp.Diff([]string{"a.py:12-32"}, ranges(got)); diff != "" {
		t.Errorf("Grow mismatch (-want +got):\n%s", diff)
	}
	if len(trace) != 1 || trace[0].Stage != "expand" {
		t.Errorf("trace = %v, want one expand step", trace)
	}
	if got[0].Symbol != "A.f" || got[0].ID == a[1].ID {
		t.Errorf("grown unit keeps symbol %q and needs its own id, got id %q", got[0].Symbol, got[0].ID)
	}
}

func TestGrowNilSource(t *testing.T) {
	in := []mss.Unit{unit("a.py", 1, 3, "A")}
	got, trace := Grow(in, nil, nil, 1000, nil, Options{})
	if diff := cmp.Diff(in, got); diff != "" || trace != nil {
		t.Errorf("nil source changed units: %s %v", diff, trace)
	}
}

// TestGrowTraceCountsDelivered: the trace's running total is what the
// grown units cost as delivered, although growth decides by an estimate
// that rounds each piece up.
func TestGrowTraceCountsDelivered(t *testing.T) {
	// Units of 5 bytes ("abcd\n") cost 2 tokens each, and so does each
	// neighbour with its blank line (6 bytes); five joined (29 bytes)
	// cost 8, not the 10 the pieces add up to.
	mk := func(start int) mss.Unit {
		return mss.Unit{ID: fmt.Sprint(start), Path: "c.py", StartLine: start, EndLine: start, Content: "abcd\n", Tokens: 2}
	}
	file := []mss.Unit{mk(1), mk(3), mk(5), mk(7), mk(9)}
	grown, trace := Grow([]mss.Unit{file[2]}, fileSource{"c.py": file}, nil, 1000, nil, Options{MaxUnitTokens: 1000})
	total := 0
	for _, u := range grown {
		total += u.Tokens
	}
	if len(trace) == 0 {
		t.Fatal("nothing grew")
	}
	last := trace[len(trace)-1].Reason
	if want := fmt.Sprintf("%d of 1000 spent", total); !strings.Contains(last, want) {
		t.Errorf("last growth step %q, want it to say %q (the delivered total)", last, want)
	}
}

// TestGrowJoin: with Join, a unit takes in a later chosen unit it meets,
// at its own place, for the blank lines between and without a tie, even
// when the chosen units fill the budget; without Join, neither grows
// into the other.
func TestGrowJoin(t *testing.T) {
	a := []mss.Unit{unit("a.py", 1, 10, "A"), unit("a.py", 12, 10, "A.f"), unit("a.py", 23, 10, "A.g"), unit("a.py", 34, 10, "A.h")}
	b := []mss.Unit{unit("b.py", 1, 10, "B")}
	src := fileSource{"a.py": a, "b.py": b}
	never := func(chosen, n *mss.Unit) string { return "" }
	for _, tt := range []struct {
		name   string
		chosen []mss.Unit
		join   bool
		want   []string
	}{
		{"apart", []mss.Unit{a[1], b[0], a[2]}, false, []string{"a.py:12-21", "b.py:1-10", "a.py:23-32"}},
		{"joined at the first one's place", []mss.Unit{a[1], b[0], a[2]}, true, []string{"a.py:12-32", "b.py:1-10"}},
		{"a later unit above", []mss.Unit{a[2], a[1]}, true, []string{"a.py:12-32"}},
		{"a unit between: not joined", []mss.Unit{a[1], a[3]}, true, []string{"a.py:12-21", "a.py:34-43"}},
		{"never below the fewest units", []mss.Unit{a[1], a[2], b[0]}, true, []string{"a.py:12-21", "a.py:23-32", "b.py:1-10"}},
		{"joined with the budget full", []mss.Unit{a[1], b[0], a[2]}, true, []string{"a.py:12-32", "b.py:1-10"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			minUnits := 0
			if tt.name == "never below the fewest units" {
				minUnits = 3
			}
			budget := 1000
			if tt.name == "joined with the budget full" {
				// The chosen units and the blank line a join adds fill it,
				// past the share growth leaves unspent.
				budget = 1
				for _, u := range tt.chosen {
					budget += u.Tokens
				}
			}
			got, trace := Grow(tt.chosen, src, nil, budget, nil, Options{Tie: never, Join: tt.join, MinUnits: minUnits, MaxUnitTokens: 1000})
			if diff := cmp.Diff(tt.want, ranges(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			checkDelivered(t, got, budget)
			if tt.join && len(got) < len(tt.chosen) {
				if len(trace) == 0 || !strings.Contains(trace[len(trace)-1].Reason, "chosen too and next to it") {
					t.Errorf("a join without its reason in the trace: %v", trace)
				}
				if got[0].Symbol != tt.chosen[0].Symbol {
					t.Errorf("the joined unit is named %q, want the first chosen %q", got[0].Symbol, tt.chosen[0].Symbol)
				}
			}
		})
	}
}

// TestGrowJoinKeepsContext: two later parts of a split definition joined
// are read under the definition's signature, as the first of them was;
// a run that starts with the definition's first part needs none.
func TestGrowJoinKeepsContext(t *testing.T) {
	parts := []mss.Unit{unit("a.py", 1, 10, "long"), unit("a.py", 11, 10, "long"), unit("a.py", 21, 10, "long")}
	parts[1].Context, parts[2].Context = "def long():\n", "def long():\n"
	src := fileSource{"a.py": parts}
	never := func(chosen, n *mss.Unit) string { return "" }
	for _, tt := range []struct {
		chosen  []mss.Unit
		context string
	}{
		{[]mss.Unit{parts[1], parts[2]}, "def long():\n"},
		{[]mss.Unit{parts[0], parts[1]}, ""},
	} {
		got, _ := Grow(tt.chosen, src, nil, 1000, nil, Options{Tie: never, Join: true, MaxUnitTokens: 1000})
		if len(got) != 1 {
			t.Fatalf("%v joined: %v, want one unit", ranges(tt.chosen), ranges(got))
		}
		if got[0].Context != tt.context {
			t.Errorf("%v joined: context %q, want %q", ranges(tt.chosen), got[0].Context, tt.context)
		}
	}
}

// TestGrowTiedToWhatItHolds: with HeldTies, a run that took in another
// chosen unit, by a join or by growing into its class, grows by the
// neighbours tied to either; a neighbour tied to neither stays out, and
// without HeldTies only the unit it grew from ties.
func TestGrowTiedToWhatItHolds(t *testing.T) {
	a := []mss.Unit{unit("a.py", 1, 10, "f"), unit("a.py", 12, 10, "g"), unit("a.py", 23, 10, "h"), unit("a.py", 34, 10, "k")}
	c := []mss.Unit{
		kind(unit("c.py", 1, 2, "C"), segment.KindClass),
		kind(unit("c.py", 4, 5, "C.f"), segment.KindMethod),
		kind(unit("c.py", 10, 5, "C.g"), segment.KindMethod),
		kind(unit("c.py", 16, 5, "h"), segment.KindFunction),
		kind(unit("c.py", 22, 5, "k"), segment.KindFunction),
	}
	src := fileSource{"a.py": a, "c.py": c}
	// h is tied to g alone, k to nothing.
	tie := func(chosen, n *mss.Unit) string {
		if n.Symbol == "h" && (chosen.Symbol == "g" || chosen.Symbol == "C.g") {
			return "uses " + chosen.Symbol
		}
		return ""
	}
	for _, tt := range []struct {
		name   string
		chosen []mss.Unit
		class  int
		held   bool
		want   []string
		why    string
	}{
		{"alone, f does not reach h", []mss.Unit{a[0]}, 0, true, []string{"a.py:1-10"}, ""},
		{"joined with g, f grows by h", []mss.Unit{a[0], a[1]}, 0, true, []string{"a.py:1-32"}, "uses g"},
		{"grown into its class with C.g, C.f grows by h", []mss.Unit{c[1], c[2]}, 1500, true, []string{"c.py:1-20"}, "uses C.g"},
		{"off: joined with g, f stops", []mss.Unit{a[0], a[1]}, 0, false, []string{"a.py:1-21"}, ""},
		{"off: grown into its class, C.f stops", []mss.Unit{c[1], c[2]}, 1500, false, []string{"c.py:1-14"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, trace := Grow(tt.chosen, src, nil, 1000, nil, Options{Tie: tie, Join: true, WholeClass: tt.class, HeldTies: tt.held, MaxUnitTokens: 1000})
			if diff := cmp.Diff(tt.want, ranges(got)); diff != "" {
				t.Errorf("(-want +got):\n%s\ntrace: %v", diff, trace)
			}
			if tt.why != "" && !strings.HasSuffix(trace[len(trace)-1].Reason, ": "+tt.why) {
				t.Errorf("last step %q, want it to end in %q", trace[len(trace)-1].Reason, tt.why)
			}
		})
	}
}

// TestGrowBridge: with BridgeLines, a join reaches a later chosen unit of
// the same file up to that many lines away and takes in the units
// between, saying so (three chosen ones are bridged in turn, never one
// across another); not one further away, not across a unit read, and
// not past the budget.
func TestGrowBridge(t *testing.T) {
	a := []mss.Unit{unit("a.py", 1, 10, "A"), unit("a.py", 12, 10, "A.f"), unit("a.py", 23, 10, "A.g"), unit("a.py", 34, 10, "A.h"), unit("a.py", 45, 10, "A.i")}
	src := fileSource{"a.py": a}
	never := func(chosen, n *mss.Unit) string { return "" }
	for _, tt := range []struct {
		name     string
		chosen   []mss.Unit
		bridge   int
		observed []mss.Span
		budget   int
		want     []string
	}{
		{"one unit between, 12 lines", []mss.Unit{a[1], a[3]}, 12, nil, 1000, []string{"a.py:12-43"}},
		{"too far", []mss.Unit{a[1], a[3]}, 11, nil, 1000, []string{"a.py:12-21", "a.py:34-43"}},
		{"a later unit above", []mss.Unit{a[3], a[1]}, 12, nil, 1000, []string{"a.py:12-43"}},
		{"across a unit read", []mss.Unit{a[1], a[3]}, 12, []mss.Span{{Path: "a.py", StartLine: 25, EndLine: 25}}, 1000, []string{"a.py:12-21", "a.py:34-43"}},
		{"three chosen, bridged in turn", []mss.Unit{a[0], a[4], a[2]}, 40, nil, 1000, []string{"a.py:1-54"}},
		{"past the budget", []mss.Unit{a[1], a[3]}, 12, nil, 45, []string{"a.py:12-21", "a.py:34-43"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, trace := Grow(tt.chosen, src, tt.observed, tt.budget, nil, Options{Tie: never, Join: true, BridgeLines: tt.bridge})
			if diff := cmp.Diff(tt.want, ranges(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			checkDelivered(t, got, tt.budget)
			if len(got) < len(tt.chosen) && tt.name != "three chosen, bridged in turn" {
				if len(trace) == 0 || !strings.Contains(trace[len(trace)-1].Reason, "with the 12 lines between them") {
					t.Errorf("a bridge without its reason in the trace: %v", trace)
				}
			}
		})
	}
}

// TestGrowFixed checks that the first Options.Fixed units are delivered
// as they are: not grown, not joined with a unit they meet, and never
// grown into, while the units after them grow as before.
func TestGrowFixed(t *testing.T) {
	a := []mss.Unit{unit("a.py", 1, 10, "A"), unit("a.py", 12, 10, "A.f"), unit("a.py", 23, 10, "A.g"), unit("a.py", 34, 10, "A.h")}
	src := fileSource{"a.py": a}
	always := func(chosen, n *mss.Unit) string { return "tied" }
	for _, tt := range []struct {
		fixed int
		want  []string
	}{
		{0, []string{"a.py:1-43"}}, // A.f takes in A.g and grows over A and A.h
		{1, []string{"a.py:12-21", "a.py:23-43"}},
	} {
		got, _ := Grow([]mss.Unit{a[1], a[2]}, src, nil, 1000, nil, Options{Tie: always, Join: true, MaxUnitTokens: 1000, Fixed: tt.fixed})
		if diff := cmp.Diff(tt.want, ranges(got)); diff != "" {
			t.Errorf("Fixed=%d (-want +got):\n%s", tt.fixed, diff)
		}
		checkDelivered(t, got, 1000)
	}
}

func TestGrowWholeClass(t *testing.T) {
	// a.py: module 1-3, class A (header 5-6, methods 8-12, 14-18), then a
	// module-level function 20-24; b.py: a class too large to read whole.
	a := []mss.Unit{
		kind(unit("a.py", 1, 3, ""), segment.KindModule),
		kind(unit("a.py", 5, 2, "A"), segment.KindClass),
		kind(unit("a.py", 8, 5, "A.f"), segment.KindMethod),
		kind(unit("a.py", 14, 5, "A.g"), segment.KindMethod),
		kind(unit("a.py", 20, 5, "h"), segment.KindFunction),
	}
	b := []mss.Unit{kind(unit("b.py", 1, 2, "B"), segment.KindClass), kind(unit("b.py", 3, 150, "B.f"), segment.KindMethod),
		kind(unit("b.py", 153, 100, "B.g"), segment.KindMethod)}
	src := fileSource{"a.py": a, "b.py": b}
	tests := []struct {
		name     string
		chosen   []mss.Unit
		observed []mss.Span
		fixed    int
		max      int
		want     []string
	}{
		{name: "a method grows into its class", chosen: []mss.Unit{a[2]}, max: 1500, want: []string{"a.py:5-18"}},
		{name: "a header grows into its class", chosen: []mss.Unit{a[1]}, max: 1500, want: []string{"a.py:5-18"}},
		{name: "off", chosen: []mss.Unit{a[2]}, max: 0, want: []string{"a.py:8-12"}},
		{name: "a class over the setting stays", chosen: []mss.Unit{a[2]}, max: 20, want: []string{"a.py:8-12"}},
		{name: "a class over the unit limits stays", chosen: []mss.Unit{b[1]}, max: 1500, want: []string{"b.py:3-152"}},
		{name: "a function stays", chosen: []mss.Unit{a[4]}, max: 1500, want: []string{"a.py:20-24"}},
		{name: "a later chosen member is taken in", chosen: []mss.Unit{a[3], a[0], a[2]}, max: 1500, want: []string{"a.py:5-18", "a.py:1-3"}},
		{name: "an earlier chosen member stops it", chosen: []mss.Unit{a[2], a[3]}, fixed: 1, max: 1500, want: []string{"a.py:8-12", "a.py:14-18"}},
		{name: "a read line stops it", chosen: []mss.Unit{a[2]}, observed: []mss.Span{{Path: "a.py", StartLine: 15, EndLine: 15}}, max: 1500, want: []string{"a.py:8-12"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Untied growth would take the neighbours anyway: admit none,
			// so only the whole-class step grows.
			none := func(_, _ *mss.Unit) string { return "" }
			got, trace := Grow(tt.chosen, src, tt.observed, 6144, nil, Options{Tie: none, WholeClass: tt.max, MaxUnitTokens: 2000, Fixed: tt.fixed})
			if diff := cmp.Diff(tt.want, ranges(got)); diff != "" {
				t.Errorf("ranges (-want +got):\n%s\ntrace: %v", diff, trace)
			}
		})
	}
}

// TestGrowBareHeader: a chosen file header that defines nothing (a
// comment and imports) grows into the unit under it, which no tie admits
// otherwise, and no further; not a header that defines a name, not a
// unit of that kind further down the file, not into lines read and not
// past the budget.
func TestGrowBareHeader(t *testing.T) {
	// c.js: a comment and an import (1-2), the locale object (4-36), the
	// statements after it (38-40); d.js: a header that defines a name.
	c := []mss.Unit{
		kind(unit("c.js", 1, 2, ""), segment.KindModule),
		kind(unit("c.js", 4, 33, "locale"), segment.KindValue, "locale"),
		kind(unit("c.js", 38, 3, ""), segment.KindModule),
	}
	d := []mss.Unit{kind(unit("d.js", 1, 3, ""), segment.KindModule, "L"), kind(unit("d.js", 5, 10, "f"), segment.KindFunction, "f")}
	src := fileSource{"c.js": c, "d.js": d}
	none := func(_, _ *mss.Unit) string { return "" }
	for _, tt := range []struct {
		name     string
		chosen   mss.Unit
		observed []mss.Span
		budget   int
		want     string
	}{
		{"a bare header grows into the code under it", c[0], nil, 6144, "c.js:1-36"},
		{"a header that defines a name stays", d[0], nil, 6144, "d.js:1-3"},
		{"a module unit further down stays", c[2], nil, 6144, "c.js:38-40"},
		{"not into lines read", c[0], []mss.Span{{Path: "c.js", StartLine: 10, EndLine: 10}}, 6144, "c.js:1-2"},
		{"not past the budget", c[0], nil, 60, "c.js:1-2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, trace := Grow([]mss.Unit{tt.chosen}, src, tt.observed, tt.budget, nil, Options{Tie: none, MaxUnitTokens: 2000})
			if diff := cmp.Diff([]string{tt.want}, ranges(got)); diff != "" {
				t.Errorf("(-want +got):\n%s\ntrace: %v", diff, trace)
			}
			checkDelivered(t, got, tt.budget)
			grew := got[0].EndLine != tt.chosen.EndLine
			if grew != (len(trace) == 1 && strings.Contains(trace[0].Reason, "the code under the file's header")) {
				t.Errorf("trace %v does not say why the header grew", trace)
			}
		})
	}
}

// numbered makes the unit of lines start..end of a file whose line n
// reads "line n".
func numbered(path string, start, end int, sym string) mss.Unit {
	var b strings.Builder
	for n := start; n <= end; n++ {
		fmt.Fprintf(&b, "line %03d\n", n)
	}
	return mss.Unit{ID: fmt.Sprintf("%s:%d", path, start), Path: path, StartLine: start, EndLine: end,
		Symbol: sym, Content: b.String(), Tokens: mss.TokenCost(b.String())}
}

// TestGrowUnreadPart: the unread part of a unit read in part grows from
// the side it was not read on, and joins a chosen unit there; never
// across the read lines, and never into them.
func TestGrowUnreadPart(t *testing.T) {
	// a.py: units at 1-10, 12-21, 23-32, 34-43 (blank lines 11, 22, 33).
	a := []mss.Unit{numbered("a.py", 1, 10, "A"), numbered("a.py", 12, 21, "A.f"), numbered("a.py", 23, 32, "A.g"), numbered("a.py", 34, 43, "A.h")}
	src := fileSource{"a.py": a}
	part := func(from, to int) mss.Unit { return numbered("a.py", from, to, "A.f") }
	never := func(chosen, n *mss.Unit) string { return "" }
	readTop := []mss.Span{{Path: "a.py", StartLine: 12, EndLine: 15}}
	readBottom := []mss.Span{{Path: "a.py", StartLine: 18, EndLine: 21}}
	for _, tt := range []struct {
		name     string
		chosen   []mss.Unit
		observed []mss.Span
		join     bool
		tie      func(chosen, n *mss.Unit) string
		want     []string
	}{
		{"read at the top: grows down", []mss.Unit{part(16, 21)}, readTop, false, nil, []string{"a.py:16-43"}},
		{"read at the bottom: grows up", []mss.Unit{part(12, 17)}, readBottom, false, nil, []string{"a.py:1-17"}},
		{"read in the middle: neither grows across", []mss.Unit{part(12, 14), part(19, 21)}, []mss.Span{{Path: "a.py", StartLine: 15, EndLine: 18}}, true, never, []string{"a.py:12-14", "a.py:19-21"}},
		{"joins a chosen unit on its unread side", []mss.Unit{part(16, 21), a[2]}, readTop, true, never, []string{"a.py:16-32"}},
		{"taken in by a chosen unit on its unread side", []mss.Unit{a[0], part(12, 17)}, readBottom, true, never, []string{"a.py:1-17"}},
		{"joined, then shut where it was read", []mss.Unit{a[0], part(12, 17)}, readBottom, true, nil, []string{"a.py:1-17"}},
		{"a later part joined, then grown on", []mss.Unit{a[2], part(16, 21)}, readTop, true, nil, []string{"a.py:16-43"}},
		{"never joined across its read side", []mss.Unit{a[0], part(16, 21)}, readTop, true, never, []string{"a.py:1-10", "a.py:16-21"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, trace := Grow(tt.chosen, src, tt.observed, 1000, nil, Options{Tie: tt.tie, Join: tt.join, MaxUnitTokens: 1000})
			if diff := cmp.Diff(tt.want, ranges(got)); diff != "" {
				t.Errorf("(-want +got):\n%s\ntrace: %v", diff, trace)
			}
			checkDelivered(t, got, 1000)
			for _, u := range got {
				for _, o := range tt.observed {
					if u.Overlaps(o) {
						t.Errorf("%s:%d-%d holds read lines %d-%d", u.Path, u.StartLine, u.EndLine, o.StartLine, o.EndLine)
					}
				}
				for k, line := range strings.Split(strings.TrimSuffix(u.Content, "\n"), "\n") {
					n := u.StartLine + k
					if want := fmt.Sprintf("line %03d", n); line != want && !(line == "" && n%11 == 0) {
						t.Errorf("%s:%d-%d: line %d reads %q", u.Path, u.StartLine, u.EndLine, n, line)
					}
				}
			}
		})
	}
}

// TestGrowInvariants grows random choices, whole units and unread parts
// of units read in part, in random files, and checks what growth
// promises: every chosen line delivered, no read line, no line twice,
// each unit's text the file's own lines, the budget kept, the first
// chosen unit first.
func TestGrowInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 3000 {
		// A file of 3 to 12 units of 1 to 8 lines, 0 to 2 blank lines apart.
		var file []mss.Unit
		var lines []string // lines[n-1] is line n
		for k := range 3 + rng.IntN(10) {
			for range rng.IntN(3) {
				lines = append(lines, "")
			}
			start := len(lines) + 1
			u := numbered("f.go", start, start+rng.IntN(8), fmt.Sprintf("s%d", k))
			for n := u.StartLine; n <= u.EndLine; n++ {
				lines = append(lines, fmt.Sprintf("line %03d", n))
			}
			file = append(file, u)
		}
		// Read 0 to 2 random spans; choose 1 to 4 units: a unit no span
		// touches, or the lines of a unit no span holds (at its ends).
		var observed []mss.Span
		for range rng.IntN(3) {
			s := 1 + rng.IntN(len(lines))
			observed = append(observed, mss.Span{Path: "f.go", StartLine: s, EndLine: s + rng.IntN(3)})
		}
		isRead := func(n int) bool {
			for _, o := range observed {
				if n >= o.StartLine && n <= o.EndLine {
					return true
				}
			}
			return false
		}
		var chosen []mss.Unit
		used := map[int]bool{}
		for _, k := range rng.Perm(len(file))[:1+rng.IntN(min(4, len(file)))] {
			u := file[k]
			// the longest unread run of u's lines
			best, bs := 0, 0
			for s := u.StartLine; s <= u.EndLine; {
				e := s
				for e <= u.EndLine && !isRead(e) {
					e++
				}
				if e-s > best {
					best, bs = e-s, s
				}
				s = e + 1
			}
			if best == 0 || used[k] {
				continue
			}
			used[k] = true
			chosen = append(chosen, numbered("f.go", bs, bs+best-1, u.Symbol))
		}
		if len(chosen) == 0 {
			continue
		}
		budget := 20 + rng.IntN(300)
		spent := 0
		for _, u := range chosen {
			spent += u.Tokens
		}
		budget = max(budget, spent)
		var tie func(chosen, n *mss.Unit) string
		if rng.IntN(2) == 0 {
			tie = func(chosen, n *mss.Unit) string {
				if (n.StartLine+chosen.StartLine)%3 != 0 {
					return "tied"
				}
				return ""
			}
		}
		opt := Options{Tie: tie, Join: rng.IntN(2) == 0, BridgeLines: rng.IntN(4), MaxUnitTokens: rng.IntN(200), HeldTies: rng.IntN(2) == 0}
		got, _ := Grow(chosen, fileSource{"f.go": file}, observed, budget, nil, opt)

		where := fmt.Sprintf("trial %d: chosen %v, read %v, options %+v: got %v", trial, ranges(chosen), observed, opt, ranges(got))
		total := 0
		held := map[int]bool{}
		for _, u := range got {
			total += u.Tokens
			if u.Tokens != mss.TokenCost(u.Content) {
				t.Fatalf("%s: %d-%d costs %d, says %d", where, u.StartLine, u.EndLine, mss.TokenCost(u.Content), u.Tokens)
			}
			if want := strings.Join(lines[u.StartLine-1:u.EndLine], "\n") + "\n"; u.Content != want {
				t.Fatalf("%s: %d-%d holds %q, the file %q", where, u.StartLine, u.EndLine, u.Content, want)
			}
			for n := u.StartLine; n <= u.EndLine; n++ {
				if held[n] {
					t.Fatalf("%s: line %d delivered twice", where, n)
				}
				held[n] = true
				if isRead(n) {
					t.Fatalf("%s: line %d was read", where, n)
				}
			}
		}
		if total > budget {
			t.Fatalf("%s: %d tokens of %d", where, total, budget)
		}
		for _, u := range chosen {
			for n := u.StartLine; n <= u.EndLine; n++ {
				if !held[n] {
					t.Fatalf("%s: chosen line %d not delivered", where, n)
				}
			}
		}
		if got[0].StartLine > chosen[0].StartLine || got[0].EndLine < chosen[0].EndLine {
			t.Fatalf("%s: the first chosen unit is not first", where)
		}
	}
}
