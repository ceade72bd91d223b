package retrieve

import (
	"maps"
	"strings"
	"unicode"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/segment"
)

// SignalRest marks a candidate that is the unread rest of a unit the
// state has read in part (withRemainders).
const SignalRest = "rest"

// withRemainders offers, after each candidate the state has read in part,
// the rest of it: the runs of its lines no observed span holds
// (mss.Observed.Unread), each a candidate of its own with the read unit's
// evidence, in addition to the candidates. The learned order keeps each
// right after its unit (OrderModel.Reorder). An agent that read one line
// of a function, or a window that cut it, has not read the rest; a unit
// read whole or mostly offers nothing (the unread lines must hold at
// least half of the unit's lines of code).
func withRemainders(cands []mss.Candidate, obs *mss.Observed) []mss.Candidate {
	out := make([]mss.Candidate, 0, len(cands))
	for _, c := range cands {
		out = append(out, c)
		if !c.Observed {
			continue
		}
		for _, u := range remainders(&c.Unit, obs.Unread(&c.Unit)) {
			sig := maps.Clone(c.Signals)
			if sig == nil {
				sig = map[string]float64{}
			}
			sig[SignalRest] = 1
			out = append(out, mss.Candidate{Unit: u, Score: c.Score, Views: maps.Clone(c.Views), Signals: sig})
		}
	}
	return out
}

// remainders cuts unit u to each unread run of its lines that holds code,
// without the blank lines at its ends, when the runs hold at least half of
// u's lines of code.
func remainders(u *mss.Unit, unread []mss.Span) []mss.Unit {
	if len(unread) == 0 || u.Content == "" {
		return nil
	}
	lines := strings.SplitAfter(u.Content, "\n")
	if n := len(lines); lines[n-1] == "" {
		lines = lines[:n-1]
	}
	line := func(n int) string { // file line n of u
		if i := n - u.StartLine; i >= 0 && i < len(lines) {
			return lines[i]
		}
		return ""
	}
	code := func(s, e int) int { // lines of code among lines s..e
		n := 0
		for i := s; i <= e; i++ {
			if isCode(line(i)) {
				n++
			}
		}
		return n
	}
	var runs []mss.Span
	left := 0
	for _, r := range unread {
		s, e := r.StartLine, min(r.EndLine, u.StartLine+len(lines)-1)
		for s <= e && strings.TrimSpace(line(s)) == "" {
			s++
		}
		for e >= s && strings.TrimSpace(line(e)) == "" {
			e--
		}
		if n := code(s, e); n > 0 {
			runs = append(runs, mss.Span{StartLine: s, EndLine: e})
			left += n
		}
	}
	if 2*left < code(u.StartLine, u.EndLine) {
		return nil
	}
	out := make([]mss.Unit, 0, len(runs))
	for _, r := range runs {
		rest := *u
		rest.StartLine, rest.EndLine = r.StartLine, r.EndLine
		rest.Content = strings.Join(lines[r.StartLine-u.StartLine:r.EndLine-u.StartLine+1], "")
		segment.Identify(&rest)
		out = append(out, rest)
	}
	return out
}

// isCode reports whether a line holds a letter or a digit: more than
// blanks, brackets and punctuation.
func isCode(line string) bool {
	return strings.IndexFunc(line, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}
