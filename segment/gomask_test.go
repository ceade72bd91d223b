package segment

import (
	"strings"
	"testing"
)

func TestMaskGoBodies(t *testing.T) {
	body := "\n\tif s := `}{`; s != \"\" { // a } in a comment\n\t\treturn r\n\t}\n\treturn r\n"
	head := "package p\n\n// F does it.\nfunc F[T any](x T, s struct{ a int }) (r struct{ b string }) {"
	mid := "}\n\ntype T struct{ f func() }\n\nfunc (t *T) M() error {"
	tail := "}\n\nfunc stub(int) int\n\nvar v = func() int {"
	src := head + body + mid + " return nil " + tail + "\n\treturn '}'\n" + "}\n"
	want := head + blankText(body) + mid + blankText(" return nil ") + tail + blankText("\n\treturn '}'\n") + "}\n"
	checkMaskedAs(t, maskGoBodies, src, want)
}

// TestMaskGoBodiesBig: a function whose unit may be cut at its statements
// is left as it is.
func TestMaskGoBodiesBig(t *testing.T) {
	src := "package p\n\nfunc big() {\n" + strings.Repeat("\tx := f()\n", 160) + "}\n"
	if got, ok := maskGoBodies([]byte(src)); ok {
		t.Fatalf("masked:\n%s", got.text)
	}
}

// TestMaskGoBodiesRefuses: files that do not lex are not masked.
func TestMaskGoBodiesRefuses(t *testing.T) {
	checkRefuses(t, maskGoBodies, []string{
		"package p\nfunc f() {\n\ts := \"open\n}\n", // a string not closed on its line
		"package p\nfunc f() {\n\ts := `open\n}\n",  // a raw string not closed
		"package p\nfunc f() {\n\t/* open\n}\n",     // a comment not closed
		"package p\nfunc f() {\n\tif x {\n}\n",      // a brace not closed
		"package p\nfunc f() {\n}\n}\n",             // a brace closed twice
		"package p\ntype F func(int)\n",             // no body
	})
}

// goMaskCases are Go sources whose segmentation must not change when
// function bodies are masked for the parse.
var goMaskCases = []string{
	"package p\n\nimport \"fmt\"\n\n// Doc.\nfunc A() {\n\tfmt.Println(\"}\")\n}\n\nfunc (r *R) B(x int) (int, error) {\n\treturn x, nil\n}\n",
	"package p\n\ntype I interface {\n\tM() error\n}\n\nfunc New() interface{ M() error } {\n\treturn nil\n}\n\nvar (\n\tf = func() {}\n)\n",
	"package p\n\nfunc G[T interface{ ~int }](xs []T) T {\n\tvar s T\n\tfor _, x := range xs {\n\t\ts += x\n\t}\n\treturn s\n}\n",
	"package p\n\nfunc big() {\n" + strings.Repeat("\tif x := f(); x {\n\t\tg()\n\t}\n", 80) + "}\n",
}

// FuzzMaskGoBodies: masking keeps every byte's offset and every newline,
// blanks only bytes between braces, and masking again changes nothing.
func FuzzMaskGoBodies(f *testing.F) {
	for _, s := range goMaskCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) { checkMasked(t, maskGoBodies, src, " ") })
}
