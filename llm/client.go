package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/missingcomplement/mss/internal/textcut"
)

// Mode is how a request asks for structured output.
type Mode string

// Response modes, strongest first. A client starts at its configured mode
// and moves down the list when an endpoint rejects one.
const (
	ModeJSONSchema Mode = "json_schema" // response_format json_schema, strict
	ModeJSONObject Mode = "json_object" // response_format json_object
	ModeText       Mode = "text"        // no response_format; parse the text
)

// ParseMode checks a mode name from a setting.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeJSONSchema, ModeJSONObject, ModeText:
		return m, nil
	}
	return "", fmt.Errorf("unknown response mode %q (want json_schema, json_object or text)", s)
}

func (m Mode) next() (Mode, bool) {
	switch m {
	case ModeJSONSchema:
		return ModeJSONObject, true
	case ModeJSONObject:
		return ModeText, true
	}
	return "", false
}

// rank orders modes, strongest first.
func (m Mode) rank() int {
	switch m {
	case ModeJSONSchema:
		return 0
	case ModeJSONObject:
		return 1
	}
	return 2
}

// Defaults for Config fields left zero.
const (
	DefaultTimeout    = 120 * time.Second
	DefaultRetries    = 4
	DefaultBackoff    = 2 * time.Second
	DefaultBackoffMax = 60 * time.Second
	DefaultMaxTokens  = 2048
	// DefaultAzureAPIVersion is sent as api-version to an Azure OpenAI
	// deployment URL (…/openai/deployments/NAME) when none is set.
	DefaultAzureAPIVersion = "2024-10-21"
)

// Authentication schemes.
const (
	AuthBearer = "bearer"  // Authorization: Bearer KEY (OpenAI and compatible servers)
	AuthAPIKey = "api-key" // api-key: KEY (Azure OpenAI)
)

// Errors callers can test for.
var (
	ErrCacheMiss = errors.New("response not in cache")
	ErrNoKey     = errors.New("no API key")
	ErrNoModel   = errors.New("no model")
)

// Config is one endpoint and model with its call policy.
type Config struct {
	BaseURL     string   // e.g. https://api.openai.com/v1
	APIKey      string   // from the environment only; never stored or printed
	Model       string   // model name as the endpoint knows it
	Temperature *float64 // nil sends none (the endpoint's default)
	MaxTokens   int      // completion cap; 0 means DefaultMaxTokens, <0 sends none
	// MaxTokensField names the cap in the first request:
	// max_completion_tokens (default; every current OpenAI chat model reads
	// it) or max_tokens. An endpoint that refuses one gets the other.
	MaxTokensField string
	// ReasoningEffort is sent as reasoning_effort when set (low, medium,
	// high, ... as the model knows them).
	ReasoningEffort string
	Seed            *int64 // sent when set, for endpoints that honour it

	// Auth is AuthBearer or AuthAPIKey; "" means AuthAPIKey for Azure
	// hosts (*.openai.azure.com, *.cognitiveservices.azure.com) and
	// AuthBearer otherwise.
	Auth string
	// APIVersion is sent as the api-version query parameter; "" means
	// DefaultAzureAPIVersion for an Azure deployment URL and none otherwise.
	APIVersion string

	Timeout    time.Duration // per attempt; 0 means DefaultTimeout
	Retries    int           // extra attempts after the first; <0 means none, 0 means DefaultRetries
	Backoff    time.Duration // first retry delay, doubled each retry; 0 means DefaultBackoff
	BackoffMax time.Duration // cap on one delay; 0 means DefaultBackoffMax
	Mode       Mode          // first response mode tried; "" means ModeJSONSchema

	// ShapeDir, when set, is where learned request shapes are kept (the
	// cache directory); ShapeReadOnly reads them without writing.
	ShapeDir      string
	ShapeReadOnly bool

	// HTTPClient replaces the default transport (tests).
	HTTPClient *http.Client
}

