package semantic

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/llm/llmtest"
)

// growFirst is a fallback that answers like complement with growth: the
// first candidates, then each grown into a unit no candidate names (the
// unit with the lines above it), plus one grown unit over an observed span.
type growFirst struct{}

func (growFirst) Name() string { return "test-grow" }
func (growFirst) Select(_ context.Context, req *mss.Request) (*mss.Result, error) {
	res := &mss.Result{Method: "test-grow"}
	for _, c := range req.Candidates[:4] {
		u := c.Unit
		u.ID, u.StartLine = "grown-"+u.ID, u.StartLine-5
		res.Units = append(res.Units, u)
	}
	res.Units = append(res.Units, mss.Unit{ID: "grown-over-read", Path: "pkg/read.py", StartLine: 1, EndLine: 30, Tokens: 10})
	return res, nil
}

func init() {
	mss.RegisterMethod("test-grow", "test fallback that grows", func(mss.MethodOptions) (mss.Controller, error) { return growFirst{}, nil })
}

// TestFallbackAnswersWithGrownUnits: when the endpoint fails, the answer
// is the fallback's, grown units included (they are not candidates, and
// were once all dropped as "not an eligible candidate"), minus what the
// agent has read; it says it is a fallback.
func TestFallbackAnswersWithGrownUnits(t *testing.T) {
	sc := copyScript(goodScript)
	sc.replies["propose"] = []llmtest.Reply{{Status: 503, Body: `{"error":{"message":"overloaded; key ` + secret + `"}}`}}
	_, settings := setup(t, sc)
	settings["fallback"] = "test-grow"
	req := request(12)
	req.State.ObservedSpans = []mss.Span{{Path: "./pkg/read.py", StartLine: 10, EndLine: 12}}
	res := selectWith(t, NameComplement, settings, req)
	// c02 is observed (flagged): the unit grown from it holds lines the
	// agent has read and goes, as does the unit grown over the observed
	// span of pkg/read.py.
	want := []string{"grown-c01", "grown-c03", "grown-c04"}
	if d := cmp.Diff(want, unitIDs(res.Units)); d != "" {
		t.Errorf("units (-want +got):\n%s", d)
	}
	if res.Fallback == nil || res.Fallback.Stage != "propose" || !strings.Contains(res.Fallback.Reason, "503") {
		t.Errorf("fallback = %+v, want stage propose with the 503", res.Fallback)
	}
	if strings.Contains(res.Fallback.Reason, secret) || !strings.Contains(res.Fallback.Reason, "[redacted]") {
		t.Errorf("fallback reason not scrubbed: %s", res.Fallback.Reason)
	}
	if !traceHas(res, "fallback", "overlaps an observed span") || !strings.Contains(fmtTrace(res), "grown-over-read") {
		t.Errorf("trace lacks the dropped grown unit: %+v", res.Trace)
	}
	if res.Usage.Fallbacks != 1 {
		t.Errorf("usage.fallbacks = %d, want 1", res.Usage.Fallbacks)
	}

	// A model answer carries no fallback.
	_, settings = setup(t, copyScript(goodScript))
	if res := selectWith(t, NameComplement, settings, request(12)); res.Fallback != nil {
		t.Errorf("model answer has fallback %+v", res.Fallback)
	}
}

func fmtTrace(res *mss.Result) string {
	var b strings.Builder
	for _, s := range res.Trace {
		b.WriteString(s.Stage + " " + s.UnitID + " " + s.Reason + "\n")
	}
	return b.String()
}
