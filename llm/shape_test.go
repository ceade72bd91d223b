package llm

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss/llm/llmtest"
)

// TestShapeLearnedAndKept: a reasoning model refuses max_tokens and the
// temperature; the client changes each, and what worked is kept in the
// shape directory, so a new process's first request is right.
func TestShapeLearnedAndKept(t *testing.T) {
	srv := llmtest.New(func(*llmtest.Call) llmtest.Reply { return llmtest.Reply{Content: `{"id":"a"}`} },
		func(s *llmtest.Server) { s.Personality = llmtest.PersonalityReasoning })
	defer srv.Close()
	dir := t.TempDir()
	zero := 0.0
	cfg := Config{BaseURL: srv.BaseURL(), APIKey: testKey, Model: "gpt-5", Temperature: &zero, MaxTokensField: FieldMaxTokens, ShapeDir: dir, Retries: -1}
	c, err := New(cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Complete(context.Background(), request())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"max_tokens refused: sent max_completion_tokens", "temperature refused: dropped"}
	if d := cmp.Diff(want, r.Adjustments); d != "" {
		t.Errorf("adjustments (-want +got):\n%s", d)
	}
	if r.ReasoningTokens != 64 {
		t.Errorf("reasoning tokens = %d, want 64", r.ReasoningTokens)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "shapes", "*.json"))
	if len(files) != 1 {
		t.Fatalf("shape files %v, want 1", files)
	}
	// A new process: forget what this one learned.
	shapes.Delete(shapeKey(cfg.BaseURL, cfg.Model))
	n := len(srv.Calls())
	c2, err := New(cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := c2.Complete(context.Background(), request())
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, r2.Adjustments); d != "" {
		t.Errorf("adjustments of the new process's call (-want +got):\n%s", d)
	}
	calls := srv.Calls()[n:]
	if len(calls) != 1 {
		t.Fatalf("%d calls after learning, want 1", len(calls))
	}
	var body map[string]any
	json.Unmarshal(calls[0].Body, &body)
	if _, ok := body["max_tokens"]; ok || body["temperature"] != nil || body["max_completion_tokens"] == nil {
		t.Errorf("learned request = %s", calls[0].Body)
	}
}

func TestAdjust(t *testing.T) {
	all := sent{tokens: true, temperature: true, seed: true, effort: true, format: true}
	base := Shape{TokenField: FieldMaxCompletionTokens, Mode: ModeJSONSchema}
	tests := []struct {
		msg  string
		want string // the note, "" for no change
	}{
		{"Unsupported parameter: 'max_completion_tokens' is not supported", "max_completion_tokens refused: sent max_tokens"},
		{"Unsupported value: 'temperature' does not support 0 with this model.", "temperature refused: dropped"},
		{"Unrecognized request argument supplied: reasoning_effort", "reasoning_effort refused: dropped"},
		{"response_format json_schema is not supported", "response_format json_schema refused: sent json_object"},
		{"This model's maximum context length is 8192 tokens", ""},
	}
	for _, tc := range tests {
		next, ok := adjust(base, all, map[string]bool{}, tc.msg)
		note := strings.Join(changes(base, next, all), "; ")
		if note != tc.want || ok != (tc.want != "") {
			t.Errorf("adjust(%q) = %q, %v; want %q", tc.msg, note, ok, tc.want)
		}
	}
	// Both token fields refused: no cap.
	s := Shape{TokenField: FieldMaxTokens, Mode: ModeJSONSchema}
	if next, _ := adjust(s, all, map[string]bool{FieldMaxCompletionTokens: true}, "'max_tokens' unsupported"); next.TokenField != "" {
		t.Errorf("token field %q, want none", next.TokenField)
	}
}

func TestRedact(t *testing.T) {
	r := NewRedactor("sk-KEY-123456789", "http://alice:pw-PASSWORD-1@h:1/v1")
	in := "key sk-KEY-123456789 pass pw-PASSWORD-1 basic YWxpY2U6cHctUEFTU1dPUkQtMQ== short x"
	got := r.Redact(in)
	for _, s := range []string{"sk-KEY", "pw-PASSWORD", "YWxpY2U6"} {
		if strings.Contains(got, s) {
			t.Errorf("Redact left %s: %s", s, got)
		}
	}
	if u := RedactURL("http://alice:pw@h:1/v1?x=1"); u != "http://[redacted]@h:1/v1?x=1" {
		t.Errorf("RedactURL = %s", u)
	}
	if u := RedactURL("https://api.openai.com/v1"); u != "https://api.openai.com/v1" {
		t.Errorf("RedactURL changed a plain URL: %s", u)
	}
}

