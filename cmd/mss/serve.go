package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/missingcomplement/mss"
	_ "github.com/missingcomplement/mss/controller" // registers the embedded methods
	"github.com/missingcomplement/mss/internal/cliargs"
	"github.com/missingcomplement/mss/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

// serviceFlags are the flags mss serve and mss mcp share.
type serviceFlags struct {
	repo, db, method    string
	order               string
	scanInterval        time.Duration
	deriveDelay         time.Duration
	freshWait           time.Duration
	sessionTTL          time.Duration
	maxSessions         int
	maxSpans            int
	listen, tokenEnv    string
	allowRemote         bool
	maxBody             int64
	maxConcurrent       int
	bodyTimeout         time.Duration
	includeVendored     bool
	includeGenerated    bool
	maxFileBytes        int64
	maxTextBytes        int64
	maxBudget, maxUnits int
}

func (sf *serviceFlags) register(cmd *cobra.Command, listenDefault string) {
	f := cmd.Flags()
	f.StringVar(&sf.repo, "repo", ".", "work tree to serve (indexed on start, re-indexed incrementally as it changes)")
	f.StringVar(&sf.db, "db", "", "index file (default <repo>/.mss/index.db)")
	f.StringVar(&sf.method, "method", server.DefaultMethod, "evidence-selection method (see mss methods)")
	f.StringVar(&sf.order, "order", "", orderHelp)
	f.DurationVar(&sf.scanInterval, "scan-interval", server.DefaultScanInterval, "least time between two freshness scans of the work tree (negative: never scan)")
	f.DurationVar(&sf.deriveDelay, "derive-delay", server.DefaultDeriveDelay, "how long the work tree must stay unchanged after an edit before the retrieval structures are derived again in the background (negative: at once)")
	f.DurationVar(&sf.freshWait, "fresh-wait", server.DefaultFreshWait, "requests wait for a re-index of changed files at most this long after it started, then answer from the previous index (moved units re-numbered, changed ones left out)")
	f.DurationVar(&sf.sessionTTL, "session-ttl", server.DefaultSessionTTL, "forget a session idle this long")
	f.IntVar(&sf.maxSessions, "max-sessions", server.DefaultMaxSessions, "sessions kept; the least recently used are evicted")
	f.IntVar(&sf.maxSpans, "max-spans", server.DefaultMaxSpans, "observed spans kept per session; the oldest are forgotten")
	f.IntVar(&sf.maxBudget, "max-budget", server.DefaultMaxBudget, "largest budget_tokens a request may ask for")
	f.IntVar(&sf.maxUnits, "max-units", server.DefaultMaxUnitsCap, "largest max_units a request may ask for")
	f.BoolVar(&sf.includeVendored, "include-vendored", false, "index vendored code too")
	f.BoolVar(&sf.includeGenerated, "include-generated", false, "index generated files too")
	sizeFlags(cmd, &sf.maxFileBytes, &sf.maxTextBytes)
	f.StringVar(&sf.listen, "listen", listenDefault, "HTTP address to listen on (loopback unless --allow-remote)")
	f.StringVar(&sf.tokenEnv, "token-env", "MSS_SERVE_TOKEN", "environment variable holding the bearer token HTTP clients must send (unset or empty: no token)")
	f.BoolVar(&sf.allowRemote, "allow-remote", false, "allow a non-loopback --listen address (a token is then required)")
	f.Int64Var(&sf.maxBody, "max-body", server.DefaultMaxBody, "largest HTTP request body in bytes")
	f.IntVar(&sf.maxConcurrent, "max-concurrent", server.DefaultMaxConcurrent, "HTTP requests answered at once (/mcp included); more wait up to 10s, then get 503")
	f.DurationVar(&sf.bodyTimeout, "body-timeout", server.DefaultBodyTimeout, "a request body must arrive within this time (408 otherwise); it is read before the request takes a slot")
}

