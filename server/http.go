package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path"
	"strings"
	"time"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/internal/jsonkey"
)

// HTTP defaults.
const (
	DefaultMaxBody       = 1 << 20 // bytes per request body
	DefaultMaxConcurrent = 16      // requests answered at once
	DefaultQueueWait     = 10 * time.Second
	DefaultBodyTimeout   = 10 * time.Second // for a request body to arrive
	SessionHeader        = "Mss-Session-Id"
)

// HandlerOptions configure the HTTP API. Zero values take the defaults;
// Check refuses negative ones.
type HandlerOptions struct {
	MaxBody       int64         // request body limit; 0 means DefaultMaxBody
	MaxConcurrent int           // 0 means DefaultMaxConcurrent
	QueueWait     time.Duration // how long a request waits for a slot; 0 means DefaultQueueWait
	// BodyTimeout bounds the time a request body takes to arrive; 0 means
	// DefaultBodyTimeout. The body is read before the request takes a
	// slot, so a slow client holds no slot, and gets 408 when it is late.
	BodyTimeout time.Duration
	// MCP, when set, is mounted at /mcp (the streamable HTTP transport).
	// Its POST requests share the body limit, the body deadline and the
	// concurrency slots with the rest of the API.
	MCP http.Handler
}

// Check refuses negative limits.
func (o *HandlerOptions) Check() error {
	switch {
	case o.MaxBody < 0:
		return fmt.Errorf("max body %d: want a positive number of bytes", o.MaxBody)
	case o.MaxConcurrent < 0:
		return fmt.Errorf("max concurrent %d: want a positive number of requests", o.MaxConcurrent)
	case o.QueueWait < 0:
		return fmt.Errorf("queue wait %s: want a positive duration", o.QueueWait)
	case o.BodyTimeout < 0:
		return fmt.Errorf("body timeout %s: want a positive duration", o.BodyTimeout)
	}
	return nil
}

// NewHandler returns the JSON HTTP API over svc:
//
//	POST /v1/recover   RecoverRequest -> RecoverResponse
//	POST /v1/observed  {"session_id", "observed_spans"} -> SessionInfo
//	POST /v1/search    {"query", "limit"} -> {"units": [...]}
//	POST /v1/index     {} or no body: re-index now -> IndexInfo
//	GET  /v1/health    Status
//
// Every error is an APIError (JSON, with a stable code), 404 and 405
// included. Authentication is added by RequireToken around it.
func NewHandler(svc *Service, opts HandlerOptions) http.Handler {
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.MaxConcurrent <= 0 {
		opts.MaxConcurrent = DefaultMaxConcurrent
	}
	if opts.QueueWait <= 0 {
		opts.QueueWait = DefaultQueueWait
	}
	if opts.BodyTimeout <= 0 {
		opts.BodyTimeout = DefaultBodyTimeout
	}
	h := &handler{svc: svc, opts: opts, slots: make(chan struct{}, opts.MaxConcurrent), routes: map[string]string{}}
	h.handle("POST", "/v1/recover", h.limited(h.recover))
	h.handle("POST", "/v1/observed", h.limited(h.observed))
	h.handle("POST", "/v1/search", h.limited(h.search))
	h.handle("POST", "/v1/index", h.limited(h.reindex))
	h.handle("GET", "/v1/health", h.health)
	if opts.MCP != nil {
		h.mux.Handle("/mcp", h.mcp(opts.MCP))
	}
	return h
}

type handler struct {
	svc    *Service
	opts   HandlerOptions
	slots  chan struct{}
	mux    http.ServeMux
	routes map[string]string // path -> method
}

func (h *handler) handle(method, path string, f http.HandlerFunc) {
	h.mux.HandleFunc(method+" "+path, f)
	h.routes[path] = method
}

