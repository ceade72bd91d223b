package llm

import (
	"encoding/base64"
	"net/url"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Redacted replaces a secret wherever mss writes text.
const Redacted = "[redacted]"

// minSecret is the shortest value scrubbed from free text. Shorter values
// are placeholders (a local server's "x"), not keys, and scrubbing them
// would garble every reply; they are still never printed on purpose.
const minSecret = 8

// RedactURL masks the userinfo of a URL (user and password alike: either
// may be a key) and the values of query parameters that carry a
// credential (?key=, ?api-key=, ?sig=, ...; see secretParam), and keeps
// the rest as written.
func RedactURL(s string) string {
	return redactQuery(redactUserinfo(s))
}

func redactUserinfo(s string) string {
	u, err := url.Parse(s)
	if err == nil && u.User != nil {
		u.User = nil
		out := u.String()
		i := strings.Index(out, "://")
		if i < 0 {
			return out
		}
		return out[:i+3] + Redacted + "@" + out[i+3:]
	}
	if start, end, ok := textUserinfo(s); ok {
		return s[:start] + Redacted + s[end:]
	}
	return s
}

// textUserinfo finds, as text, the userinfo of a URL that url.Parse does
// not read it from: one that does not parse (a bad port or escape) or
// that parses with the userinfo in an opaque part (user:key@host, with no
// scheme). It is what follows "://" (or the start) up to the last @
// before any ? or #, so a password holding / is cut out whole; s[start:end]
// is the userinfo and s[end] its @.
func textUserinfo(s string) (start, end int, ok bool) {
	if u, err := url.Parse(s); err == nil && (u.User != nil || !strings.Contains(u.Opaque, "@")) {
		return 0, 0, false
	}
	if i := strings.Index(s, "://"); i >= 0 {
		start = i + 3
	}
	rest := s[start:]
	if j := strings.IndexAny(rest, "?#"); j >= 0 {
		rest = rest[:j]
	}
	at := strings.LastIndexByte(rest, '@')
	if at < 0 {
		return 0, 0, false
	}
	return start, start + at, true
}

// redactQuery masks, in the query of URL text s, the value of every
// parameter secretParam names, keeping the order and spelling of the rest.
func redactQuery(s string) string {
	q, end, parts := queryParts(s)
	if parts == nil {
		return s
	}
	for i, p := range parts {
		if name, _, ok := strings.Cut(p, "="); ok && credentialParam(name) {
			parts[i] = name + "=" + Redacted
		}
	}
	return s[:q+1] + strings.Join(parts, "&") + s[end:]
}

// queryParts splits the query of URL text s, as written, at its &: the
// query is s[q+1:end]. parts is nil when s has no query. It reads the text,
// so a URL that does not parse is split alike.
func queryParts(s string) (q, end int, parts []string) {
	q = strings.IndexByte(s, '?')
	if q < 0 {
		return 0, 0, nil
	}
	end = len(s)
	if h := strings.IndexByte(s[q:], '#'); h >= 0 {
		end = q + h
	}
	return q, end, strings.Split(s[q+1:end], "&")
}

// credentialParam reports whether a query parameter name, as written or
// unescaped, is one secretParam names.
func credentialParam(name string) bool {
	n, err := url.QueryUnescape(name)
	return err == nil && secretParam(n) || secretParam(name)
}

// secretParam reports whether a URL query parameter of this name carries
// a credential: key, api-key, api_key, apikey, access_token, token, sig,
// signature, secret, password, code (Azure Functions), and any name ending
// in key, token or secret.
func secretParam(name string) bool {
	n := strings.ToLower(strings.NewReplacer("-", "", "_", "", ".", "").Replace(name))
	switch n {
	case "sig", "signature", "password", "passwd", "pwd", "code", "auth", "authorization", "credential", "credentials":
		return true
	}
	return strings.HasSuffix(n, "key") || strings.HasSuffix(n, "token") || strings.HasSuffix(n, "secret")
}

// stripUserinfo is the URL without its userinfo: what cache keys and
// learned request shapes are filed under, so rotating credentials in a URL
// does not orphan a cache.
func stripUserinfo(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	u.User = nil
	return u.String()
}

// secretWindow is how many characters of a secret in a row count as
// leaking it: half of it, at least minSecret and at most 12 (an endpoint
// echoing half a key leaks half a key). A masked echo such as
// "sk-proj-****abcd" shows fewer and is kept.
func secretWindow(secret string) int {
	return min(max(len(secret)/2, minSecret), 12)
}

// Redactor scrubs a set of secrets from text: the API key, the userinfo
// of the base URL, and the encodings an endpoint could echo them in (a
// Basic Authorization header is base64 of "user:password"). Past those
// exact forms, where a run of text holds secretWindow characters in a
// row of a secret, as written or once its percent-escapes and JSON \u
// escapes are read, those characters (and the escapes spelling them) are
// scrubbed; so are the base64 characters that spell such a run, however
// the base64 is wrapped or escaped (see base64Leaks).
type Redactor struct {
	secrets []string // longest first, so a key's prefix never survives its key
	// windows are the runs of secretWindow characters of every secret as
	// given, by their first 8 bytes (prefix); starts marks the bytes one
	// starts with. A text is searched once, whatever the number of secrets.
	windows map[uint64][]string
	starts  [256]bool
}

// NewRedactor builds a redactor for key and the credentials of baseURL:
// its userinfo and the values of its credential query parameters, read
// from the text of a URL that does not parse.
func NewRedactor(key, baseURL string) *Redactor {
	return newRedactor([]credential{{key, baseURL}})
}

// credential is a key and a base URL whose credentials are secret too;
// either may be "".
type credential struct{ key, baseURL string }

// newRedactor builds one redactor for the secrets of every credential.
func newRedactor(creds []credential) *Redactor {
	var cand []string
	add := func(s string) {
		if len(s) >= minSecret {
			cand = append(cand, s)
		}
	}
	addAll := func(s string) {
		add(s)
		add(url.QueryEscape(s))
		add(url.PathEscape(s))
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawURLEncoding} {
			add(enc.EncodeToString([]byte(s)))
			// Inside a longer base64 text ("Authorization: Bearer
			// KEY" encoded), s starts at any of three byte offsets: the
			// characters that only s's bytes determine, at each.
			for off := range 3 {
				e := enc.EncodeToString(append(make([]byte, off), s...))
				if start := min(off, 1) * 4; len(e) > start+4 {
					add(e[start : len(e)-4])
				}
			}
		}
	}
	var plain []string
	addPlain := func(s string) {
		addAll(s)
		if len(s) >= minSecret {
			plain = append(plain, s)
		}
	}
	for _, c := range creds {
		addPlain(c.key)
		// The query and the userinfo are read as text when the URL does
		// not parse: its credentials are no less secret for that.
		_, _, params := queryParts(c.baseURL)
		for _, p := range params {
			if name, v, ok := strings.Cut(p, "="); ok && credentialParam(name) {
				addPlain(v)
				if uv, err := url.QueryUnescape(v); err == nil {
					addPlain(uv)
				}
			}
		}
		if u, err := url.Parse(c.baseURL); err == nil && u.User != nil {
			name := u.User.Username()
			pass, _ := u.User.Password()
			addPlain(name)
			addPlain(pass)
			addAll(name + ":" + pass)
			add(u.User.String())
		} else if start, end, ok := textUserinfo(c.baseURL); ok {
			// User, password, and the parts of them between : / and @
			// (what url.Parse's error quotes as a port is one), as
			// written and unescaped.
			info := c.baseURL[start:end]
			name, pass, _ := strings.Cut(info, ":")
			parts := strings.FieldsFunc(info, func(r rune) bool { return r == ':' || r == '/' || r == '@' })
			for _, v := range append([]string{name, pass}, parts...) {
				addPlain(v)
				if uv, err := url.PathUnescape(v); err == nil {
					addPlain(uv)
				}
			}
			addAll(info)
		}
	}
	sort.Strings(plain)
	plain = slices.Compact(plain)
	sort.Slice(cand, func(i, j int) bool {
		if len(cand[i]) != len(cand[j]) {
			return len(cand[i]) > len(cand[j])
		}
		return cand[i] < cand[j]
	})
	r := &Redactor{windows: map[uint64][]string{}}
	for _, p := range plain {
		w := secretWindow(p)
		for i := 0; i+w <= len(p); i++ {
			k := prefix(p[i:])
			if !slices.Contains(r.windows[k], p[i:i+w]) {
				r.windows[k] = append(r.windows[k], p[i:i+w])
			}
			r.starts[p[i]] = true
		}
	}
	for i, s := range cand {
		if i == 0 || s != cand[i-1] {
			r.secrets = append(r.secrets, s)
		}
	}
	return r
}

