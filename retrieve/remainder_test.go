package retrieve

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
)

func TestRemainders(t *testing.T) {
	// Lines 10-17 of a file.
	u := unit("a.go", 10, "parse", "func parse(s string) error {\n\tif s == \"\" {\n\t\treturn errEmpty\n\t}\n\n\tn, err := strconv.Atoi(s)\n\treturn check(n, err)\n}", nil, nil)
	span := func(s, e int) mss.Span { return mss.Span{Path: "a.go", StartLine: s, EndLine: e} }
	for _, tc := range []struct {
		name string
		read []mss.Span
		want [][2]int
	}{
		{"head read", []mss.Span{span(10, 11)}, [][2]int{{12, 17}}},
		{"middle read: the blank line at a run's end is left out", []mss.Span{span(15, 15)}, [][2]int{{10, 13}, {16, 17}}},
		{"middle read, and a blank line at a run's start", []mss.Span{span(12, 13)}, [][2]int{{10, 11}, {15, 17}}},
		{"most read: no rest", []mss.Span{span(10, 15)}, nil},
		{"all but the closing brace: no rest", []mss.Span{span(10, 16)}, nil},
		{"nothing read", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			unread := mss.ObservedOf(&mss.State{ObservedSpans: tc.read}).Unread(&u)
			var got [][2]int
			for _, r := range remainders(&u, unread) {
				got = append(got, [2]int{r.StartLine, r.EndLine})
				lines := strings.SplitAfter(u.Content, "\n")
				if want := strings.Join(lines[r.StartLine-u.StartLine:r.EndLine-u.StartLine+1], ""); r.Content != want {
					t.Errorf("rest %d-%d holds %q, want the file's lines %q", r.StartLine, r.EndLine, r.Content, want)
				}
				if r.Symbol != u.Symbol || r.ID == u.ID || r.Tokens != mss.TokenCost(r.Content) || r.Hash == "" {
					t.Errorf("rest %+v: want the unit's symbol, an id and hash of its own, its own tokens", r)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("rests (-want +got):\n%s", diff)
			}
		})
	}
}
