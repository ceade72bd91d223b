package benchbuild

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// IssueText is an issue filed against a repository, with the number of the
// pull request that fixed it: the instance id <owner>__<name>-<number>
// names both.
type IssueText struct {
	InstanceID string
	Repo       string // owner/name
	Pull       int
	Text       string
	Where      string // file:line
}

// ReadIssueTexts reads filed issues and the pull requests that fixed them:
// a JSON object mapping instance ids to issue texts, or JSONL (or a JSON
// array) of {"instance_id", "problem_statement"}. An instance id is
// <owner>__<name>-<number>, the number that of the pull request. A record
// that cannot be read is returned in bad, naming the file, the line and
// the field; the others are read. A file without any issue is an error.
func ReadIssueTexts(path string) (issues []IssueText, bad []BadRecord, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	// add takes one issue; field names its text's field, for messages.
	add := func(where, id, field, text string) {
		it, e := parseIssueID(id)
		if e != nil {
			bad = append(bad, BadRecord{where, e.Error()})
			return
		}
		if strings.TrimSpace(text) == "" {
			bad = append(bad, BadRecord{where, "field " + field + ": empty"})
			return
		}
		it.Text, it.Where = text, where
		issues = append(issues, it)
	}
	if m, ok := issueMap(path, data); ok {
		for _, e := range m {
			if e.err != "" {
				bad = append(bad, BadRecord{e.where, e.err})
				continue
			}
			add(e.where, e.id, e.id, e.text)
		}
		if len(m) == 0 {
			return nil, nil, fmt.Errorf("no issues in %s", path)
		}
		return issues, bad, nil
	}
	err = eachIDRecord(path, func(where, id string, m map[string]json.RawMessage) error {
		text, e := str(m, "problem_statement", true)
		if e != nil {
			return e
		}
		add(where, id, "problem_statement", text)
		return nil
	}, func(r BadRecord) { bad = append(bad, r) })
	if err == nil && len(issues) == 0 && len(bad) == 0 {
		// An empty file is no list of issues: mining with it would
		// replace an earlier track with an empty one.
		return nil, nil, fmt.Errorf("no issues in %s", path)
	}
	return issues, bad, err
}

type issueEntry struct{ where, id, text, err string }

// issueMap reads data as one JSON object of instance id → issue text, each
// entry with the line of its key, in one pass; ok is false when the file
// is not one such object (a JSONL record has an "instance_id" key, a
// JSONL file more than one value).
func issueMap(path string, data []byte) (entries []issueEntry, ok bool) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // {
		return nil, false
	}
	lineAt := lineFinder(data)
	for dec.More() {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, _ := tok.(string)
		if key == "instance_id" {
			return nil, false
		}
		where := fmt.Sprintf("%s:%d", path, lineAt(off))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, false
		}
		if !utf8.Valid(data[off:dec.InputOffset()]) {
			// encoding/json would read each such byte as U+FFFD.
			entries = append(entries, issueEntry{where: where, err: fmt.Sprintf("field %s: not UTF-8 text", key)})
			continue
		}
		var text string
		if json.Unmarshal(raw, &text) != nil {
			entries = append(entries, issueEntry{where: where, err: fmt.Sprintf("field %s: not a string", key)})
			continue
		}
		entries = append(entries, issueEntry{where: where, id: key, text: text})
	}
	// The closing brace, and nothing after it.
	if _, err := dec.Token(); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return entries, true
}

var issueIDPattern = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9_.-]*?)__([A-Za-z0-9_.-]+)-([0-9]+)$`)

func parseIssueID(id string) (IssueText, error) {
	m := issueIDPattern.FindStringSubmatch(id)
	if m == nil || strings.Contains(id, "..") {
		return IssueText{}, fmt.Errorf("field instance_id: %q is not <owner>__<name>-<pull request number>", id)
	}
	n, err := strconv.Atoi(m[3])
	if err != nil || n <= 0 {
		return IssueText{}, fmt.Errorf("field instance_id: %q: the pull request number is not a positive number", id)
	}
	return IssueText{InstanceID: id, Repo: m[1] + "/" + m[2], Pull: n}, nil
}

var (
	squashPull = regexp.MustCompile(`\(#([0-9]+)\)\s*$`)
	// A merge commit of one pull request: GitHub's, bors's (one pull
	// request; a batch "Merge #1 #2" mixes several fixes and names none),
	// and homu's.
	mergePull = regexp.MustCompile(`^(?:Merge pull request #([0-9]+)\b|Merge #([0-9]+)\s*$|Auto merge of #([0-9]+)\b)`)
)

// pullOf is the pull request a commit's subject says it merged: a merge
// commit's "Merge pull request #N", "Merge #N" or "Auto merge of #N", or
// "(#N)" ending the subject (a squashed or rebased pull request); 0 when
// it says none.
func pullOf(subject string) int {
	var num string
	if m := mergePull.FindStringSubmatch(subject); m != nil {
		num = m[1] + m[2] + m[3]
	} else if m := squashPull.FindStringSubmatch(subject); m != nil {
		num = m[1]
	} else {
		return 0
	}
	n, err := strconv.Atoi(num)
	if err != nil {
		return 0
	}
	return n
}
