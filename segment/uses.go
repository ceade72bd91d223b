package segment

import (
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/missingcomplement/mss"
)

// NameUse says how a text uses one name: in its own right (Bare: f(x),
// T{}, mod::f, a declaration's type) or only as a selection from
// something (x.f, p->f), and then the qualifiers it is selected from:
// the identifiers before the dot, lower-cased, "" where an expression
// is (f().g, a[i].g).
type NameUse struct {
	Bare       bool
	Qualifiers []string
}

// NameUses lexes text as the references of a unit are lexed (comments,
// strings and keywords skipped) and tells, for each name lower-cased,
// how the text uses it. A selection from a value names one of its
// members, never a function of another file: what a name can refer to
// depends on it (see Refers).
func NameUses(text, lang string) map[string]NameUse {
	return nameUses(text, lang, nil)
}

// nameUses is NameUses of the names in want (lower-cased), or of every
// name when want is nil.
func nameUses(text, lang string, want map[string]bool) map[string]NameUse {
	kw := keywords[lang]
	out := map[string]NameUse{}
	eachName(text, lang, func(i, j int) int {
		word := text[i:j]
		if len(word) < minNameLen || kw[word] {
			return j
		}
		k := strings.ToLower(word)
		if want != nil && !want[k] {
			return j
		}
		u := out[k]
		if q, ok := qualifier(text, i); ok {
			if !u.Bare && !slices.Contains(u.Qualifiers, q) {
				u.Qualifiers = append(u.Qualifiers, q)
			}
		} else {
			u.Bare, u.Qualifiers = true, nil
		}
		out[k] = u
		return j
	})
	return out
}

// Selections tells which of names (a unit's references, in any case)
// text uses only as selections (see NameUses), by lower-cased name; nil
// when there are none.
func Selections(text, lang string, names []string) map[string]NameUse {
	if len(names) == 0 || text == "" {
		return nil
	}
	want := make(map[string]bool, len(names))
	for _, n := range names {
		want[strings.ToLower(n)] = true
	}
	var out map[string]NameUse
	for k, u := range nameUses(text, lang, want) {
		if !u.Bare {
			if out == nil {
				out = map[string]NameUse{}
			}
			out[k] = u
		}
	}
	return out
}

// qualifier reads back from the name starting at i: when a selection
// (".", "->", not "..") comes before it, the identifier it is selected
// from, lower-cased, or "" for an expression, and true.
func qualifier(text string, i int) (string, bool) {
	j := skipSpaceBack(text, i)
	switch {
	case j >= 1 && text[j-1] == '.' && (j < 2 || text[j-2] != '.'):
		j--
	case j >= 2 && text[j-1] == '>' && text[j-2] == '-':
		j -= 2
	default:
		return "", false
	}
	j = skipSpaceBack(text, j)
	e := j
	for j > 0 && isIdentPart(text[j-1]) {
		j--
	}
	if j == e || !isIdentStart(text[j]) {
		return "", true
	}
	return strings.ToLower(text[j:e]), true
}

func skipSpaceBack(text string, j int) int {
	for j > 0 && (text[j-1] == ' ' || text[j-1] == '\t' || text[j-1] == '\n' || text[j-1] == '\r') {
		j--
	}
	return j
}

// Selectable says whether a selection (x.name) can name what a unit of
// this symbol and kind defines: a member (a method, or anything else
// scoped by a class, type or namespace), or a type (x.config, a field
// holding a Config). A top-level function or value is not.
func Selectable(symbol, kind string) bool {
	return kind == KindClass || kind == KindType || strings.ContainsAny(symbol, ".:#") && !strings.HasPrefix(symbol, "<")
}

// Refers says whether a use of a name can refer to what def defines of
// that name: a bare use can refer to anything; a selection refers to
// what is selectable (see Selectable), or to anything else only when it
// is selected from the name of def's file or directory (a module or
// package: tokenize.Split from tokenize/tokenize.go) or from def's own
// name (utils.parse, for a table utils that holds parse), never from
// another value (st.Split).
func Refers(use NameUse, def *mss.Unit) bool {
	return RefersTo(use, def.Path, def.Symbol, Selectable(def.Symbol, def.Kind))
}

// RefersTo is Refers for a definition given by its file, its symbol and
// whether it is Selectable, as an index or an engine keeps them.
func RefersTo(use NameUse, file, symbol string, selectable bool) bool {
	if use.Bare || selectable {
		return true
	}
	stem, _, _ := strings.Cut(path.Base(file), ".")
	dir := ModuleKey(path.Base(path.Dir(file)))
	stem = ModuleKey(stem)
	own := symbol[strings.LastIndexAny(symbol, ".:#")+1:]
	for _, q := range use.Qualifiers {
		if q == "" {
			continue
		}
		if k := ModuleKey(q); k != "" && (k == stem || k == dir) || strings.EqualFold(q, own) {
			return true
		}
	}
	return false
}

// ModuleKey is a module's name as a qualifier is compared with it:
// lower-cased, without "_" and "-" (_termui_impl and termui_impl).
func ModuleKey(name string) string {
	return strings.ToLower(moduleSeparators.Replace(name))
}

var moduleSeparators = strings.NewReplacer("_", "", "-", "")

// UseCache holds the NameUses of texts, each lexed once. It is keyed by
// the text itself, not a unit's id: a unit grown or joined keeps its id
// and holds more text. A nil UseCache lexes every time.
type UseCache struct {
	mu sync.Mutex
	m  map[[2]string]map[string]NameUse
}

// Of returns the uses of text, written in lang.
func (c *UseCache) Of(text, lang string) map[string]NameUse {
	if c == nil {
		return NameUses(text, lang)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k := [2]string{lang, text}
	if u, ok := c.m[k]; ok {
		return u
	}
	if c.m == nil {
		c.m = map[[2]string]map[string]NameUse{}
	}
	u := NameUses(text, lang)
	c.m[k] = u
	return u
}

// Refers says whether u's uses of name can refer to what def defines of
// it (see Refers). A text the lexer finds no use of name in (a reference
// not lexed from it) refers as its references say.
func (c *UseCache) Refers(u *mss.Unit, name string, def *mss.Unit) bool {
	use, ok := c.Of(u.Content, u.Language)[strings.ToLower(name)]
	return !ok || Refers(use, def)
}
