package segment

import (
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
