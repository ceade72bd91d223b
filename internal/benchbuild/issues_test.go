package benchbuild

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestReadIssueTexts(t *testing.T) {
	dir := t.TempDir()
	obj := filepath.Join(dir, "issues.json")
	write(t, obj, "{\n  \"acme__calc-12\": \"sub is wrong\\nIt negates.\",\n  \"acme__calc-x\": \"no number\",\n  \"acme__calc-14\": 3,\n  \"other__lib.rs-7\": \"elsewhere\",\n  \"acme__calc-16\": \" \"\n}\n")
	issues, bad, err := ReadIssueTexts(obj)
	if err != nil {
		t.Fatal(err)
	}
	want := []IssueText{
		{InstanceID: "acme__calc-12", Repo: "acme/calc", Pull: 12, Text: "sub is wrong\nIt negates.", Where: obj + ":2"},
		{InstanceID: "other__lib.rs-7", Repo: "other/lib.rs", Pull: 7, Text: "elsewhere", Where: obj + ":5"},
	}
	if !reflect.DeepEqual(issues, want) {
		t.Errorf("issues:\n got %+v\nwant %+v", issues, want)
	}
	wantBad := []BadRecord{
		{obj + ":3", `field instance_id: "acme__calc-x" is not <owner>__<name>-<pull request number>`},
		{obj + ":4", "field acme__calc-14: not a string"},
		{obj + ":6", "field acme__calc-16: empty"},
	}
	if !reflect.DeepEqual(bad, wantBad) {
		t.Errorf("bad:\n got %v\nwant %v", bad, wantBad)
	}

	lines := filepath.Join(dir, "issues.jsonl")
	write(t, lines, `{"instance_id": "acme__calc-12", "problem_statement": "sub is wrong"}
{"instance_id": "acme__calc-13"}
not json
{"instance_id": "acme__calc-15", "problem_statement": "  "}
`)
	issues, bad, err = ReadIssueTexts(lines)
	if err != nil {
		t.Fatal(err)
	}
	if len(issues) != 1 || issues[0].Pull != 12 || issues[0].Text != "sub is wrong" || issues[0].Where != lines+":1" {
		t.Errorf("JSONL issues: %+v", issues)
	}
	if len(bad) != 3 || bad[0].String() != lines+":2: field problem_statement: missing" ||
		!strings.HasPrefix(bad[1].String(), lines+":3: not valid JSON") || bad[2].String() != lines+":4: field problem_statement: empty" {
		t.Errorf("JSONL bad records: %v", bad)
	}
	// A JSONL file of one record is a record, not a map of ids.
	one := filepath.Join(dir, "one.jsonl")
	write(t, one, `{"instance_id": "acme__calc-12", "problem_statement": "sub is wrong"}`+"\n")
	if issues, bad, err := ReadIssueTexts(one); err != nil || len(bad) != 0 || len(issues) != 1 || issues[0].InstanceID != "acme__calc-12" {
		t.Errorf("one record: %+v %v %v", issues, bad, err)
	}
	if _, _, err := ReadIssueTexts(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("a missing file read without error")
	}
}

func TestPullOf(t *testing.T) {
	for subject, want := range map[string]int{
		"Fix sub (#12)":  12,
		"Fix sub (#12) ": 12,
		"Merge pull request #14 from someone/fix": 14,
		`Revert "Fix sub (#12)" (#20)`:            20,
		"Fix sub, see #12":                        0,
		"Fix sub (#12) and more":                  0,
		"Merged pull request #14":                 0,
		"Merge #2008":                             2008,
		"Merge #348 #349":                         0,
		"Auto merge of #77 - someone:fix, r=me":   77,
	} {
		if got := pullOf(subject); got != want {
			t.Errorf("pullOf(%q) = %d, want %d", subject, got, want)
		}
	}
}

