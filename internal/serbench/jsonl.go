package serbench

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/missingcomplement/mss/internal/jsonkey"
)

// A JSON Lines file is UTF-8 text with one JSON object per line; blank
// lines are skipped and line numbers count every physical line, as the
// release's reader does. A file whose name ends in .gz must be gzip; a
// gzip stream under any name is decompressed.

var gzipMagic = []byte{0x1f, 0x8b}

// line is one non-blank line of a JSON Lines file, decoded into its
// top-level members.
type line struct {
	n   int
	obj object
	raw []byte // the line itself, when the reader left decoding to the caller
}

// Open returns a reader of the decompressed content of the named file:
// how every SERBench file is read, by these loaders and by the readers of
// a SERBench trajectory.
func Open(name string) (io.ReadCloser, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(f, 1<<16)
	magic, _ := br.Peek(2)
	isGzip := bytes.Equal(magic, gzipMagic)
	if strings.HasSuffix(name, ".gz") && !isGzip {
		f.Close()
		return nil, fmt.Errorf("%s: not a gzip file (name ends in .gz)", name)
	}
	if !isGzip {
		return struct {
			io.Reader
			io.Closer
		}{br, f}, nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{zr, closers{zr, f}}, nil
}

type closers []io.Closer

func (cs closers) Close() error {
	var first error
	for _, c := range cs {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// readLines decodes every non-blank line of r as a JSON object. Lines that
// are not valid JSON objects are reported in e and skipped; an I/O error
// (including a corrupt gzip stream) is returned.
func readLines(r io.Reader, e *errs) ([]line, error) {
	return scanLines(r, e, false)
}

// scanLines is readLines; with lazy, lines are returned undecoded (raw),
// for a caller with a faster path of its own, which must fall back to
// decodeLine for the messages.
func scanLines(r io.Reader, e *errs, lazy bool) ([]line, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var out []line
	n := 0
	for {
		b, err := br.ReadBytes('\n')
		if len(b) > 0 {
			n++
			if len(bytes.TrimSpace(b)) > 0 {
				if lazy {
					out = append(out, line{n: n, raw: b})
				} else if obj, ok := decodeLine(b, n, e); ok {
					out = append(out, line{n: n, obj: obj})
				}
			}
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, fmt.Errorf("%s: after line %d: %w", e.file, n, err)
		}
	}
}

func decodeLine(b []byte, n int, e *errs) (object, bool) {
	if !utf8.Valid(b) {
		e.add(n, "", "invalid UTF-8")
		return nil, false
	}
	b = bytes.TrimSpace(b)
	if b[0] != '{' {
		if !json.Valid(b) {
			var v any
			e.add(n, "", "invalid JSON: %v", jsonMsg(json.Unmarshal(b, &v)))
			return nil, false
		}
		e.add(n, "", "line must contain a JSON object, not %s", kindOf(b))
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var obj object
	if err := dec.Decode(&obj); err != nil {
		e.add(n, "", "invalid JSON: %v", jsonMsg(err))
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		e.add(n, "", "invalid JSON: more than one value on the line")
		return nil, false
	}
	// A key given twice would be read with its last value without a
	// word. The row is read on, so that its other problems are reported
	// too and the rows that join it find it.
	if field, _, dup := jsonkey.Repeated(b); dup {
		e.add(n, field, "given twice; each field is named once")
	}
	return obj, true
}

func jsonMsg(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s (at byte %d)", se.Error(), se.Offset)
	}
	if err == io.ErrUnexpectedEOF {
		return "unexpected end of line"
	}
	return err.Error()
}

// object is a decoded JSON object whose members are decoded on demand, so
// every type problem is reported with its field path.
type object map[string]json.RawMessage

// kindOf names the JSON type of a raw value, for messages.
func kindOf(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func isNull(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}

// fieldReader decodes the members of one object of one line, reporting
// problems under the field path prefix.
type fieldReader struct {
	e      *errs
	line   int
	prefix string
	obj    object
	bad    bool // a problem was reported
}

func (r *fieldReader) path(name string) string {
	if r.prefix == "" {
		return name
	}
	return r.prefix + "." + name
}

func (r *fieldReader) fail(field, format string, args ...any) {
	r.bad = true
	r.e.add(r.line, field, format, args...)
}

// str reads an optional string; null and absence give "".
func (r *fieldReader) str(name string) string {
	raw, ok := r.obj[name]
	if !ok || isNull(raw) {
		return ""
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		r.fail(r.path(name), "must be a string, not %s", kindOf(raw))
		return ""
	}
	return s
}

// strList reads an optional list of strings. present reports whether the
// member exists and is not null.
func (r *fieldReader) strList(name string) (list []string, present bool) {
	raw, ok := r.obj[name]
	if !ok || isNull(raw) {
		return nil, false
	}
	return r.strings(r.path(name), raw), true
}

// strings decodes raw, the value of field, as a list of strings.
func (r *fieldReader) strings(field string, raw json.RawMessage) []string {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		r.fail(field, "must be a list of strings, not %s", kindOf(raw))
		return nil
	}
	list := make([]string, 0, len(items))
	for i, it := range items {
		var s string
		if err := json.Unmarshal(it, &s); err != nil {
			r.fail(fmt.Sprintf("%s[%d]", field, i), "must be a string, not %s", kindOf(it))
			continue
		}
		list = append(list, s)
	}
	return list
}

// problems is the number of problems reported so far, to tell whether a
// step added one.
func (r *fieldReader) problems() int { return len(r.e.list) }

// list reads an optional list of raw values.
func (r *fieldReader) list(name string) (items []json.RawMessage, present bool) {
	raw, ok := r.obj[name]
	if !ok || isNull(raw) {
		return nil, ok
	}
	if err := json.Unmarshal(raw, &items); err != nil {
		r.fail(r.path(name), "must be a list, not %s", kindOf(raw))
		return nil, true
	}
	return items, true
}

// integer reads an optional integer; ok is false when absent or null.
func (r *fieldReader) integer(name string) (v int, ok bool) {
	raw, present := r.obj[name]
	if !present || isNull(raw) {
		return 0, false
	}
	var n json.Number
	if kindOf(raw) != "a number" || json.Unmarshal(raw, &n) != nil {
		r.fail(r.path(name), "must be an integer, not %s", kindOf(raw))
		return 0, false
	}
	i, err := n.Int64()
	if err != nil || i < math.MinInt32 || i > math.MaxInt32 {
		r.fail(r.path(name), "must be an integer, not %s", n.String())
		return 0, false
	}
	return int(i), true
}

// number reads an optional number; ok is false when absent or null.
func (r *fieldReader) number(name string) (v float64, ok bool) {
	raw, present := r.obj[name]
	if !present || isNull(raw) {
		return 0, false
	}
	var n json.Number
	if kindOf(raw) != "a number" || json.Unmarshal(raw, &n) != nil {
		r.fail(r.path(name), "must be a number, not %s", kindOf(raw))
		return 0, false
	}
	f, err := n.Float64()
	if err != nil {
		r.fail(r.path(name), "must be a finite number, not %s", n.String())
		return 0, false
	}
	return f, true
}

// boolean reads an optional boolean.
func (r *fieldReader) boolean(name string) bool {
	raw, ok := r.obj[name]
	if !ok || isNull(raw) {
		return false
	}
	var v bool
	if err := json.Unmarshal(raw, &v); err != nil {
		r.fail(r.path(name), "must be a boolean, not %s", kindOf(raw))
	}
	return v
}

// sub returns a reader of a nested object value, or nil (with a reported
// problem) when raw is not an object.
func (r *fieldReader) sub(field string, raw json.RawMessage) *fieldReader {
	var obj object
	if b := bytes.TrimSpace(raw); len(b) == 0 || b[0] != '{' || json.Unmarshal(raw, &obj) != nil {
		r.fail(field, "must be an object, not %s", kindOf(raw))
		return nil
	}
	return &fieldReader{e: r.e, line: r.line, prefix: field, obj: obj}
}
