// Package render delivers a controller's ordered units within a token
// budget and prints them for people and agents.
//
// Units are never cut: a unit that would overflow the budget is dropped
// whole (and the drop is traced), and later, smaller units may still fit.
// The delivered list therefore always fits the budget as a prefix, which is
// how both benchmarks read an answer.
package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/missingcomplement/mss"
)

// Fit keeps units in order while their summed token cost stays within
// budget, up to maxUnits units, skipping (not truncating) any unit that
// does not fit and any duplicate id. Units with Tokens == 0 are costed from
// their content. A delivered unit lists the symbols it holds (Symbols).
func Fit(units []mss.Unit, budget, maxUnits int) ([]mss.Unit, []mss.TraceStep) {
	var (
		out   []mss.Unit
		trace []mss.TraceStep
		spent int
		seen  = map[string]bool{}
	)
	for _, u := range units {
		if maxUnits > 0 && len(out) >= maxUnits {
			trace = append(trace, mss.TraceStep{Stage: "render", UnitID: u.ID, Reason: fmt.Sprintf("dropped: %d units already delivered", maxUnits)})
			continue
		}
		key := u.ID
		if key == "" {
			key = fmt.Sprintf("%s:%d-%d", u.Path, u.StartLine, u.EndLine)
		}
		if seen[key] {
			trace = append(trace, mss.TraceStep{Stage: "render", UnitID: u.ID, Reason: "dropped: duplicate"})
			continue
		}
		cost := u.Tokens
		if cost == 0 {
			cost = mss.TokenCost(u.Content)
		}
		if spent+cost > budget {
			trace = append(trace, mss.TraceStep{Stage: "render", UnitID: u.ID, Reason: fmt.Sprintf("dropped: %d tokens would exceed budget (%d of %d spent)", cost, spent, budget)})
			continue
		}
		seen[key] = true
		spent += cost
		if len(u.Symbols) == 0 {
			u.Symbols = Symbols([]mss.Unit{u})
		}
		out = append(out, u)
	}
	return out, trace
}

// Tokens is the summed cost of units.
func Tokens(units []mss.Unit) int {
	n := 0
	for _, u := range units {
		if u.Tokens > 0 {
			n += u.Tokens
		} else {
			n += mss.TokenCost(u.Content)
		}
	}
	return n
}

// Name makes a file name or symbol safe to print on one line of text: a
// name with control characters (ESC, newline, ...) or bytes that are not
// UTF-8 is printed Go-quoted ("a\x1b[31m.py"), so it can neither break the
// line structure nor drive a terminal; any other name is printed as is.
func Name(s string) string {
	if !utf8.ValidString(s) {
		return strconv.Quote(s)
	}
	for _, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return strconv.Quote(s)
		}
	}
	return s
}

// Text writes units as an agent reads them: a header line per unit with
// path, lines and every symbol it holds, then the numbered source. A
// later part of a split definition is read under the definition's
// signature (its Context, numbered from its ContextLine, and a fold mark
// when lines lie between), which its tokens do not count.
func Text(w io.Writer, units []mss.Unit) error {
	for i, u := range units {
		header := fmt.Sprintf("%s:%d-%d", Name(u.Path), u.StartLine, u.EndLine)
		if syms := u.Symbols; len(syms) > 0 {
			names := make([]string, len(syms))
			for i, s := range syms {
				names[i] = Name(s)
			}
			header += " " + strings.Join(names, ", ")
		} else if u.Symbol != "" {
			header += " " + Name(u.Symbol)
		}
		if _, err := fmt.Fprintf(w, "── [%d] %s (%d tokens)\n", i+1, header, u.Tokens); err != nil {
			return err
		}
		if u.Context != "" && u.ContextLine > 0 && u.ContextLine < u.StartLine {
			// The signature of the definition the unit is a later part
			// of, then a fold mark for the lines between.
			if err := numbered(w, u.Context, u.ContextLine); err != nil {
				return err
			}
			if u.ContextLine+strings.Count(u.Context, "\n") < u.StartLine {
				if _, err := fmt.Fprintf(w, "%6s\n", "⋮"); err != nil {
					return err
				}
			}
		}
		if err := numbered(w, u.Content, u.StartLine); err != nil {
			return err
		}
	}
	return nil
}

// numbered writes text's lines, each after its line number from first.
func numbered(w io.Writer, text string, first int) error {
	lines := strings.SplitAfter(text, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	for j, l := range lines {
		if _, err := fmt.Fprintf(w, "%6d  %s", first+j, strings.TrimSuffix(l, "\n")+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// Symbols lists the symbols a run of units holds, unit by unit in line
// order, each once: every unit's listed Symbols, else its own Symbol
// (and, for a type declaration, the other types it defines), else (a
// unit named for nothing, such as a run of module statements) the names
// it defines, which the index keeps sorted.
func Symbols(run []mss.Unit) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, u := range run {
		switch {
		case len(u.Symbols) > 0:
			for _, s := range u.Symbols {
				add(s)
			}
		case u.Symbol != "" && !strings.HasPrefix(u.Symbol, "<"):
			add(u.Symbol)
			if u.Kind == "type" {
				// A grouped declaration (Go's type ( A int; B string ))
				// is named for its first type and holds every other.
				own := u.Symbol[strings.LastIndexByte(u.Symbol, '.')+1:]
				for _, d := range u.Defines {
					if d != own {
						add(d)
					}
				}
			}
		default:
			for _, d := range u.Defines {
				add(d)
			}
		}
	}
	return out
}

// Count writes n and the noun, in the plural unless n is 1: "1 unit",
// "3 units". plural is the plural form ("" adds an s).
func Count(n int, noun, plural string) string {
	if n == 1 {
		return "1 " + noun
	}
	if plural == "" {
		plural = noun + "s"
	}
	return strconv.Itoa(n) + " " + plural
}