func TestValidate(t *testing.T) {
	s := schema().Schema
	for raw, want := range map[string]string{
		`{"id":"a"}`:       "",
		`{"id":"z"}`:       `id: "z" is not one of the 2 offered values`,
		`{}`:               `required field "id" missing`,
		`{"id":"a","x":1}`: `field "x" is not in the schema`,
		`{"id":3}`:         "id: want string, got number",
	} {
		err := ValidateJSON(s, []byte(raw))
		if (err == nil) != (want == "") || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("ValidateJSON(%s) = %v, want %q", raw, err, want)
		}
	}
}

// A credential in the base URL's query string (?key=, ?api-key=, ?sig=) is
// a secret like its userinfo: masked where the URL is printed, scrubbed
// where an endpoint echoes it. Other parameters are kept as they are.
func TestRedactQueryCredential(t *testing.T) {
	for in, want := range map[string]string{
		"https://h/v1?key=QUERY-SECRET-1":                   "https://h/v1?key=[redacted]",
		"https://h/v1?api-version=2024-06-01&api-key=SEC-2": "https://h/v1?api-version=2024-06-01&api-key=[redacted]",
		"https://u:p@h/v1?x=1&access_token=SEC-3#f":         "https://[redacted]@h/v1?x=1&access_token=[redacted]#f",
		"https://h/v1?x=1&sig=SEC-4":                        "https://h/v1?x=1&sig=[redacted]",
		"https://h/v1?x=1":                                  "https://h/v1?x=1",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%s) = %s, want %s", in, got, want)
		}
	}
	r := NewRedactor("", "https://h/v1?api-version=1&api_key=QUERY-SECRET-99")
	if got := r.Redact("bad key QUERY-SECRET-99 (QUERY-SECRET-99)"); strings.Contains(got, "QUERY-SECRET") {
		t.Errorf("Redact left the query credential: %s", got)
	}
}

// TestBadBaseURL: a base URL that does not parse (a bad port or escape, a
// password holding /, no scheme) is never quoted in an error; its
// userinfo and credential query values are masked where it is printed,
// and scrubbed from errors and echoes.
func TestBadBaseURL(t *testing.T) {
	tests := []struct {
		base, secret, printed string
	}{
		{"http://user:SECRETPASSWORD99@127.0.0.1:badport/v1", "SECRETPASSWORD99", "http://[redacted]@127.0.0.1:badport/v1"},
		{"http://user:pa%zzSECRETPASSWORD99@127.0.0.1:1/v1", "SECRETPASSWORD99", "http://[redacted]@127.0.0.1:1/v1"},
		{"http://127.0.0.1:badport/v1?api-key=SECRETQUERY99", "SECRETQUERY99", "http://127.0.0.1:badport/v1?api-key=[redacted]"},
		{"http://127.0.0.1:badport/v1?x=%zz&api-key=SECRET%2FQUERY99", "SECRET/QUERY99", "http://127.0.0.1:badport/v1?x=%zz&api-key=[redacted]"},
		{"http://user:SECRETPASS/WORD99@127.0.0.1:1/v1", "SECRETPASS", "http://[redacted]@127.0.0.1:1/v1"},
		{"user:SECRETPASSWORD99@127.0.0.1:1/v1", "SECRETPASSWORD99", "[redacted]@127.0.0.1:1/v1"},
	}
	for _, tc := range tests {
		_, err := New(Config{BaseURL: tc.base, APIKey: "sk-proj-xxxxxxxxxxxxxxxxxxxx", Model: "m"}, nil, nil)
		if err == nil || strings.Contains(err.Error(), tc.secret) || strings.Contains(err.Error(), strings.ReplaceAll(tc.secret, "/", "%2F")) {
			t.Errorf("New(%s) = %v, want an error without the credential", tc.base, err)
		} else if !strings.Contains(err.Error(), "base URL "+tc.printed+": ") {
			t.Errorf("New(%s) = %v, want it to name the base URL as %s", tc.base, err, tc.printed)
		}
		if got := RedactURL(tc.base); got != tc.printed {
			t.Errorf("RedactURL(%s) = %s, want %s", tc.base, got, tc.printed)
		}
		if got := NewRedactor("", tc.base).Redact("echo " + tc.secret); got != "echo "+Redacted {
			t.Errorf("the redactor of %s left %s", tc.base, got)
		}
	}
}

