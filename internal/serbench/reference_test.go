package serbench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestValidateAgainstReference replays sets judged by the release's own
// checker (see testdata/validate/README.md).
func TestValidateAgainstReference(t *testing.T) {
	f, err := Open(filepath.Join("testdata", "validate", "cases.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	dir := t.TempDir()
	n := 0
	for sc.Scan() {
		n++
		var c struct {
			Items, Labels, Predictions []json.RawMessage
			Partial, Valid             bool
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		write := func(name string, rows []json.RawMessage) string {
			var b bytes.Buffer
			for _, r := range rows {
				b.Write(r)
				b.WriteByte('\n')
			}
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}
		var problems Errors
		collect := func(err error) {
			var list Errors
			if errors.As(err, &list) {
				problems = append(problems, list...)
			} else if err != nil {
				t.Fatal(err)
			}
		}
		items, err := LoadItems(write("items.jsonl", c.Items))
		collect(err)
		labels, err := LoadLabels(write("labels.jsonl", c.Labels))
		collect(err)
		preds, err := LoadPredictions(write("predictions.jsonl", c.Predictions))
		collect(err)
		problems = append(problems, Validate(items, labels, preds, Options{Partial: c.Partial})...)
		if got := len(problems) == 0; got != c.Valid {
			t.Errorf("case %d: valid = %v, reference says %v; problems: %v", n, got, c.Valid, messages(problems))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 500 {
		t.Errorf("read %d cases, want 500", n)
	}
}
