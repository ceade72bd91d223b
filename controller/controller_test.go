package controller

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/retrieve"
	"github.com/missingcomplement/mss/segment"
)

func unit(path string, start int, symbol, content string) mss.Unit {
	if !strings.HasSuffix(content, "\n") {
		content += "\n"
	}
	n := strings.Count(content, "\n")
	return mss.Unit{ID: fmt.Sprintf("%s:%d", path, start), Path: path, StartLine: start, EndLine: start + n - 1,
		Symbol: symbol, Content: content, Tokens: mss.TokenCost(content)}
}

// fixture: a repository where the issue names two functions in different
// files, plus near-duplicates that a relevance ranking puts first.
func fixture() []mss.Unit {
	return []mss.Unit{
		unit("lib/parse.py", 1, "parse_header", "def parse_header(line):\n    key, value = line.split(':')\n    return key.strip(), value"),
		unit("lib/parse.py", 10, "parse_headers", "def parse_headers(lines):\n    return dict(parse_header(l) for l in lines)"),
		unit("lib/parse.py", 20, "parse_header_value", "def parse_header_value(value):\n    return value.strip()"),
		unit("lib/parse.py", 30, "header_keys", "def header_keys(headers):\n    return [k for k in headers]"),
		unit("lib/send.py", 1, "encode_request", "def encode_request(req):\n    return req.method + ' ' + req.url"),
		unit("lib/util.py", 1, "to_native", "def to_native(s):\n    return s.decode()"),
		unit("tests/test_parse.py", 1, "test_parse_header", "def test_parse_header():\n    parse_header('a:b') header parse value split"),
	}
}

func request(t *testing.T, st *mss.State, budget int) *mss.Request {
	t.Helper()
	return requestOver(t, fixture(), st, budget)
}

// requestOver is request over the given units.
func requestOver(t *testing.T, units []mss.Unit, st *mss.State, budget int) *mss.Request {
	t.Helper()
	e := retrieve.NewEngine(units, nil, retrieve.Options{})
	cands, err := e.Candidates(context.Background(), st, 0)
	if err != nil {
		t.Fatal(err)
	}
	return &mss.Request{State: st, Candidates: cands, Budget: budget}
}

func paths(units []mss.Unit) []string {
	var out []string
	for _, u := range units {
		out = append(out, u.ID)
	}
	return out
}

