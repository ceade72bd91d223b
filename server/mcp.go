package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/internal/jsonkey"
	"github.com/missingcomplement/mss/render"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tool descriptions are read by agents on every turn, so they are short.

// RecoverArgs are the arguments of the recover_evidence tool: every field
// of a state card (a card from mss state from-trajectory passes as is),
// and the answer's budget. At least one text field must be set.
type RecoverArgs struct {
	Issue               string     `json:"issue,omitempty" jsonschema:"the task or issue text"`
	InformationNeed     string     `json:"information_need,omitempty" jsonschema:"what the next decision needs to know"`
	CurrentHypothesis   string     `json:"current_hypothesis,omitempty"`
	CurrentSubgoal      string     `json:"current_subgoal,omitempty"`
	CurrentObservation  string     `json:"current_observation,omitempty" jsonschema:"latest tool output or error, trimmed"`
	LatestTestOutput    string     `json:"latest_test_output,omitempty" jsonschema:"the last test run's output, trimmed"`
	CurrentDiff         string     `json:"current_diff,omitempty" jsonschema:"the agent's uncommitted diff"`
	SearchQueries       []string   `json:"search_queries,omitempty" jsonschema:"searches the agent already ran"`
	OpenedFiles         []string   `json:"opened_files,omitempty" jsonschema:"files the agent opened, as repository-relative paths"`
	ObservedSpans       []mss.Span `json:"observed_spans,omitempty" jsonschema:"source lines already read (paths repository-relative)"`
	ObservedEvidenceIDs []string   `json:"observed_evidence_ids,omitempty" jsonschema:"ids of index units already read (a grown unit's id names none: send its lines in observed_spans)"`
	StateID             string     `json:"state_id,omitempty"`
	ItemID              string     `json:"item_id,omitempty"`
	InstanceID          string     `json:"instance_id,omitempty"`
	Repo                string     `json:"repo,omitempty"`
	BaseCommit          string     `json:"base_commit,omitempty"`
	Split               string     `json:"split,omitempty"`
	StateType           string     `json:"state_type,omitempty"`
	TrajectoryPrefix    []any      `json:"trajectory_prefix,omitempty" jsonschema:"the trajectory so far (kept for the record, not read)"`
	BudgetTokens        int        `json:"budget_tokens,omitempty" jsonschema:"source token budget (default 6144)"`
	MaxUnits            int        `json:"max_units,omitempty" jsonschema:"most units to return (default 8)"`
}

// state is the card the arguments carry.
func (a *RecoverArgs) state() (mss.State, error) {
	st := mss.State{
		StateID: a.StateID, ItemID: a.ItemID, InstanceID: a.InstanceID, Repo: a.Repo, BaseCommit: a.BaseCommit,
		Split: a.Split, StateType: a.StateType,
		Issue: a.Issue, InformationNeed: a.InformationNeed, CurrentObservation: a.CurrentObservation,
		CurrentHypothesis: a.CurrentHypothesis, CurrentSubgoal: a.CurrentSubgoal, CurrentDiff: a.CurrentDiff,
		LatestTestOutput: a.LatestTestOutput, OpenedFiles: a.OpenedFiles, SearchQueries: a.SearchQueries,
		ObservedSpans: a.ObservedSpans, ObservedEvidenceIDs: a.ObservedEvidenceIDs,
	}
	for _, step := range a.TrajectoryPrefix {
		raw, err := json.Marshal(step)
		if err != nil {
			return st, badRequest("trajectory_prefix: %v", err)
		}
		st.TrajectoryPrefix = append(st.TrajectoryPrefix, raw)
	}
	return st, nil
}

// ObservedArgs are the arguments of mark_observed.
type ObservedArgs struct {
	ObservedSpans []mss.Span `json:"observed_spans" jsonschema:"source lines the agent has read"`
}

