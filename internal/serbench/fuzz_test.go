package serbench

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// The loaders read outside input: whatever the bytes, they return rows or
// errors, never panic, and every row problem names the file and a line.

// exampleSeeds adds the first lines of the release example (when present)
// as seeds, trimmed to keep the corpus small.
func exampleSeeds(f *testing.F, name string) {
	dir := filepath.Join("..", "..", "..", "shared", "serbench", "example")
	file, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		return
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) > 4096 {
			line = line[:4096]
		}
		f.Add(append([]byte(nil), line...))
	}
}

func checkLoadErr(t *testing.T, err error) {
	var list Errors
	if err == nil || !errors.As(err, &list) {
		return
	}
	for _, e := range list {
		if e.File != "F" || e.Line < 0 || e.Msg == "" {
			t.Errorf("badly formed error %+v", e)
		}
	}
}

func FuzzReadItems(f *testing.F) {
	f.Add([]byte(`{"state_id":"s","repo":"o/r","candidate_evidence":[{"evidence_id":"e","source_path":"a.py","line_start":1,"line_end":2,"content_excerpt":"x = 1\n"}],"observed_evidence_ids":[],"trajectory_prefix":[{"action_type":"read_file"}]}`))
	f.Add([]byte("{\"state_id\":\"s\"}\n\n[1]\n"))
	f.Add([]byte{0x1f, 0x8b, 0x08, 0x00})
	f.Add([]byte(`{"state_id":"s","candidate_evidence":[{"evidence_id":"e","line_start":1,"line_start":2}],"observed_evidence_ids":["e"],"observed_evidence_ids":[]}`))
	f.Add([]byte(`{"state_id":"s","issue":"x","opened_files":["../x"],"candidate_evidence":[{"evidence_id":"e","source_path":"../../etc/passwd","line_start":-1,"line_end":2}]}`))
	exampleSeeds(f, "items.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) {
		// The one-pass decoding of a well-formed row agrees with the
		// careful one.
		if fast := fastItem(data, 1); fast != nil {
			e := &errs{file: "F"}
			obj, ok := decodeLine(data, 1, e)
			if !ok {
				t.Fatalf("fast path accepted a line the careful path rejects: %v", e.list)
			}
			slow := parseItem(line{n: 1, obj: obj}, e)
			if len(e.list) > 0 {
				t.Fatalf("fast path accepted a row with problems: %v", e.list)
			}
			if diff := cmp.Diff(slow, fast, cmp.AllowUnexported(Item{}), cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("fast and careful paths differ (-careful +fast):\n%s", diff)
			}
		}
		items, err := ReadItems(bytes.NewReader(data), "F")
		checkLoadErr(t, err)
		if items != nil {
			for _, it := range items.Items {
				for i := range it.Pool {
					_ = it.Pool[i].Unit()
				}
			}
		}
	})
}

func FuzzReadLabels(f *testing.F) {
	f.Add([]byte(`{"state_id":"s","required_evidence_groups":[{"group_id":"G1","role":"bug_location","acceptable_evidence_ids":["a","b"],"minimum_required":2,"necessity_weight":3.0}],"alternative_minimal_sets":[["a","b"]],"observed_evidence_ids":[]}`))
	f.Add([]byte(`{"state_id":"s","graded_labels":{"required_evidence_groups":[{"role":"r","acceptable_evidence_ids":["a"],"minimum_required":1.5,"necessity_weight":-1}]}}`))
	f.Add([]byte(`{"state_id":"s","required_evidence_groups":[{"role":"r","role":"q","acceptable_evidence_ids":["a"],"minimum_required":1,"necessity_weight":1}]}`))
	exampleSeeds(f, "labels.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) {
		labels, err := ReadLabels(bytes.NewReader(data), "F")
		checkLoadErr(t, err)
		if labels != nil && err == nil {
			// Loaded certificates are scoreable.
			for _, l := range labels.Labels {
				for _, k := range []int{1, 5} {
					m := Score(l.GoldIDs(), &l.Cert, k)
					if m.GroupNDCG < 0 || m.GroupNDCG > 1 || m.GroupRecall > 1 {
						t.Errorf("out-of-range metrics %+v", m)
					}
				}
			}
		}
	})
}

func FuzzReadPredictions(f *testing.F) {
	f.Add([]byte(`{"state_id":"s","method":"m","ranked_evidence_ids":["a","b"],"config":{"k":8}}` + "\n" + `{"state_id":"s","method":"m","ranked_evidence_ids":[]}`))
	f.Add([]byte(`{"state_id":"s","method":"m","ranked_evidence_ids":["a","a"]}`))
	f.Add([]byte(`{"state_id":"s","method":"m","ranked_evidence_ids":["a"],"ranked_evidence_ids":["b"]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := ReadPredictions(bytes.NewReader(data), "F")
		checkLoadErr(t, err)
	})
}