// held is every credential the process holds: each client's (New) and
// the environment's. One redactor of them all scrubs what every client
// returns, so a reply or an error through one client cannot carry
// another's key: an endpoint may echo every key it has been sent.
var held struct {
	mu    sync.Mutex
	creds []credential
	red   atomic.Pointer[Redactor]
}

// hold adds a client's key and base URL to the credentials the process
// holds, with every MSS_*_API_KEY and MSS_*_BASE_URL of the environment
// (the chat stages', the fast ones', the embedder's), so that a key is
// scrubbed whether or not the client it was given to has been made yet.
func hold(key, baseURL string) {
	add := []credential{{key, baseURL}}
	for _, kv := range os.Environ() {
		name, v, _ := strings.Cut(kv, "=")
		switch {
		case v == "" || !strings.HasPrefix(name, "MSS_"):
		case strings.HasSuffix(name, "_API_KEY"):
			add = append(add, credential{key: v})
		case strings.HasSuffix(name, "_BASE_URL"):
			add = append(add, credential{baseURL: v})
		}
	}
	held.mu.Lock()
	defer held.mu.Unlock()
	n := len(held.creds)
	for _, c := range add {
		if c != (credential{}) && !slices.Contains(held.creds, c) {
			held.creds = append(held.creds, c)
		}
	}
	if len(held.creds) > n {
		held.red.Store(newRedactor(held.creds))
	}
}