// An endpoint may echo a key escaped or in part; what spells enough of it
// goes, what shows a few characters (a masked key) stays, and the escapes
// around a key in a raw JSON reply stay whole.
func TestRedactEchoes(t *testing.T) {
	key := "sk-secret-abcdef123456"
	r := NewRedactor(key, "https://h/v1")
	for in, want := range map[string]string{
		"url-enc sk%2Dsecret%2Dabcdef123456 end":   "url-enc [redacted] end",
		`json "\u0073k-secret-abcdef123456" end`:   `json "[redacted]" end`,
		"half sk-secret-abcd, tail abcdef123456.":  "half [redacted], tail [redacted].",
		`{"m":"bad \"sk-secret-abcdef\"\nnext"}`:   `{"m":"bad \"[redacted]\"\nnext"}`,
		`{"m":"a\nsk-secret-abcdef12"}`:            `{"m":"a\n[redacted]"}`,
		"masked sk-secr**********3456 stays":       "masked sk-secr**********3456 stays",
		"plain text with 50% of 100%2 and \\u00zz": "plain text with 50% of 100%2 and \\u00zz",
		// A JSON string inside a JSON string escapes its escapes.
		`{"content":"{\"covers\":\"Bearer sk\\u002dsecret\\u002dabcdef123456\"}"}`: `{"content":"{\"covers\":\"Bearer [redacted]\"}"}`,
	} {
		if got := r.Redact(in); got != want {
			t.Errorf("Redact(%s) = %s, want %s", in, got, want)
		}
	}
	// The key inside a longer base64 text, at each of its three offsets.
	for _, prefix := range []string{"Authorization: Bearer ", "Bearer ", "x: "} {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawURLEncoding} {
			b := enc.EncodeToString([]byte(prefix + key + " and more"))
			if got := r.Redact("echo " + b); !strings.Contains(got, Redacted) {
				t.Errorf("base64 of %q: %s kept", prefix+key, got)
			}
		}
	}
	// A short key (a local server's placeholder) is matched by 8
	// characters in a row.
	r = NewRedactor("local-key-1", "")
	if got := r.Redact("local-key-1 local-ke local-k"); got != "[redacted] [redacted] local-k" {
		t.Errorf("short key: %s", got)
	}
}

// TestRedactBase64: a key echoed in base64 goes however the base64 is
// written: wrapped at 76 columns (as MIME and the base64 command write
// it) with the line breaks as written, as a JSON string writes them, or as
// the spaces an error message makes of them; wrapped at 64 with CRLF; or
// URL-encoded (%2B, %2F, %3D). What encodes the text around the key stays.
func TestRedactBase64(t *testing.T) {
	wrap := func(s string, n int, nl string) string {
		var b strings.Builder
		for len(s) > n {
			b.WriteString(s[:n] + nl)
			s = s[n:]
		}
		return b.String() + s + nl
	}
	for _, key := range []string{
		"sk-proj-Rk8vQ2mZt5Wn1Lx7Hc4Jp9Ds3Fg6Ba0Ye2Ui8Oq",
		"wJalrXUtnFEMI/K7MDENG/bPxRfiCY?EXAMPLE~KEY0123456", // its base64 holds + and /
	} {
		r := NewRedactor(key, "")
		header := base64.StdEncoding.EncodeToString([]byte("Authorization: Bearer " + key))
		mime := "auth header was " + wrap(header, 76, "\n") + " ; done"
		inJSON, _ := json.Marshal(mime)
		for name, in := range map[string]string{
			"mime":              mime,
			"mime in JSON":      string(inJSON),
			"mime on a line":    strings.Join(strings.Fields(mime), " "),
			"pem":               "auth header was " + wrap(header, 64, "\r\n") + " ; done",
			"url-encoded":       "auth header was " + url.QueryEscape(header) + " ; token=" + url.QueryEscape(base64.StdEncoding.EncodeToString([]byte(key))),
			"url-safe, JSON":    `{"error":"` + strings.ReplaceAll(wrap(base64.URLEncoding.EncodeToString([]byte("Authorization: Bearer "+key)), 76, "\n"), "\n", `\n`) + `"}`,
			"url-encoded, JSON": `{"error":"token=` + url.QueryEscape(base64.StdEncoding.EncodeToString([]byte("x:"+key))) + `"}`,
		} {
			got := r.Redact(in)
			if !strings.Contains(got, Redacted) || !strings.HasPrefix(got, in[:min(len(in), 16)]) {
				t.Errorf("%s: Redact(%q) = %q", name, in, got)
				continue
			}
			if left := base64Left(got, key); left != "" {
				t.Errorf("%s: %q left %s of the key's base64", name, got, left)
			}
		}
	}
}

