package mss

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// unitFields is Unit without its JSON methods.
type unitFields Unit

// unitWire is a Unit as JSON carries it. JSON strings hold UTF-8 only, so
// a unit whose Content (or Context) is not UTF-8, such as a Latin-1
// source file, would reach a client with U+FFFD where the file has other
// bytes, and Hash would not match it. Such a unit also carries the exact
// bytes, base64-encoded, in content_bytes (context_bytes); content stays
// readable text.
type unitWire struct {
	unitFields
	ContentBytes []byte `json:"content_bytes,omitempty"`
	ContextBytes []byte `json:"context_bytes,omitempty"`
}

// ExactBytes is s as bytes when s is not UTF-8, which JSON text cannot
// carry (a unit's content_bytes), else nil.
func ExactBytes(s string) []byte {
	if utf8.ValidString(s) {
		return nil
	}
	return []byte(s)
}

// MarshalJSON encodes the unit, adding content_bytes (context_bytes) when
// Content (Context) is not UTF-8.
func (u Unit) MarshalJSON() ([]byte, error) {
	w := unitWire{unitFields: unitFields(u), ContentBytes: ExactBytes(u.Content), ContextBytes: ExactBytes(u.Context)}
	// The caller's encoder decides on HTML escaping; json.Marshal would
	// escape < > & here whatever it was told.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(w); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON decodes a unit; content_bytes (context_bytes), when
// present, is the exact Content (Context).
func (u *Unit) UnmarshalJSON(data []byte) error {
	var w unitWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*u = Unit(w.unitFields)
	if w.ContentBytes != nil {
		u.Content = string(w.ContentBytes)
	}
	if w.ContextBytes != nil {
		u.Context = string(w.ContextBytes)
	}
	return nil
}
