package segment

import (
	"strings"

	"github.com/missingcomplement/mss"
)

// classOf is the class a class header or method unit is in: the header's
// own symbol, or the method's symbol less its last component ("" for
// any other unit).
func classOf(u *mss.Unit) string {
	s := u.Symbol
	if s == "" || strings.HasPrefix(s, "<") {
		return ""
	}
	switch u.Kind {
	case KindClass:
		return s
	case KindMethod:
		if i := strings.LastIndexByte(s, '.'); i > 0 {
			return s[:i]
		}
	}
	return ""
}

// classRun finds the class the units file[lo..hi] (a file's units, in
// line order) are in: each is the class's header (a "class" unit named
// for it) or one of its methods (a "method" unit named class.name, or
// deeper). It returns the contiguous run of the class's units around
// them and the class, or lo, hi and "" when they are in no one class.
func classRun(file []mss.Unit, lo, hi int) (int, int, string) {
	class := ""
	for j := lo; j <= hi; j++ {
		c := classOf(&file[j])
		if c == "" || class != "" && c != class {
			return lo, hi, ""
		}
		class = c
	}
	in := func(u *mss.Unit) bool {
		return u.Kind == KindClass && u.Symbol == class ||
			(u.Kind == KindClass || u.Kind == KindMethod) && strings.HasPrefix(u.Symbol, class+".")
	}
	for lo > 0 && in(&file[lo-1]) {
		lo--
	}
	for hi+1 < len(file) && in(&file[hi+1]) {
		hi++
	}
	return lo, hi, class
}

// RunTokens is what a run of a file's whole units costs delivered as one
// unit: their text with the blank lines between them (mss.TokenCost).
func RunTokens(run []mss.Unit) int {
	n := 0
	for i := range run {
		if i > 0 {
			n += max(run[i].StartLine-run[i-1].EndLine-1, 0)
		}
		n += len(run[i].Content)
	}
	return mss.BytesCost(n)
}

// WholeClass is the class run around file[lo..hi] (classRun) when the
// class fits in one unit: at most MaxUnitLines lines, and at most
// MaxUnitTokens and maxTokens tokens (RunTokens). ok is false when the
// units are in no one class, or it does not fit.
func WholeClass(file []mss.Unit, lo, hi, maxTokens int) (clo, chi int, class string, ok bool) {
	clo, chi, class = classRun(file, lo, hi)
	if class == "" || file[chi].EndLine-file[clo].StartLine+1 > MaxUnitLines {
		return lo, hi, "", false
	}
	if t := RunTokens(file[clo : chi+1]); t > MaxUnitTokens || t > maxTokens {
		return lo, hi, "", false
	}
	return clo, chi, class, true
}
