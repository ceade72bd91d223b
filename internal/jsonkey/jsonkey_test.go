package jsonkey

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestFolded(t *testing.T) {
	names := []string{"state_id", "source_path"}
	for _, tc := range []struct {
		in, key string
	}{
		{`{"state_id":"s","source_path":"a"}`, ""},
		{`{"state_id":"s","sourCe_pAth":"a"}`, "sourCe_pAth"},
		{`{"x":[{"y":{"STATE_ID" : 1}}]}`, "STATE_ID"},
		{`{"\u017ftate_id":1}`, "ſtate_id"},
		{`{"source\u005fPATH":1}`, "source_PATH"},
		// Values are not keys.
		{`{"a":"State_ID","b":["Source_Path"]}`, ""},
		{`{"a":"say \"State_ID\": here"}`, ""},
		{`{"unrelated":1,"sta`, ""},
	} {
		key, name, _, found := Folded([]byte(tc.in), names)
		if found != (tc.key != "") || key != tc.key {
			t.Errorf("Folded(%s) = %q (%q, %v), want %q", tc.in, key, name, found, tc.key)
		}
	}
}

// TestFoldedAgreesWithEncodingJSON checks the premise: encoding/json does
// fill a field from a folded key, which is what Folded exists to catch.
func TestFoldedAgreesWithEncodingJSON(t *testing.T) {
	var v struct {
		StateID string `json:"state_id"`
	}
	for _, in := range []string{`{"STATE_ID":"x"}`, `{"\u017ftate_id":"x"}`} {
		v.StateID = ""
		if err := json.Unmarshal([]byte(in), &v); err != nil || v.StateID != "x" {
			t.Fatalf("encoding/json no longer folds %s (%v, %q); Folded may be unneeded", in, err, v.StateID)
		}
		if _, _, _, found := Folded([]byte(in), []string{"state_id"}); !found {
			t.Errorf("Folded missed %s", in)
		}
	}
}

func TestNames(t *testing.T) {
	type inner struct{}
	var v struct {
		A      string `json:"a,omitempty"`
		B      int
		C      bool `json:"-"`
		hidden int
		inner  inner
	}
	_ = v.hidden
	_ = v.inner
	got := Names(&v)
	want := []string{"a", "B"}
	if len(got) != len(want) {
		t.Fatalf("Names = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Names = %q, want %q", got, want)
		}
	}
}

func TestRepeated(t *testing.T) {
	for _, tc := range []struct {
		in, field string
		offset    int64
	}{
		{`{"a":1,"b":[{"a":1},{"a":2}],"c":{"a":{"a":1}}}`, "", 0},
		{`{"a":1,"a":2}`, "a", 7},
		{`{"a":1, "b":2,` + "\n" + ` "a":3}`, "a", 16},
		{`{"t":[{"n":[{"l":1},{"l":1,"r":2,"l":3}]}]}`, "t[0].n[1].l", 33},
		{`{"a\u0062":1,"ab":2}`, "ab", 13},
		{`{"a":"}\"{,\"a\":","a":1}`, "a", 19},
		{`{"a":[{"b":1}],"c":{"b":2},"b":[{"a":1,"b":2}]}`, "", 0},
		{`[{"a":[[],{}]},{"a":1,"b":{},"a":2}]`, "[1].a", 29},
		{`{"f":{"x/y.py":"k1","x/y.py":"k2"}}`, "f.x/y.py", 20},
		// Values are not keys; a repeated key after a syntax error is not read.
		{`{"a":"a","b":["a","a"]}`, "", 0},
		{`{"a":1,"b":,"a":2}`, "", 0},
	} {
		field, offset, found := Repeated([]byte(tc.in))
		if found != (tc.field != "") || field != tc.field || offset != tc.offset {
			t.Errorf("Repeated(%s) = %q at %d (%v), want %q at %d", tc.in, field, offset, found, tc.field, tc.offset)
		}
	}
}

// repeatedRef is Repeated read with a decoder, token by token.
func repeatedRef(data []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var field string
	found := false
	var walk func(path string) bool
	walk = func(path string) bool {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return false
				}
				k, _ := kt.(string)
				f := k
				if path != "" {
					f = path + "." + k
				}
				if seen[k] {
					field, found = f, true
					return false
				}
				seen[k] = true
				if !walk(f) {
					return false
				}
			}
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				if !walk(fmt.Sprintf("%s[%d]", path, i)) {
					return false
				}
			}
		default:
			return true
		}
		_, err = dec.Token()
		return err == nil
	}
	walk("")
	return field, found
}