func TestHistoryFiledIssues(t *testing.T) {
	fx := newFixture(t)
	commit := func(msg string, files map[string]string) { fx.commit(t, msg, files) }
	// Pull request 12 changes source and no test, and says nothing of a fix.
	commit("Make sub right (#12)", map[string]string{
		"calc.py": strings.Replace(calcBase, "    return a - b\n", "    return b - a\n", 1),
	})
	commit("Tidy the guide (#13)", map[string]string{"docs/guide.md": "# Guide\n\ntidy\n"})
	commit("Fix #30: mul swapped (#31)", map[string]string{
		"calc.py":            strings.Replace(strings.Replace(calcBase, "    return a - b\n", "    return b - a\n", 1), "    return a * b\n", "    return b * a\n", 1),
		"tests/test_calc.py": "def test_mul():\n    assert True\n",
	})
	issues := map[int]IssueText{
		12: {InstanceID: "acme__calc-12", Repo: "acme/calc", Pull: 12, Text: "sub gives the wrong sign", Where: "issues.json:2"},
		13: {InstanceID: "acme__calc-13", Repo: "acme/calc", Pull: 13, Text: "the guide is untidy", Where: "issues.json:3"},
		99: {InstanceID: "acme__calc-99", Repo: "acme/calc", Pull: 99, Text: "never fixed", Where: "issues.json:4"},
	}
	ins, skipped, err := History(context.Background(), HistoryOptions{GitDir: fx.gitDir, Repo: "acme/calc", Issues: issues})
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) != 1 {
		t.Fatalf("want the one filed issue whose pull request changes source, got %+v (%v)", ins, skipped)
	}
	in := ins[0]
	if in.ID != "acme__calc-12" || in.Issue != "sub gives the wrong sign" || in.BaseCommit != fx.base || in.Where != "issues.json:2" ||
		!strings.Contains(in.Patch, "+    return b - a") {
		t.Errorf("instance: %+v", in)
	}
	// The fix of pull request 31 is not listed, so it is not taken (the
	// root commit has no base and is not counted); 13 changes no source.
	want := map[string]int{NotListedPull: 1, NoSource: 1, PullNotFound: 2}
	if !reflect.DeepEqual(skipped, want) {
		t.Errorf("skipped: got %v want %v", skipped, want)
	}
	// Without issues the same history mines its fix commits as before.
	mined, _, err := History(context.Background(), HistoryOptions{GitDir: fx.gitDir, Repo: "acme/calc"})
	if err != nil || len(mined) != 1 || !strings.HasPrefix(mined[0].Issue, "Fix #30") {
		t.Errorf("mined: %+v %v", mined, err)
	}
}

// FuzzReadIssueTexts: whatever the file holds, reading it does not panic,
// every issue read names its repository and a pull request and has text,
// and every bad record names the file.
func FuzzReadIssueTexts(f *testing.F) {
	f.Add([]byte("{\n  \"acme__calc-12\": \"sub is wrong\",\n  \"x\": 3\n}\n"))
	f.Add([]byte(`{"instance_id": "acme__calc-12", "problem_statement": "sub is wrong"}` + "\n{\"instance_id\": \"a__b-x\"}\nnot json\n"))
	f.Add([]byte(`[{"instance_id": "acme__calc-12", "problem_statement": "t"}, 3]`))
	f.Add([]byte("{\"a__b-1\": \"t\", \"a__b-1\": \"u\"}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "issues.json")
		write(t, path, string(data))
		issues, bad, err := ReadIssueTexts(path)
		if err != nil {
			return
		}
		for _, it := range issues {
			owner, name, ok := strings.Cut(it.Repo, "/")
			if !ok || owner == "" || name == "" || it.Pull <= 0 || strings.TrimSpace(it.Text) == "" || !strings.HasPrefix(it.Where, path+":") {
				t.Fatalf("issue read wrongly: %+v", it)
			}
			if got, err := parseIssueID(it.InstanceID); err != nil || got.Repo != it.Repo || got.Pull != it.Pull {
				t.Fatalf("id %q does not name %s #%d: %+v %v", it.InstanceID, it.Repo, it.Pull, got, err)
			}
		}
		for _, b := range bad {
			if !strings.HasPrefix(b.Where, path+":") || b.Err == "" {
				t.Fatalf("bad record without its place or reason: %+v", b)
			}
		}
	})
}
