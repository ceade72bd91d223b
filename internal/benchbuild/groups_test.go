package benchbuild

import (
	"fmt"
	"strings"
	"testing"
)

// TestOverloadsAreGroupsOfTheirOwn: two overloads of one method share a
// symbol and each carries its class's signature as context; a change in
// each is a group of each, not one group from the first to the second
// (a later part of one definition is joined to it; an overload is not).
func TestOverloadsAreGroupsOfTheirOwn(t *testing.T) {
	src := "package p;\n" + // 1
		"\n" +
		"public class A {\n" + // 3
		"  void m(int a) {\n" + // 4
		"    use(a);\n" + // 5
		"  }\n" +
		"\n" +
		"  void m(String s) {\n" + // 8
		"    use(s);\n" + // 9
		"  }\n" +
		"}\n"
	groups, _ := FileGroups("A.java", []byte(src), []Change{{Line: 5}, {Line: 9}})
	var got []string
	for _, g := range groups {
		got = append(got, fmt.Sprintf("%s %d-%d", g.Symbol, g.Span[0], g.Span[1]))
	}
	if want := "A.m 4-6, A.m 8-11"; strings.Join(got, ", ") != want {
		t.Errorf("groups %q, want %q", strings.Join(got, ", "), want)
	}
}

// TestPartsAreOneGroup: the parts of a definition split for size are one
// group, whatever class it is in.
func TestPartsAreOneGroup(t *testing.T) {
	var b strings.Builder
	b.WriteString("class K:\n    def long(self, a):\n")
	for i := 0; i < 260; i++ {
		fmt.Fprintf(&b, "        a = a + %d\n", i)
	}
	b.WriteString("        return a\n")
	src := b.String()
	n := strings.Count(src, "\n")
	groups, _ := FileGroups("k.py", []byte(src), []Change{{Line: 3}, {Line: n - 1}})
	if len(groups) != 1 || groups[0].Symbol != "K.long" || groups[0].Span != [2]int{2, n} {
		t.Errorf("groups %+v, want one of K.long over 2-%d", groups, n)
	}
}
