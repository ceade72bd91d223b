package trajectory

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/internal/jsonkey"
)

// JSONLStep is one line of the generic trajectory format: one tool call per
// line, oldest first. Unknown fields are an error, so a misspelt field is
// caught rather than ignored.
//
//	{"tool": "read_file", "path": "pkg/a.go", "start_line": 10, "end_line": 40}
//	{"tool": "search", "query": "parseHeader", "results": [{"path": "pkg/h.go", "start_line": 3, "end_line": 20}]}
//	{"tool": "edit", "path": "pkg/a.go"}
//	{"tool": "plan", "information_need": "...", "hypothesis": "...", "subgoal": "..."}
//
// tool is one of read_file (also read, view, open), search (also grep,
// find), edit (also write, str_replace), plan; anything else is kept as an
// "other" step. A read_file with no line range means the whole file was
// shown (start_line 1 through end_line, or all lines when end_line is 0
// too: the span is then 1..WholeFile and aligns to every unit of the
// file); a line past WholeFile, the last a span may name, is refused.
// results are search hits whose source was shown to the agent. Any line may
// carry issue, information_need, hypothesis and subgoal; the last non-empty
// value of each within the prefix goes into the state card.
type JSONLStep struct {
	Tool            string     `json:"tool"`
	Path            string     `json:"path,omitempty"`
	StartLine       int        `json:"start_line,omitempty"`
	EndLine         int        `json:"end_line,omitempty"`
	Query           string     `json:"query,omitempty"`
	Output          string     `json:"output,omitempty"`
	Results         []mss.Span `json:"results,omitempty"`
	Issue           string     `json:"issue,omitempty"`
	InformationNeed string     `json:"information_need,omitempty"`
	Hypothesis      string     `json:"hypothesis,omitempty"`
	Subgoal         string     `json:"subgoal,omitempty"`
}

// stepKeys are the keys of a JSONL step.
var stepKeys = jsonkey.Names(JSONLStep{})

// WholeFile is the end line recorded for a read of a whole file of unknown
// length: the last line a span may name.
const WholeFile = mss.MaxLine

func parseJSONL(name string, data []byte) (*Trajectory, error) {
	t := &Trajectory{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), maxInput)
	line := 0
	for sc.Scan() {
		line++
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		var js JSONLStep
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&js); err != nil {
			var typ *json.UnmarshalTypeError
			if errors.As(err, &typ) {
				se := mss.TypeError(raw, typ)
				if se.Field == "" {
					return nil, fmt.Errorf("%s:%d: %s", name, line, se.Msg)
				}
				return nil, fmt.Errorf("%s:%d: field %s: %s", name, line, se.Field, se.Msg)
			}
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if dec.More() {
			return nil, fmt.Errorf("%s:%d: more than one JSON value on the line", name, line)
		}
		// What state cards refuse and encoding/json takes without a word:
		// a key given twice, a key matching a field only by folding case.
		if se := mss.CheckKeys(raw, stepKeys...); se != nil {
			return nil, fmt.Errorf("%s:%d: field %s: %s", name, line, se.Field, se.Msg)
		}
		st, err := jsonlStep(js)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if js.Issue != "" {
			t.Issue = js.Issue
		}
		t.Steps = append(t.Steps, st)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	if len(t.Steps) == 0 {
		return nil, fmt.Errorf("%s: empty input: no step (one JSON object a line)", name)
	}
	return t, nil
}

func jsonlStep(js JSONLStep) (Step, error) {
	st := Step{
		Tool:            js.Tool,
		Query:           js.Query,
		Output:          js.Output,
		InformationNeed: js.InformationNeed,
		Hypothesis:      js.Hypothesis,
		Subgoal:         js.Subgoal,
	}
	if js.Tool == "" {
		return st, fmt.Errorf("field tool: missing")
	}
	if js.Path != "" {
		st.Path = cleanPath(js.Path, "")
		if st.Path == "" {
			return st, fmt.Errorf("field path: %q is not a repository path", js.Path)
		}
	}
	for _, f := range []struct {
		name string
		line int
	}{{"start_line", js.StartLine}, {"end_line", js.EndLine}} {
		if f.line < 0 {
			return st, fmt.Errorf("field %s: %d; want a line of 1 or more (0 or none: the whole file)", f.name, f.line)
		}
		if f.line > mss.MaxLine {
			return st, fmt.Errorf("field %s: %d; want a line of at most %d, the last a span may name", f.name, f.line, mss.MaxLine)
		}
	}
	if js.EndLine != 0 && js.StartLine > js.EndLine {
		return st, fmt.Errorf("field end_line: %d is before start_line %d", js.EndLine, js.StartLine)
	}
	switch js.Tool {
	case "read_file", "read", "view", "open":
		st.Kind = Read
		if st.Path == "" {
			return st, fmt.Errorf("field path: missing for tool %q", js.Tool)
		}
		a, b := js.StartLine, js.EndLine
		if a == 0 {
			a = 1
		}
		if b == 0 {
			b = WholeFile
		}
		st.Seen = []mss.Span{{Path: st.Path, StartLine: a, EndLine: b}}
	case "search", "grep", "find":
		st.Kind = Search
	case "edit", "write", "str_replace":
		st.Kind = Edit
	case "plan":
		st.Kind = Plan
	default:
		st.Kind = Other
	}
	for i, r := range js.Results {
		p := cleanPath(r.Path, "")
		if p == "" {
			return st, fmt.Errorf("field results[%d].path: %q is not a repository path", i, r.Path)
		}
		if err := mss.CheckLines(r.StartLine, r.EndLine); err != nil {
			return st, fmt.Errorf("field results[%d]: %w", i, err)
		}
		st.Seen = append(st.Seen, mss.Span{Path: p, StartLine: r.StartLine, EndLine: r.EndLine, Symbol: r.Symbol})
	}
	return st, nil
}
