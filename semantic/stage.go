package semantic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/llm"
)

// idList is the JSON Schema of a list of objects whose "id" is one of ids
// and whose other fields are strings ("score" an integer). It keeps to the
// subset every strict structured-output implementation accepts: every
// property required, no others, and no numeric or length constraints.
// Sizes and score ranges are stated in the instructions and enforced here
// (truncation, clamping, backfill), not in the schema.
func idList(ids []string, fields []string) map[string]any {
	enum := make([]any, len(ids))
	for i, id := range ids {
		enum[i] = id
	}
	props := map[string]any{"id": map[string]any{"type": "string", "enum": enum}}
	req := []any{"id"}
	for _, f := range fields {
		if f == "score" {
			props[f] = map[string]any{"type": "integer"}
		} else {
			props[f] = map[string]any{"type": "string"}
		}
		req = append(req, f)
	}
	return map[string]any{
		"type":  "array",
		"items": map[string]any{"type": "object", "additionalProperties": false, "required": req, "properties": props},
	}
}

func object(props map[string]any) map[string]any {
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	req := make([]any, len(names))
	for i, n := range names {
		req[i] = n
	}
	return map[string]any{"type": "object", "additionalProperties": false, "required": req, "properties": props}
}

// pick is one id a model returned with its note or score.
type pick struct {
	ID     string  `json:"id"`
	Note   string  `json:"-"`
	Score  float64 `json:"score"`
	Covers string  `json:"covers"`
	Reason string  `json:"reason"`
	Supp   string  `json:"supports"`
}

func (p *pick) note() string {
	for _, s := range []string{p.Covers, p.Supp, p.Reason} {
		if s != "" {
			return s
		}
	}
	return ""
}

// reply is the union of the stage reply shapes.
type reply struct {
	Selected  []pick   `json:"selected"`
	Missing   []string `json:"missing"`
	Additions []pick   `json:"additions"`
	Units     []pick   `json:"units"`
	Scores    []pick   `json:"scores"`
}

// stageCall is one stage's request.
type stageCall struct {
	stage        string // name in traces and usage (propose, expand, finalize, ssr, score-1, ...)
	client       *llm.Client
	system, user string
	schema       *llm.Schema
	list         string   // the reply field holding the ids
	offered      []string // ids the model may return
	allowEmpty   bool     // an empty list is a valid answer
	parseRetries int
}

// errStage marks a stage failure that the fallback policy handles.
type errStage struct {
	stage string
	err   error
}

func (e *errStage) Error() string { return fmt.Sprintf("stage %s: %v", e.stage, e.err) }
func (e *errStage) Unwrap() error { return e.err }

// run makes the call (repairing an unparseable reply up to parseRetries
// times by showing the model its reply and the problem), validates the
// ids, and records usage and trace. It returns the valid picks in reply
// order, without duplicates.
func (sc *stageCall) run(ctx context.Context, ac *accounting) ([]pick, *reply, error) {
	msgs := []llm.Message{{Role: "system", Content: sc.system}, {Role: "user", Content: sc.user}}
	offered := make(map[string]bool, len(sc.offered))
	for _, id := range sc.offered {
		offered[id] = true
	}
	for attempt := 0; ; attempt++ {
		resp, err := sc.client.Complete(ctx, &llm.Request{Messages: msgs, Schema: sc.schema})
		if err != nil {
			ac.usage.FailedCalls++
			return nil, nil, &errStage{sc.stage, err}
		}
		ac.add(sc.stage, sc.client.Model(), resp)
		for _, note := range resp.Adjustments {
			ac.trace(sc.stage, "", "endpoint "+note)
		}
		ac.trace(sc.stage+".raw", "", resp.Content)
		picks, rep, perr := parseReply(resp.Content, sc.list)
		if perr == nil {
			var valid []pick
			seen := map[string]bool{}
			for _, p := range picks {
				switch {
				case !offered[p.ID]:
					ac.usage.RejectedIDs++
					ac.trace(sc.stage, p.ID, "rejected: id was not among the offered candidates")
				case seen[p.ID]:
					ac.trace(sc.stage, p.ID, "dropped: repeated in the reply")
				default:
					seen[p.ID] = true
					valid = append(valid, p)
				}
			}
			if len(valid) > 0 || (sc.allowEmpty && len(picks) == 0) {
				return valid, rep, nil
			}
			perr = fmt.Errorf("no offered id in field %q", sc.list)
		}
		if attempt >= sc.parseRetries {
			return nil, nil, &errStage{sc.stage, fmt.Errorf("unusable reply: %w", perr)}
		}
		ac.trace(sc.stage, "", "unusable reply ("+perr.Error()+"); asking again")
		msgs = append(msgs,
			llm.Message{Role: "assistant", Content: resp.Content},
			llm.Message{Role: "user", Content: fmt.Sprintf("That reply could not be used: %v. Reply again with only the JSON object, using ids from the candidate list.", perr)})
	}
}

// parseReply extracts the JSON object and the list named field.
func parseReply(content, field string) ([]pick, *reply, error) {
	raw, err := llm.ExtractJSON(content)
	if err != nil {
		return nil, nil, err
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, nil, err
	}
	if _, ok := probe[field]; !ok {
		return nil, nil, fmt.Errorf("reply has no field %q", field)
	}
	var rep reply
	if err := json.Unmarshal(raw, &rep); err != nil {
		return nil, nil, fmt.Errorf("field %q: %w", field, err)
	}
	var ps []pick
	switch field {
	case "selected":
		ps = rep.Selected
	case "additions":
		ps = rep.Additions
	case "units":
		ps = rep.Units
	case "scores":
		ps = rep.Scores
	default:
		return nil, nil, errors.New("unknown reply field " + field)
	}
	for i := range ps {
		ps[i].ID = strings.TrimSpace(ps[i].ID)
		ps[i].Note = ps[i].note()
	}
	return ps, &rep, nil
}

// accounting gathers one answer's usage and trace.
type accounting struct {
	usage mss.Usage
	steps []mss.TraceStep
	index map[string]int // stage -> index in usage.StageUsage
}

func newAccounting() *accounting {
	return &accounting{usage: mss.Usage{Stages: map[string]int{}}, index: map[string]int{}}
}

func (a *accounting) add(stage, model string, r *llm.Response) {
	i, ok := a.index[stage]
	if !ok {
		i = len(a.usage.StageUsage)
		a.index[stage] = i
		a.usage.StageUsage = append(a.usage.StageUsage, mss.StageUsage{Stage: stage, Model: model})
	}
	su := &a.usage.StageUsage[i]
	su.Calls++
	su.PromptTokens += r.PromptTokens
	su.CompletionTokens += r.CompletionTokens
	su.ReasoningTokens += r.ReasoningTokens
	su.LatencyMS += r.LatencyMS
	a.usage.Calls++
	a.usage.PromptTokens += r.PromptTokens
	a.usage.CompletionTokens += r.CompletionTokens
	a.usage.ReasoningTokens += r.ReasoningTokens
	a.usage.LatencyMS += r.LatencyMS
	a.usage.Stages[stage] += r.PromptTokens + r.CompletionTokens
	if !r.UsageReported {
		a.trace(stage, "", "endpoint reported no usage; tokens estimated as ceil(bytes/4)")
	}
}

func (a *accounting) trace(stage, id, reason string) {
	a.steps = append(a.steps, mss.TraceStep{Stage: stage, UnitID: id, Reason: reason})
}