// check refuses limits that are zero or negative: a limit of 0 would not
// mean "the default" silently, it would be a mistake. When listening it
// also refuses a blank token (over stdio no request carries one).
func (sf *serviceFlags) check(listening bool) error {
	for _, l := range []struct {
		flag string
		v    int64
	}{
		{"max-sessions", int64(sf.maxSessions)}, {"max-spans", int64(sf.maxSpans)},
		{"max-budget", int64(sf.maxBudget)}, {"max-units", int64(sf.maxUnits)},
		{"max-body", sf.maxBody}, {"max-concurrent", int64(sf.maxConcurrent)},
		{"max-file-bytes", sf.maxFileBytes}, {"max-text-bytes", sf.maxTextBytes},
	} {
		if l.v <= 0 {
			return fmt.Errorf("--%s %d: want a positive number", l.flag, l.v)
		}
	}
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{{"session-ttl", sf.sessionTTL}, {"fresh-wait", sf.freshWait}, {"body-timeout", sf.bodyTimeout}} {
		if d.v <= 0 {
			return fmt.Errorf("--%s %s: want a positive duration", d.flag, d.v)
		}
	}
	if sf.scanInterval == 0 {
		return errors.New("--scan-interval 0: want a positive duration, or a negative one to never scan")
	}
	if sf.deriveDelay == 0 {
		return errors.New("--derive-delay 0: want a positive duration, or a negative one to derive at once")
	}
	if _, err := orderModel(sf.order); err != nil {
		return err
	}
	if !listening {
		return nil
	}
	_, err := sf.token()
	return err
}

// handler is the HTTP API with MCP at /mcp.
func (sf *serviceFlags) handler(svc *server.Service, s *mcp.Server) http.Handler {
	return server.NewHandler(svc, server.HandlerOptions{
		MaxBody:       sf.maxBody,
		MaxConcurrent: sf.maxConcurrent,
		BodyTimeout:   sf.bodyTimeout,
		MCP:           server.NewMCPHandler(s, svc, sf.maxSessions),
	})
}

// service starts the shared recover service over the work tree: after
// indexing it, or (background) while it is indexed.
func (sf *serviceFlags) service(ctx context.Context, stderr io.Writer, background bool) (*server.Service, error) {
	opts, err := methodOptions()
	if err != nil {
		return nil, err
	}
	loader := &server.IndexLoader{Repo: sf.repo, DB: sf.db}
	if loader.Engine.Order, err = orderModel(sf.order); err != nil {
		return nil, err
	}
	loader.Index.IncludeVendored = sf.includeVendored
	loader.Index.IncludeGenerated = sf.includeGenerated
	loader.Index.MaxFileBytes, loader.Index.MaxTextBytes = sf.maxFileBytes, sf.maxTextBytes
	loader.Index.Logf = stderrLogf(stderr)
	var ignore []string
	if sf.db != "" {
		ignore = append(ignore, sf.db) // with its journals and temporary files
	}
	svc, err := server.New(ctx, server.Config{
		Repo:          sf.repo,
		Loader:        loader,
		Method:        sf.method,
		MethodOptions: opts,
		ScanInterval:  sf.scanInterval,
		DeriveDelay:   sf.deriveDelay,
		FreshWait:     sf.freshWait,
		Ignore:        ignore,
		Sessions:      server.SessionLimits{TTL: sf.sessionTTL, MaxSessions: sf.maxSessions, MaxSpans: sf.maxSpans},
		MaxBudget:     sf.maxBudget,
		MaxUnits:      sf.maxUnits,
		Background:    background,
		Logf: func(format string, args ...any) {
			fmt.Fprintf(stderr, format+"\n", args...)
		},
	})
	if err != nil {
		return nil, err
	}
	if background {
		fmt.Fprintf(stderr, "mss: indexing %s in the background; requests wait for it\n", svc.Root())
	}
	return svc, nil
}

// checkListen refuses, before anything is indexed, a --listen address
// ListenAndServe would refuse: not loopback without --allow-remote, or
// remote without a token.
func (sf *serviceFlags) checkListen() error {
	if err := server.CheckListen(sf.listen, sf.allowRemote); err != nil {
		return err
	}
	if !sf.allowRemote {
		return nil
	}
	tok, err := sf.token()
	if err == nil && tok == "" {
		err = server.ErrRemoteNeedsToken
	}
	return err
}

// token reads the bearer token from the environment variable --token-env
// names. A token set but blank is refused: nobody could authenticate.
func (sf *serviceFlags) token() (string, error) {
	if sf.tokenEnv == "" {
		return "", nil
	}
	tok := os.Getenv(sf.tokenEnv)
	if err := server.CheckToken(tok); err != nil {
		return "", fmt.Errorf("$%s: %w", sf.tokenEnv, err)
	}
	return tok, nil
}