// base64Left returns 11 characters in a row (8 bytes) of key's base64, at
// any byte offset, that text holds read back as a decoder would: line
// breaks and spaces out, escapes read; "" when it holds none.
func base64Left(text, key string) string {
	flat, _ := unescape(strings.NewReplacer(`\r`, "", `\n`, "", "\r", "", "\n", "", " ", "").Replace(text))
	for off := range 3 {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			e := enc.EncodeToString(append(make([]byte, off), key...))
			e = e[4 : len(e)-4]
			for i := 0; i+11 <= len(e); i++ {
				if strings.Contains(flat, e[i:i+11]) {
					return e[i : i+11]
				}
			}
		}
	}
	return ""
}

// TestOneLineWholeCharacters: an endpoint's message shortened for an error
// is cut before a character, never inside one.
func TestOneLineWholeCharacters(t *testing.T) {
	got := oneLine("ab\n  cé d", 5)
	if got != "ab c…" || !utf8.ValidString(got) {
		t.Errorf("oneLine = %q", got)
	}
}

// BenchmarkRedact scrubs a 120 KB reply, of JSON text and of wrapped
// base64, with the secrets of four clients:
//
//	go test -run '^$' -bench Redact ./llm/
func BenchmarkRedact(b *testing.B) {
	r := newRedactor([]credential{
		{"sk-proj-Rk8vQ2mZt5Wn1Lx7Hc4Jp9Ds3Fg6Ba0Ye2Ui8Oq", "http://user:pw-SECRET-PASSWORD-99@h/v1?api-key=QUERYSECRET123456"},
		{"sk-fast-Pz8Kd3Vn6Yc1", ""},
		{"sk-embed-Wb5Jf0Gs2Ne7", ""},
		{"wJalrXUtnFEMI/K7MDENG/bPxRfiCY?EXAMPLE~KEY0123456", ""},
	})
	for name, line := range map[string]string{
		"text":   `{"id":"u12","reason":"parse_header splits on ':' and returns key, value; see line 42 of pkg/parse.py.\n"}, `,
		"base64": "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0\n",
	} {
		b.Run(name, func(b *testing.B) {
			s := strings.Repeat(line, 120_000/len(line))
			b.SetBytes(int64(len(s)))
			b.ReportAllocs()
			for b.Loop() {
				r.Redact(s)
			}
		})
	}
}

// FuzzRedact: whatever text surrounds a key an endpoint echoes, as
// written, percent-encoded, JSON-escaped or in base64, the scrubbed text
// holds no run of secretWindow characters of the key, nor base64 that
// spells 8 bytes of it.
func FuzzRedact(f *testing.F) {
	key := "sk-proj-Rk8vQ2mZt5Wn1Lx7Hc4Jp9Ds3Fg6Ba0Ye2Ui8Oq"
	r := NewRedactor(key, "")
	f.Add("error: ", " is not valid", uint8(0))
	f.Add(`{"m":"`, `"}`, uint8(2))
	f.Add("auth header was ", " ; done", uint8(3))
	f.Add("QUJD", "\n", uint8(4))
	f.Fuzz(func(t *testing.T, pre, post string, form uint8) {
		var echo string
		switch form % 5 {
		case 0:
			echo = key
		case 1:
			echo = url.QueryEscape(key)
		case 2:
			b, _ := json.Marshal(key)
			echo = strings.ReplaceAll(string(b), "-", `\u002d`)
		case 3:
			echo = base64.StdEncoding.EncodeToString([]byte("Authorization: Bearer " + key))
		case 4:
			echo = url.QueryEscape(base64.StdEncoding.EncodeToString([]byte(key)))
		}
		got := r.Redact(pre + echo + post)
		w := secretWindow(key)
		for i := 0; i+w <= len(key); i++ {
			if strings.Contains(got, key[i:i+w]) {
				t.Fatalf("Redact(%q) = %q holds %q of the key", pre+echo+post, got, key[i:i+w])
			}
		}
		if left := base64Left(got, key); left != "" {
			t.Fatalf("Redact(%q) = %q holds %s of the key's base64", pre+echo+post, got, left)
		}
	})
}
