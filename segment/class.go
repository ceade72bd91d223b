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
	lo, hi = runOf(file, lo, hi, class)
	return lo, hi, class
}

// runOf widens file[lo..hi] to the contiguous run of class's units: its
// header units and the classes and methods named class.something.
func runOf(file []mss.Unit, lo, hi int, class string) (int, int) {
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
	return lo, hi
}

// outerClass is the class enclosing a nested class's run file[lo..hi]
// (class is "Outer.Inner"): the run of Outer's units around it, when
// one of them is Outer's own header. ok is false for a class nested in
// no class of the file (a namespace or a module prefix is no class).
func outerClass(file []mss.Unit, lo, hi int, class string) (olo, ohi int, outer string, ok bool) {
	i := strings.LastIndexByte(class, '.')
	if i <= 0 {
		return lo, hi, "", false
	}
	outer = class[:i]
	olo, ohi = runOf(file, lo, hi, outer)
	for j := olo; j <= ohi; j++ {
		if file[j].Kind == KindClass && file[j].Symbol == outer {
			return olo, ohi, outer, true
		}
	}
	return lo, hi, "", false
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
// MaxUnitTokens and maxTokens tokens (RunTokens). A nested class is read
// within the outermost class around it that fits too: a method of
// URL.RegexMemoizer gives the whole of URL when URL fits, and the whole
// of URL.RegexMemoizer when only that fits. ok is false when the units
// are in no one class, or their own class does not fit.
func WholeClass(file []mss.Unit, lo, hi, maxTokens int) (clo, chi int, class string, ok bool) {
	fits := func(lo, hi int) bool {
		if file[hi].EndLine-file[lo].StartLine+1 > MaxUnitLines {
			return false
		}
		t := RunTokens(file[lo : hi+1])
		return t <= MaxUnitTokens && t <= maxTokens
	}
	clo, chi, class = classRun(file, lo, hi)
	if class == "" || !fits(clo, chi) {
		return lo, hi, "", false
	}
	for {
		olo, ohi, outer, ok := outerClass(file, clo, chi, class)
		if !ok || !fits(olo, ohi) {
			return clo, chi, class, true
		}
		clo, chi, class = olo, ohi, outer
	}
}