// redact scrubs from s every secret the process holds.
func redact(s string) string { return held.red.Load().Redact(s) }

// Redact returns s with every secret replaced by [Redacted], and every
// part of s that leaks one (see Redactor) too.
func (r *Redactor) Redact(s string) string {
	if r == nil {
		return s
	}
	for _, sec := range r.secrets {
		if strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, Redacted)
		}
	}
	if len(r.windows) == 0 {
		return s
	}
	var spans [][2]int
	for i := 0; i < len(s); {
		if !runByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && runByte(s[j]) {
			j++
		}
		for _, span := range r.leaks(s[i:j]) {
			spans = append(spans, [2]int{i + span[0], i + span[1]})
		}
		i = j
	}
	spans = append(spans, r.base64Leaks(s)...)
	if len(spans) == 0 {
		return s
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	var b strings.Builder
	last := 0
	for k := 0; k < len(spans); {
		start, end := spans[k][0], spans[k][1]
		for k++; k < len(spans) && spans[k][0] <= end; k++ {
			end = max(end, spans[k][1])
		}
		b.WriteString(s[last:start])
		b.WriteString(Redacted)
		last = end
	}
	b.WriteString(s[last:])
	return b.String()
}

// runByte reports whether c can be part of a run of text that spells a
// key: letters, digits, the punctuation keys and their encodings use, and
// the escape characters % and \.
func runByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		strings.IndexByte("-_.~+/=%\\", c) >= 0
}

// leaks returns the parts of run, in order and apart, that spell a secret
// whole or secretWindow of its characters in a row, as written or read
// through its escapes: the secret's characters and the escapes that spell
// them, nothing around them, so an escape next to a key stays whole.
func (r *Redactor) leaks(run string) [][2]int {
	text, at := unescape(run)
	covered := cover(r, text, nil)
	spans := trueRuns(covered)
	if at != nil {
		for i, sp := range spans {
			spans[i] = [2]int{at[sp[0]], at[sp[1]]}
		}
	}
	return spans
}

// trueRuns gives the runs of true in b, each as [start, end).
func trueRuns(b []bool) [][2]int {
	var runs [][2]int
	for k := 0; k < len(b); k++ {
		if !b[k] {
			continue
		}
		e := k
		for e < len(b) && b[e] {
			e++
		}
		runs = append(runs, [2]int{k, e})
		k = e
	}
	return runs
}

// cover marks in covered (made when nil and needed) the bytes of text
// that are part of a window of a secret, and returns it.
func cover[T string | []byte](r *Redactor, text T, covered []bool) []bool {
	for k := 0; k+minSecret <= len(text); k++ {
		if !r.starts[text[k]] {
			continue
		}
		for _, w := range r.windows[prefix(text[k:])] {
			if len(w) > len(text)-k || string(text[k:k+len(w)]) != w {
				continue
			}
			if covered == nil {
				covered = make([]bool, len(text))
			}
			for m := k; m < k+len(w); m++ {
				covered[m] = true
			}
		}
	}
	return covered
}

// prefix is the first minSecret (8) bytes of s as one number: the key of
// the windows that start with them.
func prefix[T string | []byte](s T) uint64 {
	var n uint64
	for i := range minSecret {
		n = n<<8 | uint64(s[i])
	}
	return n
}

