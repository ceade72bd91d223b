// Package llmtest is a local OpenAI-compatible chat completions server for
// tests, with an embeddings endpoint beside it (Embeddings). The chat
// server checks the shape of every request (model, message roles, the
// response format and its JSON Schema) and answers from a script, so tests
// of model-calling code run without a network or a key: well-formed
// replies, malformed JSON, invented ids, 429s, 500s, slow replies and
// refused response formats.
//
// Personalities make it answer the way kinds of real endpoints do (see
// Personality): a current reasoning model, an endpoint without
// json_schema, Azure OpenAI, a rate-limited endpoint, a model that returns
// ids outside the enum, and one that echoes credentials back.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Call is one received chat completion request, decoded.
type Call struct {
	N        int // 1-based arrival order
	Model    string
	Messages []Message
	// Format is the response_format type: "json_schema", "json_object" or
	// "" when absent.
	Format     string
	SchemaName string
	Schema     map[string]any // the json_schema.schema object, if any
	Strict     bool
	Body       []byte // the raw request body
	Auth       string // the Authorization header as received
	APIKey     string // the api-key header as received (Azure)
	Query      string // the raw query string
	Path       string // the request path
	// Fields holds the top-level request fields (max_tokens, temperature,
	// reasoning_effort, ...) decoded.
	Fields map[string]any
}

// Message is one request message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// System is the text of the first system message.
func (c *Call) System() string {
	for _, m := range c.Messages {
		if m.Role == "system" {
			return m.Content
		}
	}
	return ""
}

// User is the text of the last user message.
func (c *Call) User() string {
	for i := len(c.Messages) - 1; i >= 0; i-- {
		if c.Messages[i].Role == "user" {
			return c.Messages[i].Content
		}
	}
	return ""
}

// Enums returns, for every property path in the schema that carries an
// enum, its allowed values. Paths are dotted property names with "[]" for
// array items, e.g. "selected[].id".
func (c *Call) Enums() map[string][]string {
	out := map[string][]string{}
	walkSchema(c.Schema, "", out)
	return out
}

