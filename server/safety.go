package server

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/missingcomplement/mss"
)

// ErrBadPath is returned for a path that is not a clean repository-relative path.
var ErrBadPath = mss.ErrBadPath

// RepoPath validates a path from a request (mss.CleanPath): relative,
// forward slashes or backslashes, no ".." component, no NUL. It returns
// the cleaned path.
func RepoPath(p string) (string, error) { return mss.CleanPath(p) }

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

// CheckToken refuses a bearer token no client could send: blank, with
// white space around it, or with control characters.
func CheckToken(token string) error {
	if token == "" {
		return nil
	}
	if strings.TrimSpace(token) == "" {
		return errors.New("the bearer token is blank; unset it to serve without a token, or set a real one")
	}
	if strings.TrimSpace(token) != token {
		return errors.New("the bearer token has white space around it, which HTTP clients cannot send; remove it")
	}
	for _, r := range token {
		if r < 0x20 || r == 0x7f {
			return errors.New("the bearer token holds a control character, which HTTP clients cannot send")
		}
	}
	return nil
}

type authKey struct{}

// Authenticated reports whether the request carried the server's bearer
// token (false when the server has none).
func Authenticated(ctx context.Context) bool {
	ok, _ := ctx.Value(authKey{}).(bool)
	return ok
}

// bearer returns the credentials of an "Authorization: Bearer <token>"
// header; the scheme is case-insensitive (RFC 9110, 11.1).
func bearer(header string) (string, bool) {
	scheme, cred, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimLeft(cred, " "), true
}

// RequireToken wraps h so that every request must carry
// "Authorization: Bearer <token>". An empty token disables the check.
// Paths in open are served without a token (health checks); a request
// that carries the token is marked Authenticated there too.
func RequireToken(token string, h http.Handler, open ...string) http.Handler {
	if token == "" {
		return h
	}
	want := []byte(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := bearer(r.Header.Get("Authorization"))
		if ok && subtle.ConstantTimeCompare([]byte(got), want) == 1 {
			h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), authKey{}, true)))
			return
		}
		for _, p := range open {
			if r.URL.Path == p {
				h.ServeHTTP(w, r)
				return
			}
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="mss"`)
		writeError(w, http.StatusUnauthorized, CodeUnauthorized, "missing or wrong bearer token")
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
			writeError(w, http.StatusForbidden, CodeForbiddenHost, fmt.Sprintf("host %q is not loopback", r.Host))
			return
		}
		h.ServeHTTP(w, r)
	})
}
