package benchbuild

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The track's files are written as Python's json.dumps writes them
// (separators ", " and ": ", ASCII only), so a file built here and the
// shared files compare byte for byte.

// kv is one member of an ordered JSON object.
type kv struct {
	k string
	v any
}

// obj is a JSON object whose members keep their order.
type obj []kv

func writeJSON(b *strings.Builder, v any) {
	switch x := v.(type) {
	case obj:
		b.WriteByte('{')
		for i, m := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeString(b, m.k)
			b.WriteString(": ")
			writeJSON(b, m.v)
		}
		b.WriteByte('}')
	case string:
		writeString(b, x)
	case int:
		b.WriteString(strconv.Itoa(x))
	case float64:
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		b.WriteString(s)
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeJSON(b, e)
		}
		b.WriteByte(']')
	case []string:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = e
		}
		writeJSON(b, a)
	case [2]int:
		fmt.Fprintf(b, "[%d, %d]", x[0], x[1])
	case [][2]int:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = e
		}
		writeJSON(b, a)
	default:
		panic(fmt.Sprintf("benchbuild: no JSON form for %T", v))
	}
}

const hexDigits = "0123456789abcdef"

func writeString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r >= 0x20 && r < 0x7f:
			b.WriteRune(r)
		case r > 0xffff:
			r -= 0x10000
			writeU(b, 0xd800+(r>>10))
			writeU(b, 0xdc00+(r&0x3ff))
		default:
			writeU(b, r)
		}
	}
	b.WriteByte('"')
}

func writeU(b *strings.Builder, r rune) {
	b.WriteString(`\u`)
	for sh := 12; sh >= 0; sh -= 4 {
		b.WriteByte(hexDigits[(r>>sh)&0xf])
	}
}