// FuzzRepeated: on valid JSON, Repeated finds what a decoder reading token
// by token finds; on any input it never panics.
func FuzzRepeated(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":[{"b":1,"b":2}]}`, `{"a\u0062":1,"ab":2}`, `[{"x":"\"","x":1}]`, `{"a":{"a":{"a":1}}}`, `{"a":1,"b":,"a":2}`, `{"":0,"":0}`,
		"[{\"\x94\":\"\",\"\x8c\":0}]"} { // two keys of invalid bytes, both U+FFFD decoded
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		field, _, found := Repeated(data)
		if !json.Valid(data) {
			return
		}
		want, wantFound := repeatedRef(data)
		if found != wantFound || field != want {
			t.Errorf("Repeated(%s) = %q (%v), want %q (%v)", data, field, found, want, wantFound)
		}
	})
}

func TestUnknown(t *testing.T) {
	type group struct {
		Path   string   `json:"path"`
		Lines  [][2]int `json:"lines"`
		Weight *float64 `json:"necessity_weight,omitempty"`
	}
	type base struct {
		ID string `json:"state_id"`
	}
	type label struct {
		base
		Groups []group            `json:"required_groups"`
		Sets   [][]group          `json:"alternative_sets,omitempty"`
		Files  map[string]group   `json:"files,omitempty"`
		Extra  json.RawMessage    `json:"extra,omitempty"`
		Any    map[string]any     `json:"any,omitempty"`
		Nums   map[string]float64 `json:"nums,omitempty"`
	}
	for _, tc := range []struct {
		in, field string
		offset    int64
	}{
		{`{"state_id":"a","required_groups":[{"path":"p","lines":[[1,2]],"necessity_weight":1}]}`, "", 0},
		// Values of opaque fields and keys of maps are not fields.
		{`{"extra":{"x":1},"any":{"y":{"z":1}},"nums":{"w":1},"files":{"a.py":{"path":"a.py"}}}`, "", 0},
		{`{"state_id":"a","alternative_set":[]}`, "alternative_set", 16},
		{`{"state_id":"a","required_groups":[{"path":"p"},{"path":"q","necessity_wieght":0}]}`, "required_groups[1].necessity_wieght", 60},
		{`{"alternative_sets":[[{"path":"p"}],[{"Path":"q"}]]}`, "alternative_sets[1][0].Path", 38},
		{`{"files":{"a.py":{"paths":"a.py"}}}`, "files.a.py.paths", 18},
		// A key of an embedded struct is promoted; a field's own place is
		// where it stands, not anywhere.
		{`{"required_groups":[{"path":"p","state_id":"x"}]}`, "required_groups[0].state_id", 32},
		{`{"required_groups":null,"alternative_sets":[null],"x":1}`, "x", 50},
		// The first in text order, in escaped spelling as decoded.
		{`{"b\u0061d":1,"worse":2}`, "bad", 1},
		// A value of another type than v holds is not looked into.
		{`{"required_groups":"x","y":1}`, "y", 23},
	} {
		field, offset, found := Unknown([]byte(tc.in), &label{})
		if found != (tc.field != "") || field != tc.field || offset != tc.offset {
			t.Errorf("Unknown(%s) = %q at %d (%v), want %q at %d", tc.in, field, offset, found, tc.field, tc.offset)
		}
	}
}

// TestUnknownAgreesWithEncodingJSON checks the premise: where Unknown
// finds nothing, a decoder that refuses unknown fields takes the text.
func TestUnknownAgreesWithEncodingJSON(t *testing.T) {
	type unit struct {
		Path string `json:"path"`
	}
	type pred struct {
		Units []unit `json:"units"`
	}
	for _, in := range []string{`{"units":[{"path":"a"}]}`, `{"unit":[]}`, `{"units":[{"path":"a","tokens":1}]}`} {
		dec := json.NewDecoder(bytes.NewReader([]byte(in)))
		dec.DisallowUnknownFields()
		refused := dec.Decode(&pred{}) != nil
		if _, _, found := Unknown([]byte(in), &pred{}); found != refused {
			t.Errorf("Unknown(%s) found %v, encoding/json refuses it: %v", in, found, refused)
		}
	}
}

// FuzzUnknown: Unknown never panics, and where a decoder that refuses
// unknown fields refuses one, Unknown finds a key.
func FuzzUnknown(f *testing.F) {
	for _, s := range []string{`{"units":[{"path":"a","tokens":1}]}`, `{"unit":[]}`, `{"units":[{"path":"a"},{"paht":"b"}]}`, `{"units":null,"x":{"y":1}}`, `[{"a":1}]`, `{"units":[{"path":"a"}],"units":1}`} {
		f.Add([]byte(s))
	}
	type unit struct {
		Path   string `json:"path"`
		Tokens int    `json:"tokens"`
	}
	type pred struct {
		Units  []unit            `json:"units"`
		Config json.RawMessage   `json:"config"`
		Files  map[string]string `json:"files"`
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _, found := Unknown(data, &pred{})
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		err := dec.Decode(&pred{})
		if err != nil && strings.HasPrefix(err.Error(), "json: unknown field ") && !found {
			t.Errorf("the decoder refuses %s (%v); Unknown finds nothing", data, err)
		}
	})
}
