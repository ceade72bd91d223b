package segment

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestNameUses(t *testing.T) {
	tests := []struct {
		lang, text string
		want       map[string]NameUse
	}{
		{"go", "st.Split = tokenize.Split(s) // Split here\n", map[string]NameUse{
			"st": {Bare: true}, "split": {Qualifiers: []string{"st", "tokenize"}}, "tokenize": {Bare: true}}},
		{"go", "x := Split(a)\ny := st.Split\n", map[string]NameUse{
			"split": {Bare: true}, "st": {Bare: true}}},
		{"python", "self.config.load(f'{name}')\n", map[string]NameUse{
			"self": {Bare: true}, "config": {Qualifiers: []string{"self"}}, "load": {Qualifiers: []string{"config"}}}},
		{"c", "p->next = make()->head; /* p.tail */\n", map[string]NameUse{
			"next": {Qualifiers: []string{"p"}}, "make": {Bare: true}, "head": {Qualifiers: []string{""}}}},
		{"javascript", "f(...args, \"a.b\").then\n", map[string]NameUse{
			"args": {Bare: true}, "then": {Qualifiers: []string{""}}}},
		{"rust", "Self::new(v).map(Into::into)\n", map[string]NameUse{
			"self": {Bare: true}, "new": {Bare: true}, "map": {Qualifiers: []string{""}}, "into": {Bare: true}}},
	}
	for _, tt := range tests {
		got := NameUses(tt.text, tt.lang)
		if d := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("NameUses(%q) (-want +got):\n%s", tt.text, d)
		}
	}
}

func TestRefers(t *testing.T) {
	selected := NameUse{Qualifiers: []string{"st"}}
	tests := []struct {
		name       string
		use        NameUse
		path       string
		selectable bool
		want       bool
	}{
		{"a bare use", NameUse{Bare: true}, "tokenize/tokenize.go", false, true},
		{"selected from a value", selected, "tokenize/tokenize.go", false, false},
		{"selected from a value, a member", selected, "state.go", true, true},
		{"selected from its package", NameUse{Qualifiers: []string{"tokenize"}}, "tokenize/tokenize.go", false, true},
		{"selected from its module", NameUse{Qualifiers: []string{"termui"}}, "src/click/termui.py", false, true},
		{"a module named with underscores", NameUse{Qualifiers: []string{"termui_impl"}}, "src/click/_termui_impl.py", false, true},
		{"selected from an expression", NameUse{Qualifiers: []string{""}}, "a.py", false, false},
	}
	for _, tt := range tests {
		if got := Refers(tt.use, tt.path, tt.selectable); got != tt.want {
			t.Errorf("%s: Refers = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestSelectable(t *testing.T) {
	for _, tt := range []struct {
		symbol, kind string
		want         bool
	}{
		{"Split", KindFunction, false},
		{"Index.Search", KindMethod, true},
		{"Config", KindClass, true},
		{"RecoverArgs", KindType, true},
		{"spdlog.details.os.now", KindFunction, true},
		{"TABLE", KindValue, false},
		{"<module>", KindModule, false},
	} {
		if got := Selectable(tt.symbol, tt.kind); got != tt.want {
			t.Errorf("Selectable(%q, %q) = %v, want %v", tt.symbol, tt.kind, got, tt.want)
		}
	}
}

func TestUseCache(t *testing.T) {
	var c UseCache
	a := c.Of("x.Split", "go")
	if a["split"].Bare || !c.Of("Split()", "go")["split"].Bare {
		t.Errorf("two texts gave the same uses: %v", a)
	}
	a["mark"] = NameUse{Bare: true}
	if _, ok := c.Of("x.Split", "go")["mark"]; !ok {
		t.Error("a text was lexed again")
	}
}

// NameUses reads the names lexNames reads, whatever the text: each key
// is one of its references lower-cased, and every reference has its key;
// a bare use has no qualifiers.
func FuzzNameUses(f *testing.F) {
	for _, s := range []string{"st.Split = tokenize.Split(s)", "p->next = f().g; // x.y", "r'a.b' + x . y", "a..b ...c", "'.x'.y", "é.ü.x"} {
		for _, lang := range []string{"go", "python", "c", "rust", "javascript"} {
			f.Add(s, lang)
		}
	}
	f.Fuzz(func(t *testing.T, text, lang string) {
		uses := NameUses(text, lang)
		refs, _ := lexNames(text, lang, nil, nil)
		want := map[string]bool{}
		for _, r := range refs {
			want[strings.ToLower(r)] = true
		}
		for k, u := range uses {
			if !want[k] {
				t.Errorf("NameUses(%q) has %q, which is no reference", text, k)
			}
			if u.Bare && len(u.Qualifiers) > 0 {
				t.Errorf("NameUses(%q)[%q] is bare and selected: %v", text, k, u)
			}
			if !u.Bare && len(u.Qualifiers) == 0 {
				t.Errorf("NameUses(%q)[%q] is neither bare nor selected", text, k)
			}
		}
		for k := range want {
			if _, ok := uses[k]; !ok {
				t.Errorf("NameUses(%q) lacks the reference %q", text, k)
			}
		}
	})
}
