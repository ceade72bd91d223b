package benchbuild

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/missingcomplement/mss"
)

// BadRecord is an input record that could not be read: its place and why.
type BadRecord struct {
	Where string // file:line
	Err   string
}

func (r BadRecord) String() string { return r.Where + ": " + r.Err }

// ReadInstances reads SWE-bench instances (JSON array or JSONL: instance_id,
// repo, base_commit, problem_statement, patch, optional hints_text) and
// Multi-SWE-bench rows (org, repo, number, base.sha,
// resolved_issues[].title/body, fix_patch). A record that cannot be read is
// returned in bad, naming the file, the line and the field; the others are
// read. A file without any record is an error.
func ReadInstances(path string) (ins []Instance, bad []BadRecord, err error) {
	err = eachRecord(path, func(where string, raw json.RawMessage) {
		in, e := parseInstance(raw)
		if e != nil {
			bad = append(bad, BadRecord{where, e.Error()})
			return
		}
		in.Where = where
		ins = append(ins, in)
	}, func(where string, e error) { bad = append(bad, BadRecord{where, e.Error()}) })
	if err == nil && len(ins) == 0 && len(bad) == 0 {
		// An empty file (or array) is no dataset: building from it would
		// replace an earlier track with an empty one.
		return nil, nil, fmt.Errorf("no instances in %s", path)
	}
	return ins, bad, err
}

// ReadAlternatives reads other passing fixes: JSONL (or a JSON array) of
// {"instance_id", "patch"} (SWE-bench predictions' "model_patch" is
// accepted too).
func ReadAlternatives(path string) (alts []Alternative, bad []BadRecord, err error) {
	err = eachIDRecord(path, func(where, id string, m map[string]json.RawMessage) error {
		field := "patch"
		if _, ok := m["patch"]; !ok {
			if _, ok := m["model_patch"]; ok {
				field = "model_patch"
			}
		}
		p, e := str(m, field, true)
		if e != nil {
			return e
		}
		alts = append(alts, Alternative{InstanceID: id, Patch: p, Where: where})
		return nil
	}, func(r BadRecord) { bad = append(bad, r) })
	return alts, bad, err
}

// eachIDRecord calls fn for each JSON object of a JSONL file (or a JSON
// array) with its "instance_id"; a record that is not an object, has no
// id, or that fn refuses goes to onBad with its place.
func eachIDRecord(path string, fn func(where, id string, m map[string]json.RawMessage) error, onBad func(BadRecord)) error {
	return eachRecord(path, func(where string, raw json.RawMessage) {
		var m map[string]json.RawMessage
		if e := json.Unmarshal(raw, &m); e != nil || m == nil {
			onBad(BadRecord{where, notObject(raw)})
			return
		}
		e := checkKeys(raw, "", "instance_id", "patch", "model_patch")
		var id string
		if e == nil {
			id, e = str(m, "instance_id", true)
		}
		if e == nil {
			e = fn(where, id, m)
		}
		if e != nil {
			onBad(BadRecord{where, e.Error()})
		}
	}, func(where string, e error) { onBad(BadRecord{where, e.Error()}) })
}

// eachRecord calls fn for each JSON value of a JSONL file or each element
// of a JSON array file; where is "file:line". An undecodable line, or a
// record holding text that is not UTF-8 (which encoding/json would read
// as U+FFFD), goes to onBad; an unreadable file is an error.
func eachRecord(path string, fn func(where string, raw json.RawMessage), onBad func(where string, err error)) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		lineAt := lineFinder(data)
		dec := json.NewDecoder(bytes.NewReader(data))
		if _, err := dec.Token(); err != nil {
			return fmt.Errorf("%s:1: %v", path, err)
		}
		for dec.More() {
			off := dec.InputOffset()
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return fmt.Errorf("%s:%d: %v", path, lineAt(off), err)
			}
			line := lineAt(off)
			if se := mss.CheckUTF8(raw); se != nil {
				onBad(fmt.Sprintf("%s:%d", path, line+se.Line-1), utf8Error(se))
				continue
			}
			fn(fmt.Sprintf("%s:%d", path, line), raw)
		}
		// The closing bracket, then nothing but blanks: JSONL rows (or
		// anything else) after the array would go unread.
		if _, err := dec.Token(); err != nil {
			return fmt.Errorf("%s:%d: the JSON array does not end (no closing ']')", path, lineOf(data, int64(len(data))))
		}
		end := dec.InputOffset()
		if rest := bytes.TrimLeft(data[end:], " \t\r\n"); len(rest) > 0 {
			at := int64(len(data) - len(rest))
			return fmt.Errorf("%s:%d: more after the JSON array that ends on line %d; give one array, or JSON Lines alone", path, lineOf(data, at), lineOf(data, end-1))
		}
		return nil
	}
	for i, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		where := fmt.Sprintf("%s:%d", path, i+1)
		if !json.Valid(line) {
			var v any
			err := json.Unmarshal(line, &v)
			onBad(where, fmt.Errorf("not valid JSON: %v", err))
			continue
		}
		if se := mss.CheckUTF8(line); se != nil {
			onBad(where, utf8Error(se))
			continue
		}
		fn(where, json.RawMessage(line))
	}
	return nil
}

