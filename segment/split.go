package segment

import (
	"sort"
)

// statementCuts returns the rows where statements start inside n,
// descending into statements longer than half the line limit.
func (w *walker) statementCuts(n *node, limit int, cuts []int, depth int) []int {
	if depth > 40 {
		return cuts
	}
	for _, c := range namedChildren(n) {
		cuts = append(cuts, startRow(c))
		if endRow(c)-startRow(c)+1 > limit/2 || int(c.EndByte()-c.StartByte()) > 4*maxTokens/2 {
			cuts = w.statementCuts(c, limit, cuts, depth+1)
		}
	}
	return cuts
}

// pack cuts rows [start, end] into parts of at most maxL lines and maxT
// tokens (a single longer line stays whole), balanced in size, cutting at
// the given rows where one is near and at a plain line otherwise. Parts
// are trimmed of blank lines at both ends; all-blank parts vanish.
func (f *file) pack(start, end int, cuts []int, maxL, maxT int) [][2]int {
	sort.Ints(cuts)
	lines := end - start + 1
	n := max((lines+maxL-1)/maxL, (f.tokens(start, end)+maxT-1)/maxT, 1)
	tl := (lines + n - 1) / n
	tt := (f.tokens(start, end) + n - 1) / n
	// reach is the last row of the longest part from s within (l, t).
	reach := func(s, l, t int) int {
		e := s
		for e+1 <= end && e+1-s+1 <= l && f.tokens(s, e+1) <= t {
			e++
		}
		return e
	}
	var out [][2]int
	for s := start; s <= end; {
		eMax := reach(s, maxL, maxT)
		var c int
		if eMax == end {
			c = end + 1
		} else {
			eT := reach(s, tl, tt)
			c = -1
			lo := s + (eT-s+1)/2
			for _, x := range cuts { // largest cut in [lo, eT+1]
				if x >= lo && x <= eT+1 && x > s {
					c = x
				}
			}
			if c < 0 {
				for _, x := range cuts { // smallest cut in (eT+1, eMax+1]
					if x > eT+1 && x <= eMax+1 {
						c = x
						break
					}
				}
			}
			if c < 0 {
				for _, x := range cuts { // any cut after s before lo
					if x > s && x < lo {
						c = x
					}
				}
			}
			if c < 0 {
				c = eT + 1
			}
		}
		a, b := s, c-1
		for a <= b && f.blank(a) {
			a++
		}
		for b >= a && f.blank(b) {
			b--
		}
		if a <= b {
			out = append(out, [2]int{a, b})
		}
		s = c
	}
	return out
}
