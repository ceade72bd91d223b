package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/missingcomplement/mss"
)

// Error codes of the HTTP API. Every error answer is a JSON object
//
//	{"code": "...", "message": "...", "field": "...", "line": N}
//
// whose code is one of these (field and line only for state cards). Codes
// are stable; messages are for people and may change.
const (
	CodeBadRequest       = "bad_request"        // malformed JSON or a bad argument
	CodeInvalidState     = "invalid_state"      // the state card is refused (field names which part)
	CodeBodyTooLarge     = "body_too_large"     // 413: over --max-body
	CodeBodyTimeout      = "body_timeout"       // 408: the body did not arrive in time
	CodeUnauthorized     = "unauthorized"       // 401: missing or wrong bearer token
	CodeForbiddenHost    = "forbidden_host"     // 403: a non-loopback Host on a loopback server
	CodeNotFound         = "not_found"          // 404: no such route
	CodeMethodNotAllowed = "method_not_allowed" // 405: the route takes another method (see Allow)
	CodeBusy             = "busy"               // 503: no request slot within the queue wait
	CodeIndexUnavailable = "index_unavailable"  // 503: no usable index yet (indexing, or the build failed)
	CodeCanceled         = "canceled"           // 503: the request was canceled or timed out
	CodeInternal         = "internal"           // 500: anything else
)

// APIError is the JSON body of every error answer.
type APIError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Field and Line locate a refused state card's problem.
	Field string `json:"field,omitempty"`
	Line  int    `json:"line,omitempty"`
}

func (e *APIError) Error() string { return e.Message }

// indexUnavailable marks an error caused by having no usable index.
type indexUnavailable struct{ err error }

func (e *indexUnavailable) Error() string { return e.err.Error() }
func (e *indexUnavailable) Unwrap() error { return e.err }

// bodyTimeout marks a request body that did not arrive before its deadline.
type bodyTimeout struct{ err error }

func (e *bodyTimeout) Error() string {
	return "request body not received in time: " + e.err.Error()
}
func (e *bodyTimeout) Unwrap() error { return e.err }

// classify maps an error to its HTTP status and API error.
func classify(err error) (int, *APIError) {
	var (
		tooBig *http.MaxBytesError
		state  *mss.StateError
		bad    *BadRequest
		slow   *bodyTimeout
		noIdx  *indexUnavailable
		api    *APIError
	)
	switch {
	case errors.As(err, &api):
		return http.StatusBadRequest, api
	case errors.As(err, &tooBig):
		return http.StatusRequestEntityTooLarge, &APIError{Code: CodeBodyTooLarge, Message: fmt.Sprintf("request body larger than %d bytes", tooBig.Limit)}
	case errors.As(err, &slow):
		return http.StatusRequestTimeout, &APIError{Code: CodeBodyTimeout, Message: slow.Error()}
	case errors.As(err, &state):
		return http.StatusBadRequest, &APIError{Code: CodeInvalidState, Message: err.Error(), Field: state.Field, Line: state.Line}
	case errors.As(err, &bad):
		return http.StatusBadRequest, &APIError{Code: CodeBadRequest, Message: err.Error()}
	case errors.As(err, &noIdx):
		return http.StatusServiceUnavailable, &APIError{Code: CodeIndexUnavailable, Message: err.Error()}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return http.StatusServiceUnavailable, &APIError{Code: CodeCanceled, Message: err.Error()}
	}
	return http.StatusInternalServerError, &APIError{Code: CodeInternal, Message: err.Error()}
}

// publicError is err as a caller without the server's token is told it:
// an error of the server's own (5xx) names each absolute path by its
// base name (writeFailure); any other, about the request, is as it is.
func publicError(err error) error {
	if status, api := classify(err); status >= 500 {
		return errors.New(publicText(api.Message))
	}
	return err
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, &APIError{Code: code, Message: msg})
}

// writeFailure answers err, met answering r, as its status and JSON
// error. An error of the server's own (5xx: no usable index, a failure)
// names each absolute path by its base name to a request without the
// server's token, as health does (Status.Public).
func writeFailure(w http.ResponseWriter, r *http.Request, err error) {
	status, api := classify(err)
	if status >= 500 && !Authenticated(r.Context()) {
		pub := *api
		pub.Message = publicText(api.Message)
		api = &pub
	}
	if status == http.StatusRequestTimeout {
		w.Header().Set("Connection", "close")
	}
	writeJSON(w, status, api)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v) // the client may be gone; nothing to do about it
}
