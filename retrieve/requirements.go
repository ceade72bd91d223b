package retrieve

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/missingcomplement/mss"
)

// Requirement is one facet of a state that the evidence must cover: an
// entity it names, a stack-trace frame, a file, or the code that changes
// together with what it already read.
// Requirements already covered by observed units are not returned: the
// agent has that evidence.
type Requirement struct {
	ID     string  // kind:text, stable
	Kind   string  // RequirementEntity, ...
	Weight float64 // how much covering it is worth
	// Covers lists indices into the candidate slice of the candidates that
	// cover the requirement.
	Covers []int
}

// Requirement kinds.
const (
	RequirementFrame   = "frame"
	RequirementEntity  = "entity"
	RequirementFile    = "file"
	RequirementPartner = "partner"
)

// Requirement weights and bounds.
const (
	reqFrameWeight   = 1.0
	reqFrameMax      = 3 // innermost frames that become requirements
	reqFileWeight    = 0.4
	reqPartnerWeight = 1.0
	// reqEntityMax keeps the strongest entity requirements only; an issue
	// quoting a long script names many identifiers.
	reqEntityMax = 6
	// reqEntityMaxDefs: a name defined by more candidates than this is too
	// common to be a requirement.
	reqEntityMaxDefs = 6
	// reqViewTop: a candidate within this rank of a view covers the
	// partner requirement (structural, recency, history).
	reqViewTop = 3
)

// Requirements derives the unresolved requirements of a state over a
// candidate list, strongest first. m are the state's mentions as retrieval
// read them (nil: read them from the state here). It reads only the state
// and the candidates (content, symbols, per-view ranks), so it serves the
// pool track and the repository track alike.
func Requirements(state *mss.State, m *Mentions, cands []mss.Candidate) []Requirement {
	if m == nil {
		m = Extract(state)
	}
	type cinfo struct {
		name, qual, path string
		defines          map[string]bool
	}
	ci := make([]cinfo, len(cands))
	for i := range cands {
		u := &cands[i].Unit
		q := strings.ToLower(normSymbol(u.Symbol))
		c := cinfo{qual: q, name: strings.ToLower(lastComponent(q)), path: strings.ToLower(u.Path), defines: map[string]bool{}}
		if c.name != "" && !strings.HasPrefix(c.name, "<") {
			c.defines[c.name] = true
		}
		for _, d := range u.Defines {
			c.defines[strings.ToLower(lastComponent(normSymbol(d)))] = true
		}
		ci[i] = c
	}
	var out []Requirement
	// covered reports whether an observed candidate covers the list, in
	// which case the requirement is resolved already.
	resolved := func(cov []int) bool {
		for _, i := range cov {
			if cands[i].Observed {
				return true
			}
		}
		return false
	}
	add := func(r Requirement) {
		if len(r.Covers) == 0 || resolved(r.Covers) {
			return
		}
		out = append(out, r)
	}
	pathMatch := func(candPath, mentioned string) bool {
		return SamePath(candPath, strings.ToLower(mentioned))
	}
	seenFrame := map[string]bool{}
	nframes := 0
	for _, f := range innermostFirst(m.Frames) {
		if f.Func == "" || strings.HasPrefix(f.Func, "<") || nframes == reqFrameMax {
			continue
		}
		id := RequirementFrame + ":" + f.Path + ":" + f.Func
		if seenFrame[id] {
			continue
		}
		seenFrame[id] = true
		fn := strings.ToLower(f.Func)
		// The innermost frame of the repository's code is most often where
		// the fix goes; outer frames are callers.
		r := Requirement{ID: id, Kind: RequirementFrame, Weight: reqFrameWeight / float64(nframes+1)}
		for i := range cands {
			if ci[i].defines[fn] && pathMatch(ci[i].path, f.Path) {
				r.Covers = append(r.Covers, i)
			}
		}
		if len(r.Covers) > 0 && !resolved(r.Covers) {
			nframes++
		}
		add(r)
	}
	var ents []Requirement
	namespaces := qualifiersOnly(m)
	for _, id := range sortedKeys(m.Idents) {
		// A word is a code name only when the text marks it as code
		// (backticks, call syntax, a path or frame, a dotted name,
		// snake_case or CamelCase) and the repository defines it. A
		// plain lower-case word written only ahead of another name
		// (fmt of fmt::prepare, lang of java.lang.Number, std of
		// std::future::ready) is the namespace it lives in, not code the
		// answer must hold.
		if !m.Code[id] && !m.Called[id] || namespaces[id] {
			continue
		}
		lid := strings.ToLower(id)
		var cov []int
		for i := range cands {
			if ci[i].defines[lid] {
				cov = append(cov, i)
			}
		}
		if len(cov) == 0 || len(cov) > reqEntityMaxDefs {
			continue
		}
		w := m.Idents[id] / (1 + math.Log(float64(len(cov))))
		ents = append(ents, Requirement{ID: RequirementEntity + ":" + id, Kind: RequirementEntity, Weight: w, Covers: cov})
	}
	// Normalize entity weights so the strongest is worth 1.
	sort.SliceStable(ents, func(i, j int) bool { return ents[i].Weight > ents[j].Weight })
	var kept []Requirement
	for _, r := range ents {
		if resolved(r.Covers) {
			continue
		}
		kept = append(kept, r)
		if len(kept) == reqEntityMax {
			break
		}
	}
	if len(kept) > 0 {
		top := kept[0].Weight
		for _, r := range kept {
			r.Weight /= top
			out = append(out, r)
		}
	}
	for _, p := range m.Paths {
		r := Requirement{ID: RequirementFile + ":" + p, Kind: RequirementFile, Weight: reqFileWeight}
		for i := range cands {
			if pathMatch(ci[i].path, p) {
				r.Covers = append(r.Covers, i)
			}
		}
		// A file the agent has read part of is still a requirement: the
		// rest of it is not observed.
		var open []int
		for _, i := range r.Covers {
			if !cands[i].Observed {
				open = append(open, i)
			}
		}
		r.Covers = open
		if len(r.Covers) > 0 {
			out = append(out, r)
		}
	}
	viewReq := func(kind string, weight float64, views ...string) {
		r := Requirement{ID: kind, Kind: kind, Weight: weight}
		for i := range cands {
			if cands[i].Observed {
				continue
			}
			for _, v := range views {
				if rk, ok := cands[i].Views[v]; ok && rk <= reqViewTop {
					r.Covers = append(r.Covers, i)
					break
				}
			}
		}
		if len(r.Covers) > 0 {
			out = append(out, r)
		}
	}
	if hasObserved(state) {
		viewReq(RequirementPartner, reqPartnerWeight, ViewStructural, ViewRecency, ViewHistory)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Weight > out[j].Weight })
	return out
}

