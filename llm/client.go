package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
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

// Defaults for Config fields left zero.
const (
	DefaultTimeout    = 120 * time.Second
	DefaultRetries    = 4
	DefaultBackoff    = 2 * time.Second
	DefaultBackoffMax = 60 * time.Second
	DefaultMaxTokens  = 2048
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
	Temperature *float64 // nil leaves the endpoint default
	MaxTokens   int      // completion cap; 0 means DefaultMaxTokens, <0 sends none
	// MaxTokensField names the cap in the request: "max_tokens" (default,
	// what most OpenAI-compatible servers read) or "max_completion_tokens"
	// (OpenAI's reasoning models refuse max_tokens).
	MaxTokensField string
	Seed           *int64 // sent when set, for endpoints that honour it

	Timeout    time.Duration // per attempt; 0 means DefaultTimeout
	Retries    int           // extra attempts after the first; <0 means none, 0 means DefaultRetries
	Backoff    time.Duration // first retry delay, doubled each retry; 0 means DefaultBackoff
	BackoffMax time.Duration // cap on one delay; 0 means DefaultBackoffMax
	Mode       Mode          // first response mode tried; "" means ModeJSONSchema

	// HTTPClient replaces the default transport (tests).
	HTTPClient *http.Client
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
		c.MaxTokensField = "max_tokens"
	}
	if c.Mode == "" {
		c.Mode = ModeJSONSchema
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
	// UsageReported is false when the endpoint sent no usage; the token
	// counts are then estimated as TokenCost of the text sent and received.
	UsageReported bool
	Mode          Mode   // response mode that produced Content
	Attempts      int    // HTTP attempts made now (0 on a cache hit)
	Cached        bool   // served from the cache
	LatencyMS     int64  // wall time of the original call, kept in the cache
	Key           string // cache key of the request that produced it
	Downgrades    []Mode // modes the endpoint rejected on the way
}

// Client calls one endpoint and model. It is safe for concurrent use.
type Client struct {
	cfg   Config
	oc    openai.Client
	cache *Cache
	lim   *Limiter

	mu   sync.Mutex
	mode Mode // current starting mode; moves down on rejection

	// Sleep waits between retries; tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
}

// New builds a client. cache and lim may be nil.
func New(cfg Config, cache *Cache, lim *Limiter) (*Client, error) {
	cfg.setDefaults()
	if cfg.Model == "" {
		return nil, ErrNoModel
	}
	if cfg.MaxTokensField != "max_tokens" && cfg.MaxTokensField != "max_completion_tokens" {
		return nil, fmt.Errorf("max tokens field %q: want max_tokens or max_completion_tokens", cfg.MaxTokensField)
	}
	if cfg.BaseURL == "" {
		return nil, errors.New("no base URL")
	}
	if _, err := url.Parse(cfg.BaseURL); err != nil {
		return nil, fmt.Errorf("base URL: %w", err)
	}
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
		option.WithAPIKey(cfg.APIKey),
		option.WithMaxRetries(0), // retries are ours: one policy, testable
		// Environment-derived organization/project headers would change
		// what is sent without changing the cache key; drop them.
		option.WithHeaderDel("OpenAI-Organization"),
		option.WithHeaderDel("OpenAI-Project"),
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	return &Client{
		cfg:   cfg,
		oc:    openai.NewClient(opts...),
		cache: cache,
		lim:   lim,
		mode:  cfg.Mode,
		Sleep: sleepCtx,
	}, nil
}

// Model is the model this client calls.
func (c *Client) Model() string { return c.cfg.Model }

// BaseURL is the endpoint this client calls.
func (c *Client) BaseURL() string { return c.cfg.BaseURL }

func (c *Client) startMode() Mode {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mode
}

func (c *Client) lowerMode(from, to Mode) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mode == from {
		c.mode = to
	}
}

