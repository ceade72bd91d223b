package trajectory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkParsed asserts what every successful parse guarantees: steps have a
// kind, and every seen span has a relative path and a sane line range.
func checkParsed(t *testing.T, tr *Trajectory) {
	for i, s := range tr.Steps {
		if s.Kind == "" {
			t.Fatalf("step %d has no kind", i)
		}
		for _, sp := range s.Seen {
			if sp.Path == "" || strings.HasPrefix(sp.Path, "../") || sp.Path == ".." {
				t.Fatalf("step %d: bad seen path %q", i, sp.Path)
			}
			if sp.StartLine < 1 || sp.EndLine < sp.StartLine {
				t.Fatalf("step %d: bad seen range %d-%d", i, sp.StartLine, sp.EndLine)
			}
		}
	}
	if _, _, err := tr.State(StateOptions{Units: fixtureUnits}); err != nil {
		t.Fatalf("State: %v", err)
	}
}

func fuzzSeed(f *testing.F, name string) {
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
}

func FuzzSERBench(f *testing.F) {
	fuzzSeed(f, "sample_serbench.json")
	f.Add([]byte(`[{"action_type": "read_file", "action_input": "a.py", "tool_output": "  3: x\n  4: y"}]`))
	f.Add([]byte("{\"state_id\": \"x\", \"trajectory_prefix\": []}\n{\"state_id\": \"y\", \"issue\": \"a\", \"issue\": \"b\", \"trajectory_prefix\": []}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Parse(SERBench, "fuzz", strings.NewReader(string(data)), Options{})
		if err == nil {
			checkParsed(t, tr)
		}
	})
}

func FuzzSWEAgent(f *testing.F) {
	fuzzSeed(f, "sample.traj")
	f.Add([]byte(`{"trajectory": [{"action": "sed -n '3,9p' a.py", "observation": "x\n"}, {"action": "cat -n b.py", "observation": "     7\tq"}]}`))
	f.Add([]byte(`{"trajectory": [{"action": "open a.py", "action": "open b.py"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Parse(SWEAgent, "fuzz", strings.NewReader(string(data)), Options{})
		if err == nil {
			checkParsed(t, tr)
		}
	})
}

func FuzzJSONL(f *testing.F) {
	fuzzSeed(f, "sample.jsonl")
	f.Add([]byte(`{"tool":"read_file","path":"a.py","start_line":1,"end_line":2000000000}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Parse(JSONL, "fuzz", strings.NewReader(string(data)), Options{})
		if err == nil {
			checkParsed(t, tr)
		}
	})
}
