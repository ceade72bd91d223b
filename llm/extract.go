package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
)

// ErrNoJSON is returned by ExtractJSON when text holds no JSON object.
var ErrNoJSON = errors.New("no JSON object in reply")

// ExtractJSON finds the JSON object a model meant to return. It accepts, in
// order: the whole text; the body of a ``` or ```json fence; the first
// balanced object embedded in prose (models that ignore the response format
// often wrap the object in an explanation or a <think> block). The object is
// returned as found, not repaired: invalid JSON is not guessed at.
func ExtractJSON(text string) (json.RawMessage, error) {
	t := strings.TrimSpace(text)
	if obj, ok := object(t); ok {
		return obj, nil
	}
	// Fenced blocks.
	rest := t
	for {
		i := strings.Index(rest, "```")
		if i < 0 {
			break
		}
		rest = rest[i+3:]
		nl := strings.IndexByte(rest, '\n')
		if nl < 0 {
			break
		}
		body := rest[nl+1:]
		end := strings.Index(body, "```")
		if end < 0 {
			break
		}
		if obj, ok := object(strings.TrimSpace(body[:end])); ok {
			return obj, nil
		}
		rest = body[end+3:]
	}
	// Embedded: the first '{' from which a whole object decodes. Only the
	// first maxStarts openings are tried, which bounds the work on long
	// prose full of braces.
	const maxStarts = 64
	for i, starts := 0, 0; i < len(t) && starts < maxStarts; i++ {
		if t[i] != '{' {
			continue
		}
		starts++
		dec := json.NewDecoder(strings.NewReader(t[i:]))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == nil && len(raw) > 0 && raw[0] == '{' {
			return raw, nil
		}
	}
	return nil, ErrNoJSON
}

// object reports whether s is exactly one JSON object.
func object(s string) (json.RawMessage, bool) {
	if !strings.HasPrefix(s, "{") || !json.Valid([]byte(s)) {
		return nil, false
	}
	return json.RawMessage(bytes.Clone([]byte(s))), true
}
