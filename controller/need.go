package controller

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/retrieve"
	"github.com/missingcomplement/mss/segment"
)

// addTest makes sure an answer to a state that asks for tests holds one:
// when no chosen unit is test code, an unread test candidate that fits the
// budget goes last, in place of the last chosen unit when the answer is
// full, and of as many more of the last as it takes for a test to fit the
// budget, while more than keepForTest chosen units remain. It is the test
// holding a line the state's test output points at, else the test the
// output names; else a test that defines a name the state marks as code
// (EnumTest, asked to add a test to it); else a test of the code the agent
// has read or the answer chose (testTier): first one that uses a name that
// code defines from a file named for that code's file (a test calling
// RegisterFlagCompletionFunc in completions_test.go, for completions.go),
// then one that uses a name a read unit defines (the tests of
// from_prefixed_env, having read it and asked for its tests) or a chosen
// unit defines, the earliest chosen unit first, then any test in a file
// named for the code's; else the best-ranked test. Placed last, it never
// displaces the code of the first keepForTest units. It returns the
// chosen candidates and the test's index among the candidates (-1: none
// added).
func (c *Complement) addTest(res *mss.Result, st *mss.State, marked []mss.Candidate, names *tieNames, defs map[string]int, uses *segment.UseCache, reqs []retrieve.Requirement, covered []bool, chosen []int, spent, budget, maxUnits int) ([]int, int) {
	asked, testNames, lines := retrieve.TestPointers(st)
	if !asked {
		return chosen, -1
	}
	for _, i := range chosen {
		if retrieve.ClassifyUnit(&marked[i].Unit) == retrieve.ClassTest {
			return chosen, -1
		}
	}
	// The candidates covering a name the state marks as code that the
	// answer does not hold yet (EnumTest, asked to add a test to it).
	stateNamed := map[int]string{}
	for r, ok := range covered {
		if !ok && reqs[r].Kind == retrieve.RequirementEntity {
			for _, i := range reqs[r].Covers {
				if _, seen := stateNamed[i]; !seen {
					stateNamed[i] = reqs[r].ID
				}
			}
		}
	}
	// read is the code a test may be a test of besides the chosen: the
	// units read, in rank order.
	var read []int
	for i := range marked {
		if marked[i].Observed && retrieve.ClassifyUnit(&marked[i].Unit) != retrieve.ClassTest {
			read = append(read, i)
		}
	}
	// The test goes in beside the chosen units it leaves, the last of them
	// dropped when the answer is full; when no test fits what the budget
	// has left, the last chosen units are dropped one at a time, while
	// more than keepForTest remain.
	drop := 0
	if len(chosen) >= maxUnits && len(chosen) > 0 {
		drop = 1
	}
	var best, bestTier int
	var bestWhy string
	for {
		kept := chosen[:len(chosen)-drop]
		free := budget - spent
		for _, j := range chosen[len(kept):] {
			free += unitCost(&marked[j].Unit)
		}
		best, bestTier, bestWhy = pickTest(marked, names, defs, uses, slices.Concat(read, kept), kept, stateNamed, testNames, lines, free)
		if best >= 0 || len(kept) <= keepForTest {
			break
		}
		drop++
	}
	if best < 0 {
		res.Trace = append(res.Trace, mss.TraceStep{Stage: "select", Reason: "the state asks for tests; no unread test candidate fits"})
		return chosen, -1
	}
	for _, j := range chosen[len(chosen)-drop:] {
		res.Trace = append(res.Trace, mss.TraceStep{Stage: "select", UnitID: marked[j].Unit.ID, Reason: "dropped for the test the state asks for"})
	}
	chosen = chosen[:len(chosen)-drop]
	why := "the state asks for tests"
	switch {
	case bestTier == tierLine:
		why = "the test output points at a line of it"
	case bestTier == tierNamed:
		why = "the test output names it"
	case bestTier == tierState:
		why += "; it covers " + stateNamed[best] + ", which the state names"
	case bestWhy != "":
		why += "; " + bestWhy
	}
	res.Trace = append(res.Trace, mss.TraceStep{Stage: "select", UnitID: marked[best].Unit.ID,
		Reason: fmt.Sprintf("test: %s; %s", why, rankReason(best, &marked[best]))})
	return append(chosen, best), best
}

// keepForTest is how many chosen units an answer keeps at the least when
// it drops the last of them to make room for the test a state asks for:
// on the training states whose fix changes a test file, keeping 4 or 5
// gave the same answers, keeping 6 left 12 more of 1,789 answers
// without a test (docs/measurements.md, "Room for the test a state asks
// for").
const keepForTest = 5

// The tiers of the tests an answer may get, best first: holding a line
// the output points at, named by the output, defining a name the state
// marks as code, then the tiers of testTier.
const (
	tierLine = iota
	tierNamed
	tierState
	tierCode
)

// pickTest finds the test candidate of the lowest tier, the best-ranked
// of it, that is unread, overlaps none of the chosen units and costs at
// most free; code is what a test may be a test of (the units read, then
// the chosen). It returns the candidate (-1: none fits), its tier and
// why testTier placed it.
func pickTest(marked []mss.Candidate, names *tieNames, defs map[string]int, uses *segment.UseCache, code, chosen []int, stateNamed map[int]string, testNames []string, lines []mss.Frame, free int) (int, int, string) {
	best, bestTier, bestWhy := -1, 0, ""
	for i := range marked {
		u := &marked[i].Unit
		if marked[i].Observed || retrieve.ClassifyUnit(u) != retrieve.ClassTest || unitCost(u) > free || overlapsAny(u, marked, chosen) {
			continue
		}
		var tier int
		why := ""
		switch {
		case holdsLine(u, lines):
			tier = tierLine
		case namesTest(u, testNames):
			tier = tierNamed
		case stateNamed[i] != "":
			tier = tierState
		default:
			tier, why = testTier(names, i, marked, code, defs, uses)
			tier += tierCode
		}
		if best < 0 || tier < bestTier {
			best, bestTier, bestWhy = i, tier, why
		}
		if tier == tierLine {
			break
		}
	}
	return best, bestTier, bestWhy
}

