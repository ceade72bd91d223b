package trajectory

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/missingcomplement/mss"
)

// serbenchStep is one step of a SERBench trajectory_prefix (schema 0.2).
// Only the fields mss reads are named; the rest are ignored.
type serbenchStep struct {
	StepID        *int                 `json:"step_id"`
	ActionType    string               `json:"action_type"`
	ToolName      string               `json:"tool_name"`
	ActionInput   string               `json:"action_input"`
	ToolOutput    string               `json:"tool_output"`
	SearchResults []serbenchResult     `json:"search_results"`
	Metadata      serbenchStepMetadata `json:"metadata"`
}

type serbenchResult struct {
	Path      string `json:"path"`
	LineStart int    `json:"line_start"`
	LineEnd   int    `json:"line_end"`
	Symbol    string `json:"symbol"`
}

type serbenchStepMetadata struct {
	InformationNeed string `json:"information_need"`
	Hypothesis      string `json:"hypothesis"`
	Subgoal         string `json:"subgoal"`
	TargetPath      string `json:"target_path"`
}

// serbenchItem is a SERBench item: a state card plus its trajectory prefix.
type serbenchItem struct {
	mss.State
	TrajectoryPrefix []json.RawMessage `json:"trajectory_prefix"`
}

// fileHeader is how the SERBench reader tool opens its output:
// "FILE path:start-end".
var fileHeader = regexp.MustCompile(`\AFILE (.+):(\d+)-(\d+)`)

// serbenchNumbered is a numbered source line of SERBench read output: "  12: text".
var serbenchNumbered = regexp.MustCompile(`^ *(\d+): `)

func parseSERBench(name string, data []byte, opts Options) (*Trajectory, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%s: empty input", name)
	}
	if trimmed[0] == '[' {
		var raw []json.RawMessage
		if err := json.Unmarshal(trimmed, &raw); err != nil {
			return nil, fmt.Errorf("%s: steps array: %w", name, err)
		}
		t := &Trajectory{}
		if err := serbenchSteps(name, 0, raw, t); err != nil {
			return nil, err
		}
		return t, nil
	}
	// One item, or JSONL of items.
	var items []serbenchItem
	var lines []int
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	for {
		line := 1 + bytes.Count(trimmed[:dec.InputOffset()], []byte("\n"))
		var it serbenchItem
		if err := dec.Decode(&it); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("%s:%d: item: %w", name, line, err)
		}
		if it.TrajectoryPrefix == nil {
			return nil, fmt.Errorf("%s:%d: item has no field trajectory_prefix", name, line)
		}
		items = append(items, it)
		lines = append(lines, line)
	}
	pick := -1
	switch {
	case opts.StateID != "":
		for i, it := range items {
			if it.StateID == opts.StateID {
				pick = i
				break
			}
		}
		if pick < 0 {
			return nil, fmt.Errorf("%s: no item with state_id %q", name, opts.StateID)
		}
	case len(items) == 1:
		pick = 0
	default:
		ids := make([]string, len(items))
		for i, it := range items {
			ids[i] = it.StateID
		}
		return nil, fmt.Errorf("%s: %d items; choose one by state id (%s)", name, len(items), strings.Join(ids, ", "))
	}
	it := items[pick]
	card := it.State
	card.TrajectoryPrefix = nil
	t := &Trajectory{
		StateID:    it.StateID,
		ItemID:     it.ItemID,
		InstanceID: it.InstanceID,
		Repo:       it.Repo,
		BaseCommit: it.BaseCommit,
		Issue:      it.Issue,
		Card:       &card,
	}
	if err := serbenchSteps(name, lines[pick], it.TrajectoryPrefix, t); err != nil {
		return nil, err
	}
	return t, nil
}

func serbenchSteps(name string, line int, raw []json.RawMessage, t *Trajectory) error {
	where := func(i int) string {
		if line > 0 {
			return fmt.Sprintf("%s:%d: trajectory_prefix[%d]", name, line, i)
		}
		return fmt.Sprintf("%s: step %d", name, i)
	}
	for i, r := range raw {
		if string(bytes.TrimSpace(r)) == "null" {
			// encoding/json would read it as a step of nothing.
			return fmt.Errorf("%s: null; want a step object", where(i))
		}
		var s serbenchStep
		if err := json.Unmarshal(r, &s); err != nil {
			return fmt.Errorf("%s: %w", where(i), err)
		}
		st := Step{
			Tool:            s.ToolName,
			Output:          s.ToolOutput,
			InformationNeed: s.Metadata.InformationNeed,
			Hypothesis:      s.Metadata.Hypothesis,
			Subgoal:         s.Metadata.Subgoal,
		}
		switch s.ActionType {
		case "plan_update":
			st.Kind = Plan
			if i == 0 && t.Issue == "" {
				t.Issue = s.ActionInput
			}
		case "repo_search":
			st.Kind = Search
			st.Query = s.ActionInput
			for j, res := range s.SearchResults {
				p := cleanPath(res.Path, "")
				if p == "" {
					return fmt.Errorf("%s: search_results[%d].path %q is not a repository path", where(i), j, res.Path)
				}
				if err := mss.CheckLines(res.LineStart, res.LineEnd); err != nil {
					return fmt.Errorf("%s: search_results[%d]: %w", where(i), j, err)
				}
				st.Seen = append(st.Seen, mss.Span{Path: p, StartLine: res.LineStart, EndLine: res.LineEnd})
			}
		case "read_file":
			st.Kind = Read
			st.Path = cleanPath(s.ActionInput, "")
			if m := fileHeader.FindStringSubmatch(s.ToolOutput); m != nil {
				a, _ := strconv.Atoi(m[2])
				b, _ := strconv.Atoi(m[3])
				p := cleanPath(m[1], "")
				if p == "" {
					return fmt.Errorf("%s: tool_output header %q: %q is not a repository path", where(i), m[0], m[1])
				}
				if err := mss.CheckLines(a, b); err != nil {
					return fmt.Errorf("%s: tool_output header %q: %w", where(i), m[0], err)
				}
				st.Path = p
				st.Seen = []mss.Span{{Path: p, StartLine: a, EndLine: b}}
			} else if st.Path != "" {
				st.Seen = numberedRuns(st.Path, s.ToolOutput, serbenchNumbered)
			}
		case "edit_file":
			st.Kind = Edit
			st.Path = cleanPath(s.Metadata.TargetPath, "")
		default:
			st.Kind = Other
		}
		t.Steps = append(t.Steps, st)
	}
	return nil
}

// numberedRuns returns one span per run of consecutive line numbers that
// re (whose first group is the number) finds at the start of output lines.
func numberedRuns(p, output string, re *regexp.Regexp) []mss.Span {
	var spans []mss.Span
	prev := -1
	for l := range strings.SplitSeq(output, "\n") {
		m := re.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err != nil || n < 1 || n > mss.MaxLine {
			continue
		}
		if k := len(spans); k > 0 && n == prev+1 {
			spans[k-1].EndLine = n
		} else {
			spans = append(spans, mss.Span{Path: p, StartLine: n, EndLine: n})
		}
		prev = n
	}
	return spans
}