// IsAzure reports whether baseURL is an Azure OpenAI host.
func IsAzure(baseURL string) bool {
	u, err := url.Parse(baseURL)
	if err != nil {
		return false
	}
	h := strings.ToLower(u.Hostname())
	return strings.HasSuffix(h, ".openai.azure.com") || strings.HasSuffix(h, ".cognitiveservices.azure.com") || strings.HasSuffix(h, ".services.ai.azure.com")
}

func (c *Config) setDefaults() {
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Retries == 0 {
		c.Retries = DefaultRetries
	} else if c.Retries < 0 {
		c.Retries = 0
	}
	if c.Backoff <= 0 {
		c.Backoff = DefaultBackoff
	}
	if c.BackoffMax <= 0 {
		c.BackoffMax = DefaultBackoffMax
	}
	if c.MaxTokens == 0 {
		c.MaxTokens = DefaultMaxTokens
	}
	if c.MaxTokensField == "" {
		c.MaxTokensField = FieldMaxCompletionTokens
	}
	if c.Mode == "" {
		c.Mode = ModeJSONSchema
	}
	if c.Auth == "" {
		c.Auth = AuthBearer
		if IsAzure(c.BaseURL) {
			c.Auth = AuthAPIKey
		}
	}
	if c.APIVersion == "" && strings.Contains(c.BaseURL, "/openai/deployments/") {
		c.APIVersion = DefaultAzureAPIVersion
	}
}

// Message is one chat message.
type Message struct {
	Role    string // system, user or assistant
	Content string
}

// Schema is the JSON Schema a reply must follow.
type Schema struct {
	Name   string         // [a-zA-Z0-9_-], sent as json_schema.name
	Schema map[string]any // the schema object
}

// Request is one chat completion.
type Request struct {
	Messages []Message
	Schema   *Schema // nil asks for plain text
}

// Response is a completed call, from the endpoint or the cache.
type Response struct {
	Content          string
	PromptTokens     int
	CompletionTokens int
	// ReasoningTokens is the part of CompletionTokens a reasoning model
	// spent thinking (usage.completion_tokens_details.reasoning_tokens).
	ReasoningTokens int
	// UsageReported is false when the endpoint sent no usage; the token
	// counts are then estimated as TokenCost of the text sent and received.
	UsageReported bool
	Mode          Mode   // response mode that produced Content
	Shape         Shape  // request shape that produced Content
	Attempts      int    // HTTP attempts made now (0 on a cache hit)
	Cached        bool   // served from the cache
	LatencyMS     int64  // wall time of the original call, kept in the cache
	Key           string // cache key of the request that produced it
	// Adjustments lists the refusals that took the configured request
	// shape to Shape ("max_tokens refused: sent max_completion_tokens"),
	// met by this call or learned by an earlier one, in a fixed order
	// (see changes): the same for every call that ends at the same shape.
	Adjustments []string
}

// Client calls one endpoint and model. It is safe for concurrent use.
type Client struct {
	cfg   Config
	http  *http.Client
	cache *Cache
	lim   *Limiter
	url   string // chat completions URL, with api-version

	mu    sync.Mutex
	shape Shape // current starting shape; changes on refusal

	// Sleep waits between retries; tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
}