// testTier places test candidate i among the tests of code (the units
// read, then those chosen): a test that uses a name of a unit of code, as
// a caller its callee (usesName), in a file named for one of code's files
// (retrieve.TestSubjects: the tests of ParseHeader in parse_test.go) is of
// tier 0; one that uses a name of the k-th unit of code, in another file,
// of tier 1+k; one only in a file named for one of code's files, of tier
// 1+len(code); any other of tier 2+len(code). It returns the tier and why
// ("a test of <unit> (it uses ParseHeader), in parse_test.go, named for
// parse.go"; "" for the last tier).
func testTier(names *tieNames, i int, marked []mss.Candidate, code []int, defs map[string]int, uses *segment.UseCache) (int, string) {
	u := &marked[i].Unit
	subjects := retrieve.TestSubjects(u.Path)
	tested := -1
	for _, j := range code {
		if k := retrieve.FileKey(marked[j].Unit.Path); k != "" && slices.Contains(subjects, k) {
			tested = j
			break
		}
	}
	named := ""
	if tested >= 0 {
		named = ", in " + u.Path + ", named for " + marked[tested].Unit.Path
	}
	for k, j := range code {
		if ref := usesName(names, i, j, defs, uses); ref != "" {
			of := "a test of "
			if marked[j].Observed {
				of = "a test of the read "
			}
			why := of + marked[j].Unit.ID + " (it uses " + ref + ")" + named
			if tested >= 0 {
				return 0, why
			}
			return 1 + k, why
		}
	}
	if tested >= 0 {
		return 1 + len(code), "a test in " + u.Path + ", named for " + marked[tested].Unit.Path + " of " + marked[tested].Unit.ID
	}
	return 2 + len(code), ""
}

// keepLast moves the delivered unit that holds test (the test addTest
// added) to the end of the answer: the places joins free are refilled
// after it, and the code refilled there belongs before it.
func keepLast(res *mss.Result, test *mss.Unit) {
	k := slices.IndexFunc(res.Units, func(u mss.Unit) bool {
		return u.Path == test.Path && u.StartLine <= test.StartLine && test.EndLine <= u.EndLine
	})
	if k < 0 || k == len(res.Units)-1 {
		return
	}
	u := res.Units[k]
	res.Units = append(slices.Delete(res.Units, k, k+1), u)
	res.Trace = append(res.Trace, mss.TraceStep{Stage: "render", UnitID: u.ID,
		Reason: fmt.Sprintf("the test the state asks for goes last; %d refilled units move ahead of it", len(res.Units)-1-k)})
}

// holdsLine reports whether the unit holds one of the lines a test
// output points at.
func holdsLine(u *mss.Unit, lines []mss.Frame) bool {
	for _, f := range lines {
		if u.StartLine <= f.Line && f.Line <= u.EndLine && retrieve.SamePath(u.Path, f.Path) {
			return true
		}
	}
	return false
}

// namesTest reports whether the test output names the unit: its symbol's
// last part, or its file.
func namesTest(u *mss.Unit, names []string) bool {
	sym := lastPart(u.Symbol)
	for _, n := range names {
		if strings.Contains(n, "/") || strings.Contains(n, ".") {
			if u.Path == n || strings.HasSuffix(u.Path, "/"+n) || path.Base(u.Path) == path.Base(n) {
				return true
			}
			continue
		}
		if sym != "" && strings.EqualFold(sym, n) {
			return true
		}
	}
	return false
}

// declares reports whether a unit is a declaration without a body: a
// function in a C or C++ header whose text opens no block, or a method
// signature ending in ";" (a Java interface method, a Rust trait method).
func declares(u *mss.Unit) bool {
	body := strings.Contains(u.Content, "{")
	if segment.HeaderFile(u.Path) {
		return !body
	}
	return !body && strings.HasSuffix(strings.TrimSpace(u.Content), ";")
}

// pairs reports whether the unit of candidate a declares what b's
// defines, or the other way round: the same name, one a declaration and
// the other not. defs counts the candidates defining each name; a name
// many define pairs nothing. With declFiles, a unit of a type
// declaration file (segment.DeclarationFile) also pairs with a unit of
// another file whose name it declares, as its own name or as a member of
// its type (interface Dayjs in types/plugin/utc.d.ts declares
// utcOffset, which proto.utcOffset in src/plugin/utc/index.js defines).
func pairs(names *tieNames, a, b int, defs map[string]int, declFiles bool) bool {
	an, bn := names.name[a], names.name[b]
	ua, ub := &names.cands[a].Unit, &names.cands[b].Unit
	if an != "" && an == bn && defs[an] <= maxTwins+3 && declares(ua) != declares(ub) {
		return true
	}
	if !declFiles {
		return false
	}
	if names.decl[a] == names.decl[b] {
		return false
	}
	if names.decl[b] {
		a, b, ua = b, a, ub
	}
	n := names.name[b]
	if n == "" || defs[n] > maxTwins+3 {
		return false
	}
	named := func(r string) bool { return strings.EqualFold(lastPart(r), n) } // n is lower case
	return names.name[a] == n || slices.ContainsFunc(names.refs[a], named) || slices.ContainsFunc(ua.Defines, named)
}
