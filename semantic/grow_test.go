package semantic

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
)

// pathSource serves, for every path, the file's units as request() lays
// them out, with a 40-token unit right above each that defines a helper
// the unit calls (tied to it) and one right below that nothing ties.
type pathSource map[string][]mss.Unit

func (p pathSource) FileUnits(path string) []mss.Unit { return p[path] }

func sourceFor(req *mss.Request) pathSource {
	src := pathSource{}
	for i := range req.Candidates {
		u := &req.Candidates[i].Unit
		helper := "helper_" + strings.ReplaceAll(u.ID, "-", "_")
		u.References = append(u.References, helper)
		filler := strings.Repeat("x\n", 80) // 160 bytes: 40 tokens
		src[u.Path] = append(src[u.Path],
			mss.Unit{ID: "above-" + u.ID, Path: u.Path, StartLine: u.StartLine - 80, EndLine: u.StartLine - 1, Content: filler, Tokens: 40, Defines: []string{helper}},
			*u,
			mss.Unit{ID: "below-" + u.ID, Path: u.Path, StartLine: u.EndLine + 1, EndLine: u.EndLine + 80, Content: filler, Tokens: 40})
	}
	return src
}

func TestComplementGrowsWithSource(t *testing.T) {
	_, settings := setup(t, copyScript(goodScript))
	req := request(40)
	// request() lays units 10 lines apart with 10-line ranges: give each
	// its own file so the unit above does not overlap a neighbour.
	for i := range req.Candidates {
		req.Candidates[i].Unit.Path = fmt.Sprintf("pkg/g%02d.py", i)
		req.Candidates[i].Unit.StartLine, req.Candidates[i].Unit.EndLine = 100, 109
	}
	req.Source = sourceFor(req)
	res := selectWith(t, NameComplement, settings, req)
	var got []string
	for _, u := range res.Units {
		got = append(got, fmt.Sprintf("%s:%d-%d", u.Symbol, u.StartLine, u.EndLine))
	}
	want := []string{"fnc03:20-109", "fnc01:20-109", "fnc09:20-109", "fnc04:20-109"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("grown units (-want +got):\n%s", d)
	}
	if res.Usage.SourceTokens != 4*140 {
		t.Errorf("source tokens %d, want %d", res.Usage.SourceTokens, 4*140)
	}
	if !traceHas(res, "expand", "grown by") {
		t.Errorf("trace lacks the growth steps")
	}

	settings["grow"] = "false"
	res = selectWith(t, NameComplement, settings, req)
	for _, u := range res.Units {
		if u.StartLine != 100 {
			t.Errorf("grow=false grew %s to %d-%d", u.ID, u.StartLine, u.EndLine)
		}
	}
}
