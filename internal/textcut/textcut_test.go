package textcut

import "testing"

func TestHead(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 5, "abc"},
		{"abc", 3, "abc"},
		{"abcd", 2, "ab"},
		{"aé", 2, "a"}, // é is two bytes: the cut falls inside it
		{"aé", 3, "aé"},
		{"é", 1, ""},
		{"", 0, ""},
	} {
		if got := Head(c.s, c.n); got != c.want {
			t.Errorf("Head(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}
