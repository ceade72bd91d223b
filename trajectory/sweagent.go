package trajectory

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/missingcomplement/mss"
)

// sweTraj is a SWE-agent .traj file. Both the 0.x layout (state as a JSON
// string) and the 1.x layout (state as an object) are read.
type sweTraj struct {
	Trajectory  []*sweStep      `json:"trajectory"` // a null step is nil, and refused
	History     []sweMessage    `json:"history"`
	Info        map[string]any  `json:"info"`
	Environment json.RawMessage `json:"environment"`
}

type sweStep struct {
	Action      string          `json:"action"`
	Observation string          `json:"observation"`
	Thought     string          `json:"thought"`
	State       json.RawMessage `json:"state"`
}

type sweMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type sweState struct {
	OpenFile   string `json:"open_file"`
	WorkingDir string `json:"working_dir"`
}

var (
	// "12:text", the windowed file viewer of SWE-agent 0.x.
	sweWindowLine = regexp.MustCompile(`^(\d+):`)
	// "    12\ttext", cat -n as printed by str_replace_editor view.
	sweCatN = regexp.MustCompile(`^ *(\d+)\t`)
	// "[File: /repo/x.py (300 lines total)]"
	sweFileBanner = regexp.MustCompile(`\[File: (.+?) \(\d+ lines total\)\]`)
	// sed -n '10,40p' file
	sweSedRange = regexp.MustCompile(`^(\d+),(\d+)p$`)
)

func parseSWEAgent(name string, data []byte) (*Trajectory, error) {
	var tr sweTraj
	if err := json.Unmarshal(data, &tr); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if tr.Trajectory == nil {
		return nil, fmt.Errorf("%s: no field trajectory", name)
	}
	t := &Trajectory{Issue: sweIssue(tr.History)}
	if id, ok := tr.Info["instance_id"].(string); ok {
		t.InstanceID = id
	}
	var open, workdir string
	for i, s := range tr.Trajectory {
		if s == nil {
			return nil, fmt.Errorf("%s: trajectory[%d]: null; want a step object", name, i)
		}
		var st sweState
		if len(s.State) > 0 && string(s.State) != "null" {
			if err := decodeSWEState(s.State, &st); err != nil {
				return nil, fmt.Errorf("%s: trajectory[%d].state: %w", name, i, err)
			}
			if st.WorkingDir != "" {
				workdir = st.WorkingDir
			}
		}
		step := sweAction(s.Action, s.Observation, workdir, open)
		step.Hypothesis = strings.TrimSpace(s.Thought)
		if step.Kind == Read && step.Path != "" {
			open = step.Path
		}
		// The state after the step names the file the viewer has open.
		if st.OpenFile != "" && st.OpenFile != "n/a" {
			if p := cleanPath(st.OpenFile, workdir); p != "" {
				open = p
			}
		}
		t.Steps = append(t.Steps, step)
	}
	return t, nil
}

func decodeSWEState(raw json.RawMessage, st *sweState) error {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if strings.TrimSpace(s) == "" {
			return nil
		}
		raw = json.RawMessage(s)
	}
	return json.Unmarshal(raw, st)
}

// sweIssue finds the issue text in the first user message: SWE-agent 1.x
// wraps it in <pr_description>, 0.x follows "ISSUE:" up to "INSTRUCTIONS:".
func sweIssue(history []sweMessage) string {
	for _, m := range history {
		if m.Role != "user" {
			continue
		}
		text := messageText(m.Content)
		if a := strings.Index(text, "<pr_description>"); a >= 0 {
			rest := text[a+len("<pr_description>"):]
			if b := strings.Index(rest, "</pr_description>"); b >= 0 {
				return strings.TrimSpace(rest[:b])
			}
		}
		if a := strings.Index(text, "ISSUE:\n"); a >= 0 {
			rest := text[a+len("ISSUE:\n"):]
			if b := strings.Index(rest, "\nINSTRUCTIONS:"); b >= 0 {
				rest = rest[:b]
			}
			return strings.TrimSpace(rest)
		}
		return strings.TrimSpace(text)
	}
	return ""
}

// messageText reads a chat message content: a string or a list of parts.
func messageText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return ""
}

