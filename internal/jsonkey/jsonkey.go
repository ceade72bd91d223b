// Package jsonkey finds object keys in JSON text that encoding/json would
// match to a field only by folding case, read twice keeping the last, or
// drop as no field at all.
//
// encoding/json matches an object key to a struct field case-insensitively
// (with Unicode simple folding, so "ſtate_id" is "state_id") when no key
// matches exactly. The formats mss reads are case-sensitive, as their
// reference readers are, so such a key is an unknown field, not the field
// it resembles.
package jsonkey

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"
)

// Folded reports the first key in data that is not one of names but equals
// one of them under case folding, with the name it folds to and its byte
// offset. It looks at keys of every object, at any depth. data need not be
// valid JSON; Folded reads what it can and never fails.
func Folded(data []byte, names []string) (key, name string, offset int, found bool) {
	exact := make(map[string]bool, len(names))
	for _, n := range names {
		exact[n] = true
	}
	for i := 0; i < len(data); i++ {
		if data[i] != '"' {
			continue
		}
		start := i
		escaped := false
		j := i + 1
		for ; j < len(data); j++ {
			c := data[j]
			if c == '\\' {
				escaped = true
				j++
				continue
			}
			if c == '"' {
				break
			}
		}
		if j >= len(data) {
			return "", "", 0, false
		}
		i = j
		k := j + 1
		for k < len(data) && (data[k] == ' ' || data[k] == '\t' || data[k] == '\n' || data[k] == '\r') {
			k++
		}
		if k >= len(data) || data[k] != ':' {
			continue
		}
		raw := data[start : j+1]
		var s string
		if escaped {
			if json.Unmarshal(raw, &s) != nil {
				continue
			}
		} else {
			s = string(raw[1 : len(raw)-1])
		}
		if exact[s] {
			continue
		}
		if n, ok := Fold(s, names); ok {
			return s, n, start, true
		}
	}
	return "", "", 0, false
}

// Repeated reports the first key in data given twice in one object, at
// any depth: encoding/json keeps its last value without a word. field is
// its place, as "trees[0].nodes[2].left" names it, and offset is where its
// second key starts. data need not be valid JSON; Repeated reads what it
// can and never fails. It reads the text once, without decoding it, so
// that it costs little beside decoding (a candidate cache is gigabytes).
func Repeated(data []byte) (field string, offset int64, found bool) {
	type frame struct {
		object bool
		keys   [][]byte // an object's keys so far
	}
	var stack []frame
	// push opens an object or an array, reusing the keys' room of a
	// frame closed before.
	push := func(object bool) {
		if len(stack) < cap(stack) {
			stack = stack[:len(stack)+1]
			top := &stack[len(stack)-1]
			top.object, top.keys = object, top.keys[:0]
		} else {
			stack = append(stack, frame{object: object})
		}
	}
	wantKey := false // the next string is an object's key
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '{':
			push(true)
			wantKey = true
		case '[':
			push(false)
			wantKey = false
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			wantKey = false
		case ',':
			wantKey = len(stack) > 0 && stack[len(stack)-1].object
		case '"':
			start := i
			escaped := false
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					escaped = true
					i++
				}
			}
			if i >= len(data) {
				return "", 0, false
			}
			if !wantKey || len(stack) == 0 {
				continue
			}
			wantKey = false
			key := data[start+1 : i]
			// An escape, or a byte that is not UTF-8, is read as a
			// decoder reads it: "\u0062" is "b", and every invalid byte
			// is U+FFFD, so two keys of different invalid bytes are one.
			if escaped || !utf8.Valid(key) {
				var s string
				if json.Unmarshal(data[start:i+1], &s) != nil {
					return "", 0, false
				}
				key = []byte(s)
			}
			top := &stack[len(stack)-1]
			for _, k := range top.keys {
				if bytes.Equal(k, key) {
					if field, ok := repeatedPath(data, start); ok {
						return field, int64(start), true
					}
					return "", 0, false
				}
			}
			top.keys = append(top.keys, key)
		}
	}
	return "", 0, false
}

// repeatedPath names the place of the key starting at offset in data, the
// second of its object's keys of its name, read again with a decoder (only
// once a key is found given twice); false when the text before it is not
// JSON.
func repeatedPath(data []byte, offset int) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var path []string
	reached := false
	var walk func() bool // false: stop
	walk = func() bool {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'):
			for dec.More() {
				k, at, ok := nextKey(dec, data)
				if !ok {
					return false
				}
				path = append(path, "."+k)
				if at == int64(offset) {
					reached = true
					return false
				}
				if !walk() {
					return false
				}
				path = path[:len(path)-1]
			}
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				path = append(path, fmt.Sprintf("[%d]", i))
				if !walk() {
					return false
				}
				path = path[:len(path)-1]
			}
		default:
			return true
		}
		_, err = dec.Token() // the closing delimiter
		return err == nil
	}
	walk()
	return strings.TrimPrefix(strings.Join(path, ""), "."), reached
}