// Complete sends req and returns the reply. With a cache, a hit is served
// without a call; a cache-only client returns an error wrapping
// ErrCacheMiss on a miss. Failures after the retry budget are returned
// wrapped, with the API key scrubbed from their text.
func (c *Client) Complete(ctx context.Context, req *Request) (*Response, error) {
	if len(req.Messages) == 0 {
		return nil, errors.New("llm: request has no messages")
	}
	mode := c.startMode()
	if req.Schema == nil {
		mode = ModeText
	}
	var downgrades []Mode
	var missed []string
	for {
		params := c.params(req, mode)
		body, err := CanonicalBody(params)
		if err != nil {
			return nil, fmt.Errorf("llm: encode request: %w", err)
		}
		key := CacheKey(c.cfg.BaseURL, c.cfg.Model, body)
		if c.cache != nil {
			e, err := c.cache.Get(key)
			switch {
			case err == nil && e.Rejected:
				downgrades = append(downgrades, mode)
				if nm, ok := mode.next(); ok {
					c.lowerMode(mode, nm)
					mode = nm
					continue
				}
				return nil, fmt.Errorf("llm: %s rejected every response mode (cached): %s", c.cfg.Model, e.Error)
			case err == nil:
				r, err := responseFrom(e.Response, req, mode)
				if err != nil {
					return nil, fmt.Errorf("llm: cache entry %s: %w", key, err)
				}
				r.Cached, r.Key, r.LatencyMS, r.Downgrades = true, key, e.LatencyMS, downgrades
				return r, nil
			case !errors.Is(err, ErrCacheMiss):
				return nil, fmt.Errorf("llm: %w", err)
			}
			if c.cache.Only {
				// A run that had already downgraded stored only the lower
				// mode's entry; look there before giving up.
				missed = append(missed, key)
				if nm, ok := mode.next(); ok {
					mode = nm
					continue
				}
				return nil, fmt.Errorf("llm: cache-only: model %s at %s: %w (keys %s)", c.cfg.Model, c.cfg.BaseURL, ErrCacheMiss, strings.Join(missed, ", "))
			}
		}
		if c.cfg.APIKey == "" {
			return nil, fmt.Errorf("llm: %w for %s", ErrNoKey, c.cfg.BaseURL)
		}
		start := time.Now()
		cc, attempts, err := c.call(ctx, params)
		latency := time.Since(start).Milliseconds()
		if err != nil {
			var apiErr *openai.Error
			if errors.As(err, &apiErr) && (apiErr.StatusCode == http.StatusBadRequest || apiErr.StatusCode == http.StatusUnprocessableEntity) {
				if nm, ok := mode.next(); ok {
					// The endpoint refuses this response format: remember
					// that (the outcome is deterministic, so it is cached
					// too) and ask again one mode down.
					if c.cache != nil {
						if perr := c.cache.Put(&Entry{Key: key, BaseURL: c.cfg.BaseURL, Model: c.cfg.Model, Mode: mode, Request: body, Rejected: true, Error: c.redact(apiErr.Message)}); perr != nil {
							return nil, fmt.Errorf("llm: %w", perr)
						}
					}
					downgrades = append(downgrades, mode)
					c.lowerMode(mode, nm)
					mode = nm
					continue
				}
			}
			if ctx.Err() != nil {
				return nil, fmt.Errorf("llm: %s: %w", c.cfg.Model, ctx.Err())
			}
			return nil, fmt.Errorf("llm: %s after %d attempt(s): %s", c.cfg.Model, attempts, c.redact(err.Error()))
		}
		raw := cc.RawJSON()
		r, err := responseFrom(raw, req, mode)
		if err != nil {
			return nil, fmt.Errorf("llm: %s: %w", c.cfg.Model, err)
		}
		if c.cache != nil {
			if err := c.cache.Put(&Entry{Key: key, BaseURL: c.cfg.BaseURL, Model: c.cfg.Model, Mode: mode, Request: body, Response: raw, LatencyMS: latency}); err != nil {
				return nil, fmt.Errorf("llm: %w", err)
			}
		}
		r.Attempts, r.Key, r.LatencyMS, r.Downgrades = attempts, key, latency, downgrades
		return r, nil
	}
}