// lineOf is the 1-based line of the byte at off.
func lineOf(data []byte, off int64) int {
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// lineFinder gives, for offsets into data that do not decrease (a JSON
// decoder's InputOffset before each element), the 1-based line of the
// element there: the first byte past the separator and blanks. It counts
// the lines between one offset and the next once.
func lineFinder(data []byte) func(off int64) int {
	var at int64
	line := 1
	return func(off int64) int {
		off += int64(len(data[off:]) - len(bytes.TrimLeft(data[off:], " \t\r\n,")))
		line += bytes.Count(data[at:off], []byte("\n"))
		at = off
		return line
	}
}

// utf8Error names the field whose text is not UTF-8 (mss.CheckUTF8).
func utf8Error(se *mss.StateError) error {
	if se.Field == "" {
		return fmt.Errorf("%s (in a key)", se.Msg)
	}
	return fmt.Errorf("field %s: %s", se.Field, se.Msg)
}

// notObject says what a record that is no JSON object is.
func notObject(raw []byte) string {
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return "not a JSON object but null"
	}
	return "not a JSON object"
}

func parseInstance(raw json.RawMessage) (Instance, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return Instance{}, errors.New(notObject(raw))
	}
	if _, ok := m["fix_patch"]; ok {
		if err := checkKeys(raw, "", multiKeys...); err != nil {
			return Instance{}, err
		}
		return parseMulti(m)
	}
	if err := checkKeys(raw, "", instanceKeys...); err != nil {
		return Instance{}, err
	}
	var in Instance
	var err error
	if in.ID, err = str(m, "instance_id", true); err != nil {
		return in, err
	}
	if in.Repo, err = str(m, "repo", true); err != nil {
		return in, err
	}
	if err := checkRepo(in.Repo, "repo"); err != nil {
		return in, err
	}
	if in.BaseCommit, err = str(m, "base_commit", true); err != nil {
		return in, err
	}
	if err := checkCommit(in.BaseCommit, "base_commit"); err != nil {
		return in, err
	}
	if in.Issue, err = str(m, "problem_statement", true); err != nil {
		return in, err
	}
	if in.Patch, err = str(m, "patch", true); err != nil {
		return in, err
	}
	if _, err = str(m, "hints_text", false); err != nil {
		return in, err
	}
	return in, nil
}