// sweAction classifies one SWE-agent action and finds the lines it showed.
// open is the file the viewer had open before the action.
func sweAction(action, obs, workdir, open string) Step {
	line, _, _ := strings.Cut(strings.TrimSpace(action), "\n")
	args := shellFields(line)
	st := Step{Kind: Other, Output: obs}
	if len(args) == 0 {
		return st
	}
	st.Tool = args[0]
	switch args[0] {
	case "open":
		st.Kind = Read
		if len(args) > 1 {
			st.Path = cleanPath(args[1], workdir)
		}
		if m := sweFileBanner.FindStringSubmatch(obs); m != nil {
			if p := cleanPath(m[1], workdir); p != "" {
				st.Path = p
			}
		}
		st.Seen = numberedRuns(st.Path, obs, sweWindowLine)
	case "goto", "scroll_down", "scroll_up":
		st.Kind = Read
		st.Path = open
		if m := sweFileBanner.FindStringSubmatch(obs); m != nil {
			if p := cleanPath(m[1], workdir); p != "" {
				st.Path = p
			}
		}
		st.Seen = numberedRuns(st.Path, obs, sweWindowLine)
	case "search_file", "search_dir", "find_file", "grep", "rg", "find", "git":
		st.Kind = Search
		if len(args) > 1 {
			st.Query = searchQuery(args)
		}
	case "create", "edit", "insert", "append":
		st.Kind = Edit
		st.Path = open
		if args[0] == "create" && len(args) > 1 {
			st.Path = cleanPath(args[1], workdir)
		}
	case "str_replace_editor", "str_replace_based_edit_tool":
		if len(args) < 3 {
			return st
		}
		p := cleanPath(args[2], workdir)
		switch args[1] {
		case "view":
			st.Kind = Read
			st.Path = p
			st.Seen = numberedRuns(p, obs, sweCatN)
			if len(st.Seen) == 0 {
				if a, b, ok := viewRange(args[3:]); ok && !strings.Contains(obs, "directory") {
					st.Seen = []mss.Span{{Path: p, StartLine: a, EndLine: b}}
				}
			}
		default:
			st.Kind = Edit
			st.Path = p
		}
	case "cat", "nl":
		st.Kind = Read
		var files []string
		for _, a := range args[1:] {
			if !strings.HasPrefix(a, "-") {
				files = append(files, a)
			}
		}
		if len(files) != 1 {
			return st // several files concatenated cannot be told apart
		}
		st.Path = cleanPath(files[0], workdir)
		if st.Path == "" {
			return st
		}
		if seen := numberedRuns(st.Path, obs, sweCatN); len(seen) > 0 {
			st.Seen = seen
		} else if n := countLines(obs); n > 0 && args[0] == "cat" {
			st.Seen = []mss.Span{{Path: st.Path, StartLine: 1, EndLine: n}}
		}
	case "sed":
		// sed -n 'A,Bp' file
		if len(args) == 4 && args[1] == "-n" {
			if m := sweSedRange.FindStringSubmatch(args[2]); m != nil {
				a, _ := strconv.Atoi(m[1])
				b, _ := strconv.Atoi(m[2])
				if p := cleanPath(args[3], workdir); p != "" && a >= 1 && b >= a {
					st.Kind = Read
					st.Path = p
					if n := countLines(obs); n > 0 && a+n-1 < b {
						b = a + n - 1
					}
					st.Seen = []mss.Span{{Path: p, StartLine: a, EndLine: b}}
				}
			}
		}
	}
	if st.Path == "" {
		st.Seen = nil
	}
	return st
}

func searchQuery(args []string) string {
	var q []string
	for _, a := range args[1:] {
		if strings.HasPrefix(a, "-") {
			continue
		}
		q = append(q, a)
		break
	}
	return strings.Join(q, " ")
}

func viewRange(args []string) (int, int, bool) {
	for i := 0; i+2 < len(args); i++ {
		if args[i] != "--view_range" {
			continue
		}
		x, err1 := strconv.Atoi(strings.Trim(args[i+1], "[],"))
		y, err2 := strconv.Atoi(strings.Trim(args[i+2], "[],"))
		if err1 != nil || err2 != nil || x < 1 || y < x {
			return 0, 0, false
		}
		return x, y, true
	}
	return 0, 0, false
}

func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// shellFields splits a command line into words, honoring single and double
// quotes. It does not expand anything: the command is never run.
func shellFields(s string) []string {
	var (
		out   []string
		cur   strings.Builder
		quote rune
		in    bool
	)
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}
