package index

import (
	"strings"
	"testing"

	"github.com/missingcomplement/mss/tokenize"
)

func TestTermCacheMatchesTokenize(t *testing.T) {
	c := newTermCache()
	for _, text := range []string{
		"",
		"def lookup_single(name):\n    return HTTPServer.getValue(utf8decode) # x y_z",
		"café naïve Ünïcode_name αβγ 変数名 x1 __init__ _ __",
		"bad \xff\xfe bytes\x00in_text lookupSingle\xffnext",
		"123 45abc abc45 a_1_b",
		strings.Repeat("same_word sameWord ", 50),
	} {
		for i := 0; i < 2; i++ { // second round from the cache
			want := strings.Join(tokenize.Terms(text), " ")
			if got := c.terms(text); got != want {
				t.Errorf("terms(%q) = %q, want %q", text, got, want)
			}
		}
	}
}

func FuzzTermCache(f *testing.F) {
	f.Add("lookup_single HTTPServer")
	f.Add("\xff a\xc3")
	c := newTermCache()
	f.Fuzz(func(t *testing.T, text string) {
		want := strings.Join(tokenize.Terms(text), " ")
		if got := c.terms(text); got != want {
			t.Errorf("terms(%q) = %q, want %q", text, got, want)
		}
	})
}