// SearchArgs are the arguments of search_code.
type SearchArgs struct {
	Query string `json:"query" jsonschema:"identifiers or words"`
	Limit int    `json:"limit,omitempty" jsonschema:"most results (default 10, at most 100)"`
}

// stdioSession names the one session of a transport without session ids.
const stdioSession = "mcp"

func mcpSession(req *mcp.CallToolRequest) string {
	if req.Session != nil {
		if id := req.Session.ID(); id != "" {
			return id
		}
	}
	return stdioSession
}

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// progressEvery is how often a waiting tool call reports indexing progress.
const progressEvery = 200 * time.Millisecond

// reportProgress sends progress notifications for the running build while
// a tool call waits, when the client sent a progress token. The returned
// function stops it.
func reportProgress(ctx context.Context, svc *Service, req *mcp.CallToolRequest) (stop func()) {
	if req.Session == nil || req.Params == nil || req.Params.GetProgressToken() == nil {
		return func() {}
	}
	token := req.Params.GetProgressToken()
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		last := -1
		for {
			svc.refreshMu.Lock()
			running := svc.building != nil
			svc.refreshMu.Unlock()
			if running {
				n, total := svc.progress.get()
				if n > last {
					last = n
					msg := "indexing the repository"
					if total > 0 {
						msg = fmt.Sprintf("indexing: %d of %d files", n, total)
					}
					req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
						ProgressToken: token, Progress: float64(n), Total: float64(total), Message: msg,
					})
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() { cancel(); <-done }
}

// checkArgs refuses in a tool's arguments (v their type) what
// mss.ParseState refuses in a card and a JSON decoder would take without a
// word: text that is not UTF-8, a field given twice, a key matching a
// field only by folding case.
func checkArgs(req *mcp.CallToolRequest, v any) error {
	if err := checkArgsText(req); err != nil {
		return err
	}
	if req == nil || req.Params == nil || len(req.Params.Arguments) == 0 {
		return nil
	}
	if se := mss.CheckKeys(req.Params.Arguments, jsonkey.Names(v)...); se != nil {
		return argsError(se)
	}
	return nil
}

// argTypes refuses a tool call whose arguments the HTTP API would refuse
// as a body (a value of the wrong type for a field: a number past an
// int's range, 2.5 or 1e3 for a count, a string for a list; an unknown
// field, one named in another case, a null for a field) with the message
// the HTTP API gives for it, naming the field, as the tool's error; the
// SDK's input schema would answer with Go's types and reflection
// ("<invalid reflect.Value> has type \"null\""). args gives a new value
// of each tool's arguments type.
func argTypes(args map[string]func() any) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			call, ok := req.(*mcp.CallToolRequest)
			if method != "tools/call" || !ok || call.Params == nil || len(call.Params.Arguments) == 0 {
				return next(ctx, method, req)
			}
			v, ok := args[call.Params.Name]
			if !ok {
				return next(ctx, method, req)
			}
			err := decode(call.Params.Arguments, v(), false)
			if err == nil {
				err = checkKeys(call.Params.Arguments, v())
			}
			if err != nil {
				_, api := classify(err)
				res := textResult(api.Message)
				res.IsError = true
				return res, nil
			}
			return next(ctx, method, req)
		}
	}
}

// checkArgsText refuses a tool's arguments that are not UTF-8 text, as
// mss.ParseState refuses such a card: a JSON decoder would read each
// such byte as U+FFFD.
func checkArgsText(req *mcp.CallToolRequest) error {
	if req == nil || req.Params == nil {
		return nil
	}
	if se := mss.CheckUTF8(req.Params.Arguments); se != nil {
		return argsError(se)
	}
	return nil
}

// toolError is err as a tool answers it: over HTTP to a caller without
// the server's token, an error of the server's own names no absolute
// path (publicError), as index_status shows none; over stdio, a local
// process of the user's, it is as it is.
func toolError(ctx context.Context, req *mcp.CallToolRequest, err error) error {
	if mcpSession(req) == stdioSession || Authenticated(ctx) {
		return err
	}
	return publicError(err)
}