func (sf *serviceFlags) listenAndServe(ctx context.Context, h http.Handler, stderr io.Writer) error {
	token, err := sf.token()
	if err != nil {
		return err
	}
	return server.ListenAndServe(ctx, sf.listen, h, server.ServeOptions{
		AllowRemote: sf.allowRemote,
		Token:       token,
		Ready: func(addr string) {
			auth := "no token"
			if token != "" {
				auth = "bearer token from $" + sf.tokenEnv
			}
			fmt.Fprintf(stderr, "mss: listening on http://%s (%s)\n", addr, auth)
		},
	})
}

// signalContext ends on SIGINT or SIGTERM.
func signalContext(parent context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
}

func init() { addCommand(newServeCmd()) }

// newServeCmd is mss serve.
func newServeCmd() *cobra.Command {
	var sf serviceFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the JSON HTTP API (and MCP at /mcp) for a work tree",
		Long: `Serve mss over HTTP for one work tree:

  POST /v1/recover   state card (+ session_id, budget_tokens, max_units) -> units
  POST /v1/observed  {"session_id", "observed_spans"} -> session counts
  POST /v1/search    {"query", "limit"} -> units
  POST /v1/index     re-index now
  GET  /v1/health    status (no token needed)
  /mcp               MCP over streamable HTTP

Sessions: send the id from the Mss-Session-Id response header (or
session_id) with later requests; what was delivered and what you report
reading is then excluded. The tree is re-indexed incrementally when files
change, so line numbers are always current. See docs/serve.md.`,
		Args: cliargs.None,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			if err := sf.checkListen(); err != nil {
				return err
			}
			if err := sf.check(true); err != nil {
				return err
			}
			stderr := &syncWriter{w: cmd.ErrOrStderr()}
			svc, err := sf.service(ctx, stderr, false)
			if err != nil {
				return err
			}
			defer svc.Close()
			h := sf.handler(svc, server.NewMCPServer(svc, version))
			return sf.listenAndServe(ctx, h, stderr)
		},
	}
	sf.register(cmd, "127.0.0.1:7777")
	cmd.AddCommand(serveBenchCmd())
	return cmd
}

// serveBenchCmd measures recover latency over the HTTP API.
func serveBenchCmd() *cobra.Command {
	var (
		url, states, tokenEnv string
		clients, requests     int
		budget, maxUnits      int
		sessions              bool
	)
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure /v1/recover latency (p50/p95) with concurrent clients",
		Long: `Send --requests recover requests from --clients concurrent clients to a
running mss serve and print latency percentiles and throughput. States come
from --states (JSONL of state cards, or a JSON array), used round-robin;
observed spans in them are sent as is. With --sessions each client keeps
one session, so later answers exclude what earlier ones delivered.`,
		Args: cliargs.None,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if clients < 1 || clients > 256 || requests < 1 || requests > 1_000_000 {
				return errors.New("--clients must be 1..256 and --requests 1..1000000")
			}
			cards, err := loadStates(states)
			if err != nil {
				return err
			}
			token := ""
			if tokenEnv != "" {
				token = os.Getenv(tokenEnv)
			}
			return runServeBench(cmd.Context(), cmd.OutOrStdout(), benchConfig{
				url: strings.TrimRight(url, "/"), token: token, states: cards,
				clients: clients, requests: requests, budget: budget, maxUnits: maxUnits, sessions: sessions,
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&url, "url", "http://127.0.0.1:7777", "base URL of a running mss serve")
	f.StringVar(&states, "states", "", "state cards, JSONL or a JSON array (required)")
	f.IntVar(&clients, "clients", 8, "concurrent clients")
	f.IntVar(&requests, "requests", 200, "total requests")
	f.IntVar(&budget, "budget", 0, "budget_tokens per request (0: server default)")
	f.IntVar(&maxUnits, "max-units", 0, "max_units per request (0: server default)")
	f.BoolVar(&sessions, "sessions", false, "one session per client")
	f.StringVar(&tokenEnv, "token-env", "MSS_SERVE_TOKEN", "environment variable holding the bearer token")
	cmd.MarkFlagRequired("states")
	return cmd
}

// loadStates reads state cards, JSONL or a JSON array, each through the
// one state-card reader (mss.ParseState).
func loadStates(path string) ([]mss.State, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxStatesFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > maxStatesFile {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, maxStatesFile)
	}
	data = mss.TrimByteOrderMark(data)
	var out []mss.State
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '[' {
		var raw []json.RawMessage
		if err := json.Unmarshal(t, &raw); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		for i, r := range raw {
			st, err := mss.ParseState(fmt.Sprintf("%s[%d]", path, i), r)
			if err != nil {
				return nil, err
			}
			out = append(out, *st)
		}
	} else {
		for i, line := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			st, err := mss.ParseState(fmt.Sprintf("%s:%d", path, i+1), line)
			if err != nil {
				return nil, err
			}
			out = append(out, *st)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no states", path)
	}
	return out, nil
}

