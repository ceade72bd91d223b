package semantic

import "testing"

// Labels files and model replies are outside input: they may be wrong,
// never a panic.

func FuzzParseLabel(f *testing.F) {
	for _, s := range []string{
		`{"state_id":"s","required_evidence_groups":[{"group_id":"G1","acceptable_evidence_ids":["a"],"minimum_required":1,"necessity_weight":1,"role":"r"}],"alternative_minimal_sets":[["a","b"]]}`,
		`{"graded_labels":{"required_evidence_groups":[{"acceptable_evidence_ids":["a"]}]},"state_id":"s"}`,
		`{"state_id":"s","required_groups":[{"path":"a.py","lines":[[1,2]]}],"alternative_sets":[[{"path":"b.py","lines":[[3,3]]}]]}`,
		`{"state_id":"s","required_groups":[{"path":"a.py","lines":[[1]]}]}`,
		`{"graded_labels":null}`, `[]`, `{`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, l, err := parseLabel([]byte(s))
		if err != nil {
			return
		}
		if id == "" || l == nil || (l.pool == nil) == (l.repo == nil) {
			t.Fatalf("parseLabel(%q) = %q, %+v without error", s, id, l)
		}
	})
}

func FuzzParseReply(f *testing.F) {
	for _, s := range []string{
		`{"selected":[{"id":"a","covers":"x"}],"missing":[]}`,
		"```json\n{\"units\":[{\"id\":\"a\",\"reason\":\"r\"}]}\n```",
		`{"scores":[{"id":"a","score":11}]}`,
		`{"units":"a"}`, `{"units":[1,2]}`, `not json`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, field := range []string{"selected", "additions", "units", "scores"} {
			picks, rep, err := parseReply(s, field)
			if err == nil && rep == nil {
				t.Fatalf("parseReply(%q, %s) = %v, nil reply", s, field, picks)
			}
		}
	})
}
