package llm

// Request shapes.
//
// OpenAI-compatible endpoints disagree on a few request fields: OpenAI's
// reasoning models (o-series, GPT-5) refuse max_tokens and any temperature
// but the default, older servers know only max_tokens, some refuse seed or
// reasoning_effort, and many have no json_schema response format. A Shape
// is the set of those choices. A client starts from the shape its Config
// asks for (max_completion_tokens, temperature only when set) and, when an
// endpoint answers 400/422 naming a field, changes that one field and asks
// again:
//
//	max_completion_tokens -> max_tokens -> no cap
//	temperature, seed, reasoning_effort -> dropped
//	json_schema -> json_object -> no response_format
//
// An error that names no field but says a parameter or format is not
// supported moves the response format down, as before. Other 400s
// (context too long, bad model) are returned, never "learned". What an
// endpoint and model accepted is kept for the process (every client of
// that endpoint and model starts from it) and, with a cache directory, in
// <dir>/shapes/<hash>.json, so the next run sends the right shape first.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Token-limit fields.
const (
	FieldMaxCompletionTokens = "max_completion_tokens"
	FieldMaxTokens           = "max_tokens"
)

// Shape is how a request is written for one endpoint and model.
type Shape struct {
	// TokenField carries the completion cap: max_completion_tokens,
	// max_tokens, or "" for no cap.
	TokenField        string `json:"token_field"`
	NoTemperature     bool   `json:"no_temperature,omitempty"`
	NoSeed            bool   `json:"no_seed,omitempty"`
	NoReasoningEffort bool   `json:"no_reasoning_effort,omitempty"`
	Mode              Mode   `json:"response_format"` // strongest format to try
}

// String is the shape as one line: "max_completion_tokens, temperature
// omitted, json_schema".
func (s Shape) String() string {
	parts := []string{s.TokenField}
	if s.TokenField == "" {
		parts[0] = "no token cap"
	}
	if s.NoTemperature {
		parts = append(parts, "temperature dropped")
	}
	if s.NoSeed {
		parts = append(parts, "seed dropped")
	}
	if s.NoReasoningEffort {
		parts = append(parts, "reasoning_effort dropped")
	}
	return strings.Join(append(parts, string(s.Mode)), ", ")
}

// sent records which optional fields a request carried, so a refusal is
// only blamed on a field that was there.
type sent struct {
	tokens, temperature, seed, effort, format bool
}

// adjust returns the shape to try after the endpoint refused a request of
// shape s with message msg (the error's message, param and code); tried
// holds the token fields already refused. ok is false when the refusal is
// not about a field mss can change.
func adjust(s Shape, in sent, tried map[string]bool, msg string) (next Shape, ok bool) {
	m := strings.ToLower(msg)
	has := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(m, w) {
				return true
			}
		}
		return false
	}
	next = s
	switch {
	case in.tokens && s.TokenField != "" && has(s.TokenField):
		// The other field, unless it was tried already; then no cap.
		next.TokenField = otherTokenField(s.TokenField)
		if tried[next.TokenField] {
			next.TokenField = ""
		}
		return next, true
	case in.temperature && !s.NoTemperature && has("temperature"):
		next.NoTemperature = true
		return next, true
	case in.effort && !s.NoReasoningEffort && has("reasoning_effort", "reasoning effort"):
		next.NoReasoningEffort = true
		return next, true
	case in.seed && !s.NoSeed && has("'seed'", "\"seed\"", "seed "):
		next.NoSeed = true
		return next, true
	case in.format && has("response_format", "response format", "json_schema", "json_object", "structured output", "schema", "unsupported", "not supported", "unknown parameter", "unrecognized", "extra inputs", "extra_forbidden", "invalid parameter"):
		if nm, ok := s.Mode.next(); ok {
			next.Mode = nm
			return next, true
		}
	}
	return s, false
}

func otherTokenField(f string) string {
	if f == FieldMaxTokens {
		return FieldMaxCompletionTokens
	}
	return FieldMaxTokens
}

