package benchbuild

import (
	"path/filepath"
	"strings"
	"testing"
)

// A record that gives a key twice, or a key that is a field only by
// folding case, is a bad record naming the field, as a state card is
// refused: encoding/json would keep the last value, or read the other
// spelling, without a word.
func TestInstancesRefuseRepeatedAndFoldedKeys(t *testing.T) {
	const (
		commit = "d8c37f43724cd9fb0870f77877b7c4c7e38a19e0"
		good   = `{"instance_id": "acme__calc-1", "repo": "acme/calc", "base_commit": "` + commit + `", "problem_statement": "x", "patch": "p"}`
		multi  = `{"org": "acme", "repo": "calc", "number": 5, "base": {"sha": "` + commit + `"}, "resolved_issues": [{"title": "t", "body": "b"}], "fix_patch": "p"`
	)
	tests := []struct{ name, line, want string }{
		{"id twice", strings.TrimSuffix(good, "}") + `, "instance_id": "acme__calc-9"}`, "field instance_id: given twice"},
		{"patch twice", strings.TrimSuffix(good, "}") + `, "patch": "q"}`, "field patch: given twice"},
		{"folded key", strings.TrimSuffix(good, "}") + `, "Patch": "q"}`, `field Patch: unknown field (field names are case-sensitive; did you mean "patch"?)`},
		{"folded id", `{"Instance_ID": "acme__calc-1", "repo": "acme/calc", "base_commit": "` + commit + `", "problem_statement": "x", "patch": "p"}`,
			`field Instance_ID: unknown field (field names are case-sensitive; did you mean "instance_id"?)`},
		{"multi key twice", multi + `, "fix_patch": "q"}`, "field fix_patch: given twice"},
		{"multi folded sha", strings.Replace(multi, `{"sha"`, `{"SHA"`, 1) + "}", `field base.SHA: unknown field (field names are case-sensitive; did you mean "sha"?)`},
		{"multi folded title", strings.Replace(multi, `"title"`, `"Title"`, 1) + "}", `field resolved_issues[0].Title: unknown field (field names are case-sensitive; did you mean "title"?)`},
	}
	for _, tc := range tests {
		p := filepath.Join(t.TempDir(), "in.jsonl")
		write(t, p, good+"\n"+tc.line+"\n")
		ins, bad, err := ReadInstances(p)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(ins) != 1 || len(bad) != 1 || bad[0].Where != p+":2" || !strings.Contains(bad[0].Err, tc.want) {
			t.Errorf("%s: got %d instances, bad %v; want one bad record at line 2 naming %q", tc.name, len(ins), bad, tc.want)
		}
	}

	p := filepath.Join(t.TempDir(), "alts.jsonl")
	write(t, p, `{"instance_id": "acme__calc-1", "patch": "p", "patch": "q"}`+"\n")
	alts, bad, err := ReadAlternatives(p)
	if err != nil || len(alts) != 0 || len(bad) != 1 || !strings.Contains(bad[0].Err, "field patch: given twice") {
		t.Errorf("alternatives with a key twice: %v %v %v", alts, bad, err)
	}
}