// ServeHTTP answers unknown routes and methods in JSON too, and a path
// not in its clean form (//v1/health, /v1/../v1/health) as no route,
// where the mux would redirect in HTML.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if p := r.URL.Path; p != "/" && (p != path.Clean(p) || strings.HasSuffix(p, "/")) {
		writeError(w, http.StatusNotFound, CodeNotFound, fmt.Sprintf("no route %s %s: routes are named by their clean paths (see GET /v1/health and docs/serve.md)", r.Method, p))
		return
	}
	if _, pattern := h.mux.Handler(r); pattern != "" {
		h.mux.ServeHTTP(w, r)
		return
	}
	if m, ok := h.routes[r.URL.Path]; ok && !(m == "GET" && r.Method == "HEAD") {
		w.Header().Set("Allow", m)
		writeError(w, http.StatusMethodNotAllowed, CodeMethodNotAllowed, fmt.Sprintf("%s %s: this route takes %s", r.Method, r.URL.Path, m))
		return
	}
	writeError(w, http.StatusNotFound, CodeNotFound, fmt.Sprintf("no route %s %s (see GET /v1/health and docs/serve.md)", r.Method, r.URL.Path))
}

// readBody reads the whole request body, at most MaxBody bytes, within
// BodyTimeout. It runs before the request takes a slot.
func (h *handler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Now().Add(h.opts.BodyTimeout)) // not every writer supports deadlines (tests)
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBody))
	rc.SetReadDeadline(time.Time{})
	if err == nil {
		// A UTF-8 byte order mark is skipped on every route, as the card
		// reader skips it.
		return mss.TrimByteOrderMark(data), nil
	}
	var tooBig *http.MaxBytesError
	var ne net.Error
	switch {
	case errors.As(err, &tooBig):
		return nil, err
	case errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return nil, &bodyTimeout{fmt.Errorf("%d bytes in %s", len(data), h.opts.BodyTimeout)}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return nil, &BadRequest{fmt.Errorf("request body ended after %d bytes, before its Content-Length", len(data))}
	}
	return nil, &BadRequest{fmt.Errorf("reading the request body: %w", err)}
}

// acquire takes a request slot, waiting up to QueueWait. It answers the
// request itself and returns false when it gets none.
func (h *handler) acquire(w http.ResponseWriter, r *http.Request) bool {
	t := time.NewTimer(h.opts.QueueWait)
	defer t.Stop()
	select {
	case h.slots <- struct{}{}:
		return true
	case <-t.C:
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, CodeBusy, "server busy: too many concurrent requests")
	case <-r.Context().Done():
		writeFailure(w, r, r.Context().Err())
	}
	return false
}

func (h *handler) release() { <-h.slots }

// limited reads the body, then bounds concurrent work.
func (h *handler) limited(f func(http.ResponseWriter, *http.Request, []byte)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := h.readBody(w, r)
		if err != nil {
			writeFailure(w, r, err)
			return
		}
		if !h.acquire(w, r) {
			return
		}
		defer h.release()
		f(w, r, body)
	}
}

// mcp bounds the streamable HTTP transport like the rest of the API: a
// POST (a client message) has its body read first, then takes a slot for
// as long as it is answered. GET (the server's event stream) and DELETE
// carry no body and take no slot.
func (h *handler) mcp(next http.Handler) http.Handler {
	next = jsonErrors(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		body, err := h.readBody(w, r)
		if err != nil {
			writeFailure(w, r, err)
			return
		}
		if why := badRequestIDs(body); why != "" {
			writeError(w, http.StatusBadRequest, CodeBadRequest, "invalid request: "+why)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		if !h.acquire(w, r) {
			return
		}
		defer h.release()
		next.ServeHTTP(w, r)
	})
}

// badRequestIDs says why a POST to /mcp is refused for the id of a
// request it holds (its message, or one of its batch), or returns "":
// the transport would answer under another id, or under none (badID).
// Anything else malformed is left for the transport to refuse.
func badRequestIDs(body []byte) string {
	body = bytes.TrimSpace(body)
	msgs := []json.RawMessage{body}
	if len(body) > 0 && body[0] == '[' {
		if json.Unmarshal(body, &msgs) != nil {
			return ""
		}
	}
	for _, msg := range msgs {
		if id, hasID, request := messageHead(msg); request && hasID {
			if why := badID(id); why != "" {
				return why
			}
		}
	}
	return ""
}