// argsError is what the root package's card reader refused in a tool's
// arguments, naming the field.
func argsError(se *mss.StateError) error {
	if se.Field == "" {
		return badRequest("%s", se.Msg)
	}
	return badRequest("field %s: %s", se.Field, se.Msg)
}

// outputSchema is the output schema of a tool answering T: T's inferred
// schema, where a unit may also hold content_bytes and context_bytes,
// which mss.Unit's JSON adds for content that is not UTF-8 (an inferred
// schema knows only the struct's fields, and the answer would fail it).
// The types are fixed, so an error is a programming error, as it is to
// mcp.AddTool.
func outputSchema[T any]() *jsonschema.Schema {
	unit, err := jsonschema.For[mss.Unit](nil)
	if err != nil {
		panic(err)
	}
	for _, name := range []string{"content_bytes", "context_bytes"} {
		unit.Properties[name] = &jsonschema.Schema{
			Type:            "string",
			ContentEncoding: "base64",
			Description:     "the exact bytes of " + strings.TrimSuffix(name, "_bytes") + ", set when they are not UTF-8",
		}
	}
	s, err := jsonschema.For[T](&jsonschema.ForOptions{
		TypeSchemas: map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[mss.Unit](): unit},
	})
	if err != nil {
		panic(err)
	}
	return s
}