// New builds a client. cache and lim may be nil.
// endpointClient follows no redirect: a redirect would carry the request
// (the state, the source, and an api-key header, which Go keeps across
// hosts) to an endpoint the configuration does not name. The 3xx answer
// is an error that names where it points (apiError).
var endpointClient = &http.Client{
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

func New(cfg Config, cache *Cache, lim *Limiter) (*Client, error) {
	cfg.setDefaults()
	if cfg.Model == "" {
		return nil, ErrNoModel
	}
	if cfg.MaxTokensField != FieldMaxTokens && cfg.MaxTokensField != FieldMaxCompletionTokens {
		return nil, fmt.Errorf("max tokens field %q: want max_completion_tokens or max_tokens", cfg.MaxTokensField)
	}
	if cfg.Auth != AuthBearer && cfg.Auth != AuthAPIKey {
		return nil, fmt.Errorf("auth %q: want bearer or api-key", cfg.Auth)
	}
	if cfg.BaseURL == "" {
		return nil, errors.New("no base URL")
	}
	hold(cfg.APIKey, cfg.BaseURL)
	u, err := endpointURL(cfg.BaseURL, "chat/completions", cfg.APIVersion)
	if err != nil {
		return nil, fmt.Errorf("base URL %s: %s", RedactURL(cfg.BaseURL), redact(err.Error()))
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = endpointClient
	}
	c := &Client{cfg: cfg, http: hc, cache: cache, lim: lim, url: u, Sleep: sleepCtx}
	c.shape = Shape{TokenField: cfg.MaxTokensField, Mode: cfg.Mode}
	if cfg.MaxTokens < 0 {
		c.shape.TokenField = ""
	}
	learned, ok := shapes.Load(shapeKey(cfg.BaseURL, cfg.Model))
	if !ok && cfg.ShapeDir != "" {
		var s Shape
		if s, ok, err = loadShape(cfg.ShapeDir, cfg.BaseURL, cfg.Model); err != nil {
			return nil, err
		}
		learned = s
	}
	if ok {
		c.shape = merge(c.shape, learned.(Shape))
	}
	return c, nil
}

// merge applies what an endpoint is known to refuse to a configured shape.
func merge(cfg, learned Shape) Shape {
	s := cfg
	if cfg.TokenField != "" {
		s.TokenField = learned.TokenField
	}
	s.NoTemperature = cfg.NoTemperature || learned.NoTemperature
	s.NoSeed = cfg.NoSeed || learned.NoSeed
	s.NoReasoningEffort = cfg.NoReasoningEffort || learned.NoReasoningEffort
	if learned.Mode.rank() > s.Mode.rank() {
		s.Mode = learned.Mode
	}
	return s
}

// endpointURL joins base and path and adds api-version when set. The
// base may carry a query (kept) and userinfo (kept for the transport,
// never printed).
func endpointURL(base, path, apiVersion string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		// url.Parse's error quotes the URL, credentials and all: keep
		// only what it found wrong.
		if ue := (*url.Error)(nil); errors.As(err, &ue) {
			err = ue.Err
		}
		return "", err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("scheme %q: want http or https", u.Scheme)
	}
	if u.Host == "" {
		return "", errors.New("no host")
	}
	u.Path = strings.TrimRight(u.Path, "/") + "/" + path
	u.RawPath = ""
	if apiVersion != "" {
		q := u.Query()
		if q.Get("api-version") == "" {
			q.Set("api-version", apiVersion)
		}
		u.RawQuery = q.Encode()
	}
	return u.String(), nil
}

// Model is the model this client calls.
func (c *Client) Model() string { return c.cfg.Model }

// BaseURL is the endpoint this client calls, userinfo masked.
func (c *Client) BaseURL() string { return RedactURL(c.cfg.BaseURL) }

// Redact scrubs from s every secret the process holds (see hold): this
// client's key and URL credentials, every other client's, and the
// environment's.
func (c *Client) Redact(s string) string { return redact(s) }

// Shape is the shape the next request will start from: this client's,
// with whatever another client of the same endpoint and model has learned
// since.
func (c *Client) Shape() Shape {
	c.mu.Lock()
	s := c.shape
	c.mu.Unlock()
	if l, ok := shapes.Load(shapeKey(c.cfg.BaseURL, c.cfg.Model)); ok {
		s = merge(s, l.(Shape))
	}
	return s
}

// learn records that the endpoint accepts shape to (having refused what
// came before): in this client, for every client of the endpoint and model in the process,
// and in the shape directory.
func (c *Client) learn(to Shape) error {
	c.mu.Lock()
	c.shape = merge(c.shape, to)
	c.mu.Unlock()
	k := shapeKey(c.cfg.BaseURL, c.cfg.Model)
	if prev, ok := shapes.Load(k); ok {
		to = merge(prev.(Shape), to)
	}
	shapes.Store(k, to)
	if c.cfg.ShapeDir == "" || c.cfg.ShapeReadOnly {
		return nil
	}
	return saveShape(c.cfg.ShapeDir, c.cfg.BaseURL, c.cfg.Model, to)
}