// jsonErrors answers the transport's own refusals (a wrong content type,
// a malformed message, an unknown session), which it writes as plain
// text, as the API's JSON errors: the same status, a code for it, and the
// transport's text as the message. Answers that are JSON or an event
// stream pass through as they are written.
func jsonErrors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		jw := &errorWriter{ResponseWriter: w}
		next.ServeHTTP(jw, r)
		if jw.status == 0 {
			return
		}
		code := CodeBadRequest
		switch jw.status {
		case http.StatusNotFound:
			code = CodeNotFound
		case http.StatusMethodNotAllowed:
			code = CodeMethodNotAllowed
		case http.StatusUnauthorized:
			code = CodeUnauthorized
		case http.StatusServiceUnavailable:
			code = CodeBusy
		}
		if jw.status >= 500 && jw.status != http.StatusServiceUnavailable {
			code = CodeInternal
		}
		w.Header().Del("Content-Length")
		writeError(w, jw.status, code, strings.TrimSpace(jw.text.String()))
	})
}

// errorWriter holds back an error answer that is not JSON (status is
// then set, and text gathers its body).
type errorWriter struct {
	http.ResponseWriter
	status  int
	text    strings.Builder
	started bool
}

func (w *errorWriter) WriteHeader(status int) {
	if !w.started && status >= 400 && !strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
		w.status = status
		w.started = true
		return
	}
	w.started = true
	w.ResponseWriter.WriteHeader(status)
}

