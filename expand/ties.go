package expand

import (
	"fmt"
	"slices"
	"strings"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/segment"
)

// Ties decides which neighbours of a chosen unit are worth delivering
// with it. A neighbour is tied when it
//
//   - covers a requirement of the state that nothing read or chosen
//     resolves (Required),
//   - is the header that makes a chosen method readable (the class,
//     struct, impl or interface whose scope the method is in),
//   - defines or imports a name the chosen unit uses, or uses a name the
//     chosen unit defines (a callee, a caller).
//
// Anything else is a neighbour by position only, and growth leaves it out
// (but for the unit under a chosen file header that defines nothing,
// which Grow ties itself; see Options.Tie).
type Ties struct {
	// Required maps the id of a unit that covers an unresolved requirement
	// to that requirement's id.
	Required map[string]string
	// Ranked maps the id of a unit retrieval ranked for the state to its
	// 1-based fused rank; a neighbour ranked within MaxRank is tied to the
	// state. MaxRank 0 ties no neighbour by rank.
	Ranked  map[string]int
	MaxRank int

	uses segment.UseCache
}

// Why gives the reason a neighbour is tied to the chosen unit, or "" when
// it is not.
func (t *Ties) Why(chosen, n *mss.Unit) string {
	if t != nil {
		if r := t.Required[n.ID]; r != "" {
			return "covers " + r
		}
		if r, ok := t.Ranked[n.ID]; ok && r <= t.MaxRank {
			return fmt.Sprintf("ranked #%d for the state", r)
		}
	}
	if isHeaderOf(n, chosen) {
		return "header of " + chosen.Symbol
	}
	// Names tie as they are spelled, or in another case when the
	// definition is a class or type named so (a field config and its
	// class Config); where the two spellings differ, the reason gives
	// both. A method Context is no tie to a package context, nor a field
	// mark to a use of the class Mark.
	uses := map[string][]string{}
	for _, r := range chosen.References {
		if k := key(r); k != "" {
			if sp := lastPart(norm(r)); !slices.Contains(uses[k], sp) {
				uses[k] = append(uses[k], sp)
			}
		}
	}
	for _, d := range defined(n) {
		if u := spelling(uses[key(d)], d, n); u != "" && t.cache().Refers(chosen, lastPart(norm(d)), n) {
			return "defines " + d + ", used" + as(u, d) + " by " + orPath(chosen)
		}
	}
	for _, im := range n.Imports {
		if u := uses[key(im)]; len(u) > 0 {
			name := lastPart(im)
			return "imports " + name + ", used" + as(u[0], name) + " by " + orPath(chosen)
		}
	}
	defs := map[string][]string{}
	for _, d := range defined(chosen) {
		if k := key(d); k != "" && !slices.Contains(defs[k], d) {
			defs[k] = append(defs[k], d)
		}
	}
	for _, r := range n.References {
		name := lastPart(norm(r))
		for _, d := range defs[key(r)] {
			if tiesAs(name, d, chosen) && t.cache().Refers(n, d, chosen) {
				return "uses " + name + ", defined" + as(d, name) + " by " + orPath(chosen)
			}
		}
	}
	return ""
}

// spelling is the spelling among spelled (one name's, in its cases) that
// ties it to d, a name def defines (tiesAs), d itself first; "" when none
// does.
func spelling(spelled []string, d string, def *mss.Unit) string {
	if slices.Contains(spelled, d) {
		return d
	}
	for _, sp := range spelled {
		if tiesAs(sp, d, def) {
			return sp
		}
	}
	return ""
}

// tiesAs says whether a use spelled so ties to d, a name def defines (the
// same name in any case): spelled as d, or in another case when def is
// the class or type named d.
func tiesAs(spelled, d string, def *mss.Unit) bool {
	return spelled == d || (def.Kind == segment.KindClass || def.Kind == segment.KindType) && lastPart(norm(def.Symbol)) == d
}

// as names the other spelling of a name tied in another case: " as
// Config" when the chosen unit writes Config for config, "" when the two
// are the same.
func as(spelled, name string) string {
	if spelled == name {
		return ""
	}
	return " as " + spelled
}

// cache is where the uses of units' texts are kept (nil Ties: none).
func (t *Ties) cache() *segment.UseCache {
	if t == nil {
		return nil
	}
	return &t.uses
}

// isHeaderOf reports whether h is the header of the scope the unit is in:
// its symbol is the unit's symbol less the last component.
func isHeaderOf(h, u *mss.Unit) bool {
	hs, us := norm(h.Symbol), norm(u.Symbol)
	if hs == "" || us == "" || strings.HasPrefix(hs, "<") {
		return false
	}
	i := strings.LastIndexByte(us, '.')
	return i > 0 && us[:i] == hs
}

// defined lists the names a unit defines: its own and Defines.
func defined(u *mss.Unit) []string {
	var out []string
	if s := u.Symbol; s != "" && !strings.HasPrefix(s, "<") {
		out = append(out, lastPart(norm(s)))
	}
	for _, d := range u.Defines {
		out = append(out, lastPart(norm(d)))
	}
	return out
}

// key is the comparable form of a name: its last component, lower-cased;
// names too short to tie anything (one or two letters) give "".
func key(s string) string {
	k := strings.ToLower(lastPart(norm(s)))
	if len(k) < 3 || strings.HasPrefix(k, "<") {
		return ""
	}
	return k
}

func norm(s string) string {
	s = strings.ReplaceAll(s, "::", ".")
	s = strings.ReplaceAll(s, "#", ".")
	return strings.ReplaceAll(s, "->", ".")
}

func lastPart(s string) string {
	if i := strings.LastIndexAny(s, ".:#/"); i >= 0 {
		return s[i+1:]
	}
	return s
}

func orPath(u *mss.Unit) string {
	if u.Symbol != "" {
		return u.Symbol
	}
	return u.Path
}