// qualifiersOnly gives the plain lower-case words (letters and digits
// only) that the state's dotted names hold only ahead of another name,
// never last and never called.
func qualifiersOnly(m *Mentions) map[string]bool {
	ahead, last := map[string]bool{}, map[string]bool{}
	for _, q := range m.Qualified {
		parts := strings.Split(q, ".")
		for i, p := range parts {
			if i == len(parts)-1 {
				last[p] = true
			} else {
				ahead[p] = true
			}
		}
	}
	out := map[string]bool{}
	for p := range ahead {
		if !last[p] && !m.Called[p] && plainLower(p) {
			out[p] = true
		}
	}
	return out
}

// plainLower says whether s is lower-case letters and digits only.
func plainLower(s string) bool {
	for _, r := range s {
		if !('a' <= r && r <= 'z' || '0' <= r && r <= '9') {
			return false
		}
	}
	return s != ""
}

// innermostFirst orders frames innermost first. Python prints the
// innermost call last ("most recent call last"); the other runtimes print
// it first.
func innermostFirst(fs []Frame) []Frame {
	out := make([]Frame, len(fs))
	copy(out, fs)
	py := 0
	for _, f := range fs {
		if strings.HasSuffix(f.Path, ".py") {
			py++
		}
	}
	if 2*py > len(fs) {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out
}

func hasObserved(s *mss.State) bool {
	return len(s.ObservedSpans) > 0 || len(s.ObservedEvidenceIDs) > 0
}

// Explain describes why a candidate ranks where it does: its per-view
// ranks and the prior, e.g. "lexical #2, entity #1, prior 1", after
// "unread rest of a unit read in part" for such a rest (its ranks are
// the unit's).
func Explain(c *mss.Candidate) string {
	var parts []string
	if isRest(c) {
		parts = append(parts, "unread rest of a unit read in part")
	}
	for _, v := range sortedKeys(c.Views) {
		parts = append(parts, fmt.Sprintf("%s #%d", v, c.Views[v]))
	}
	if p, ok := c.Signals[SignalPrior]; ok && p != 1 {
		parts = append(parts, fmt.Sprintf("prior %.2g", p))
	}
	if len(parts) == 0 {
		return "no view"
	}
	return strings.Join(parts, ", ")
}

// callRe finds call syntax: a name directly followed by "(".
var callRe = regexp.MustCompile(`\b([A-Za-z_][A-Za-z0-9_]*)\(`)

// calledNames are the names a text writes with call syntax, "name(".
func calledNames(text string) map[string]bool {
	out := map[string]bool{}
	for _, g := range callRe.FindAllStringSubmatch(text, -1) {
		out[g[1]] = true
	}
	return out
}

// testNeedRe finds a state asking for tests in its need or subgoal.
var testNeedRe = regexp.MustCompile(`(?i)\b(tests?|testing|test ?cases?|unit ?tests?|specs?|pytest|regression test)\b`)

// testNameRe finds test names in test output: test_x, TestX, XTest(s),
// it(...)/describe blocks are not named.
var testNameRe = regexp.MustCompile(`\b(test_[A-Za-z0-9_]+|Test[A-Z][A-Za-z0-9_]*|[A-Z][A-Za-z0-9]*Tests?)\b`)

// cargoTestRe finds the tests cargo test reports failing, by their path
// ("test tests::parses ... FAILED", "---- tests::parses stdout ----"),
// whatever their names: a Rust test is a function marked #[test].
var cargoTestRe = regexp.MustCompile(`(?m)^(?:test ([A-Za-z_][A-Za-z0-9_:]*) \.\.\. FAILED|---- ([A-Za-z_][A-Za-z0-9_:]*) stdout ----)`)

// SamePath reports whether a repository path and a path a text mentions
// (a frame's, a log's) name one file: equal, or either a suffix of the
// other at a directory boundary (src/x.py and /testbed/src/x.py).
func SamePath(repoPath, mentioned string) bool {
	return repoPath == mentioned || strings.HasSuffix(repoPath, "/"+mentioned) || strings.HasSuffix(mentioned, "/"+repoPath)
}

// prose is text with what it writes as code blanked: spans in backticks,
// paths and dotted or "::" names. A need that has read
// src/_pytest/unittest.py, or tests::SyntaxDetectionTest, names no tests
// by those words.
func prose(text string) string {
	for _, re := range []*regexp.Regexp{tickRe, pathRe, qualRe} {
		text = re.ReplaceAllString(text, " ")
	}
	return text
}

// TestPointers says whether the state asks for tests: its information
// need or subgoal names tests in its prose (not in a path or a name
// written as code), or its latest test output points at a test (a test
// file or a test name). Names lists the test names and test file paths
// the output points at, lines the lines of test files it points at (a
// frame's file and line: "at Test.<anonymous>
// (test/app.param.js:118:16)"), each in order of appearance.
func TestPointers(s *mss.State) (asked bool, names []string, lines []mss.Frame) {
	if s == nil {
		return false, nil, nil
	}
	asked = testNeedRe.MatchString(prose(s.InformationNeed)) || testNeedRe.MatchString(prose(s.CurrentSubgoal))
	seen := map[string]bool{}
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	if out := s.LatestTestOutput; out != "" {
		m := ExtractText(out)
		for _, p := range m.Paths {
			if Classify(p) == ClassTest {
				add(p)
			}
		}
		for _, f := range m.Frames {
			if f.Line > 0 && Classify(f.Path) == ClassTest {
				lines = append(lines, f)
			}
		}
		for _, g := range testNameRe.FindAllStringSubmatch(out, -1) {
			add(g[1])
		}
		for _, g := range cargoTestRe.FindAllStringSubmatch(out, -1) {
			p := g[1] + g[2]
			if i := strings.LastIndex(p, "::"); i >= 0 {
				p = p[i+2:]
			}
			add(p)
		}
	}
	return asked || len(names) > 0, names, lines
}