// NewMCPServer returns an MCP server exposing svc as four tools:
// recover_evidence, mark_observed, search_code and index_status. Each
// returns text (what the model reads) and the same answer as structured
// content, described by the tool's output schema. Each MCP session is an
// mss session: what recover_evidence delivered and what mark_observed
// reported count as observed in later calls.
func NewMCPServer(svc *Service, version string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "mss", Version: version}, &mcp.ServerOptions{
		Instructions: "Call recover_evidence with your current state to get the few source units your next decision still lacks; report files you read yourself with mark_observed.",
	})
	s.AddReceivingMiddleware(argTypes(map[string]func() any{
		"recover_evidence": func() any { return new(RecoverArgs) },
		"mark_observed":    func() any { return new(ObservedArgs) },
		"search_code":      func() any { return new(SearchArgs) },
	}))
	mcp.AddTool(s, &mcp.Tool{
		Name:         "recover_evidence",
		Description:  "Return the missing source evidence (4-8 intact functions/classes with path, lines, source) for your current state, excluding what you have already seen.",
		OutputSchema: outputSchema[RecoverResponse](),
	}, func(ctx context.Context, req *mcp.CallToolRequest, in RecoverArgs) (*mcp.CallToolResult, *RecoverResponse, error) {
		if err := checkArgs(req, &in); err != nil {
			return nil, nil, err
		}
		defer reportProgress(ctx, svc, req)()
		st, err := in.state()
		if err != nil {
			return nil, nil, err
		}
		resp, err := svc.Recover(ctx, &RecoverRequest{
			State:        st,
			SessionID:    mcpSession(req),
			BudgetTokens: in.BudgetTokens,
			MaxUnits:     in.MaxUnits,
		})
		if err != nil {
			return nil, nil, toolError(ctx, req, err)
		}
		if resp.SessionID == stdioSession {
			resp.SessionID = ""
		} else if !Authenticated(ctx) {
			resp.Index = resp.Index.Public()
		}
		var b strings.Builder
		if f := resp.Fallback; f != nil {
			fmt.Fprintf(&b, "FALLBACK: %s stage %s failed (%s); units from the fallback policy.\n", resp.Method, f.Stage, f.Reason)
		}
		fmt.Fprintf(&b, "%s, %d of %d tokens; excluded as already seen: %s.\n", render.Count(len(resp.Units), "unit", ""), resp.Tokens, resp.Budget, render.Count(resp.Observed, "span", ""))
		for _, w := range resp.Warnings {
			fmt.Fprintf(&b, "warning: %s\n", w)
		}
		if err := render.Text(&b, resp.Units); err != nil {
			return nil, nil, err
		}
		return textResult(b.String()), resp, nil
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:        "mark_observed",
		Description: "Record source lines you have read so recover_evidence does not return them.",
	}, func(ctx context.Context, req *mcp.CallToolRequest, in ObservedArgs) (*mcp.CallToolResult, *SessionInfo, error) {
		if err := checkArgs(req, &in); err != nil {
			return nil, nil, err
		}
		info, err := svc.MarkObserved(ctx, mcpSession(req), in.ObservedSpans)
		if err != nil {
			return nil, nil, toolError(ctx, req, err)
		}
		if info.ID == stdioSession {
			info.ID = ""
		}
		var b strings.Builder
		fmt.Fprintf(&b, "recorded; this session has seen %d delivered and %d read spans.\n", info.Delivered, info.Read)
		for _, w := range info.Warnings {
			fmt.Fprintf(&b, "warning: %s\n", w)
		}
		return textResult(b.String()), &info, nil
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:         "search_code",
		Description:  "Lexical/symbol search over the repository's units; returns path:lines symbol.",
		OutputSchema: outputSchema[SearchResponse](),
	}, func(ctx context.Context, req *mcp.CallToolRequest, in SearchArgs) (*mcp.CallToolResult, *SearchResponse, error) {
		if err := checkArgs(req, &in); err != nil {
			return nil, nil, err
		}
		defer reportProgress(ctx, svc, req)()
		resp, err := svc.Search(ctx, in.Query, in.Limit)
		if err != nil {
			return nil, nil, toolError(ctx, req, err)
		}
		var b strings.Builder
		if len(resp.Units) == 0 {
			b.WriteString("no matches\n")
		}
		for _, u := range resp.Units {
			fmt.Fprintf(&b, "%s:%d-%d", Quote(u.Path), u.StartLine, u.EndLine)
			if u.Symbol != "" {
				fmt.Fprintf(&b, " %s", Quote(u.Symbol))
			}
			if u.Kind != "" {
				fmt.Fprintf(&b, " (%s)", u.Kind)
			}
			if first, _, _ := strings.Cut(strings.TrimSpace(u.Content), "\n"); first != "" {
				fmt.Fprintf(&b, ": %s", strings.TrimSpace(first))
			}
			b.WriteByte('\n')
		}
		for _, w := range resp.Warnings {
			fmt.Fprintf(&b, "warning: %s\n", w)
		}
		return textResult(b.String()), resp, nil
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:        "index_status",
		Description: "Show the index the answers come from: state (indexing, ready, stale), counts, build times.",
	}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, *Status, error) {
		st := svc.Status()
		if mcpSession(req) != stdioSession && !Authenticated(ctx) {
			st = st.Public() // over HTTP without the token: no absolute paths
		}
		data, err := json.MarshalIndent(st, "", "  ")
		if err != nil {
			return nil, nil, err
		}
		return textResult(string(data) + "\n"), &st, nil
	})
	return s
}

// NewMCPHandler serves s over the streamable HTTP transport. At most
// maxSessions MCP sessions live at once (0 means DefaultMaxSessions): a
// new one evicts the least recently used, as HTTP API sessions are.
// svc, when set, forgets an evicted session's observed spans, and its
// session TTL is the one after which an idle MCP session is closed, as
// its observed spans are forgotten (DefaultSessionTTL without svc).
func NewMCPHandler(s *mcp.Server, svc *Service, maxSessions int) http.Handler {
	if maxSessions <= 0 {
		maxSessions = DefaultMaxSessions
	}
	ttl := DefaultSessionTTL
	if svc != nil {
		ttl = svc.sessions.lim.TTL
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{
		SessionTimeout: ttl,
	})
	return newMCPSessionCap(h, s, svc, maxSessions)
}