func walkSchema(s map[string]any, path string, out map[string][]string) {
	if s == nil {
		return
	}
	if e, ok := s["enum"].([]any); ok {
		for _, v := range e {
			out[path] = append(out[path], fmt.Sprint(v))
		}
	}
	if props, ok := s["properties"].(map[string]any); ok {
		names := make([]string, 0, len(props))
		for n := range props {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if sub, ok := props[n].(map[string]any); ok {
				p := n
				if path != "" {
					p = path + "." + n
				}
				walkSchema(sub, p, out)
			}
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		walkSchema(items, path+"[]", out)
	}
}

// Reply is a scripted answer.
type Reply struct {
	Status     int           // HTTP status; 0 means 200
	Content    string        // assistant message text for a 200
	Body       string        // raw body, sent as is when set (any status)
	Delay      time.Duration // wait before answering (timeouts)
	RetryAfter string        // Retry-After header value
	// PromptTokens and CompletionTokens are reported as usage; when both
	// are zero the server counts ceil(bytes/4) of the prompt and reply.
	PromptTokens, CompletionTokens int
	ReasoningTokens                int  // reported as completion_tokens_details.reasoning_tokens
	NoUsage                        bool // omit usage from the response
	Header                         map[string]string
}

// Handler answers a call.
type Handler func(c *Call) Reply

// Server is a scripted endpoint. Its BaseURL goes in a client's base URL.
type Server struct {
	*httptest.Server
	// The fields below are set by an Option, before the server serves.

	// Models, when set, are the only model names accepted (404 otherwise).
	Models []string
	// Key, when set, is the bearer token required (401 otherwise).
	Key string
	// RejectJSONSchema makes the server answer 400 to json_schema requests,
	// like endpoints without structured output.
	RejectJSONSchema bool
	// Personality, when set, makes the server refuse and answer like that
	// kind of endpoint; see the constants.
	Personality Personality
	// Deployment is the Azure deployment name (PersonalityAzure); the
	// server then serves /openai/deployments/<Deployment>/chat/completions.
	Deployment string

	prefix  string // "/s<n>": this server's own path, see New
	handler Handler
	seenState
	mu    sync.Mutex
	calls []*Call
	errs  []string
}

// An Option sets a Server up before it starts serving: every request
// reads the fields, so they are set before the first, never after.
type Option func(*Server)

// New starts a server that answers with h, set up by opts.
func New(h Handler, opts ...Option) *Server {
	s := &Server{handler: h}
	for _, o := range opts {
		o(s)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/chat/completions", s.serveChat)
	mux.HandleFunc("/openai/deployments/{name}/chat/completions", s.serveChat)
	mux.HandleFunc("/v1/models", func(w http.ResponseWriter, r *http.Request) {
		if s.Key != "" && r.Header.Get("Authorization") != "Bearer "+s.Key {
			writeError(w, http.StatusUnauthorized, "invalid api key")
			return
		}
		var data []map[string]string
		for _, m := range s.Models {
			data = append(data, map[string]string{"id": m, "object": "model"})
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
	})
	// Clients remember per endpoint and model which request shape was
	// accepted, for the whole process. A closed test server's port can be
	// handed to the next one, so each server serves under its own path
	// prefix: what one test's endpoint taught a client never reaches the
	// next test's.
	s.prefix = fmt.Sprintf("/s%d", servers.Add(1))
	s.Server = httptest.NewServer(http.StripPrefix(s.prefix, mux))
	return s
}

// servers numbers the servers started in this process.
var servers atomic.Int64

// NewPersonality starts a server of personality p that answers mss's
// stages with Answer, set up by opts.
func NewPersonality(p Personality, opts ...Option) *Server {
	return New(Answer, append([]Option{func(s *Server) {
		s.Personality = p
		if p == PersonalityAzure {
			s.Deployment = "mss-deployment"
		}
	}}, opts...)...)
}

// BaseURL is the URL to configure clients with: <url>/v1, or the
// deployment URL of an Azure personality.
func (s *Server) BaseURL() string {
	if s.Personality == PersonalityAzure {
		return s.URL + s.prefix + "/openai/deployments/" + s.Deployment
	}
	return s.URL + s.prefix + "/v1"
}

// Calls returns the requests received so far, in arrival order.
func (s *Server) Calls() []*Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Call(nil), s.calls...)
}

// ShapeErrors lists requests the server found malformed (wrong roles,
// missing schema, schema without an enum of ids, ...). A test that expects
// well-formed traffic asserts it is empty.
func (s *Server) ShapeErrors() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.errs...)
}

func (s *Server) shapeError(n int, format string, args ...any) {
	s.errs = append(s.errs, fmt.Sprintf("call %d: ", n)+fmt.Sprintf(format, args...))
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeAPIError(w, status, msg, "test_error", "", fmt.Sprint(status))
}

// writeAPIError writes an OpenAI-style error body.
func writeAPIError(w http.ResponseWriter, status int, msg, typ, param, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	e := map[string]any{"message": msg, "type": typ, "code": code, "param": nil}
	if param != "" {
		e["param"] = param
	}
	json.NewEncoder(w).Encode(map[string]any{"error": e})
}