// Fold returns the name key folds to when key is not one of names but
// equals one of them under case folding.
func Fold(key string, names []string) (string, bool) {
	var folded string
	for _, n := range names {
		if n == key {
			return "", false
		}
		if folded == "" && strings.EqualFold(key, n) {
			folded = n
		}
	}
	return folded, folded != ""
}

// Names lists the JSON object keys of the struct v (a struct or a pointer
// to one), as its json tags name them; fields tagged "-" are left out.
func Names(v any) []string {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var names []string
	for i := 0; i < t.NumField(); i++ {
		if name, ok := FieldName(t.Field(i)); ok {
			names = append(names, name)
		}
	}
	return names
}

// FieldName is the JSON object key of struct field f, as its json tag
// names it; false for a field encoding/json leaves out (unexported, or
// tagged "-").
func FieldName(f reflect.StructField) (string, bool) {
	if !f.IsExported() {
		return "", false
	}
	tag := f.Tag.Get("json")
	name, _, _ := strings.Cut(tag, ",")
	switch {
	case name == "-" && tag == "-":
		return "", false
	case name == "":
		name = f.Name
	}
	return name, true
}

// Unknown reports the first key in data, in text order, that is not the
// name of a field where it stands in v (a struct, or a pointer to one):
// encoding/json drops such a key without a word, or, when it folds to a
// field's name, fills that field from it. field is its place, as
// Repeated names it ("required_groups[1].necessity_wieght"), and offset
// where the key starts. Objects decoded into structs are looked into, and
// the values of lists and maps of them; a value whose type decodes itself
// (json.Unmarshaler, json.RawMessage among them) or is an interface is
// opaque. data should be JSON that decoded into v; Unknown reads what it
// can and never fails.
func Unknown(data []byte, v any) (field string, offset int64, found bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var path []string
	fieldsOf := map[reflect.Type]map[string]reflect.Type{}
	skip := func() bool {
		var raw json.RawMessage
		return dec.Decode(&raw) == nil
	}
	var walk func(t reflect.Type) bool // false: stop (found, or the text ends)
	walk = func(t reflect.Type) bool {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if opaque(t) {
			return skip()
		}
		var elem reflect.Type
		var fields map[string]reflect.Type
		switch t.Kind() {
		case reflect.Struct:
			if fields = fieldsOf[t]; fields == nil {
				fields = structFields(t)
				fieldsOf[t] = fields
			}
		case reflect.Map, reflect.Slice, reflect.Array:
			elem = t.Elem()
		default:
			return skip()
		}
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'):
			if t.Kind() != reflect.Struct && t.Kind() != reflect.Map {
				return false // not what decoded into v
			}
			for dec.More() {
				k, at, ok := nextKey(dec, data)
				if !ok {
					return false
				}
				ft := elem
				if fields != nil {
					var known bool
					if ft, known = fields[k]; !known {
						path = append(path, "."+k)
						field, offset, found = strings.TrimPrefix(strings.Join(path, ""), "."), at, true
						return false
					}
				}
				path = append(path, "."+k)
				if !walk(ft) {
					return false
				}
				path = path[:len(path)-1]
			}
		case json.Delim('['):
			if elem == nil || t.Kind() == reflect.Map {
				return false
			}
			for i := 0; dec.More(); i++ {
				path = append(path, fmt.Sprintf("[%d]", i))
				if !walk(elem) {
					return false
				}
				path = path[:len(path)-1]
			}
		default:
			return true // null, or a scalar
		}
		_, err = dec.Token() // the closing delimiter
		return err == nil
	}
	t := reflect.TypeOf(v)
	if t != nil {
		walk(t)
	}
	return field, offset, found
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// opaque reports whether values of t are not looked into: t decodes
// itself, or is an interface.
func opaque(t reflect.Type) bool {
	if t.Kind() == reflect.Interface {
		return true
	}
	p := reflect.PointerTo(t)
	return t.Implements(unmarshalerType) || p.Implements(unmarshalerType) ||
		t.Implements(textUnmarshalerType) || p.Implements(textUnmarshalerType)
}

// structFields maps the JSON keys of struct t to their fields' types, the
// fields of an embedded struct without a name of its own among them, as
// encoding/json promotes them.
func structFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if tag, _, _ := strings.Cut(f.Tag.Get("json"), ","); f.Anonymous && tag == "" && ft.Kind() == reflect.Struct {
			for k, v := range structFields(ft) {
				if _, own := out[k]; !own {
					out[k] = v
				}
			}
			continue
		}
		if name, ok := FieldName(f); ok {
			out[name] = f.Type
		}
	}
	return out
}

// nextKey reads the next key of the object dec is in (data is what dec
// reads), and where in data its opening quote is.
func nextKey(dec *json.Decoder, data []byte) (key string, at int64, ok bool) {
	at = dec.InputOffset()
	for at < int64(len(data)) && data[at] != '"' {
		at++ // past the comma and space before the key
	}
	kt, err := dec.Token()
	if err != nil {
		return "", 0, false
	}
	key, _ = kt.(string)
	return key, at, true
}
