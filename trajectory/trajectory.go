package trajectory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/internal/jsonkey"
)

// Format names a trajectory format.
type Format string

// Supported formats.
const (
	SERBench Format = "serbench"
	SWEAgent Format = "swe-agent"
	JSONL    Format = "jsonl"
)

// Formats lists the supported format names.
func Formats() []string { return []string{string(SERBench), string(SWEAgent), string(JSONL)} }

// Kind classifies a step by what it showed the agent.
type Kind string

// Step kinds.
const (
	Read   Kind = "read"   // source lines were shown
	Search Kind = "search" // a query was run; results may carry source
	Edit   Kind = "edit"   // the agent changed a file
	Plan   Kind = "plan"   // planning, no repository contact
	Other  Kind = "other"  // anything else (shell commands, tests, submit)
)

// Step is one normalized action of a trajectory.
type Step struct {
	Kind  Kind   `json:"kind"`
	Tool  string `json:"tool,omitempty"`
	Path  string `json:"path,omitempty"`  // file read or edited, repository-relative when known
	Query string `json:"query,omitempty"` // search query
	// Seen are the source lines the step showed the agent.
	Seen   []mss.Span `json:"seen,omitempty"`
	Output string     `json:"-"` // what the tool printed

	InformationNeed string `json:"information_need,omitempty"`
	Hypothesis      string `json:"hypothesis,omitempty"`
	Subgoal         string `json:"subgoal,omitempty"`
}

// Trajectory is a parsed trajectory and what its file says about the task.
type Trajectory struct {
	Format     Format
	StateID    string
	ItemID     string
	InstanceID string
	Repo       string
	BaseCommit string
	Issue      string
	Steps      []Step
	// Card is the state card recorded with the trajectory (SERBench items
	// carry one describing the state after the whole prefix), or nil.
	Card *mss.State
}

// Options select what Parse reads.
type Options struct {
	// StateID picks one item of a SERBench JSONL file holding several.
	StateID string
}

// maxInput bounds what Parse reads, so a hostile file cannot exhaust memory.
const maxInput = 256 << 20

// Parse reads a trajectory in format f. name is used in error messages.
func Parse(f Format, name string, r io.Reader, opts Options) (*Trajectory, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > maxInput {
		return nil, fmt.Errorf("%s: larger than %d bytes", name, maxInput)
	}
	if err := checkUTF8(name, data); err != nil {
		return nil, err
	}
	if f == SERBench || f == SWEAgent { // a JSONL step checks its own keys
		if err := checkRepeated(name, data); err != nil {
			return nil, err
		}
	}
	var t *Trajectory
	switch f {
	case SERBench:
		t, err = parseSERBench(name, data, opts)
	case SWEAgent:
		t, err = parseSWEAgent(name, data)
	case JSONL:
		t, err = parseJSONL(name, data)
	default:
		return nil, fmt.Errorf("unknown trajectory format %q (known: %s)", f, strings.Join(Formats(), ", "))
	}
	if err != nil {
		return nil, err
	}
	t.Format = f
	if t.StateID == "" {
		// Name the state after the task, or else the file.
		t.StateID = t.InstanceID
		if t.StateID == "" {
			base := strings.TrimSuffix(path.Base(strings.ReplaceAll(name, `\`, "/")), ".gz")
			t.StateID = strings.TrimSuffix(base, path.Ext(base))
		}
	}
	return t, nil
}

// checkUTF8 refuses a trajectory that is not UTF-8 text, or holds an
// escape of half a surrogate pair, naming the line and field: JSON reads
// either as U+FFFD, a silent change of what the agent was shown (a
// Latin-1 file it printed, copied raw into the log), as state cards
// refuse it.
func checkUTF8(name string, data []byte) error {
	se := mss.CheckUTF8(data)
	if se == nil {
		return nil
	}
	if se.Field == "" {
		// A file of one JSON value a line: the field within the line.
		lines := bytes.SplitAfter(data, []byte("\n"))
		if se.Line >= 1 && se.Line <= len(lines) {
			if in := mss.CheckUTF8(bytes.TrimSpace(lines[se.Line-1])); in != nil {
				se.Field = in.Field
			}
		}
	}
	if se.Field == "" {
		return fmt.Errorf("%s:%d: %s", name, se.Line, se.Msg)
	}
	return fmt.Errorf("%s:%d: field %s: %s", name, se.Line, se.Field, se.Msg)
}

// checkRepeated refuses a trajectory that gives a key twice in one
// object, naming the line and the field: JSON would read its last value
// without a word, as state cards refuse it. data is JSON values one
// after another (one, or a SERBench item a line); what follows text that
// is no JSON is left to the format's reader.
func checkRepeated(name string, data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			return nil
		}
		if field, off, dup := jsonkey.Repeated(raw); dup {
			at := dec.InputOffset() - int64(len(raw)) + off
			line := 1 + bytes.Count(data[:at], []byte("\n"))
			return fmt.Errorf("%s:%d: field %s: given twice; each field is named once", name, line, field)
		}
	}
}

// cleanPath normalizes a path from a trajectory: backslashes become
// slashes, "./" and duplicate separators go, and an absolute path under
// workdir becomes relative to it. It returns "" for paths that are not
// usable as repository paths (empty, or climbing out with "..").
func cleanPath(p, workdir string) string {
	p = strings.TrimSpace(p)
	p = strings.Trim(p, `"'`)
	if p == "" {
		return ""
	}
	p = strings.ReplaceAll(p, `\`, "/")
	p = path.Clean(p)
	if workdir != "" {
		w := path.Clean(strings.ReplaceAll(workdir, `\`, "/"))
		if w != "/" && strings.HasPrefix(p, w+"/") {
			p = strings.TrimPrefix(p, w+"/")
		}
	}
	if p == "." || p == ".." || strings.HasPrefix(p, "../") {
		return ""
	}
	return p
}

// sortSpans orders spans by path, then lines, and merges duplicates.
func sortSpans(spans []mss.Span) []mss.Span {
	sort.Slice(spans, func(i, j int) bool {
		a, b := spans[i], spans[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.StartLine != b.StartLine {
			return a.StartLine < b.StartLine
		}
		if a.EndLine != b.EndLine {
			return a.EndLine < b.EndLine
		}
		return a.Symbol < b.Symbol
	})
	out := spans[:0]
	for i, s := range spans {
		if i > 0 && s == out[len(out)-1] {
			continue
		}
		out = append(out, s)
	}
	return out
}