func TestComplementCoversNamedEntities(t *testing.T) {
	st := &mss.State{Issue: "Header parsing breaks: `parse_header` fails on values with ':' and `encode_request` sends them unquoted."}
	c, err := mss.NewMethod(NameComplement, mss.MethodOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Select(context.Background(), request(t, st, 0))
	if err != nil {
		t.Fatal(err)
	}
	got := paths(res.Units)
	if len(got) < 2 || !contains(got[:2], "lib/parse.py:1") || !contains(got[:2], "lib/send.py:1") {
		t.Errorf("first two units = %v, want parse_header and encode_request", got)
	}
	if len(got) < 4 || len(got) > 8 {
		t.Errorf("delivered %d units, want 4..8", len(got))
	}
}

func TestComplementSkipsObserved(t *testing.T) {
	st := &mss.State{
		Issue:         "`parse_header` fails on values with ':'",
		ObservedSpans: []mss.Span{{Path: "lib/parse.py", StartLine: 1, EndLine: 3}},
	}
	for _, name := range []string{NameComplement, NameRRF, NameMMR} {
		c, err := mss.NewMethod(name, mss.MethodOptions{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Select(context.Background(), request(t, st, 0))
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range res.Units {
			if u.Path == "lib/parse.py" && u.StartLine <= 3 {
				t.Errorf("%s returned the observed unit %s", name, u.ID)
			}
		}
		if len(res.Units) == 0 {
			t.Errorf("%s returned nothing", name)
		}
	}
}

func TestBudgetAndBadInput(t *testing.T) {
	st := &mss.State{Issue: "parse_header header value"}
	for _, name := range mss.Methods() {
		switch name {
		case NameComplement, NameBM25, NameRRF, NameMMR, NameSimilarity:
		default:
			continue
		}
		c, err := mss.NewMethod(name, mss.MethodOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// A budget smaller than any unit: a valid empty answer, reason traced.
		res, err := c.Select(context.Background(), request(t, st, 3))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(res.Units) != 0 {
			t.Errorf("%s: budget 3 delivered %v", name, paths(res.Units))
		}
		if !traceHas(res.Trace, "budget") {
			t.Errorf("%s: budget 3: trace does not say why: %v", name, res.Trace)
		}
		// No candidates at all.
		res, err = c.Select(context.Background(), &mss.Request{State: st})
		if err != nil || len(res.Units) != 0 || res.Units == nil {
			t.Errorf("%s: no candidates: got %v, %v; want an empty non-nil answer", name, res, err)
		}
		if _, err := c.Select(context.Background(), &mss.Request{}); err == nil {
			t.Errorf("%s: request without state: want an error", name)
		}
		// Within budget, never more than max units.
		res, err = c.Select(context.Background(), request(t, st, 60))
		if err != nil {
			t.Fatal(err)
		}
		spent := 0
		for _, u := range res.Units {
			spent += u.Tokens
		}
		if spent > 60 || len(res.Units) > mss.DefaultMaxUnits {
			t.Errorf("%s: %d units, %d tokens; budget 60", name, len(res.Units), spent)
		}
	}
}

func TestBaselineOrders(t *testing.T) {
	st := &mss.State{Issue: "parse_header header value split", ObservedSpans: []mss.Span{{Path: "lib/parse.py", StartLine: 1, EndLine: 3}}}
	req := request(t, st, 0)
	bm, _ := mss.NewMethod(NameBM25, mss.MethodOptions{})
	res, err := bm.Select(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	ranks := map[int]string{}
	for _, c := range req.Candidates {
		if r, ok := c.Views[retrieve.ViewLexical]; ok {
			ranks[r] = c.Unit.ID
		}
	}
	for r := 1; len(want) < len(res.Units); r++ {
		want = append(want, ranks[r])
	}
	if diff := cmp.Diff(want, paths(res.Units)); diff != "" {
		t.Errorf("bm25 order (-want +got):\n%s", diff)
	}
	sim, _ := mss.NewMethod(NameSimilarity, mss.MethodOptions{})
	res, err = sim.Select(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	n := min(SimilarityUnits, len(req.Candidates))
	var fused []string
	for _, c := range req.Candidates[:n] {
		fused = append(fused, c.Unit.ID)
	}
	if diff := cmp.Diff(fused, paths(res.Units)); diff != "" {
		t.Errorf("similarity order (-want +got):\n%s", diff)
	}
	// The config and the trace name the order the candidates came in.
	rrf, _ := mss.NewMethod(NameRRF, mss.MethodOptions{})
	for _, tc := range []struct {
		order string
		cands []mss.Candidate
	}{{"learned", req.Candidates}, {"fused", retrieve.FusedOrder(req.Candidates)}} {
		res, err := rrf.Select(context.Background(), &mss.Request{State: st, Candidates: tc.cands})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(res.Config, "order="+tc.order+" ") || !traceHas(res.Trace, tc.order+" #") {
			t.Errorf("%s order: config %q, trace %v", tc.order, res.Config, res.Trace)
		}
	}
}

func TestDeterministicAndSettings(t *testing.T) {
	st := &mss.State{Issue: "`parse_header` and `encode_request` disagree on header values"}
	c, _ := mss.NewMethod(NameComplement, mss.MethodOptions{})
	a, _ := c.Select(context.Background(), request(t, st, 0))
	b, _ := c.Select(context.Background(), request(t, st, 0))
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("two runs differ:\n%s", diff)
	}
	if _, err := mss.NewMethod(NameComplement, mss.MethodOptions{Settings: map[string]string{"bogus": "1"}}); err == nil {
		t.Error("unknown setting accepted")
	}
	if _, err := mss.NewMethod(NameMMR, mss.MethodOptions{Settings: map[string]string{"lambda": "2"}}); err == nil {
		t.Error("lambda=2 accepted")
	}
}

// TestSettingsOfOtherStages: every method of a command is given the same
// settings, so the ones meant for other stages (cache_only is what
// --cache-only sets) are not refused, while an unknown key is, as unknown,
// and a bad value of a known key names the key.
func TestSettingsOfOtherStages(t *testing.T) {
	shared := []map[string]string{
		{"cache_only": "true"},
		{"cache_dir": ".mss-cache", "cache_only": "true", "concurrency": "8", "price.gpt-4.1": "2,8"},
	}
	for _, m := range []string{NameComplement, NameBM25, NameRRF, NameRRFGrow, NameMMR, NameSimilarity} {
		for _, s := range shared {
			if _, err := mss.NewMethod(m, mss.MethodOptions{Settings: s}); err != nil {
				t.Errorf("%s with %v: %v", m, s, err)
			}
		}
		if _, err := mss.NewMethod(m, mss.MethodOptions{Settings: map[string]string{"bogus": "abc", "cache_only": "true"}}); err == nil || !strings.Contains(err.Error(), "unknown setting") || !strings.Contains(err.Error(), "bogus") {
			t.Errorf("%s with bogus=abc: err = %v, want an unknown-setting error", m, err)
		}
	}
	for _, tc := range []struct {
		method string
		s      map[string]string
		want   string
	}{
		{NameComplement, map[string]string{"coverage_weight": "abc"}, `complement: setting coverage_weight="abc": want a non-negative number`},
		{NameComplement, map[string]string{"relevance_weight": "NaN"}, `complement: setting relevance_weight="NaN": want a non-negative number`},
		{NameComplement, map[string]string{"reach_share": "2"}, `complement: setting reach_share="2": want a share of the budget, 0 to 1`},
		{NameComplement, map[string]string{"reach_share": "NaN"}, `complement: setting reach_share="NaN": want a non-negative number`},
		{NameMMR, map[string]string{"lambda": "NaN"}, `mmr: setting lambda="NaN": want a number in [0,1]`},
		{NameMMR, map[string]string{"lambda": "nan"}, `mmr: setting lambda="nan": want a number in [0,1]`},
		{NameMMR, map[string]string{"lambda": "+Inf"}, `mmr: setting lambda="+Inf": want a number in [0,1]`},
		{NameMMR, map[string]string{"grow_max_share": "NaN"}, `mmr: setting grow_max_share="NaN": want a share in (0, 1]`},
	} {
		if _, err := mss.NewMethod(tc.method, mss.MethodOptions{Settings: tc.s}); err == nil || err.Error() != tc.want {
			t.Errorf("%s with %v: err = %v, want %s", tc.method, tc.s, err, tc.want)
		}
	}
	if m, err := NewMMR(mss.MethodOptions{Settings: map[string]string{"lambda": "0.5"}}); err != nil || m.Lambda != 0.5 {
		t.Errorf("lambda=0.5: %v, %v", m, err)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func traceHas(tr []mss.TraceStep, word string) bool {
	for _, s := range tr {
		if strings.Contains(s.Reason, word) {
			return true
		}
	}
	return false
}

func TestTieNamesTheTie(t *testing.T) {
	split := mss.Unit{Path: "tok.py", Symbol: "split", References: []string{"re"}}
	terms := mss.Unit{Path: "tok.py", Symbol: "terms", References: []string{"split"}}
	search := mss.Unit{Path: "index.py", Symbol: "Index.search", References: []string{"terms"}}
	add := mss.Unit{Path: "index.py", Symbol: "Index.add"}
	addAgain := mss.Unit{Path: "index.py", Symbol: "Index.add", StartLine: 40}
	other := mss.Unit{Path: "b.py", Symbol: "split"}
	otherCase := mss.Unit{Path: "b.go", Symbol: "Tuner.Split"}
	far := mss.Unit{Path: "c.py", Symbol: "unrelated"}
	// Counterparts: the two sides of one operation.
	to := mss.Unit{Path: "reports.py", Symbol: "BaseReport._to_json"}
	from := mss.Unit{Path: "reports.py", Symbol: "BaseReport._from_json"}
	hook := mss.Unit{Path: "hooks.py", Symbol: "pytest_report_from_serializable"}
	toHook := mss.Unit{Path: "reports.py", Symbol: "pytest_report_to_serializable"}
	twin := func(w float64) tieWeights { return tieWeights{twin: w} }
	for _, tc := range []struct {
		a, b *mss.Unit
		tw   tieWeights
		w    float64
		why  string
	}{
		{&split, &terms, twin(0), 1, "this uses split"},
		{&terms, &split, twin(0), 1, "it uses split"},
		{&split, &other, twin(0), 0, ""},
		{&split, &other, twin(1), 1, "same name"},
		{&split, &other, twin(0.25), 0.25, "same name"},
		{&search, &add, twin(0), 0.5, "same scope Index"},
		// An overload: the same name in the same scope.
		{&add, &addAgain, twin(0), 0.5, "same scope Index"},
		{&add, &addAgain, twin(1), 1, "same name"},
		{&split, &far, twin(1), 0, ""},
		// The same word in another case names another thing: no twin.
		{&split, &otherCase, twin(1), 0, ""},
		// A counterpart ties by its weight only when the names tie no
		// other way as strongly.
		{&to, &from, tieWeights{}, 0.5, "same scope BaseReport"},
		{&to, &from, tieWeights{counterpart: 1}, 1, "counterpart, to/from"},
		{&to, &from, tieWeights{counterpart: 0.25}, 0.5, "same scope BaseReport"},
		{&toHook, &hook, tieWeights{}, 0, ""},
		{&toHook, &hook, tieWeights{counterpart: 1}, 1, "counterpart, to/from"},
		{&to, &hook, tieWeights{counterpart: 1}, 0, ""},
	} {
		w, why := tieUnits(tc.a, tc.b, map[string]int{}, tc.tw, &segment.UseCache{})
		if w != tc.w || why != tc.why {
			t.Errorf("tie(%s, %s, %+v) = %g %q, want %g %q", tc.a.Symbol, tc.b.Symbol, tc.tw, w, why, tc.w, tc.why)
		}
	}
	// A name four candidates define ties nothing by that name.
	if w, why := tieUnits(&split, &other, map[string]int{"split": maxTwins + 1}, tieWeights{twin: 1}, &segment.UseCache{}); w != 0 || why != "" {
		t.Errorf("a common name tied: %g %q", w, why)
	}
	if w, why := tieUnits(&split, &terms, map[string]int{"split": maxTwins + 1}, tieWeights{twin: 1}, &segment.UseCache{}); w != 0 || why != "" {
		t.Errorf("a reference to a common name tied: %g %q", w, why)
	}
	common := map[string]int{"pytest_report_from_serializable": maxTwins + 1}
	if w, why := tieUnits(&toHook, &hook, common, tieWeights{counterpart: 1}, &segment.UseCache{}); w != 0 || why != "" {
		t.Errorf("a counterpart many candidates define tied: %g %q", w, why)
	}
}

// A name selected from a value is one of the value's members, no use of
// a function of that name in another file; selected from the function's
// package, or named bare, it is one.
// tieUnits ties two units as an answer ties two of its candidates.
func tieUnits(a, b *mss.Unit, defs map[string]int, tw tieWeights, uses *segment.UseCache) (float64, string) {
	return tie(newTieNames([]mss.Candidate{{Unit: *a}, {Unit: *b}}), 0, 1, defs, tw, uses)
}

func TestTieResolvesSelections(t *testing.T) {
	fn := mss.Unit{ID: "f", Path: "tokenize/tokenize.go", Symbol: "Split", Kind: "function"}
	method := mss.Unit{ID: "m", Path: "index/index.go", Symbol: "Index.Split", Kind: "method"}
	user := func(id, content string) *mss.Unit {
		return &mss.Unit{ID: id, Path: "items/items.go", Symbol: "parse", Kind: "function", Language: "go",
			Content: content, References: []string{"Split", "st"}}
	}
	for _, tc := range []struct {
		def *mss.Unit
		u   *mss.Unit
		w   float64
		why string
	}{
		{&fn, user("v", "func parse() { st.Split = 1 }"), 0, ""},
		{&fn, user("p", "func parse() { x := tokenize.Split(st) }"), 1, "this uses Split"},
		{&fn, user("b", "func parse() { x := Split(st) }"), 1, "this uses Split"},
		{&method, user("s", "func parse() { st.Split() }"), 1, "this uses Split"},
	} {
		uses := &segment.UseCache{}
		if w, why := tieUnits(tc.def, tc.u, map[string]int{}, tieWeights{}, uses); w != tc.w || why != tc.why {
			t.Errorf("tie(%s, %q) = %g %q, want %g %q", tc.def.Symbol, tc.u.Content, w, why, tc.w, tc.why)
		}
		// And the other way round.
		if w, _ := tieUnits(tc.u, tc.def, map[string]int{}, tieWeights{}, uses); w != tc.w {
			t.Errorf("tie(%q, %s) = %g, want %g", tc.u.Content, tc.def.Symbol, w, tc.w)
		}
	}
}

func TestGainTermsString(t *testing.T) {
	for _, tc := range []struct {
		t    gainTerms
		want string
	}{
		{gainTerms{relevance: 0.5, size: 1, sameFile: 1}, " = relevance 0.500"},
		{gainTerms{relevance: 0.5, coverage: 0.25, companion: 0.125, size: 1, sameFile: 1}, " = relevance 0.500 + coverage 0.250 + companion 0.125"},
		{gainTerms{relevance: 0.5, pair: 0.25, size: 0.5, sameFile: 1}, " = (relevance 0.500 + pair 0.250) × size 0.500"},
		{gainTerms{relevance: 0.5, size: 0.5, sameFile: 0.25}, " = relevance 0.500 × size 0.500 × same file 0.250"},
		{gainTerms{size: 1, sameFile: 1}, " = relevance 0.000"},
	} {
		if got := tc.t.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.t, got, tc.want)
		}
	}
}

// The terms a select step names add up to the gain it names, and a
// companion says what ties it to the unit it accompanies.
func TestComplementLabelsGainTerms(t *testing.T) {
	units := fixture()
	for i := range units {
		// parse_headers calls parse_header; the test calls it too.
		switch units[i].Symbol {
		case "parse_headers", "test_parse_header":
			units[i].References = []string{"parse_header"}
		}
	}
	st := &mss.State{
		Issue:         "Header parsing breaks: `parse_header` fails on values with ':' and `encode_request` sends them unquoted.",
		ObservedSpans: []mss.Span{{Path: "lib/parse.py", StartLine: 1, EndLine: 3}},
	}
	c, err := mss.NewMethod(NameComplement, mss.MethodOptions{Settings: map[string]string{"grow": "false"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Select(context.Background(), requestOver(t, units, st, 60))
	if err != nil {
		t.Fatal(err)
	}
	steps, companions := 0, 0
	for _, s := range res.Trace {
		if s.Stage != "select" || s.UnitID == "" {
			continue
		}
		steps++
		if strings.Contains(s.Reason, "companion of lib/parse.py:1 (this uses parse_header)") {
			companions++
		}
		var gain float64
		if _, err := fmt.Sscanf(s.Reason[strings.Index(s.Reason, "gain "):], "gain %f = ", &gain); err != nil {
			t.Fatalf("%s: no gain in %q", s.UnitID, s.Reason)
		}
		expr := s.Reason[strings.Index(s.Reason, " = ")+3:]
		expr = expr[:strings.Index(expr, ";")]
		sum, factor := 0.0, 1.0
		sumPart, factorPart, _ := strings.Cut(expr, " × ")
		for _, term := range strings.Split(strings.Trim(sumPart, "()"), " + ") {
			var name string
			var v float64
			if _, err := fmt.Sscanf(term, "%s %f", &name, &v); err != nil {
				t.Fatalf("%s: term %q of %q", s.UnitID, term, s.Reason)
			}
			sum += v
		}
		for f := range strings.SplitSeq(factorPart, " × ") {
			if f == "" {
				continue
			}
			var v float64
			if _, err := fmt.Sscanf(f[strings.LastIndex(f, " ")+1:], "%f", &v); err != nil {
				t.Fatalf("%s: factor %q of %q", s.UnitID, f, s.Reason)
			}
			factor *= v
		}
		if d := sum*factor - gain; d > 0.005 || d < -0.005 {
			t.Errorf("%s: terms %q give %.4f, gain %.3f", s.UnitID, expr, sum*factor, gain)
		}
	}
	if steps == 0 || companions == 0 {
		t.Errorf("%d select steps, %d companions of the read parse_header by name; trace:\n%v", steps, companions, res.Trace)
	}
}

// TestComplementReadsTheOrdersEstimate: when the learned order put the
// candidates in its order, relevance (and so the stop) reads the order's
// estimate, not the fused scores it reassigned; without it, or with
// order_temperature=0, the scores.
func TestComplementReadsTheOrdersEstimate(t *testing.T) {
	st := &mss.State{Issue: "the report comes out empty"}
	// Reassigned scores fall slowly (every unit within 0.5 of the best);
	// the order's log-odds fall off a cliff after the fourth.
	scores := []float64{10, 9, 8, 7, 6, 5}
	logOdds := []float64{0, -0.5, -1, -1.5, -8, -9}
	cands := func(withOrder bool) []mss.Candidate {
		var out []mss.Candidate
		for i, s := range scores {
			c := mss.Candidate{Unit: unit(fmt.Sprintf("pkg/f%d.py", i), 1, fmt.Sprintf("f%d", i), fmt.Sprintf("def f%d():\n    return %d", i, i)), Score: s,
				Signals: map[string]float64{}}
			if withOrder {
				c.Signals[retrieve.SignalFused] = s
				c.Signals[retrieve.SignalOrder] = logOdds[i]
			}
			out = append(out, c)
		}
		return out
	}
	for _, tc := range []struct {
		name      string
		withOrder bool
		settings  map[string]string
		want      int
	}{
		{"order's estimate", true, nil, 4},
		{"order_temperature=0", true, map[string]string{"order_temperature": "0"}, 6},
		{"fused order", false, nil, 6},
		{"a higher temperature", true, map[string]string{"order_temperature": "4"}, 6},
	} {
		c, err := mss.NewMethod(NameComplement, mss.MethodOptions{Settings: tc.settings})
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Select(context.Background(), &mss.Request{State: st, Candidates: cands(tc.withOrder)})
		if err != nil {
			t.Fatal(err)
		}
		if got := paths(res.Units); len(got) != tc.want || got[0] != "pkg/f0.py:1" {
			t.Errorf("%s: units %v, want %d from pkg/f0.py:1 on", tc.name, got, tc.want)
		}
		if stopped := traceHas(res.Trace, "stop at 4 units"); stopped != (tc.want == 4) {
			t.Errorf("%s: stopped at 4 units %v, want %v; trace %v", tc.name, stopped, tc.want == 4, res.Trace)
		}
	}
}

// The trace says why a requirement stayed uncovered: the answer was full,
// or what covers it did not fit.
func TestComplementSaysWhyUncovered(t *testing.T) {
	st := &mss.State{Issue: "`parse_header` and `encode_request` both mishandle ':'"}
	c, err := mss.NewMethod(NameComplement, mss.MethodOptions{})
	if err != nil {
		t.Fatal(err)
	}
	req := request(t, st, 0)
	req.MaxUnits = 1
	res, err := c.Select(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !traceHas(res.Trace, "uncovered: entity:") || !traceHas(res.Trace, "the answer holds the most units allowed, 1") {
		t.Errorf("one unit for two named entities; trace lacks the full answer as the reason:\n%v", res.Trace)
	}
	// A budget only the first fits.
	req = request(t, st, 0)
	req.Budget = mss.TokenCost(fixture()[0].Content)
	if res, err = c.Select(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if !traceHas(res.Trace, "no candidate covering it fits the ") {
		t.Errorf("budget for one unit; trace lacks the budget as the reason:\n%v", res.Trace)
	}
}
