package controller

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/retrieve"
)

func selectWith(t *testing.T, method string, settings map[string]string, st *mss.State, budget, maxUnits int) *mss.Result {
	t.Helper()
	e := retrieve.NewEngine(fixture(), nil, retrieve.Options{})
	cands, err := e.Candidates(context.Background(), st, 0)
	if err != nil {
		t.Fatal(err)
	}
	c, err := mss.NewMethod(method, mss.MethodOptions{Settings: settings})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Select(context.Background(), &mss.Request{State: st, Candidates: cands, Budget: budget, MaxUnits: maxUnits, Source: e})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// selectOver answers st from units with complement, growth off, in at
// most maxUnits units of 6,144 tokens.
func selectOver(t *testing.T, units []mss.Unit, st *mss.State, maxUnits int) *mss.Result {
	t.Helper()
	return selectWithin(t, units, st, maxUnits, 6144)
}

// selectWithin is selectOver with a budget of its own.
func selectWithin(t *testing.T, units []mss.Unit, st *mss.State, maxUnits, budget int) *mss.Result {
	t.Helper()
	req := requestOver(t, units, st, budget)
	req.MaxUnits = maxUnits
	c, err := mss.NewMethod(NameComplement, mss.MethodOptions{Settings: map[string]string{"grow": "false"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Select(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// defining gives each of units the language lang and, as the name it
// defines, its symbol's last part.
func defining(lang string, units []mss.Unit) {
	for i := range units {
		units[i].Language = lang
		units[i].Defines = []string{lastPart(units[i].Symbol)}
	}
}

func TestTestsComeBackWhenAsked(t *testing.T) {
	isTest := func(res *mss.Result) bool {
		for _, u := range res.Units {
			if retrieve.Classify(u.Path) == retrieve.ClassTest {
				return true
			}
		}
		return false
	}
	plain := &mss.State{Issue: "`parse_header` fails on values with ':'"}
	if res := selectWith(t, NameComplement, map[string]string{"grow": "false"}, plain, 6144, 2); isTest(res) {
		t.Errorf("a state that does not ask for tests got one: %v", paths(res.Units))
	}
	asks := &mss.State{Issue: plain.Issue, InformationNeed: "Which tests cover header parsing?"}
	res := selectWith(t, NameComplement, map[string]string{"grow": "false"}, asks, 6144, 2)
	if !isTest(res) || len(res.Units) != 2 {
		t.Fatalf("a state asking for tests: got %v, want 2 units, the last a test", paths(res.Units))
	}
	if last := res.Units[len(res.Units)-1]; retrieve.Classify(last.Path) != retrieve.ClassTest {
		t.Errorf("the test is not last: %v", paths(res.Units))
	}
	out := &mss.State{Issue: plain.Issue, LatestTestOutput: "FAILED tests/test_parse.py::test_parse_header - ValueError"}
	if res := selectWith(t, NameComplement, map[string]string{"grow": "false"}, out, 6144, 3); !isTest(res) {
		t.Errorf("test output pointing at a test: got %v, want the test", paths(res.Units))
	}
}

func TestTestNeed(t *testing.T) {
	for _, tt := range []struct {
		st    mss.State
		asked bool
		names string
	}{
		{mss.State{InformationNeed: "where is the parser"}, false, ""},
		{mss.State{CurrentSubgoal: "write a regression test for it"}, true, ""},
		{mss.State{InformationNeed: "contest results"}, false, ""},
		// A path or a name written as code names no tests.
		{mss.State{InformationNeed: "UnitTestCase.collect in src/_pytest/unittest.py has been read. Find the other code that must change together with it."}, false, ""},
		{mss.State{InformationNeed: "tests::SyntaxDetectionTest.syntax_for_real_file_with_content_os in src/assets.rs has been read. Find the other code that must change together with it."}, false, ""},
		{mss.State{InformationNeed: "Having read `run_tests`, find where the runner starts."}, false, ""},
		{mss.State{InformationNeed: "Find the tests of src/_pytest/unittest.py."}, true, ""},
		{mss.State{LatestTestOutput: "FAILED tests/test_a.py::test_b - x"}, true, "tests/test_a.py test_a test_b"},
		{mss.State{LatestTestOutput: "--- FAIL: TestParse (0.00s)"}, true, "TestParse"},
		{mss.State{LatestTestOutput: "running 2 tests\ntest tests::parses ... ok\ntest header::tests::splits_colons ... FAILED\n\nfailures:\n\n---- header::tests::splits_colons stdout ----\n"}, true, "splits_colons"},
	} {
		asked, names, _ := retrieve.TestPointers(&tt.st)
		if asked != tt.asked || strings.Join(names, " ") != tt.names {
			t.Errorf("TestPointers(%+v) = %v %q, want %v %q", tt.st, asked, names, tt.asked, tt.names)
		}
	}
}

func TestRRFGrowIsRRFWithGrowth(t *testing.T) {
	st := &mss.State{Issue: "`parse_headers` drops a header that `parse_header` splits"}
	rrf := selectWith(t, NameRRF, nil, st, 6144, 1)
	grown := selectWith(t, NameRRFGrow, nil, st, 6144, 1)
	if len(rrf.Units) != 1 || len(grown.Units) != 1 {
		t.Fatalf("want one unit each, got %v and %v", paths(rrf.Units), paths(grown.Units))
	}
	r, g := rrf.Units[0], grown.Units[0]
	if g.Path != r.Path || g.StartLine > r.StartLine || g.EndLine < r.EndLine || g.EndLine-g.StartLine <= r.EndLine-r.StartLine {
		t.Errorf("rrf-grow %s:%d-%d does not grow rrf's %s:%d-%d", g.Path, g.StartLine, g.EndLine, r.Path, r.StartLine, r.EndLine)
	}
	if len(g.Symbols) < 2 || len(r.Symbols) != 1 {
		t.Errorf("symbols: rrf %v, rrf-grow %v; want one and several", r.Symbols, g.Symbols)
	}
	same := selectWith(t, NameRRF, map[string]string{"grow": "true"}, st, 6144, 1)
	if same.Units[0].ID != g.ID {
		t.Errorf("rrf grow=true gives %s, rrf-grow %s: not the same stage", same.Units[0].ID, g.ID)
	}
	if _, err := mss.NewMethod(NameRRFGrow, mss.MethodOptions{Settings: map[string]string{"coverage_weight": "1"}}); err == nil {
		t.Error("rrf-grow accepted a complement setting")
	}
}

// pairUnits pairs two units as an answer pairs two of its candidates.
func pairUnits(a, b *mss.Unit, defs map[string]int) bool {
	return pairs(newTieNames([]mss.Candidate{{Unit: *a}, {Unit: *b}}), 0, 1, defs, true)
}

func TestPairs(t *testing.T) {
	decl := mss.Unit{Path: "src/buf.h", Symbol: "buf_grow", Content: "int buf_grow(buf *b, size_t n);\n"}
	def := mss.Unit{Path: "src/buf.c", Symbol: "buf_grow", Content: "int buf_grow(buf *b, size_t n) {\n  return 0;\n}\n"}
	iface := mss.Unit{Path: "Sink.java", Symbol: "Sink.write", Content: "void write(byte[] b);\n"}
	impl := mss.Unit{Path: "FileSink.java", Symbol: "FileSink.write", Content: "public void write(byte[] b) {\n}\n"}
	other := mss.Unit{Path: "src/pool.c", Symbol: "buf_grow", Content: "static int buf_grow(void) {\n}\n"}
	defs := map[string]int{"buf_grow": 3, "write": 2}
	if !pairUnits(&decl, &def, defs) || !pairUnits(&def, &decl, defs) || !pairUnits(&iface, &impl, defs) {
		t.Error("a declaration and its definition do not pair")
	}
	if pairUnits(&def, &other, defs) {
		t.Error("two definitions pair")
	}
	// A type declaration file declares the source's names: as a member of
	// its type, or by the same name.
	typed := mss.Unit{Path: "types/plugin/utc.d.ts", Symbol: "Dayjs", Defines: []string{"Dayjs"},
		References: []string{"isUTC", "utc", "utcOffset"}, Content: "interface Dayjs {\n  utc(): Dayjs\n  utcOffset(offset: number): Dayjs\n}\n"}
	impl2 := mss.Unit{Path: "src/plugin/utc/index.js", Symbol: "proto.utcOffset", Defines: []string{"utcOffset"},
		Content: "proto.utcOffset = function (input) {\n  return this\n}\n"}
	local := mss.Unit{Path: "src/plugin/utc/index.js", Symbol: "proto.local", Defines: []string{"local"},
		Content: "proto.local = function () {\n  return this\n}\n"}
	stub := mss.Unit{Path: "src/attr/__init__.pyi", Symbol: "attrib", Defines: []string{"attrib"}, Content: "def attrib(default: Any = ...) -> Any: ...\n"}
	attrib := mss.Unit{Path: "src/attr/_make.py", Symbol: "attrib", Defines: []string{"attrib"}, Content: "def attrib(default=NOTHING):\n    return _CountingAttr(default)\n"}
	if !pairUnits(&typed, &impl2, defs) || !pairUnits(&impl2, &typed, defs) || !pairUnits(&attrib, &stub, defs) {
		t.Error("a type declaration file's declaration and the code it types do not pair")
	}
	if pairUnits(&typed, &local, defs) {
		t.Error("a declaration file's type pairs with code whose name it does not declare")
	}
	if pairUnits(&typed, &impl2, map[string]int{"utcoffset": maxTwins + 4}) {
		t.Error("a name many candidates define pairs")
	}
}

// TestReadDefinitionBringsDeclaration: a state that read an
// implementation gets the type declaration file's unit declaring it,
// though a plain ranking puts other code first.
func TestReadDefinitionBringsDeclaration(t *testing.T) {
	units := []mss.Unit{
		unit("src/plugin/utc/index.js", 1, "proto.utcOffset", "proto.utcOffset = function (input, keepLocalTime) {\n  return offsetOf(input)\n}"),
		unit("src/plugin/utc/index.js", 10, "proto.utc", "proto.utc = function (keepLocalTime) {\n  return offsetOf(0)\n}"),
		unit("src/plugin/utc/index.js", 20, "offsetOf", "function offsetOf(input) {\n  return input * 60\n}"),
		unit("src/index.js", 1, "parseDate", "function parseDate(input) {\n  return new Date(input)\n}"),
		unit("types/plugin/utc.d.ts", 1, "Dayjs", "interface Dayjs {\n  utc(keepLocalTime?: boolean): Dayjs\n  utcOffset(offset: number): Dayjs\n}"),
	}
	defining("javascript", units)
	d := &units[4]
	d.Language, d.Kind = "typescript", "type"
	d.Defines, d.References = []string{"Dayjs"}, []string{"Dayjs", "boolean", "keepLocalTime", "number", "offset", "utc", "utcOffset"}
	st := &mss.State{Issue: "utcOffset(input, keepLocalTime) should keep the local time of day",
		ObservedSpans: []mss.Span{{Path: "src/plugin/utc/index.js", StartLine: 1, EndLine: 3}}}
	res := selectOver(t, units, st, 2)
	if !slices.ContainsFunc(res.Units, func(u mss.Unit) bool { return u.Path == "types/plugin/utc.d.ts" }) {
		t.Errorf("the read implementation's declaration is not in the answer: %v", paths(res.Units))
	}
	if !slices.ContainsFunc(res.Trace, func(s mss.TraceStep) bool {
		return strings.HasPrefix(s.UnitID, "types/plugin/utc.d.ts") && strings.Contains(s.Reason, " + pair 0.500")
	}) {
		t.Errorf("no trace step credits the declaration's pair: %+v", res.Trace)
	}
}

// Refilling appends after the test addTest put last; keepLast moves the
// unit holding the test (grown or not) back to the end, and leaves an
// answer whose test is last, or holds none, as it is.
func TestTestStaysLast(t *testing.T) {
	test := mss.Unit{ID: "t", Path: "tests/test_parse.py", StartLine: 10, EndLine: 20, Symbol: "test_parse_header"}
	grown := mss.Unit{ID: "t", Path: "tests/test_parse.py", StartLine: 1, EndLine: 20, Symbol: "test_parse_header"}
	a := mss.Unit{ID: "a", Path: "src/parse.py", StartLine: 1, EndLine: 9}
	b := mss.Unit{ID: "b", Path: "src/header.py", StartLine: 1, EndLine: 9}
	c := mss.Unit{ID: "c", Path: "src/util.py", StartLine: 1, EndLine: 9}
	res := &mss.Result{Units: []mss.Unit{a, grown, b, c}}
	keepLast(res, &test)
	if got := unitIDs(res.Units); got != "a b c t" {
		t.Errorf("after keepLast: %s, want a b c t", got)
	}
	if n := len(res.Trace); n != 1 || !strings.Contains(res.Trace[0].Reason, "2 refilled units move ahead of it") {
		t.Errorf("trace: %+v", res.Trace)
	}
	for _, units := range [][]mss.Unit{{a, b, test}, {a, b, c}} {
		res := &mss.Result{Units: slices.Clone(units)}
		keepLast(res, &test)
		if unitIDs(res.Units) != unitIDs(units) || len(res.Trace) != 0 {
			t.Errorf("keepLast changed %s to %s (%+v)", unitIDs(units), unitIDs(res.Units), res.Trace)
		}
	}
}

func unitIDs(us []mss.Unit) string {
	ids := make([]string, len(us))
	for i, u := range us {
		ids[i] = u.ID
	}
	return strings.Join(ids, " ")
}

// TestInlineTestsComeBackWhenAsked: in Rust, tests live beside the code
// they test; a #[test] function in src/ is the test a state asking for
// tests gets, and a state that does not ask keeps the budget for code.
func TestInlineTestsComeBackWhenAsked(t *testing.T) {
	rust := func(start int, symbol, content string) mss.Unit {
		u := unit("src/header.rs", start, symbol, content)
		u.Language = "rust"
		return u
	}
	units := []mss.Unit{
		rust(1, "parse_header", "pub fn parse_header(line: &str) -> (String, String) {\n    let (k, v) = line.split_once(':').unwrap();\n    (k.trim().into(), v.into())\n}"),
		rust(10, "parse_headers", "pub fn parse_headers(lines: &[&str]) -> Vec<(String, String)> {\n    lines.iter().map(|l| parse_header(l)).collect()\n}"),
		rust(20, "header_value", "pub fn header_value(v: &str) -> &str {\n    v.trim()\n}"),
		rust(30, "parses_colons", "#[test]\nfn parses_colons() {\n    assert_eq!(parse_header(\"a:b:c\").1, \"b:c\");\n}"),
	}
	isTest := func(res *mss.Result) bool {
		return slices.ContainsFunc(res.Units, func(u mss.Unit) bool { return retrieve.ClassifyUnit(&u) == retrieve.ClassTest })
	}
	run := func(st *mss.State) *mss.Result { return selectOver(t, units, st, 2) }
	plain := &mss.State{Issue: "`parse_header` cuts values with ':' in `parse_headers`"}
	if res := run(plain); isTest(res) {
		t.Errorf("a state that does not ask for tests got one: %v", paths(res.Units))
	}
	asks := &mss.State{Issue: plain.Issue, InformationNeed: "Which tests cover header parsing?"}
	res := run(asks)
	if len(res.Units) != 2 || res.Units[1].Symbol != "parses_colons" {
		t.Errorf("a state asking for tests: got %v, want 2 units, the last the #[test] function", paths(res.Units))
	}
	failed := &mss.State{Issue: plain.Issue, LatestTestOutput: "test header::tests::parses_colons ... FAILED"}
	if res := run(failed); !isTest(res) {
		t.Errorf("cargo test output naming a failed test: got %v, want the test", paths(res.Units))
	}
}

// TestTheTestOfTheChosenCode: of the tests a state asking for tests
// could get, the one that calls the chosen code comes before a test the
// ranking puts first for its words alone; and of two that call it, the
// one in the test file named for the chosen code's file, though the
// ranking puts the other first.
func TestTheTestOfTheChosenCode(t *testing.T) {
	parse := unit("src/parse.py", 1, "parse_header", "def parse_header(line):\n    key, value = line.split(':', 1)\n    return key.strip(), value")
	colon := unit("tests/test_parse.py", 1, "test_colon", "def test_colon():\n    assert parse_header('a: b:c') == ('a', ' b:c')")
	for _, tc := range []struct {
		code, other mss.Unit // a second unit of code, and a test the ranking puts first
		uses        string   // what the other test uses
		reason      string   // why test_colon comes back
	}{{
		unit("src/send.py", 1, "encode_request", "def encode_request(req):\n    return req.method + ' ' + req.url"),
		unit("tests/test_words.py", 1, "test_header_values_colon", "def test_header_values_colon():\n    # cuts header values with a colon: tests cover header values\n    assert split_words('cuts header values with a colon') == ['cuts', 'header', 'values', 'colon']"),
		"split_words", "a test of " + parse.ID + " (it uses parse_header)",
	}, {
		unit("src/values.py", 1, "split_header_values", "def split_header_values(text):\n    # cuts header values at each colon\n    return text.split(':')"),
		unit("tests/test_client.py", 1, "test_header_values_colon", "def test_header_values_colon():\n    # cuts header values with a colon: tests cover header values\n    assert parse_header('cuts header values: with a colon') == ('cuts header values', ' with a colon')"),
		"parse_header", "a test of " + parse.ID + " (it uses parse_header), in tests/test_parse.py, named for src/parse.py",
	}} {
		units := []mss.Unit{parse, tc.code, tc.other, colon}
		defining("python", units)
		units[2].References = []string{tc.uses}
		units[3].References = []string{"parse_header"}
		st := &mss.State{Issue: "`parse_header` cuts header values with a colon", InformationNeed: "Which tests cover header values?"}
		endsWithTest(t, selectOver(t, units, st, 2), 2, &units[3], tc.reason,
			"parse_header and then test_colon, "+tc.reason)
	}
}

// TestRoomForTheTest: when the chosen code leaves the budget no room for
// a test, the last chosen units make room for it, one at a time, while
// more than keepForTest of them remain.
func TestRoomForTheTest(t *testing.T) {
	var code []mss.Unit
	for i := range 7 {
		name := fmt.Sprintf("parse_header_%d", i)
		body := "def " + name + "(line):\n" + strings.Repeat(fmt.Sprintf("    # header values cut at a colon, case %d\n", i), 38) + "    return line\n"
		code = append(code, unit(fmt.Sprintf("src/header%d.py", i), 1, name, body))
	}
	st := &mss.State{Issue: "header values cut at a colon", InformationNeed: "Which tests cover header values?"}
	// Seven units of 419 tokens leave 67 of 3,000 tokens.
	for _, tc := range []struct {
		asserts int  // the test's lines
		want    int  // the units of the answer
		test    bool // the test among them, last
	}{{12, 7, true}, {48, 6, true}, {80, 7, false}} {
		test := unit("tests/test_header0.py", 1, "test_colon", "def test_colon():\n"+strings.Repeat("    assert parse_header_0('a: b:c') == 'a: b:c'\n", tc.asserts))
		units := append(slices.Clone(code), test)
		defining("python", units)
		units[7].References = []string{"parse_header_0"}
		res := selectWithin(t, units, st, 8, 3000)
		hasTest := res.Units[len(res.Units)-1].ID == test.ID
		if len(res.Units) != tc.want || hasTest != tc.test {
			t.Errorf("a test of %d tokens: got %v, want %d units (the test among them: %v)", test.Tokens, paths(res.Units), tc.want, tc.test)
		}
	}
}

// TestTheTestOfTheReadCode: having read from_prefixed_env and asked for
// its tests, the state gets the test that calls it, not a test of the
// code chosen beside it.
func TestTheTestOfTheReadCode(t *testing.T) {
	units := []mss.Unit{
		unit("src/config.py", 1, "from_prefixed_env", "def from_prefixed_env(self, prefix='FLASK'):\n    for key in sorted(os.environ):\n        self[key] = os.environ[key]"),
		unit("src/config.py", 10, "from_pyfile", "def from_pyfile(self, filename):\n    d = load(filename)\n    return self.from_object(d)"),
		unit("src/config.py", 20, "from_object", "def from_object(self, obj):\n    for key in dir(obj):\n        self[key] = getattr(obj, key)"),
		unit("src/config.py", 30, "from_mapping", "def from_mapping(self, mapping):\n    for key, value in mapping.items():\n        self[key] = value"),
		unit("tests/test_config.py", 1, "test_config_missing", "def test_config_missing():\n    app = make_app()\n    assert not app.config.from_pyfile('missing.cfg', silent=True)"),
		unit("tests/test_config.py", 10, "test_prefixed_nested", "def test_prefixed_nested(monkeypatch):\n    monkeypatch.setenv('FLASK_A__B', '1')\n    app = make_app()\n    app.config.from_prefixed_env()\n    assert app.config['A']['B'] == 1"),
	}
	defining("python", units)
	units[4].References = []string{"from_pyfile", "make_app"}
	units[5].References = []string{"from_prefixed_env", "make_app"}
	st := &mss.State{
		Issue:           "Config.from_prefixed_env does not load nested keys from the environment",
		InformationNeed: "I have read from_prefixed_env. Which existing tests cover it? Compare `from_pyfile`, `from_object` and `from_mapping`.",
		ObservedSpans:   []mss.Span{{Path: "src/config.py", StartLine: 1, EndLine: 3}},
	}
	endsWithTest(t, selectOver(t, units, st, 3), 3, &units[5], "a test of the read "+units[0].ID+" (it uses from_prefixed_env)",
		"two of the code named and then test_prefixed_nested, the test of the code read")
}

// TestTheTestLineTheOutputPointsAt: of two test units in the file a
// failing test's frame names, the one holding the frame's line comes
// back, and the trace says the output points at a line of it.
func TestTheTestLineTheOutputPointsAt(t *testing.T) {
	units := []mss.Unit{
		unit("lib/router.js", 1, "router.param", "proto.param = function param(name, fn) {\n  this.params[name] = fn;\n  return this;\n};"),
		unit("lib/router.js", 10, "router.process_params", "proto.process_params = function process_params(layer, called, req, res, done) {\n  var params = this.params;\n  return done();\n};"),
		unit("lib/router.js", 20, "router.handle", "proto.handle = function handle(req, res, out) {\n  var idx = 0;\n  next();\n};"),
		unit("test/app.param.js", 1, "", "describe('app', function(){\n  describe('.param(fn)', function(){\n    it('should skip to the next route when app.param calls next route', function(done){\n      var app = express();\n      app.param(function(name, route){ return next('route'); });\n      done();\n    });\n  });\n});"),
		unit("test/app.param.js", 116, "", "  it('should defer', function(done){\n    var app = express();\n    app.param('id', function(req, res, cb, id){ cb('r'); });\n    request(app).get('/user/1').expect(200, done);\n  });"),
	}
	defining("javascript", units)
	units[3].References = []string{"param", "express"}
	units[4].References = []string{"param", "express"}
	st := &mss.State{
		Issue:            "app.param with next('route') does not skip to the next route",
		InformationNeed:  "Find the test that fails and the code it runs: `param`, `process_params` and `handle`.",
		LatestTestOutput: "  1) app\n       .param(name, fn)\n         should defer to next route:\n     Error: expected 200 \"OK\", got 404 \"Not Found\"\n      at Test.<anonymous> (test/app.param.js:118:16)\n",
	}
	endsWithTest(t, selectOver(t, units, st, 3), 3, &units[4], "the test output points at a line of it",
		"the router's code and then test/app.param.js:116, the test holding line 118")
}

// TestTheTestTheStateNames: asked to add a test to EnumTest, the state
// gets EnumTest, not a test of the code chosen first.
func TestTheTestTheStateNames(t *testing.T) {
	units := []mss.Unit{
		unit("gson/src/main/java/com/google/gson/internal/bind/EnumTypeAdapter.java", 1, "EnumTypeAdapter", "final class EnumTypeAdapter<T extends Enum<T>> extends TypeAdapter<T> {\n  private final Map<String, T> nameToConstant = new HashMap<>();\n}"),
		unit("gson/src/main/java/com/google/gson/internal/bind/EnumTypeAdapter.java", 10, "EnumTypeAdapter.read", "public T read(JsonReader in) throws IOException {\n  return nameToConstant.get(in.nextString());\n}"),
		unit("gson/src/main/java/com/google/gson/annotations/SerializedName.java", 1, "SerializedName", "public @interface SerializedName {\n  String value();\n  String[] alternate() default {};\n}"),
		unit("gson/src/test/java/com/google/gson/functional/NamingPolicyTest.java", 1, "NamingPolicyTest", "public class NamingPolicyTest {\n  @Test public void testAlternate() {\n    new EnumTypeAdapter<>(Color.class);\n  }\n}"),
		unit("gson/src/test/java/com/google/gson/functional/EnumTest.java", 1, "EnumTest", "public class EnumTest {\n  @Test public void testTopLevelEnum() {\n    gson.toJson(Roshambo.ROCK);\n  }\n}"),
	}
	defining("java", units)
	units[3].References = []string{"EnumTypeAdapter", "Color"}
	units[4].References = []string{"gson", "Roshambo"}
	st := &mss.State{
		Issue:           "`EnumTypeAdapter` ignores `SerializedName` alternates when reading an enum constant",
		InformationNeed: "Find the existing enum tests. Add a unit test to `EnumTest` for `EnumTypeAdapter.read`.",
	}
	endsWithTest(t, selectOver(t, units, st, 3), 3, &units[4], "it covers entity:EnumTest, which the state names",
		"the adapter's code and then EnumTest, the test the state names")
}

// endsWithTest checks that res holds n units, the last of them test, and
// that a trace step on test gives reason; want says what was expected.
func endsWithTest(t *testing.T, res *mss.Result, n int, test *mss.Unit, reason, want string) {
	t.Helper()
	if len(res.Units) != n || res.Units[n-1].Path != test.Path || res.Units[n-1].StartLine != test.StartLine {
		t.Fatalf("got %v, want %s", paths(res.Units), want)
	}
	if !slices.ContainsFunc(res.Trace, func(s mss.TraceStep) bool { return s.UnitID == test.ID && strings.Contains(s.Reason, reason) }) {
		t.Errorf("no trace step on %s says %q: %+v", test.ID, reason, res.Trace)
	}
}
