package segment

import (
	"math"
	"strings"
	"testing"
)

// commentShareCases are texts with their share: TestCommentShare's
// table and FuzzCommentShare's seeds.
var commentShareCases = []struct {
	text, lang string
	want       float64
}{
	{"// abcd\nxy := 1\n", "go", 6.0 / 11}, // "//abcd" 6 of "//abcd"+"xy:=1" 11
	{"x = 1\n", "python", 0},
	{"def f():\n    \"\"\"ab\"\"\"\n    return 1\n", "python", 8.0 / 22},
	{"s = \"\"\"ab\"\"\"\n", "python", 0},
	{"/** doc */\nint f();\n", "java", 8.0 / 15},
	{"# heading\n", "markdown", 0},
	{"", "go", 0},
	{" * <h3>a</h3>\n *   b\n */\nint x;\n", "java", 15.0 / 20},
	{"*p = 1;\n", "c", 0},
	{"let a = '/'; // c\n", "rust", 3.0 / 12},
	// A string's "//" is no comment, on its second line or in a raw
	// string; a prefixed docstring is one.
	{"let s = \"a\n// b\";\n", "rust", 0},
	{"let s = r#\"// b\"#;\n", "rust", 0},
	{"def f():\n    r\"\"\"ab\"\"\"\n", "python", 9.0 / 16},
}

func TestCommentShare(t *testing.T) {
	for _, c := range commentShareCases {
		if got := CommentShare(c.text, c.lang); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("CommentShare(%q, %s) = %v, want %v", c.text, c.lang, got, c.want)
		}
	}
}

// FuzzCommentShare: a share is between 0 and 1, a text without a
// character that can open a comment or a string has none, and a whole
// comment line put before a text never lowers its share (the text after
// it reads as it did at the start).
func FuzzCommentShare(f *testing.F) {
	for _, c := range commentShareCases {
		f.Add(c.text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, lang := range []string{"python", "go", "rust", "java", "c", "javascript"} {
			s := CommentShare(text, lang)
			if s < 0 || s > 1 || math.IsNaN(s) {
				t.Fatalf("CommentShare(%q, %s) = %v, not a share", text, lang, s)
			}
			if !strings.ContainsAny(text, "/#*\"'`") && s != 0 {
				t.Fatalf("CommentShare(%q, %s) = %v; want 0 without a comment or a string", text, lang, s)
			}
			line := "// c\n"
			if lang == "python" {
				line = "# c\n"
			}
			if p := CommentShare(line+text, lang); p < s {
				t.Fatalf("CommentShare(%q, %s) = %v, below %v without the comment line", line+text, lang, p, s)
			}
		}
	})
}
