package controller

import (
	"fmt"
	"slices"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/retrieve"
)

// reach is what choosing a candidate brings with it through growth.
// Growth spends what the chosen set leaves of the budget on a chosen
// unit's tied neighbours, so a unit whose tied neighbours are themselves
// relevant candidates delivers them too, at the cost of a few lines and
// no place in the answer: an edit site and the code next to it that
// changes with it (a function and the hook under it that calls it, a
// class and the statement that uses it). reach(i, chosen) is the summed
// relevance of the pool's candidates, overlapping no chosen unit, that
// the run of i's file growth would start with holds: the units above i,
// nearest first, then those below, each while it is tied to i (Growth.tie:
// it covers an open requirement, is i's header, or they share a name),
// unread, and the units taken on both sides cost at most ReachShare of
// the budget. It gives those candidates too. reacher gives nil when
// ReachWeight is 0, growth is off or the request gives no file units
// (src nil); src keeps the file units read for growth to read again.
func (c *Complement) reacher(req *mss.Request, src *keptUnits, marked []mss.Candidate, pool []int, reqs []retrieve.Requirement, rels []float64, budget int) func(i int, chosen []int) (float64, []int) {
	if c.ReachWeight <= 0 || c.ReachShare <= 0 || !c.Growth.On || src == nil {
		return nil
	}
	limit := int(c.ReachShare * float64(budget))
	tie := c.Growth.tie(marked, reqs)
	read := readSpans(req.State, marked)
	inFile := map[string][]int{}
	for _, i := range pool {
		p := marked[i].Unit.Path
		inFile[p] = append(inFile[p], i)
	}
	runs := map[int][]int{}
	run := func(i int) []int {
		if r, ok := runs[i]; ok {
			return r
		}
		u := &marked[i].Unit
		var got []int
		// Only a file that holds another pool candidate can give any.
		if len(inFile[u.Path]) > 1 {
			got = reachIn(src.FileUnits(u.Path), u, i, inFile[u.Path], marked, read, tie, limit)
		}
		runs[i] = got
		return got
	}
	return func(i int, chosen []int) (float64, []int) {
		sum := 0.0
		var reached []int
		for _, j := range run(i) {
			if !overlapsAny(&marked[j].Unit, marked, chosen) {
				sum += rels[j]
				reached = append(reached, j)
			}
		}
		return sum, reached
	}
}

// reachIn gives the candidates of others (i aside) that the run growth
// would take next to u holds; file is u's file's units in line order.
func reachIn(file []mss.Unit, u *mss.Unit, i int, others []int, marked []mss.Candidate, read []mss.Span, tie func(chosen, n *mss.Unit) string, limit int) []int {
	at := -1
	for k := range file {
		if file[k].StartLine <= u.StartLine && file[k].EndLine >= u.StartLine {
			at = k
			break
		}
	}
	if at < 0 {
		return nil
	}
	spent := 0
	var taken []mss.Span
	for _, step := range []int{-1, 1} {
		for k := at + step; k >= 0 && k < len(file); k += step {
			n := &file[k]
			if n.StartLine <= u.EndLine && n.EndLine >= u.StartLine {
				continue // a part of u itself
			}
			if spent+unitCost(n) > limit || slices.ContainsFunc(read, n.Overlaps) || tie != nil && tie(u, n) == "" {
				break
			}
			spent += unitCost(n)
			taken = append(taken, n.Span())
		}
	}
	var got []int
	for _, j := range others {
		if j != i && slices.ContainsFunc(taken, marked[j].Unit.Overlaps) {
			got = append(got, j)
		}
	}
	return got
}

// reachReason names the candidates a choice's growth would take in.
func reachReason(marked []mss.Candidate, reached []int) string {
	switch len(reached) {
	case 0:
		return ""
	case 1:
		return "its growth would take in " + marked[reached[0]].Unit.ID
	case 2:
		return "its growth would take in " + marked[reached[0]].Unit.ID + " and " + marked[reached[1]].Unit.ID
	}
	return fmt.Sprintf("its growth would take in %s and %d more", marked[reached[0]].Unit.ID, len(reached)-1)
}
