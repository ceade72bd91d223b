package segment

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/missingcomplement/mss"
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
		{"python", "self.config.load(f'{name} {self.key}')\n", map[string]NameUse{
			"self": {Bare: true}, "config": {Qualifiers: []string{"self"}}, "load": {Qualifiers: []string{"config"}},
			"name": {Bare: true}, "key": {Qualifiers: []string{"self"}}}},
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
	fn := func(path string) *mss.Unit { return &mss.Unit{Path: path, Symbol: "Split", Kind: KindFunction} }
	tests := []struct {
		name string
		use  NameUse
		def  *mss.Unit
		want bool
	}{
		{"a bare use", NameUse{Bare: true}, fn("tokenize/tokenize.go"), true},
		{"selected from a value", selected, fn("tokenize/tokenize.go"), false},
		{"selected from a value, a method", selected, &mss.Unit{Path: "state.go", Symbol: "State.Split", Kind: KindMethod}, true},
		{"selected from a value, a type", selected, &mss.Unit{Path: "state.go", Symbol: "Split", Kind: KindType}, true},
		{"selected from its package", NameUse{Qualifiers: []string{"tokenize"}}, fn("tokenize/tokenize.go"), true},
		{"selected from its module", NameUse{Qualifiers: []string{"termui"}}, fn("src/click/termui.py"), true},
		{"a module named with underscores", NameUse{Qualifiers: []string{"termui_impl"}}, fn("src/click/_termui_impl.py"), true},
		{"selected from the table that holds it", NameUse{Qualifiers: []string{"utils"}}, &mss.Unit{Path: "src/a.js", Symbol: "utils", Kind: KindValue}, true},
		{"selected from an expression", NameUse{Qualifiers: []string{""}}, fn("a.py"), false},
	}
	for _, tt := range tests {
		if got := Refers(tt.use, tt.def); got != tt.want {
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
	for _, s := range []string{"st.Split = tokenize.Split(s)", "p->next = f().g; // x.y", "r'a.b' + x . y", "a..b ...c", "'.x'.y", "é.ü.x",
		"r#\"a \"b\" c\"# d.e", "R\"x(a.b)x\" c.d", "\"\"\"\na.b\n\"\"\" c.d", "\"a\nb.c\" d"} {
		for _, lang := range []string{"go", "python", "c", "cpp", "rust", "java", "javascript"} {
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

// TestSelections: of the names asked for, in any case, those the text
// only selects, with their qualifiers; a name also used bare, or not
// asked for, is left out.
func TestSelections(t *testing.T) {
	text := "func f(st item) string {\n\tx := tokenize.Split(st.Split)\n\treturn st.Name + g(x) + y.Other\n}\n"
	got := Selections(text, "go", []string{"Split", "Name", "g"})
	want := map[string]NameUse{
		"split": {Qualifiers: []string{"tokenize", "st"}},
		"name":  {Qualifiers: []string{"st"}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Selections (-want +got):\n%s", d)
	}
	if got := Selections(text, "go", nil); got != nil {
		t.Errorf("Selections of no names = %v, want nil", got)
	}
}
