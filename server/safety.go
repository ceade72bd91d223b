package server

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path"
	"strings"

	"github.com/missingcomplement/mss"
)

// ErrBadPath is returned for a path that is not a clean repository-relative path.
var ErrBadPath = errors.New("not a repository-relative path")

// RepoPath validates a path from a request: relative, forward slashes or
// backslashes, no ".." component, no NUL. It returns the cleaned path.
func RepoPath(p string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("%w: empty", ErrBadPath)
	}
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("%w: %q contains NUL", ErrBadPath, p)
	}
	q := strings.ReplaceAll(p, `\`, "/")
	if strings.HasPrefix(q, "/") || (len(q) >= 2 && q[1] == ':') {
		return "", fmt.Errorf("%w: %q is absolute", ErrBadPath, p)
	}
	for _, part := range strings.Split(q, "/") {
		if part == ".." {
			return "", fmt.Errorf("%w: %q climbs out of the repository with a .. element", ErrBadPath, p)
		}
	}
	q = path.Clean(q)
	if q == "." {
		return "", fmt.Errorf("%w: %q names the root", ErrBadPath, p)
	}
	return q, nil
}

// maxLine bounds line numbers from requests.
const maxLine = 1 << 30

// CheckSpans validates and cleans spans from a request. field names the
// request field for error messages.
func CheckSpans(field string, spans []mss.Span) ([]mss.Span, error) {
	out := make([]mss.Span, 0, len(spans))
	for i, s := range spans {
		p, err := RepoPath(s.Path)
		if err != nil {
			return nil, fmt.Errorf("%s[%d].path: %w", field, i, err)
		}
		if s.StartLine < 1 || s.EndLine < s.StartLine || s.EndLine > maxLine {
			return nil, fmt.Errorf("%s[%d]: bad line range %d-%d (want 1 <= start_line <= end_line)", field, i, s.StartLine, s.EndLine)
		}
		s.Path = p
		out = append(out, s)
	}
	return out, nil
}

// CheckListen refuses a listen address that is not loopback unless
// allowRemote is set. An empty host (":8080") listens everywhere and is
// refused too.
func CheckListen(addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address %q: %w", addr, err)
	}
	if allowRemote {
		return nil
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("listen address %q is not loopback; use 127.0.0.1 or pass --allow-remote (with a token)", addr)
}

// RequireToken wraps h so that every request must carry
// "Authorization: Bearer <token>". An empty token disables the check.
// Paths in open are served without a token (health checks).
func RequireToken(token string, h http.Handler, open ...string) http.Handler {
	if token == "" {
		return h
	}
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, p := range open {
			if r.URL.Path == p {
				h.ServeHTTP(w, r)
				return
			}
		}
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mss"`)
			writeError(w, http.StatusUnauthorized, errors.New("missing or wrong bearer token"))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// LoopbackHosts wraps h so that only requests naming a loopback host
// (localhost, 127.0.0.1, ::1, with any port) are served. A server bound to
// loopback is then out of reach of DNS-rebinding pages in a browser,
// which reach it under a host name of their own.
func LoopbackHosts(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if hst, _, err := net.SplitHostPort(host); err == nil {
			host = hst
		}
		host = strings.Trim(host, "[]")
		ip := net.ParseIP(host)
		if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			writeError(w, http.StatusForbidden, fmt.Errorf("host %q is not loopback", r.Host))
			return
		}
		h.ServeHTTP(w, r)
	})
}
