package llm

import (
	"encoding/base64"
	"net/url"
	"sort"
	"strings"
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
	if err != nil || u.User == nil {
		// A URL that fails to parse may still carry userinfo; cut it out
		// by hand rather than echo it.
		if i := strings.Index(s, "://"); i >= 0 {
			rest := s[i+3:]
			host := rest
			if j := strings.IndexAny(rest, "/?#"); j >= 0 {
				host = rest[:j]
			}
			if at := strings.LastIndex(host, "@"); at >= 0 {
				return s[:i+3] + Redacted + rest[at:]
			}
		}
		return s
	}
	u.User = nil
	out := u.String()
	i := strings.Index(out, "://")
	if i < 0 {
		return out
	}
	return out[:i+3] + Redacted + "@" + out[i+3:]
}

// redactQuery masks, in the query of URL text s, the value of every
// parameter secretParam names, keeping the order and spelling of the rest.
func redactQuery(s string) string {
	q := strings.IndexByte(s, '?')
	if q < 0 {
		return s
	}
	end := len(s)
	if h := strings.IndexByte(s[q:], '#'); h >= 0 {
		end = q + h
	}
	parts := strings.Split(s[q+1:end], "&")
	for i, p := range parts {
		name, _, ok := strings.Cut(p, "=")
		if !ok {
			continue
		}
		if n, err := url.QueryUnescape(name); err == nil && secretParam(n) || secretParam(name) {
			parts[i] = name + "=" + Redacted
		}
	}
	return s[:q+1] + strings.Join(parts, "&") + s[end:]
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

// Redactor scrubs a set of secrets from text: the API key, the userinfo
// of the base URL, and the encodings an endpoint could echo them in (a
// Basic Authorization header is base64 of "user:password").
type Redactor struct {
	secrets []string // longest first, so a key's prefix never survives its key
}

// NewRedactor builds a redactor for key and the credentials of baseURL:
// its userinfo and the values of its credential query parameters.
func NewRedactor(key, baseURL string) *Redactor {
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
		add(base64.StdEncoding.EncodeToString([]byte(s)))
		add(base64.RawURLEncoding.EncodeToString([]byte(s)))
	}
	addAll(key)
	if u, err := url.Parse(baseURL); err == nil {
		for name, vals := range u.Query() {
			if secretParam(name) {
				for _, v := range vals {
					addAll(v)
				}
			}
		}
	}
	if u, err := url.Parse(baseURL); err == nil && u.User != nil {
		name := u.User.Username()
		pass, _ := u.User.Password()
		addAll(name)
		addAll(pass)
		addAll(name + ":" + pass)
		add(u.User.String())
	}
	sort.Slice(cand, func(i, j int) bool {
		if len(cand[i]) != len(cand[j]) {
			return len(cand[i]) > len(cand[j])
		}
		return cand[i] < cand[j]
	})
	r := &Redactor{}
	for i, s := range cand {
		if i == 0 || s != cand[i-1] {
			r.secrets = append(r.secrets, s)
		}
	}
	return r
}

// Redact returns s with every secret replaced by [Redacted].
func (r *Redactor) Redact(s string) string {
	if r == nil {
		return s
	}
	for _, sec := range r.secrets {
		if strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, Redacted)
		}
	}
	return s
}