// maxStatesFile bounds the states file of mss serve bench.
const maxStatesFile = 1 << 30

type benchConfig struct {
	url, token        string
	states            []mss.State
	clients, requests int
	budget, maxUnits  int
	sessions          bool
}

func runServeBench(ctx context.Context, w io.Writer, cfg benchConfig) error {
	client := &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: cfg.clients}}
	var (
		mu        sync.Mutex
		latencies []time.Duration
		units     int
		failures  []string
		next      int
	)
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if next >= cfg.requests {
			return 0, false
		}
		next++
		return next - 1, true
	}
	start := time.Now()
	var wg sync.WaitGroup
	for c := 0; c < cfg.clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			for {
				i, ok := take()
				if !ok || ctx.Err() != nil {
					return
				}
				st := cfg.states[i%len(cfg.states)]
				body := server.RecoverRequest{State: st, BudgetTokens: cfg.budget, MaxUnits: cfg.maxUnits}
				if cfg.sessions {
					body.SessionID = fmt.Sprintf("bench-%d", c)
				}
				data, _ := json.Marshal(body)
				req, err := http.NewRequestWithContext(ctx, "POST", cfg.url+"/v1/recover", bytes.NewReader(data))
				if err != nil {
					mu.Lock()
					failures = append(failures, err.Error())
					mu.Unlock()
					return
				}
				req.Header.Set("Content-Type", "application/json")
				if cfg.token != "" {
					req.Header.Set("Authorization", "Bearer "+cfg.token)
				}
				t0 := time.Now()
				resp, err := client.Do(req)
				var rr struct {
					Units   []json.RawMessage `json:"units"`
					Code    string            `json:"code"`
					Message string            `json:"message"`
				}
				if err == nil {
					err = json.NewDecoder(resp.Body).Decode(&rr)
					resp.Body.Close()
					if err == nil && resp.StatusCode != 200 {
						err = fmt.Errorf("status %d: %s: %s", resp.StatusCode, rr.Code, rr.Message)
					}
				}
				d := time.Since(t0)
				mu.Lock()
				if err != nil {
					failures = append(failures, err.Error())
				} else {
					latencies = append(latencies, d)
					units += len(rr.Units)
				}
				mu.Unlock()
			}
		}(c)
	}
	wg.Wait()
	wall := time.Since(start)
	if len(latencies) == 0 {
		if len(failures) > 0 {
			return fmt.Errorf("every request failed; first: %s", failures[0])
		}
		return errors.New("no requests completed")
	}
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	pct := func(p float64) time.Duration {
		i := int(p*float64(len(latencies))+0.5) - 1
		i = max(0, min(i, len(latencies)-1))
		return latencies[i]
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	fmt.Fprintf(w, "requests   %d ok, %d failed, %d clients, %d states\n", len(latencies), len(failures), cfg.clients, len(cfg.states))
	fmt.Fprintf(w, "latency    p50 %.1f ms  p95 %.1f ms  p99 %.1f ms  max %.1f ms\n", ms(pct(0.50)), ms(pct(0.95)), ms(pct(0.99)), ms(latencies[len(latencies)-1]))
	fmt.Fprintf(w, "throughput %.1f requests/s over %.1f s; %.1f units per answer\n", float64(len(latencies))/wall.Seconds(), wall.Seconds(), float64(units)/float64(len(latencies)))
	if len(failures) > 0 {
		fmt.Fprintf(w, "first failure: %s\n", failures[0])
	}
	return nil
}

// syncWriter serializes writes to w: the service's log lines, the
// transport's and the command's own reach one stream from several
// goroutines (each fmt.Fprintf is one Write).
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