func (s *Server) serveChat(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "POST only")
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "read body: "+err.Error())
		return
	}
	var req struct {
		Model          string    `json:"model"`
		Messages       []Message `json:"messages"`
		ResponseFormat *struct {
			Type       string `json:"type"`
			JSONSchema *struct {
				Name   string         `json:"name"`
				Strict bool           `json:"strict"`
				Schema map[string]any `json:"schema"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	s.mu.Lock()
	c := &Call{N: len(s.calls) + 1, Body: body, Auth: r.Header.Get("Authorization"), APIKey: r.Header.Get("api-key"), Query: r.URL.RawQuery, Path: r.URL.Path}
	s.calls = append(s.calls, c)
	json.Unmarshal(body, &c.Fields)
	if err := json.Unmarshal(body, &req); err != nil {
		s.shapeError(c.N, "body is not JSON: %v", err)
		s.mu.Unlock()
		writeError(w, http.StatusBadRequest, "body is not JSON")
		return
	}
	c.Model, c.Messages = req.Model, req.Messages
	if rf := req.ResponseFormat; rf != nil {
		c.Format = rf.Type
		if rf.JSONSchema != nil {
			c.SchemaName, c.Schema, c.Strict = rf.JSONSchema.Name, rf.JSONSchema.Schema, rf.JSONSchema.Strict
		}
	}
	s.checkShape(c)
	s.mu.Unlock()

	if s.refuse(w, c) {
		return
	}
	switch {
	case s.Key != "" && s.Personality != PersonalityAzure && c.Auth != "Bearer "+s.Key:
		writeError(w, http.StatusUnauthorized, "invalid api key")
		return
	case len(s.Models) > 0 && !contains(s.Models, c.Model):
		writeError(w, http.StatusNotFound, "model "+c.Model+" does not exist")
		return
	case s.RejectJSONSchema && c.Format == "json_schema":
		writeError(w, http.StatusBadRequest, "response_format json_schema is not supported")
		return
	}

	rep := s.handler(c)
	rep = s.flavour(c, rep)
	if rep.Delay > 0 {
		select {
		case <-time.After(rep.Delay):
		case <-r.Context().Done():
			return
		}
	}
	if rep.RetryAfter != "" {
		w.Header().Set("Retry-After", rep.RetryAfter)
	}
	status := rep.Status
	if status == 0 {
		status = http.StatusOK
	}
	if rep.Body != "" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write([]byte(rep.Body))
		return
	}
	if status != http.StatusOK {
		writeError(w, status, http.StatusText(status))
		return
	}
	pt, ct := rep.PromptTokens, rep.CompletionTokens
	if pt == 0 && ct == 0 {
		for _, m := range c.Messages {
			pt += (len(m.Content) + 3) / 4
		}
		ct = (len(rep.Content)+3)/4 + rep.ReasoningTokens
	}
	resp := map[string]any{
		"id":      fmt.Sprintf("chatcmpl-test-%d", c.N),
		"object":  "chat.completion",
		"created": 1700000000,
		"model":   c.Model,
		"choices": []any{map[string]any{
			"index":         0,
			"finish_reason": "stop",
			"message":       map[string]any{"role": "assistant", "content": rep.Content},
		}},
	}
	if !rep.NoUsage {
		u := map[string]any{"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct}
		if rep.ReasoningTokens > 0 {
			u["completion_tokens_details"] = map[string]any{"reasoning_tokens": rep.ReasoningTokens}
		}
		resp["usage"] = u
	}
	if rep.Header != nil {
		for k, v := range rep.Header {
			w.Header().Set(k, v)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}

// checkShape records what is wrong with a request. Callers hold s.mu.
func (s *Server) checkShape(c *Call) {
	if c.Model == "" {
		s.shapeError(c.N, "no model")
	}
	if len(c.Messages) == 0 {
		s.shapeError(c.N, "no messages")
	}
	for i, m := range c.Messages {
		switch m.Role {
		case "system", "user", "assistant":
		default:
			s.shapeError(c.N, "message %d: role %q", i, m.Role)
		}
		if i == 0 && m.Role != "system" {
			s.shapeError(c.N, "first message has role %q, want system", m.Role)
		}
	}
	switch c.Format {
	case "json_schema":
		if c.Schema == nil {
			s.shapeError(c.N, "json_schema without schema")
			break
		}
		if c.SchemaName == "" {
			s.shapeError(c.N, "json_schema without name")
		}
		if len(c.Enums()) == 0 {
			s.shapeError(c.N, "schema %s has no enum of ids", c.SchemaName)
		}
	case "json_object", "":
	default:
		s.shapeError(c.N, "response_format type %q", c.Format)
	}
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