// Complete sends req and returns the reply. With a cache, a hit is served
// without a call; a cache-only client returns an error wrapping
// ErrCacheMiss on a miss. A refusal naming a request field changes the
// shape and asks again (see Shape); failures after the retry budget are
// returned wrapped. Every error, reply and cache entry has every secret
// the process holds scrubbed (see hold), whichever client it belongs to.
func (c *Client) Complete(ctx context.Context, req *Request) (*Response, error) {
	if len(req.Messages) == 0 {
		return nil, errors.New("llm: request has no messages")
	}
	shape := c.Shape()
	configured := Shape{TokenField: c.cfg.MaxTokensField, Mode: c.cfg.Mode}
	if c.cfg.MaxTokens < 0 {
		configured.TokenField = ""
	}
	learnable := true
	if req.Schema == nil {
		shape.Mode, configured.Mode = ModeText, ModeText
		learnable = false
	}
	asked := c.sends(req, configured)
	// refusedTo is where the endpoint's refusals, met now or learned
	// before, took the configured shape; a cache-only look at a lower
	// mode's entry is no refusal. The reply's Adjustments are read from
	// it, so a call answered from what was learned tells what the one
	// that learned it told.
	refusedTo := shape
	var missed []string
	tried := map[string]bool{}
	base := RedactURL(c.cfg.BaseURL)
	for changed := 0; ; changed++ {
		body, in, err := c.body(req, shape)
		if err != nil {
			return nil, fmt.Errorf("llm: encode request: %w", err)
		}
		key := CacheKey(stripUserinfo(c.cfg.BaseURL), c.cfg.Model, body)
		refused := func(msg string) (bool, error) {
			next, ok := adjust(shape, in, tried, msg)
			if !ok || changed >= maxChanges {
				return false, nil
			}
			tried[shape.TokenField] = true
			if learnable {
				if err := c.learn(next); err != nil {
					return false, fmt.Errorf("llm: %w", err)
				}
			}
			shape, refusedTo = next, next
			return true, nil
		}
		if c.cache != nil {
			e, err := c.cache.Get(key)
			if err == nil {
				// An entry written before a key was held (by an earlier
				// run, or before the client given it was made) is
				// scrubbed as a reply is.
				e.Response, e.Error = redact(e.Response), redact(e.Error)
			}
			switch {
			case err == nil && e.Rejected:
				if again, err := refused(e.Error); err != nil {
					return nil, err
				} else if again {
					continue
				}
				return nil, fmt.Errorf("llm: %s refused the request (cached): %s", c.cfg.Model, e.Error)
			case err == nil:
				r, rerr := responseFrom([]byte(e.Response), req)
				if rerr == nil {
					r.Mode, r.Shape = shape.Mode, shape
					r.Cached, r.Key, r.LatencyMS, r.Adjustments = true, key, e.LatencyMS, changes(configured, refusedTo, asked)
					return r, nil
				}
				err = fmt.Errorf("cache entry %s: %w", key, rerr)
				fallthrough
			case !errors.Is(err, ErrCacheMiss):
				// A damaged entry holds no answer: cache-only, that is a
				// miss (never answered by a fallback); otherwise the
				// endpoint is asked again and the entry written anew.
				if c.cache.Only {
					return nil, fmt.Errorf("llm: cache-only: model %s at %s: %w: the entry is damaged: %v", c.cfg.Model, base, ErrCacheMiss, err)
				}
			}
			if c.cache.Only {
				// A cache written before shapes were kept may hold only a
				// lower mode's entry; look there before giving up.
				missed = append(missed, key)
				if nm, ok := shape.Mode.next(); ok {
					shape.Mode = nm
					continue
				}
				return nil, fmt.Errorf("llm: cache-only: model %s at %s: %w (keys %s)", c.cfg.Model, base, ErrCacheMiss, strings.Join(missed, ", "))
			}
		}
		if c.cfg.APIKey == "" {
			return nil, fmt.Errorf("llm: %w for %s", ErrNoKey, base)
		}
		start := time.Now()
		raw, attempts, err := c.call(ctx, body)
		latency := time.Since(start).Milliseconds()
		if err != nil {
			var apiErr *APIError
			if errors.As(err, &apiErr) && (apiErr.Status == http.StatusBadRequest || apiErr.Status == http.StatusUnprocessableEntity) {
				msg := redact(apiErr.detail())
				prev := shape
				again, lerr := refused(msg)
				if lerr != nil {
					return nil, lerr
				}
				if again {
					// A refusal is deterministic: cache it, so a replay
					// takes the same path.
					if c.cache != nil {
						if perr := c.cache.Put(&Entry{Key: key, BaseURL: base, Model: c.cfg.Model, Mode: prev.Mode, Request: body, Rejected: true, Error: msg}); perr != nil {
							return nil, fmt.Errorf("llm: %w", perr)
						}
					}
					continue
				}
			}
			if ctx.Err() != nil {
				return nil, fmt.Errorf("llm: %s: %w", c.cfg.Model, ctx.Err())
			}
			return nil, &CallError{Model: c.cfg.Model, Attempts: attempts, Detail: redact(err.Error())}
		}
		// Whatever the endpoint echoed (a header, the key in a message)
		// is scrubbed before it is parsed, cached or returned.
		raw = []byte(redact(string(raw)))
		r, err := responseFrom(raw, req)
		if err != nil {
			return nil, &ReplyError{Model: c.cfg.Model, Attempts: attempts, Detail: redact(err.Error())}
		}
		if c.cache != nil {
			if err := c.cache.Put(&Entry{Key: key, BaseURL: base, Model: c.cfg.Model, Mode: shape.Mode, Request: body, Response: string(raw), LatencyMS: latency}); err != nil {
				return nil, fmt.Errorf("llm: %w", err)
			}
		}
		r.Mode, r.Shape = shape.Mode, shape
		r.Attempts, r.Key, r.LatencyMS, r.Adjustments = attempts, key, latency, changes(configured, refusedTo, asked)
		return r, nil
	}
}

