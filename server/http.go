package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/missingcomplement/mss"
)

// HTTP defaults.
const (
	DefaultMaxBody       = 1 << 20 // bytes per request body
	DefaultMaxConcurrent = 16      // requests answered at once
	DefaultQueueWait     = 10 * time.Second
	SessionHeader        = "Mss-Session-Id"
)

// HandlerOptions configure the HTTP API.
type HandlerOptions struct {
	MaxBody       int64         // request body limit; 0 means DefaultMaxBody
	MaxConcurrent int           // 0 means DefaultMaxConcurrent
	QueueWait     time.Duration // how long a request waits for a slot; 0 means DefaultQueueWait
	// MCP, when set, is mounted at /mcp (the streamable HTTP transport).
	MCP http.Handler
}

// NewHandler returns the JSON HTTP API over svc:
//
//	POST /v1/recover   RecoverRequest -> RecoverResponse
//	POST /v1/observed  {"session_id", "observed_spans"} -> SessionInfo
//	POST /v1/search    {"query", "limit"} -> {"units": [...]}
//	POST /v1/index     re-index now -> IndexInfo
//	GET  /v1/health    Status
//
// Authentication is added by RequireToken around it.
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
	h := &handler{svc: svc, opts: opts, slots: make(chan struct{}, opts.MaxConcurrent)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/recover", h.limited(h.recover))
	mux.HandleFunc("POST /v1/observed", h.limited(h.observed))
	mux.HandleFunc("POST /v1/search", h.limited(h.search))
	mux.HandleFunc("POST /v1/index", h.limited(h.reindex))
	mux.HandleFunc("GET /v1/health", h.health)
	if opts.MCP != nil {
		mux.Handle("/mcp", http.MaxBytesHandler(opts.MCP, opts.MaxBody))
	}
	return mux
}

type handler struct {
	svc   *Service
	opts  HandlerOptions
	slots chan struct{}
}

// limited bounds concurrent work and the request body.
func (h *handler) limited(f http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		t := time.NewTimer(h.opts.QueueWait)
		defer t.Stop()
		select {
		case h.slots <- struct{}{}:
			defer func() { <-h.slots }()
		case <-t.C:
			w.Header().Set("Retry-After", "1")
			writeError(w, http.StatusServiceUnavailable, errors.New("server busy: too many concurrent requests"))
			return
		case <-r.Context().Done():
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, h.opts.MaxBody)
		f(w, r)
	}
}

// decode reads one JSON object, rejecting unknown fields and trailing data.
func decode(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return err
		}
		if errors.Is(err, io.EOF) {
			return &BadRequest{errors.New("empty body: want a JSON object")}
		}
		return &BadRequest{fmt.Errorf("bad JSON: %w", err)}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return &BadRequest{errors.New("bad JSON: more than one value in the body")}
	}
	return nil
}

func (h *handler) fail(w http.ResponseWriter, err error) {
	var tooBig *http.MaxBytesError
	var bad *BadRequest
	switch {
	case errors.As(err, &tooBig):
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Errorf("request body larger than %d bytes", tooBig.Limit))
	case errors.As(err, &bad):
		writeError(w, http.StatusBadRequest, err)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		writeError(w, http.StatusServiceUnavailable, err)
	default:
		writeError(w, http.StatusInternalServerError, err)
	}
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

func (h *handler) recover(w http.ResponseWriter, r *http.Request) {
	var req RecoverRequest
	if err := decode(r, &req); err != nil {
		h.fail(w, err)
		return
	}
	id, err := sessionID(r, req.SessionID)
	if err != nil {
		h.fail(w, err)
		return
	}
	req.SessionID = id
	resp, err := h.svc.Recover(r.Context(), &req)
	if err != nil {
		h.fail(w, err)
		return
	}
	w.Header().Set(SessionHeader, resp.SessionID)
	writeJSON(w, http.StatusOK, resp)
}

// ObservedRequest reports spans an agent has read.
type ObservedRequest struct {
	SessionID     string     `json:"session_id,omitempty"`
	ObservedSpans []mss.Span `json:"observed_spans"`
}

func (h *handler) observed(w http.ResponseWriter, r *http.Request) {
	var req ObservedRequest
	if err := decode(r, &req); err != nil {
		h.fail(w, err)
		return
	}
	if req.SessionID == "" && r.Header.Get(SessionHeader) == "" {
		h.fail(w, &BadRequest{fmt.Errorf("session_id or the %s header is required", SessionHeader)})
		return
	}
	id, err := sessionID(r, req.SessionID)
	if err != nil {
		h.fail(w, err)
		return
	}
	info, err := h.svc.MarkObserved(id, req.ObservedSpans)
	if err != nil {
		h.fail(w, err)
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

func (h *handler) search(w http.ResponseWriter, r *http.Request) {
	var req SearchRequest
	if err := decode(r, &req); err != nil {
		h.fail(w, err)
		return
	}
	units, err := h.svc.Search(r.Context(), req.Query, req.Limit)
	if err != nil {
		h.fail(w, err)
		return
	}
	if units == nil {
		units = []mss.Unit{}
	}
	for i := range units {
		units[i].Defines, units[i].References, units[i].Imports = nil, nil, nil
	}
	writeJSON(w, http.StatusOK, map[string]any{"units": units})
}

func (h *handler) reindex(w http.ResponseWriter, r *http.Request) {
	info, err := h.svc.Reindex(r.Context())
	if err != nil {
		h.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, info)
}

func (h *handler) health(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, h.svc.Status())
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v) // the client may be gone; nothing to do about it
}

func writeError(w http.ResponseWriter, code int, err error) {
	writeJSON(w, code, map[string]string{"error": err.Error()})
}

// ServeOptions configure ListenAndServe.
type ServeOptions struct {
	AllowRemote bool
	// Token, when set, is required as a bearer token (except on /v1/health).
	Token        string
	ReadTimeout  time.Duration // 0 means 30s
	WriteTimeout time.Duration // 0 means 5m (a first re-index may be slow)
	// Ready, when set, receives the bound address once listening.
	Ready func(addr string)
}

// ListenAndServe serves h on addr until ctx ends, then shuts down
// gracefully. It refuses non-loopback addresses unless AllowRemote, and
// refuses remote access without a token.
func ListenAndServe(ctx context.Context, addr string, h http.Handler, opts ServeOptions) error {
	if err := CheckListen(addr, opts.AllowRemote); err != nil {
		return err
	}
	if opts.AllowRemote && opts.Token == "" {
		return errors.New("remote access needs a bearer token (set MSS_SERVE_TOKEN or --token-env)")
	}
	if opts.ReadTimeout <= 0 {
		opts.ReadTimeout = 30 * time.Second
	}
	if opts.WriteTimeout <= 0 {
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
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       opts.ReadTimeout,
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