func (w *errorWriter) Write(b []byte) (int, error) {
	if !w.started {
		w.WriteHeader(http.StatusOK)
	}
	if w.status != 0 {
		return w.text.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

// Flush passes an event stream's flushes through.
func (w *errorWriter) Flush() {
	if w.status == 0 {
		http.NewResponseController(w.ResponseWriter).Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *errorWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// decode reads one JSON object from body, rejecting unknown fields and
// trailing data. An empty body decodes as {} when emptyOK.
func decode(body []byte, v any, emptyOK bool) error {
	if len(bytes.TrimSpace(body)) == 0 {
		if emptyOK {
			return nil
		}
		return &BadRequest{errors.New("empty body: want a JSON object")}
	}
	if se := mss.CheckUTF8(body); se != nil {
		return fieldError(se)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return &APIError{Code: CodeBadRequest, Message: "bad JSON: " + syn.Error(), Line: lineOf(body, syn.Offset)}
		case errors.As(err, &typ):
			return typeMismatch(body, typ)
		case errors.Is(err, io.ErrUnexpectedEOF):
			return &BadRequest{errors.New("bad JSON: unexpected end of the body")}
		}
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			name = strings.Trim(name, `"`)
			return &APIError{Code: CodeBadRequest, Message: fmt.Sprintf("unknown field %q", name), Field: name, Line: lineOf(body, dec.InputOffset())}
		}
		return &BadRequest{fmt.Errorf("bad JSON: %w", err)}
	}
	if dec.More() {
		return &BadRequest{errors.New("bad JSON: more than one value in the body")}
	}
	return nil
}

// typeMismatch is the error of a value of the wrong type in body, naming
// its field: what the HTTP API and the MCP tools answer for it.
func typeMismatch(body []byte, typ *json.UnmarshalTypeError) *APIError {
	field := mss.ElementField(body, strings.TrimPrefix(typ.Field, "State."), typ.Offset) // the card embedded in RecoverRequest
	if field == "" {
		return &APIError{Code: CodeBadRequest, Message: fmt.Sprintf("bad JSON: want an object, got JSON %s", typ.Value)}
	}
	return &APIError{Code: CodeBadRequest, Message: fmt.Sprintf("field %s: want %v, got JSON %s", field, typ.Type, typ.Value), Field: field, Line: lineOf(body, typ.Offset)}
}

func lineOf(data []byte, off int64) int {
	off = max(0, min(off, int64(len(data))))
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

// sessionID takes the session from the header or the body; a request with
// neither starts a new session, whose id the response carries.
func sessionID(r *http.Request, body string) (string, error) {
	hdr := r.Header.Get(SessionHeader)
	switch {
	case hdr != "" && body != "" && hdr != body:
		return "", &BadRequest{fmt.Errorf("session id differs between the %s header (%q) and session_id (%q)", SessionHeader, hdr, body)}
	case body != "":
		return body, nil
	case hdr != "":
		return hdr, nil
	}
	return NewSessionID(), nil
}

// checkKeys refuses in a request body what mss.ParseState refuses in a
// card and encoding/json would take without a word: a key matched to a
// field only by folding case, a field given twice, a null for a field
// (of the card, or the request's own, such as budget_tokens, which
// encoding/json reads as the field left out). v is the request.
func checkKeys(body []byte, v any) error {
	var own []string
	for _, k := range jsonkey.Names(v) {
		if k != "State" { // the embedded card, whose fields CheckKeys knows
			own = append(own, k)
		}
	}
	if se := mss.CheckKeys(body, own...); se != nil {
		return fieldError(se)
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return nil
	}
	for _, k := range own {
		if string(top[k]) == "null" {
			se := &mss.StateError{Field: k, Msg: "null; give a value, or leave the field out"}
			se.Locate(body)
			return fieldError(se)
		}
	}
	return nil
}

// fieldError is what the root package's card reader refused in a request
// body, as an API error naming the field and line.
func fieldError(se *mss.StateError) error {
	msg := se.Msg
	if se.Field != "" {
		msg = fmt.Sprintf("field %s: %s", se.Field, se.Msg)
	}
	return &APIError{Code: CodeBadRequest, Message: msg, Field: se.Field, Line: se.Line}
}

func (h *handler) recover(w http.ResponseWriter, r *http.Request, body []byte) {
	var req RecoverRequest
	if err := decode(body, &req, false); err != nil {
		writeFailure(w, r, err)
		return
	}
	if err := checkKeys(body, &req); err != nil {
		writeFailure(w, r, err)
		return
	}
	id, err := sessionID(r, req.SessionID)
	if err != nil {
		writeFailure(w, r, err)
		return
	}
	req.SessionID = id
	resp, err := h.svc.Recover(r.Context(), &req)
	if err != nil {
		var se *mss.StateError
		if errors.As(err, &se) {
			se.Locate(body)
		}
		writeFailure(w, r, err)
		return
	}
	if !Authenticated(r.Context()) {
		resp.Index = resp.Index.Public()
	}
	w.Header().Set(SessionHeader, resp.SessionID)
	writeJSON(w, http.StatusOK, resp)
}

// ObservedRequest reports spans an agent has read.
type ObservedRequest struct {
	SessionID     string     `json:"session_id,omitempty"`
	ObservedSpans []mss.Span `json:"observed_spans"`
}

func (h *handler) observed(w http.ResponseWriter, r *http.Request, body []byte) {
	var req ObservedRequest
	if err := decode(body, &req, false); err != nil {
		writeFailure(w, r, err)
		return
	}
	if err := checkKeys(body, &req); err != nil {
		writeFailure(w, r, err)
		return
	}
	if req.SessionID == "" && r.Header.Get(SessionHeader) == "" {
		writeFailure(w, r, &BadRequest{fmt.Errorf("session_id or the %s header is required", SessionHeader)})
		return
	}
	if req.ObservedSpans == nil {
		// As mark_observed requires it: a request that reports nothing
		// is more likely a mistake than a question ([] asks the counts).
		writeFailure(w, r, fieldError(&mss.StateError{Field: "observed_spans", Msg: "missing; give the spans read ([] for none)"}))
		return
	}
	id, err := sessionID(r, req.SessionID)
	if err != nil {
		writeFailure(w, r, err)
		return
	}
	info, err := h.svc.MarkObserved(r.Context(), id, req.ObservedSpans)
	if err != nil {
		var se *mss.StateError
		if errors.As(err, &se) {
			se.Locate(body)
		}
		writeFailure(w, r, err)
		return
	}
	w.Header().Set(SessionHeader, id)
	writeJSON(w, http.StatusOK, info)
}

// SearchRequest is a plain lexical/symbol search.
type SearchRequest struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty"`
}

// SearchResponse is the answer to a search.
type SearchResponse struct {
	Units []mss.Unit `json:"units"`
	// Warnings name results left out (a file changed or unreadable since
	// indexing).
	Warnings []string `json:"warnings,omitempty"`
}

func (h *handler) search(w http.ResponseWriter, r *http.Request, body []byte) {
	var req SearchRequest
	if err := decode(body, &req, false); err != nil {
		writeFailure(w, r, err)
		return
	}
	if err := checkKeys(body, &req); err != nil {
		writeFailure(w, r, err)
		return
	}
	resp, err := h.svc.Search(r.Context(), req.Query, req.Limit)
	if err != nil {
		writeFailure(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

// IndexRequest is the body of POST /v1/index: no fields yet.
type IndexRequest struct{}

func (h *handler) reindex(w http.ResponseWriter, r *http.Request, body []byte) {
	var req IndexRequest
	if err := decode(body, &req, true); err != nil {
		writeFailure(w, r, err)
		return
	}
	info, err := h.svc.Reindex(r.Context())
	if err != nil {
		writeFailure(w, r, err)
		return
	}
	if !Authenticated(r.Context()) {
		info = info.Public()
	}
	writeJSON(w, http.StatusOK, info)
}

// health answers the service's status. Absolute paths (the repository,
// the index file) are shown only to a request that carried the server's
// bearer token; a server without a token never shows them here.
func (h *handler) health(w http.ResponseWriter, r *http.Request) {
	st := h.svc.Status()
	if !Authenticated(r.Context()) {
		st = st.Public()
	}
	code := http.StatusOK
	if st.Status == StateError {
		code = http.StatusServiceUnavailable
	}
	writeJSON(w, code, st)
}

// ServeOptions configure ListenAndServe.
type ServeOptions struct {
	AllowRemote bool
	// Token, when set, is required as a bearer token (except on /v1/health).
	// A token that is blank or has white space around it is refused: no
	// client could send it.
	Token string
	// HeaderTimeout bounds the time request headers take to arrive; 0
	// means 5s. (Bodies are bounded by HandlerOptions.BodyTimeout.)
	HeaderTimeout time.Duration
	WriteTimeout  time.Duration // 0 means 5m (a first re-index may be slow)
	// Ready, when set, receives the bound address once listening.
	Ready func(addr string)
}

// ErrRemoteNeedsToken refuses remote access without a bearer token.
var ErrRemoteNeedsToken = errors.New("remote access needs a bearer token (set MSS_SERVE_TOKEN or --token-env)")

// ListenAndServe serves h on addr until ctx ends, then shuts down
// gracefully. It refuses non-loopback addresses unless AllowRemote, and
// refuses remote access without a token.
func ListenAndServe(ctx context.Context, addr string, h http.Handler, opts ServeOptions) error {
	if err := CheckListen(addr, opts.AllowRemote); err != nil {
		return err
	}
	if opts.AllowRemote && opts.Token == "" {
		return ErrRemoteNeedsToken
	}
	if err := CheckToken(opts.Token); err != nil {
		return err
	}
	if opts.HeaderTimeout < 0 || opts.WriteTimeout < 0 {
		return errors.New("header and write timeouts must not be negative")
	}
	if opts.HeaderTimeout == 0 {
		opts.HeaderTimeout = 5 * time.Second
	}
	if opts.WriteTimeout == 0 {
		opts.WriteTimeout = 5 * time.Minute
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	h = RequireToken(opts.Token, h, "/v1/health")
	if !opts.AllowRemote {
		h = LoopbackHosts(h)
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: opts.HeaderTimeout,
		WriteTimeout:      opts.WriteTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	if opts.Ready != nil {
		opts.Ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	}
}
