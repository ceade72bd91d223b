package llm

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
)

// Validate checks a decoded JSON value against the JSON Schema subset
// strict structured output accepts and mss sends: type (object, array,
// string, integer, number, boolean, null), enum, properties, required,
// additionalProperties false, items. It returns the first violation, named
// by its path (e.g. `units[2].id: "x" is not one of the 5 offered values`).
func Validate(schema map[string]any, v any) error {
	return validate(schema, v, "")
}

// ValidateJSON decodes raw and validates it.
func ValidateJSON(schema map[string]any, raw []byte) error {
	var v any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return err
	}
	return Validate(schema, v)
}

func validate(s map[string]any, v any, path string) error {
	name := path
	if name == "" {
		name = "reply"
	}
	if t, ok := s["type"].(string); ok {
		if !isType(t, v) {
			return fmt.Errorf("%s: want %s, got %s", name, t, typeOf(v))
		}
	}
	if enum, ok := s["enum"].([]any); ok {
		found := false
		for _, e := range enum {
			if fmt.Sprint(e) == fmt.Sprint(v) {
				found = true
				break
			}
		}
		if !found {
			return fmt.Errorf("%s: %s is not one of the %d offered values", name, short(v), len(enum))
		}
	}
	switch x := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		for _, r := range toStrings(s["required"]) {
			if _, ok := x[r]; !ok {
				return fmt.Errorf("%s: required field %q missing", name, r)
			}
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			sub, ok := props[k].(map[string]any)
			if !ok {
				if ap, isBool := s["additionalProperties"].(bool); isBool && !ap {
					return fmt.Errorf("%s: field %q is not in the schema", name, k)
				}
				continue
			}
			p := k
			if path != "" {
				p = path + "." + k
			}
			if err := validate(sub, x[k], p); err != nil {
				return err
			}
		}
	case []any:
		if items, ok := s["items"].(map[string]any); ok {
			for i, e := range x {
				if err := validate(items, e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func isType(t string, v any) bool {
	switch t {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "null":
		return v == nil
	case "number":
		switch v.(type) {
		case json.Number, float64:
			return true
		}
	case "integer":
		switch n := v.(type) {
		case json.Number:
			_, err := n.Int64()
			return err == nil
		case float64:
			return n == math.Trunc(n)
		}
	}
	return false
}

func typeOf(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return "number"
}

func short(v any) string {
	b, _ := json.Marshal(v)
	return oneLine(string(b), 60)
}

func toStrings(v any) []string {
	var out []string
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
	case []string:
		out = x
	}
	return out
}
