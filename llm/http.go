package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// maxBody bounds what is read of one response: a completion of mss's size
// is a few kilobytes; a runaway endpoint must not fill memory.
const maxBody = 16 << 20

// APIError is an HTTP error answer of an endpoint.
type APIError struct {
	Status  int
	Message string // error.message, or the start of the body
	Type    string // error.type
	Code    string // error.code
	Param   string // error.param: the request field refused, when named
	// RetryAfter is the wait the endpoint asked for (Retry-After or
	// retry-after-ms), 0 when it named none.
	RetryAfter time.Duration
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("HTTP %d", e.Status)
	if t := http.StatusText(e.Status); t != "" {
		s += " " + t
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// detail is the text a refusal is classified by: message, param and code.
func (e *APIError) detail() string {
	parts := []string{e.Message}
	if e.Param != "" {
		parts = append(parts, "param '"+e.Param+"'")
	}
	if e.Code != "" {
		parts = append(parts, "code "+e.Code)
	}
	return strings.Join(parts, "; ")
}

// apiError reads an error answer. OpenAI-compatible servers send
// {"error": {"message", "type", "param", "code"}}; some send {"error":
// "text"} or {"message": ...} or plain text.
func apiError(resp *http.Response, body []byte) *APIError {
	e := &APIError{Status: resp.StatusCode, RetryAfter: retryAfter(resp.Header)}
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		var obj struct {
			Message string          `json:"message"`
			Type    string          `json:"type"`
			Param   json.RawMessage `json:"param"`
			Code    json.RawMessage `json:"code"`
		}
		var str string
		switch {
		case len(v.Error) > 0 && json.Unmarshal(v.Error, &obj) == nil && obj.Message != "":
			e.Message, e.Type = obj.Message, obj.Type
			e.Param, e.Code = rawString(obj.Param), rawString(obj.Code)
		case len(v.Error) > 0 && json.Unmarshal(v.Error, &str) == nil:
			e.Message = str
		case v.Message != "":
			e.Message = v.Message
		case len(v.Detail) > 0:
			e.Message = string(v.Detail)
		}
	}
	if e.Message == "" {
		e.Message = string(body)
	}
	if loc := resp.Header.Get("Location"); resp.StatusCode >= 300 && resp.StatusCode < 400 && loc != "" {
		e.Message = "redirected to " + RedactURL(loc) + "; redirects are not followed: set the base URL to the endpoint itself"
	}
	e.Message = oneLine(e.Message, 500)
	return e
}

// rawString is a JSON string's text, a number's digits, or "" for null.
func rawString(r json.RawMessage) string {
	var s string
	if json.Unmarshal(r, &s) == nil {
		return s
	}
	if t := strings.TrimSpace(string(r)); t != "null" {
		return t
	}
	return ""
}

// retryAfter reads Retry-After (seconds or an HTTP date) or OpenAI's
// retry-after-ms.
func retryAfter(h http.Header) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil {
			return wait(ms, time.Millisecond)
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		return wait(s, time.Second)
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}

// wait is n units as a duration: 0 for a negative or NaN n, the longest
// duration for one past it (the caller caps it at its backoff).
func wait(n float64, unit time.Duration) time.Duration {
	d := n * float64(unit)
	switch {
	case !(d > 0):
		return 0
	case d >= float64(math.MaxInt64):
		return math.MaxInt64
	}
	return time.Duration(d)
}

// call posts body with retries and returns the raw 2xx body and the
// attempts made.
func (c *Client) call(ctx context.Context, body []byte) ([]byte, int, error) {
	return c.callURL(ctx, c.url, body)
}

func (c *Client) callURL(ctx context.Context, u string, body []byte) ([]byte, int, error) {
	var lastErr error
	for attempt := 0; attempt <= c.cfg.Retries; attempt++ {
		if attempt > 0 {
			if err := c.Sleep(ctx, c.delay(attempt, lastErr)); err != nil {
				return nil, attempt, err
			}
		}
		release, err := c.lim.Acquire(ctx)
		if err != nil {
			return nil, attempt, err
		}
		raw, err := c.post(ctx, u, body)
		release()
		if err == nil {
			return raw, attempt + 1, nil
		}
		if ctx.Err() != nil {
			return nil, attempt + 1, ctx.Err()
		}
		lastErr = err
		if !retryable(err) {
			return nil, attempt + 1, err
		}
	}
	return nil, c.cfg.Retries + 1, lastErr
}

// post makes one attempt, bounded by the per-attempt timeout. body nil
// makes it a GET.
func (c *Client) post(ctx context.Context, u string, body []byte) ([]byte, error) {
	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	method := http.MethodPost
	var rd io.Reader
	if body == nil {
		method = http.MethodGet
	} else {
		rd = bytes.NewReader(body)
	}
	hreq, err := http.NewRequestWithContext(actx, method, u, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		hreq.Header.Set("Content-Type", "application/json")
	}
	hreq.Header.Set("Accept", "application/json")
	hreq.Header.Set("User-Agent", "mss")
	if c.cfg.APIKey != "" {
		if c.cfg.Auth == AuthAPIKey {
			hreq.Header.Set("api-key", c.cfg.APIKey)
		} else {
			hreq.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
		}
	}
	resp, err := c.http.Do(hreq)
	if err != nil {
		return nil, transportError(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, transportError(err)
	}
	if len(raw) > maxBody {
		return nil, fmt.Errorf("response body over %d bytes", maxBody)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, apiError(resp, raw)
	}
	return raw, nil
}

// transportError drops the URL net/http repeats in its errors (it may
// carry userinfo) and keeps the cause.
func transportError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return &netError{err}
}

// netError marks a failure below HTTP: retryable.
type netError struct{ err error }

func (e *netError) Error() string { return e.err.Error() }
func (e *netError) Unwrap() error { return e.err }

// retryable reports whether err is worth another attempt: rate limits,
// server errors, per-attempt timeouts and transport failures.
func retryable(err error) bool {
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		s := apiErr.Status
		return s == http.StatusTooManyRequests || s == http.StatusRequestTimeout || s == http.StatusConflict || s >= 500
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne *netError
	if errors.As(err, &ne) {
		return true
	}
	var nerr net.Error
	return errors.As(err, &nerr)
}

// delay is the wait before retry number attempt (1-based): Backoff doubled
// per retry, or the server's Retry-After, capped at BackoffMax.
func (c *Client) delay(attempt int, lastErr error) time.Duration {
	d := c.cfg.Backoff << (attempt - 1)
	if d <= 0 || d > c.cfg.BackoffMax {
		d = c.cfg.BackoffMax
	}
	var apiErr *APIError
	if errors.As(lastErr, &apiErr) && apiErr.RetryAfter > 0 {
		d = min(apiErr.RetryAfter, c.cfg.BackoffMax)
	}
	return d
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Probe asks the endpoint for its model list (GET <base>/models, with the
// client's auth), once, and returns the HTTP status. Any status means the
// endpoint is reachable; 401 and 403 mean the key was refused.
func (c *Client) Probe(ctx context.Context) (int, error) {
	u, err := endpointURL(c.cfg.BaseURL, "models", c.cfg.APIVersion)
	if err != nil {
		return 0, fmt.Errorf("base URL %s: %s", RedactURL(c.cfg.BaseURL), redact(err.Error()))
	}
	_, err = c.post(ctx, u, nil)
	var apiErr *APIError
	switch {
	case err == nil:
		return http.StatusOK, nil
	case errors.As(err, &apiErr):
		return apiErr.Status, nil
	}
	return 0, errors.New(redact(err.Error()))
}
