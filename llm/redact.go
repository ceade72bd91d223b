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
// scrubbed.
type Redactor struct {
	secrets []string // longest first, so a key's prefix never survives its key
	plain   []string // the secrets as given, for the runs
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
	r := &Redactor{plain: plain}
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
// part of a run of text that leaks one (see Redactor) too.
func (r *Redactor) Redact(s string) string {
	if r == nil {
		return s
	}
	for _, sec := range r.secrets {
		if strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, Redacted)
		}
	}
	if len(r.plain) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
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
			b.WriteString(s[last : i+span[0]])
			b.WriteString(Redacted)
			last = i + span[1]
		}
		i = j
	}
	if last == 0 {
		return s
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
	var covered []bool
	mark := func(w string) {
		for k := 0; ; {
			n := strings.Index(text[k:], w)
			if n < 0 {
				return
			}
			if covered == nil {
				covered = make([]bool, len(text))
			}
			for m := k + n; m < k+n+len(w); m++ {
				covered[m] = true
			}
			k += n + 1
		}
	}
	for _, p := range r.plain {
		w := secretWindow(p)
		for i := 0; i+w <= len(p); i++ {
			mark(p[i : i+w])
		}
	}
	var spans [][2]int
	for k := 0; k < len(covered); k++ {
		if !covered[k] {
			continue
		}
		e := k
		for e < len(covered) && covered[e] {
			e++
		}
		spans = append(spans, [2]int{at[k], at[e]})
		k = e
	}
	return spans
}

// unescape reads a run's percent-escapes (%2D) and JSON escapes (\u002d,
// \/); anything else, a malformed escape included, is kept as written.
// at[k] is where the byte k of the text read starts in s, and at[len]
// is len(s).
func unescape(s string) (string, []int) {
	at := make([]int, 0, len(s)+1)
	if !strings.ContainsAny(s, "%\\") {
		for k := 0; k <= len(s); k++ {
			at = append(at, k)
		}
		return s, at
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '%' && i+2 < len(s):
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(v))
				at = append(at, i)
				i += 2
				continue
			}
		case s[i] == '\\':
			// A JSON escape, or one escaped again (a JSON string inside
			// a JSON string: \\u002d), at any depth.
			j := i
			for j < len(s) && s[j] == '\\' {
				j++
			}
			if j+4 < len(s) && s[j] == 'u' {
				if v, err := strconv.ParseUint(s[j+1:j+5], 16, 16); err == nil {
					n, _ := b.WriteRune(rune(v))
					for range n {
						at = append(at, i)
					}
					i = j + 4
					continue
				}
			}
			if j < len(s) && s[j] == '/' {
				b.WriteByte('/')
				at = append(at, i)
				i = j
				continue
			}
		}
		b.WriteByte(s[i])
		at = append(at, i)
	}
	return b.String(), append(at, len(s))
}