func parseMulti(m map[string]json.RawMessage) (Instance, error) {
	var in Instance
	org, err := str(m, "org", true)
	if err != nil {
		return in, err
	}
	name, err := str(m, "repo", true)
	if err != nil {
		return in, err
	}
	in.Repo = org + "/" + name
	if err := checkRepo(in.Repo, "org/repo"); err != nil {
		return in, err
	}
	rawNum, ok := m["number"]
	if !ok || string(rawNum) == "null" {
		return in, fmt.Errorf("field number: missing")
	}
	num := string(rawNum)
	if n, err := strconv.ParseInt(num, 10, 64); err != nil || n <= 0 || strconv.FormatInt(n, 10) != num {
		// A pull request's number: 1.5, "12", -3 or 1e999 would make an
		// instance id of no pull request.
		return in, fmt.Errorf("field number: want a pull request's number (a positive whole number), got %s", clipJSON(rawNum))
	}
	in.ID = fmt.Sprintf("%s__%s-%s", org, name, num)
	if id, err := str(m, "instance_id", false); err != nil {
		return in, err
	} else if id != "" {
		in.ID = id
	}
	var base struct {
		SHA string `json:"sha"`
	}
	if err := checkKeys(m["base"], "base", "sha"); err != nil {
		return in, err
	}
	if raw, ok := m["base"]; !ok || json.Unmarshal(raw, &base) != nil || base.SHA == "" {
		return in, fmt.Errorf("field base.sha: missing or not a string")
	}
	in.BaseCommit = base.SHA
	if err := checkCommit(in.BaseCommit, "base.sha"); err != nil {
		return in, err
	}
	var issues []struct {
		Title *string `json:"title"`
		Body  *string `json:"body"`
	}
	if raw, ok := m["resolved_issues"]; !ok || json.Unmarshal(raw, &issues) != nil || len(issues) == 0 {
		return in, fmt.Errorf("field resolved_issues: missing, empty or not a list of {title, body}")
	}
	var rawIssues []json.RawMessage
	json.Unmarshal(m["resolved_issues"], &rawIssues)
	for i, r := range rawIssues {
		if err := checkKeys(r, fmt.Sprintf("resolved_issues[%d]", i), "title", "body"); err != nil {
			return in, err
		}
	}
	var parts []string
	for i, is := range issues {
		if is.Title == nil {
			return in, fmt.Errorf("field resolved_issues[%d].title: missing", i)
		}
		body := ""
		if is.Body != nil {
			body = *is.Body
		}
		parts = append(parts, *is.Title+"\n"+body)
	}
	in.Issue = strings.Join(parts, "\n\n")
	if strings.TrimSpace(in.Issue) == "" {
		return in, fmt.Errorf("field resolved_issues: every title and body is empty")
	}
	if in.Patch, err = str(m, "fix_patch", true); err != nil {
		return in, err
	}
	return in, nil
}

// clipJSON is a JSON value for a message, cut at 40 bytes.
func clipJSON(raw []byte) string {
	if len(raw) > 40 {
		return string(raw[:40]) + "..."
	}
	return string(raw)
}

// The fields read from a SWE-bench instance and a Multi-SWE-bench row.
var (
	instanceKeys = []string{"instance_id", "repo", "base_commit", "problem_statement", "patch", "hints_text"}
	multiKeys    = []string{"org", "repo", "number", "instance_id", "base", "resolved_issues", "fix_patch"}
)

// checkKeys refuses what encoding/json and a map of keys take without a
// word, as state cards refuse it (mss.CheckKeys): a key given twice (the
// last is kept) and a key that is one of names only by folding case.
// field names the object raw holds ("" for the record itself).
func checkKeys(raw []byte, field string, names ...string) error {
	se := mss.CheckKeys(raw, names...)
	if se == nil {
		return nil
	}
	if field != "" {
		field += "."
	}
	return fmt.Errorf("field %s%s: %s", field, se.Field, se.Msg)
}

// str reads a string field; a required one must be present and non-empty.
func str(m map[string]json.RawMessage, field string, required bool) (string, error) {
	raw, ok := m[field]
	if !ok || string(raw) == "null" {
		if required {
			return "", fmt.Errorf("field %s: missing", field)
		}
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("field %s: not a string", field)
	}
	if required && strings.TrimSpace(s) == "" {
		return "", fmt.Errorf("field %s: empty", field)
	}
	return s, nil
}

func checkRepo(r, field string) error {
	if err := CheckRepoName(r); err != nil {
		return fmt.Errorf("field %s: %v", field, err)
	}
	return nil
}

// CheckRepoName refuses a repository name that is not owner/name: one
// slash between two non-empty parts, no backslash, no "..", no control
// character.
func CheckRepoName(r string) error {
	owner, name, ok := strings.Cut(r, "/")
	if !ok || owner == "" || name == "" || strings.ContainsAny(r, "\\") || strings.Contains(name, "/") || strings.Contains(r, "..") ||
		strings.IndexFunc(r, func(c rune) bool { return c < 0x20 || c == 0x7f }) >= 0 {
		return fmt.Errorf("%q is not owner/name", r)
	}
	return nil
}

// checkCommit refuses what is not a full commit id: an abbreviated one
// would be written into the states as it is, and name another commit
// once the repository has one more that starts the same.
func checkCommit(c, field string) error {
	if len(c) != 40 && len(c) != 64 {
		return fmt.Errorf("field %s: %q is not a full commit id (40 hex digits, or 64)", field, c)
	}
	for _, r := range c {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F') {
			return fmt.Errorf("field %s: %q is not a commit id", field, c)
		}
	}
	return nil
}
