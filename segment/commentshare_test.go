package segment

import (
	"math"
	"testing"
)

func TestCommentShare(t *testing.T) {
	for _, c := range []struct {
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
	} {
		if got := CommentShare(c.text, c.lang); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("CommentShare(%q, %s) = %v, want %v", c.text, c.lang, got, c.want)
		}
	}
}
