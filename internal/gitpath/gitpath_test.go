package gitpath

import "testing"

func TestUnquote(t *testing.T) {
	for in, want := range map[string]string{
		`plain/path.go`:          "plain/path.go",
		`"caf\303\251/\"q\".py"`: "café/\"q\".py",
		`"tab\there.c"`:          "tab\there.c",
		`"unterminated`:          `"unterminated`,
		`"bad \q escape"`:        `"bad \q escape"`,
		`"`:                      `"`,
		`with "inner" quotes`:    `with "inner" quotes`,
		`"a b" and more "c"`:     `"a b" and more "c"`,
	} {
		if got := Unquote(in); got != want {
			t.Errorf("Unquote(%q) = %q, want %q", in, got, want)
		}
	}
}
