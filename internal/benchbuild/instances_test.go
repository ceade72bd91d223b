package benchbuild

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// testCommit is a full commit id, and goodRecord an instance that reads,
// for the tests of reading records.
const (
	testCommit = "d8c37f43724cd9fb0870f77877b7c4c7e38a19e0"
	goodRecord = `{"instance_id": "acme__calc-1", "repo": "acme/calc", "base_commit": "` + testCommit + `", "problem_statement": "x", "patch": "p"}`
)

// A record that gives a key twice, or a key that is a field only by
// folding case, is a bad record naming the field, as a state card is
// refused: encoding/json would keep the last value, or read the other
// spelling, without a word.
func TestInstancesRefuseRepeatedAndFoldedKeys(t *testing.T) {
	const multi = `{"org": "acme", "repo": "calc", "number": 5, "base": {"sha": "` + testCommit + `"}, "resolved_issues": [{"title": "t", "body": "b"}], "fix_patch": "p"`
	tests := []struct{ name, line, want string }{
		{"id twice", strings.TrimSuffix(goodRecord, "}") + `, "instance_id": "acme__calc-9"}`, "field instance_id: given twice"},
		{"patch twice", strings.TrimSuffix(goodRecord, "}") + `, "patch": "q"}`, "field patch: given twice"},
		{"folded key", strings.TrimSuffix(goodRecord, "}") + `, "Patch": "q"}`, `field Patch: unknown field (field names are case-sensitive; did you mean "patch"?)`},
		{"folded id", `{"Instance_ID": "acme__calc-1", "repo": "acme/calc", "base_commit": "` + testCommit + `", "problem_statement": "x", "patch": "p"}`,
			`field Instance_ID: unknown field (field names are case-sensitive; did you mean "instance_id"?)`},
		{"multi key twice", multi + `, "fix_patch": "q"}`, "field fix_patch: given twice"},
		{"multi folded sha", strings.Replace(multi, `{"sha"`, `{"SHA"`, 1) + "}", `field base.SHA: unknown field (field names are case-sensitive; did you mean "sha"?)`},
		{"multi folded title", strings.Replace(multi, `"title"`, `"Title"`, 1) + "}", `field resolved_issues[0].Title: unknown field (field names are case-sensitive; did you mean "title"?)`},
	}
	for _, tc := range tests {
		p := filepath.Join(t.TempDir(), "in.jsonl")
		write(t, p, goodRecord+"\n"+tc.line+"\n")
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

// Text that is not UTF-8 would be read by encoding/json as U+FFFD without
// a word: the record is refused naming its line and field, and the others
// are read. A null record is named as null.
func TestInstancesRefuseTextNotUTF8(t *testing.T) {
	latin := strings.Replace(goodRecord, `"x"`, "\"caf\xe9\"", 1)
	multi := `{"org": "acme", "repo": "calc", "number": 5, "base": {"sha": "` + testCommit + "\"}, \"resolved_issues\": [{\"title\": \"t\", \"body\": \"b\xff\"}], \"fix_patch\": \"p\"}"
	p := filepath.Join(t.TempDir(), "in.jsonl")
	write(t, p, goodRecord+"\n"+latin+"\nnull\n"+multi+"\n")
	ins, bad, err := ReadInstances(p)
	want := []BadRecord{
		{p + ":2", "field problem_statement: not UTF-8 text"},
		{p + ":3", "not a JSON object but null"},
		{p + ":4", "field resolved_issues[0].body: not UTF-8 text"},
	}
	if err != nil || len(ins) != 1 || !reflect.DeepEqual(bad, want) {
		t.Errorf("JSONL: %d instances, %v, %v; want bad %v", len(ins), bad, err, want)
	}
	// In a JSON array, the line is that of the byte.
	arr := filepath.Join(t.TempDir(), "in.json")
	write(t, arr, "[\n"+goodRecord+",\n{\"instance_id\": \"acme__calc-2\",\n \"problem_statement\": \"\xff\"}\n]\n")
	ins, bad, err = ReadInstances(arr)
	if want := []BadRecord{{arr + ":4", "field problem_statement: not UTF-8 text"}}; err != nil || len(ins) != 1 || !reflect.DeepEqual(bad, want) {
		t.Errorf("JSON array: %d instances, %v, %v; want bad %v", len(ins), bad, err, want)
	}
	alts := filepath.Join(t.TempDir(), "alts.jsonl")
	write(t, alts, "null\n{\"instance_id\": \"acme__calc-1\", \"patch\": \"\xfe\"}\n")
	_, bad, err = ReadAlternatives(alts)
	if want := []BadRecord{{alts + ":1", "not a JSON object but null"}, {alts + ":2", "field patch: not UTF-8 text"}}; err != nil || !reflect.DeepEqual(bad, want) {
		t.Errorf("alternatives: %v, %v; want %v", bad, err, want)
	}
	issues := filepath.Join(t.TempDir(), "issues.json")
	write(t, issues, "{\n\"acme__calc-12\": \"caf\xe9\",\n\"acme__calc-13\": \"fine\"\n}\n")
	its, bad, err := ReadIssueTexts(issues)
	if want := []BadRecord{{issues + ":2", "field acme__calc-12: not UTF-8 text"}}; err != nil || len(its) != 1 || !reflect.DeepEqual(bad, want) {
		t.Errorf("issues: %d, %v, %v; want %v", len(its), bad, err, want)
	}
}

// A JSON array is the whole file: rows after it, or an array that does
// not end, are an error naming the line, not records left unread.
func TestInstancesArrayIsTheWholeFile(t *testing.T) {
	for name, tc := range map[string]struct{ text, want string }{
		"rows after":    {"[" + goodRecord + "]\n" + goodRecord + "\n", ":2: more after the JSON array that ends on line 1"},
		"garbage after": {"[\n" + goodRecord + "\n]\n\n  xyz\n", ":5: more after the JSON array that ends on line 3"},
		"no end":        {"[\n" + goodRecord + "\n", ":3: the JSON array does not end"},
	} {
		p := filepath.Join(t.TempDir(), "in.json")
		write(t, p, tc.text)
		if _, _, err := ReadInstances(p); err == nil || !strings.Contains(err.Error(), p+tc.want) {
			t.Errorf("%s: %v, want %s%s", name, err, p, tc.want)
		}
	}
}

// A Multi-SWE-bench number is a pull request's: a positive whole number,
// or the row is refused naming the field; so is a row whose resolved
// issues have no text, as an empty problem_statement is.
func TestMultiRowNumberAndText(t *testing.T) {
	row := func(num, issues string) string {
		return `{"org": "acme", "repo": "calc", "number": ` + num + `, "base": {"sha": "` + testCommit + `"}, "resolved_issues": ` + issues + `, "fix_patch": "p"}`
	}
	text := `[{"title": "t", "body": "b"}]`
	lines := []string{row("12", text), row("1.5", text), row(`"12"`, text), row("-3", text), row("1e999", text), row("12.0", text), row("0", text),
		row("null", text), row("7", `[{"title": "", "body": ""}, {"title": " ", "body": null}]`)}
	p := filepath.Join(t.TempDir(), "multi.jsonl")
	write(t, p, strings.Join(lines, "\n")+"\n")
	ins, bad, err := ReadInstances(p)
	if err != nil || len(ins) != 1 || ins[0].ID != "acme__calc-12" {
		t.Fatalf("instances %+v, %v", ins, err)
	}
	want := []BadRecord{
		{p + ":2", "field number: want a pull request's number (a positive whole number), got 1.5"},
		{p + ":3", `field number: want a pull request's number (a positive whole number), got "12"`},
		{p + ":4", "field number: want a pull request's number (a positive whole number), got -3"},
		{p + ":5", "field number: want a pull request's number (a positive whole number), got 1e999"},
		{p + ":6", "field number: want a pull request's number (a positive whole number), got 12.0"},
		{p + ":7", "field number: want a pull request's number (a positive whole number), got 0"},
		{p + ":8", "field number: missing"},
		{p + ":9", "field resolved_issues: every title and body is empty"},
	}
	if !reflect.DeepEqual(bad, want) {
		t.Errorf("bad records:\n got %v\nwant %v", bad, want)
	}
}

// A base commit is a full commit id: an abbreviated one is refused, not
// written into the states abbreviated.
func TestInstancesRefuseAbbreviatedCommits(t *testing.T) {
	p := filepath.Join(t.TempDir(), "in.jsonl")
	write(t, p, `{"instance_id": "acme__calc-1", "repo": "acme/calc", "base_commit": "d8c37f4", "problem_statement": "x", "patch": "p"}`+"\n"+
		`{"org": "acme", "repo": "calc", "number": 5, "base": {"sha": "d8c37f43724cd9fb0870f77877b7c4c7e38a19e"}, "resolved_issues": [{"title": "t", "body": "b"}], "fix_patch": "p"}`+"\n")
	_, bad, err := ReadInstances(p)
	want := []BadRecord{
		{p + ":1", `field base_commit: "d8c37f4" is not a full commit id (40 hex digits, or 64)`},
		{p + ":2", `field base.sha: "d8c37f43724cd9fb0870f77877b7c4c7e38a19e" is not a full commit id (40 hex digits, or 64)`},
	}
	if err != nil || !reflect.DeepEqual(bad, want) {
		t.Errorf("bad: %v, %v; want %v", bad, err, want)
	}
}
