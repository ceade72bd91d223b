package lexical

import (
	"strings"
	"testing"
)

// FuzzOverlay: whatever the documents and whichever are dead, an overlay
// (over an index in memory and over the same index stored) scores and
// counts every live document exactly as an index built from the live
// documents alone.
func FuzzOverlay(f *testing.F) {
	f.Add("parse the config\nsettings cache\nwrite config file", []byte{1, 0, 0}, "parse config strictly\nwatch settings", "config settings")
	f.Add("a b\nb c\nc d\nd a", []byte{0, 1, 1, 0}, "", "a d")
	f.Add("", []byte{}, "x y\ny z", "y")
	f.Fuzz(func(t *testing.T, base string, dead []byte, added string, query string) {
		fields := []Field{{"content", 1}, {"symbol", 2}}
		docs := func(s string) [][2]string {
			var out [][2]string
			if s == "" {
				return out
			}
			for _, line := range strings.Split(s, "\n") {
				sym, body, _ := strings.Cut(line, " ")
				out = append(out, [2]string{body, sym})
			}
			return out
		}
		build := func(ds [][2]string) *Index {
			b := NewBuilder(fields...)
			for _, d := range ds {
				b.Add(d[0], d[1])
			}
			return b.Build()
		}
		bd, ad := docs(base), docs(added)
		mask := make([]bool, len(bd))
		var live [][2]string
		want := map[int32]int32{} // overlay document -> rebuilt document
		for i := range bd {
			mask[i] = i < len(dead) && dead[i]%2 == 1
			if !mask[i] {
				want[int32(i)] = int32(len(live))
				live = append(live, bd[i])
			}
		}
		for i := range ad {
			want[int32(len(bd)+i)] = int32(len(live))
			live = append(live, ad[i])
		}
		rebuilt := build(live)
		q := QueryTerms(query)
		terms := sortedTerms(q)
		rv, err := rebuilt.Lookup(terms)
		if err != nil {
			t.Fatal(err)
		}
		rs := rv.Scores(q)
		mem := build(bd)
		head, enc := mem.Export()
		stored, err := Stored(fields, head, func(f int, t string) ([]byte, bool) { b, ok := enc[f][t]; return b, ok })
		if err != nil {
			t.Fatal(err)
		}
		for name, b := range map[string]*Index{"in memory": mem, "stored": stored} {
			ov, err := Overlay(b, mask, build(ad))
			if err != nil {
				t.Fatal(err)
			}
			if ov.Len() != rebuilt.Len() {
				t.Fatalf("%s: Len %d, rebuilt %d", name, ov.Len(), rebuilt.Len())
			}
			v, err := ov.Lookup(terms)
			if err != nil {
				t.Fatal(err)
			}
			got := v.Scores(q)
			if len(got) != len(rs) {
				t.Fatalf("%s: %d documents scored, rebuilt %d", name, len(got), len(rs))
			}
			for d, s := range got {
				r, ok := want[d]
				if !ok {
					t.Fatalf("%s: dead document %d scored", name, d)
				}
				if s != rs[r] {
					t.Fatalf("%s: document %d scores %v, rebuilt %v", name, d, s, rs[r])
				}
			}
			for _, term := range terms {
				for _, f := range fields {
					if a, b := v.DocFreq(f.Name, term), rv.DocFreq(f.Name, term); a != b {
						t.Fatalf("%s: df(%s, %q) = %d, rebuilt %d", name, f.Name, term, a, b)
					}
				}
			}
		}
	})
}