// maxChanges bounds the shape changes of one request.
const maxChanges = 6

// completion is the part of a chat completion body mss reads.
type completion struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
			Refusal *string `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens            int `json:"prompt_tokens"`
		CompletionTokens        int `json:"completion_tokens"`
		CompletionTokensDetails *struct {
			ReasoningTokens int `json:"reasoning_tokens"`
		} `json:"completion_tokens_details"`
	} `json:"usage"`
}

// responseFrom decodes a raw chat completion body.
func responseFrom(raw []byte, req *Request) (*Response, error) {
	var cc completion
	if err := json.Unmarshal(raw, &cc); err != nil {
		return nil, fmt.Errorf("decode completion: %w", err)
	}
	if len(cc.Choices) == 0 {
		return nil, errors.New("completion has no choices")
	}
	msg := cc.Choices[0].Message
	r := &Response{}
	switch {
	case msg.Content != nil && *msg.Content != "":
		r.Content = *msg.Content
	case msg.Refusal != nil && *msg.Refusal != "":
		return nil, fmt.Errorf("model refused: %s", oneLine(*msg.Refusal, 300))
	case cc.Choices[0].FinishReason == "length":
		return nil, errors.New("empty reply: the token cap was reached (a reasoning model may need a larger max_tokens)")
	}
	if u := cc.Usage; u != nil {
		r.PromptTokens, r.CompletionTokens = u.PromptTokens, u.CompletionTokens
		if u.CompletionTokensDetails != nil {
			r.ReasoningTokens = u.CompletionTokensDetails.ReasoningTokens
		}
	}
	r.UsageReported = r.PromptTokens+r.CompletionTokens > 0
	if !r.UsageReported {
		n := 0
		for _, m := range req.Messages {
			n += (len(m.Content) + 3) / 4
		}
		r.PromptTokens = n
		r.CompletionTokens = (len(r.Content) + 3) / 4
	}
	return r, nil
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = textcut.Head(s, n) + "…"
	}
	return s
}

// body writes the request for shape in canonical form (sorted keys), so
// equal requests give equal bytes and cache keys. It reports which
// optional fields it carries.
func (c *Client) body(req *Request, s Shape) ([]byte, sent, error) {
	in := c.sends(req, s)
	msgs := make([]map[string]string, len(req.Messages))
	for i, m := range req.Messages {
		role := m.Role
		if role != "system" && role != "assistant" {
			role = "user"
		}
		msgs[i] = map[string]string{"role": role, "content": m.Content}
	}
	p := map[string]any{"model": c.cfg.Model, "messages": msgs}
	if in.tokens {
		p[s.TokenField] = c.cfg.MaxTokens
	}
	if in.temperature {
		p["temperature"] = *c.cfg.Temperature
	}
	if in.seed {
		p["seed"] = *c.cfg.Seed
	}
	if in.effort {
		p["reasoning_effort"] = c.cfg.ReasoningEffort
	}
	switch {
	case !in.format:
	case s.Mode == ModeJSONSchema:
		p["response_format"] = map[string]any{"type": "json_schema", "json_schema": map[string]any{
			"name": req.Schema.Name, "strict": true, "schema": req.Schema.Schema,
		}}
	default:
		p["response_format"] = map[string]any{"type": "json_object"}
	}
	b, err := CanonicalJSON(p)
	return b, in, err
}

// sends says which optional fields a request of shape s carries.
func (c *Client) sends(req *Request, s Shape) sent {
	return sent{
		tokens:      c.cfg.MaxTokens > 0 && s.TokenField != "",
		temperature: c.cfg.Temperature != nil && !s.NoTemperature,
		seed:        c.cfg.Seed != nil && !s.NoSeed,
		effort:      c.cfg.ReasoningEffort != "" && !s.NoReasoningEffort,
		format:      req.Schema != nil && (s.Mode == ModeJSONSchema || s.Mode == ModeJSONObject),
	}
}

// CanonicalJSON encodes v with sorted object keys and no HTML escaping
// rewrites of the input's numbers: equal values give equal bytes.
func CanonicalJSON(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var w any
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	if err := dec.Decode(&w); err != nil {
		return nil, err
	}
	return json.Marshal(w)
}

// CallError is a call the endpoint did not answer, after Attempts HTTP
// attempts; Detail is the last failure, redacted.
type CallError struct {
	Model    string
	Attempts int
	Detail   string
}

func (e *CallError) Error() string {
	return fmt.Sprintf("llm: %s after %d attempt(s): %s", e.Model, e.Attempts, e.Detail)
}

// ReplyError is a reply the endpoint gave that holds no completion (a
// refusal, no choices, a body that is no chat completion), after Attempts
// calls.
type ReplyError struct {
	Model    string
	Attempts int
	Detail   string
}

func (e *ReplyError) Error() string { return fmt.Sprintf("llm: %s: %s", e.Model, e.Detail) }

// ParseDuration reads a wait or a timeout from a setting or the
// environment: it accepts Go durations ("90s", "1m") and bare seconds ("90").
// NaN, infinite, negative and overflowing seconds are refused, and so is
// 0, which a Config would take for its default rather than for none.
func ParseDuration(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	if n, err := strconv.ParseFloat(v, 64); err == nil {
		ns := n * float64(time.Second)
		if !(ns >= 1 && ns < float64(math.MaxInt64)) { // NaN and ±Inf too
			return 0, fmt.Errorf("%q is not a duration above 0, up to %v (e.g. 90s)", v, time.Duration(math.MaxInt64))
		}
		return time.Duration(ns), nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a duration above 0 (e.g. 90s)", v)
	}
	return d, nil
}