// base64Leaks returns the parts of s, in order, that spell in base64
// (standard or URL alphabet, at any of the four alignments) secretWindow
// bytes in a row of a secret: each such run of base64 characters is read
// whole across the line breaks of wrapped base64 (as MIME and the base64
// command write it, 76 to a line), the spaces an error message makes of
// them and the \n of a JSON string, and through percent-escapes (%2B,
// %2F) and JSON escapes, so "Authorization: Bearer KEY" encoded and
// wrapped, or a key's base64 URL-encoded, goes. The characters spelling
// the secret's bytes are scrubbed (with the line breaks between them),
// what spells the rest stays.
func (r *Redactor) base64Leaks(s string) [][2]int {
	var spans [][2]int
	var vals []byte // the 6-bit values of a run of base64 characters
	var at []int    // where each is spelled in s
	for i := 0; i < len(s); {
		// s[i:j] is a run of base64 characters and line breaks, of n
		// characters.
		j, n := i, 0
		for j < len(s) {
			c, m := base64Char(s, j)
			if base64Value[c] != 0xff {
				n++
			} else if c != '\n' && c != '\r' && c != ' ' && c != '\t' {
				break
			}
			j += m
		}
		// minSecret bytes take 11 characters.
		if n >= (minSecret*4+2)/3 {
			vals, at = slices.Grow(vals[:0], n), slices.Grow(at[:0], n)
			for k := i; k < j; {
				c, m := base64Char(s, k)
				if v := base64Value[c]; v != 0xff {
					vals, at = append(vals, v), append(at, k)
				}
				k += m
			}
			spans = append(spans, r.decodedLeaks(s, vals, at)...)
		}
		if j == i {
			_, m := base64Char(s, i)
			j += m
		}
		i = j
	}
	return spans
}

// base64Char reads the character s spells at i, through an escape (see
// escape), and its length in s. A \n, \r or \t of a JSON string, at any
// depth, is read as a line break.
func base64Char(s string, i int) (byte, int) {
	if e, n := escape(s, i); n > 0 {
		if len(e) == 1 {
			return e[0], n
		}
		return 0, n
	}
	if s[i] == '\\' {
		j := i
		for j < len(s) && s[j] == '\\' {
			j++
		}
		if j < len(s) && strings.IndexByte("nrt", s[j]) >= 0 {
			return '\n', j + 1 - i
		}
	}
	return s[i], 1
}

// decodedLeaks decodes a run of base64 values at each of the four
// alignments and returns where s spells (from at) the characters that
// encode bytes of a window of a secret.
func (r *Redactor) decodedLeaks(s string, vals []byte, at []int) [][2]int {
	var chars []bool
	buf := make([]byte, 0, len(vals)*3/4+3)
	for o := 0; o < 4 && o < len(vals); o++ {
		buf = buf[:0]
		for g := o; g+1 < len(vals); g += 4 {
			c := vals[g:min(g+4, len(vals))]
			buf = append(buf, c[0]<<2|c[1]>>4)
			if len(c) > 2 {
				buf = append(buf, c[1]<<4|c[2]>>2)
			}
			if len(c) > 3 {
				buf = append(buf, c[2]<<6|c[3])
			}
		}
		for k, hit := range cover(r, buf, nil) {
			if !hit {
				continue
			}
			if chars == nil {
				chars = make([]bool, len(vals))
			}
			// Byte k is spelled by characters k%3 and k%3+1 of its
			// group of four.
			c := o + k/3*4 + k%3
			chars[c], chars[c+1] = true, true
		}
	}
	spans := trueRuns(chars)
	for i, sp := range spans {
		_, n := base64Char(s, at[sp[1]-1])
		spans[i] = [2]int{at[sp[0]], at[sp[1]-1] + n}
	}
	return spans
}

// base64Value is the 6-bit value of a base64 character of either
// alphabet (+/ standard, -_ URL), 0xff for any other byte.
var base64Value = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/" {
		t[c] = byte(i)
	}
	t['-'], t['_'] = 62, 63
	return t
}()

// escape reads the escape that starts at s[i], if one does: a
// percent-escape (%2D) or a JSON escape (\u002d, \/), or one escaped
// again (a JSON string inside a JSON string: \\u002d), at any depth. It
// returns what the escape spells and its length, 0 when none starts there.
func escape(s string, i int) (string, int) {
	switch s[i] {
	case '%':
		if i+2 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				return string([]byte{byte(v)}), 3
			}
		}
	case '\\':
		j := i
		for j < len(s) && s[j] == '\\' {
			j++
		}
		if j+4 < len(s) && s[j] == 'u' {
			if v, err := strconv.ParseUint(s[j+1:j+5], 16, 16); err == nil {
				return string(rune(v)), j + 5 - i
			}
		}
		if j < len(s) && s[j] == '/' {
			return "/", j + 1 - i
		}
	}
	return "", 0
}

// unescape reads a run's escapes (see escape); anything else, a malformed
// escape included, is kept as written. at[k] is where the byte k of the
// text read starts in s, and at[len] is len(s); at is nil when s holds no
// escape, the text being s.
func unescape(s string) (string, []int) {
	if !strings.ContainsAny(s, "%\\") {
		return s, nil
	}
	at := make([]int, 0, len(s)+1)
	var b strings.Builder
	for i := 0; i < len(s); {
		if e, n := escape(s, i); n > 0 {
			b.WriteString(e)
			for range len(e) {
				at = append(at, i)
			}
			i += n
			continue
		}
		b.WriteByte(s[i])
		at = append(at, i)
		i++
	}
	return b.String(), append(at, len(s))
}