// changes names the refusals that take a request of shape from, carrying
// the fields in, to shape to ("max_tokens refused: sent
// max_completion_tokens"), one a field, in a fixed order: the token cap,
// temperature, reasoning_effort, seed, the response format. They are read
// from the two shapes, not from the order the endpoint refused them in,
// so a call that starts from what an earlier one learned tells the same.
func changes(from, to Shape, in sent) []string {
	var out []string
	if in.tokens && from.TokenField != to.TokenField {
		other := otherTokenField(from.TokenField)
		out = append(out, from.TokenField+" refused: sent "+other)
		if to.TokenField == "" {
			out = append(out, other+" refused: no token cap sent")
		}
	}
	if in.temperature && !from.NoTemperature && to.NoTemperature {
		out = append(out, "temperature refused: dropped")
	}
	if in.effort && !from.NoReasoningEffort && to.NoReasoningEffort {
		out = append(out, "reasoning_effort refused: dropped")
	}
	if in.seed && !from.NoSeed && to.NoSeed {
		out = append(out, "seed refused: dropped")
	}
	for m := from.Mode; in.format && m.rank() < to.Mode.rank(); {
		nm, ok := m.next()
		if !ok {
			break
		}
		out = append(out, "response_format "+string(m)+" refused: sent "+describeMode(nm))
		m = nm
	}
	return out
}

func describeMode(m Mode) string {
	if m == ModeText {
		return "no response_format"
	}
	return string(m)
}

// shapes is the process-wide memory of what each endpoint and model
// accepted.
var shapes sync.Map // shapeKey -> Shape

func shapeKey(baseURL, model string) string {
	return stripUserinfo(baseURL) + "\x00" + model
}

// shapeFile is the on-disk record of a learned shape:
//
//	{"format": 1, "base_url": "...", "model": "...", "shape": {...}}
//
// named <dir>/shapes/<sha256(base URL without userinfo, NUL, model)>.json.
type shapeFile struct {
	Format  int    `json:"format"`
	BaseURL string `json:"base_url"`
	Model   string `json:"model"`
	Shape   Shape  `json:"shape"`
}

func shapePath(dir, baseURL, model string) string {
	sum := sha256.Sum256([]byte(shapeKey(baseURL, model)))
	return filepath.Join(dir, "shapes", hex.EncodeToString(sum[:16])+".json")
}

// loadShape reads a learned shape from dir; a missing file is (zero, false).
func loadShape(dir, baseURL, model string) (Shape, bool, error) {
	p := shapePath(dir, baseURL, model)
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return Shape{}, false, nil
	}
	if err != nil {
		return Shape{}, false, fmt.Errorf("shapes: %w", err)
	}
	var f shapeFile
	if err := json.Unmarshal(b, &f); err != nil {
		return Shape{}, false, fmt.Errorf("shapes: %s: %w", p, err)
	}
	if f.Format != CacheFormat {
		return Shape{}, false, fmt.Errorf("shapes: %s: format %d, want %d", p, f.Format, CacheFormat)
	}
	switch f.Shape.TokenField {
	case "", FieldMaxTokens, FieldMaxCompletionTokens:
	default:
		return Shape{}, false, fmt.Errorf("shapes: %s: field shape.token_field: %q", p, f.Shape.TokenField)
	}
	if _, err := ParseMode(string(f.Shape.Mode)); err != nil {
		return Shape{}, false, fmt.Errorf("shapes: %s: field shape.response_format: %v", p, err)
	}
	return f.Shape, true, nil
}

// saveShape writes a learned shape atomically.
func saveShape(dir, baseURL, model string, s Shape) error {
	b, err := json.MarshalIndent(shapeFile{Format: CacheFormat, BaseURL: RedactURL(baseURL), Model: model, Shape: s}, "", "  ")
	if err != nil {
		return fmt.Errorf("shapes: %w", err)
	}
	return writeAtomic(shapePath(dir, baseURL, model), append(b, '\n'))
}