// responseFrom decodes a raw chat completion body.
func responseFrom(raw string, req *Request, mode Mode) (*Response, error) {
	var cc openai.ChatCompletion
	if err := json.Unmarshal([]byte(raw), &cc); err != nil {
		return nil, fmt.Errorf("decode completion: %w", err)
	}
	if len(cc.Choices) == 0 {
		return nil, errors.New("completion has no choices")
	}
	r := &Response{
		Content:          cc.Choices[0].Message.Content,
		PromptTokens:     int(cc.Usage.PromptTokens),
		CompletionTokens: int(cc.Usage.CompletionTokens),
		Mode:             mode,
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

// call makes one completion with retries and returns the attempts made.
func (c *Client) call(ctx context.Context, params openai.ChatCompletionNewParams) (*openai.ChatCompletion, int, error) {
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
		actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
		cc, err := c.oc.Chat.Completions.New(actx, params)
		cancel()
		release()
		if err == nil {
			return cc, attempt + 1, nil
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

// retryable reports whether err is worth another attempt: rate limits,
// server errors, per-attempt timeouts and transport failures.
func retryable(err error) bool {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		s := apiErr.StatusCode
		return s == http.StatusTooManyRequests || s == http.StatusRequestTimeout || s >= 500
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return true
	}
	var urlErr *url.Error
	return errors.As(err, &urlErr)
}

// delay is the wait before retry number attempt (1-based): Backoff doubled
// per retry, or the server's Retry-After, capped at BackoffMax.
func (c *Client) delay(attempt int, lastErr error) time.Duration {
	d := c.cfg.Backoff << (attempt - 1)
	if d <= 0 || d > c.cfg.BackoffMax {
		d = c.cfg.BackoffMax
	}
	var apiErr *openai.Error
	if errors.As(lastErr, &apiErr) && apiErr.Response != nil {
		if s, err := strconv.Atoi(apiErr.Response.Header.Get("Retry-After")); err == nil && s >= 0 {
			d = time.Duration(s) * time.Second
			if d > c.cfg.BackoffMax {
				d = c.cfg.BackoffMax
			}
		}
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

// redact removes the API key from text that may have echoed it.
func (c *Client) redact(s string) string {
	if c.cfg.APIKey == "" {
		return s
	}
	return strings.ReplaceAll(s, c.cfg.APIKey, "[redacted]")
}

// params builds the SDK request for mode.
func (c *Client) params(req *Request, mode Mode) openai.ChatCompletionNewParams {
	msgs := make([]openai.ChatCompletionMessageParamUnion, 0, len(req.Messages))
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			msgs = append(msgs, openai.SystemMessage(m.Content))
		case "assistant":
			msgs = append(msgs, openai.AssistantMessage(m.Content))
		default:
			msgs = append(msgs, openai.UserMessage(m.Content))
		}
	}
	p := openai.ChatCompletionNewParams{
		Model:    shared.ChatModel(c.cfg.Model),
		Messages: msgs,
	}
	if c.cfg.MaxTokens > 0 {
		if c.cfg.MaxTokensField == "max_completion_tokens" {
			p.MaxCompletionTokens = openai.Int(int64(c.cfg.MaxTokens))
		} else {
			p.MaxTokens = openai.Int(int64(c.cfg.MaxTokens))
		}
	}
	if c.cfg.Temperature != nil {
		p.Temperature = openai.Float(*c.cfg.Temperature)
	}
	if c.cfg.Seed != nil {
		p.Seed = openai.Int(*c.cfg.Seed)
	}
	switch mode {
	case ModeJSONSchema:
		p.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
				JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
					Name:   req.Schema.Name,
					Strict: openai.Bool(true),
					Schema: req.Schema.Schema,
				},
			},
		}
	case ModeJSONObject:
		p.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONObject: &shared.ResponseFormatJSONObjectParam{},
		}
	}
	return p
}

// CanonicalBody is the request body in canonical form: the SDK's encoding
// re-encoded with sorted object keys, so equal requests give equal bytes.
func CanonicalBody(p openai.ChatCompletionNewParams) ([]byte, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}
