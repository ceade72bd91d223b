package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/render"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tool descriptions are read by agents on every turn, so they are short.

// RecoverArgs are the arguments of the recover_evidence tool: the state
// card fields an agent knows, and what it has already read.
type RecoverArgs struct {
	Issue              string     `json:"issue" jsonschema:"the task or issue text"`
	InformationNeed    string     `json:"information_need,omitempty" jsonschema:"what the next decision needs to know"`
	CurrentHypothesis  string     `json:"current_hypothesis,omitempty"`
	CurrentSubgoal     string     `json:"current_subgoal,omitempty"`
	CurrentObservation string     `json:"current_observation,omitempty" jsonschema:"latest tool output or error, trimmed"`
	ObservedSpans      []mss.Span `json:"observed_spans,omitempty" jsonschema:"source lines already read"`
	BudgetTokens       int        `json:"budget_tokens,omitempty" jsonschema:"source token budget (default 6144)"`
	MaxUnits           int        `json:"max_units,omitempty" jsonschema:"most units to return (default 8)"`
}

// ObservedArgs are the arguments of mark_observed.
type ObservedArgs struct {
	ObservedSpans []mss.Span `json:"observed_spans" jsonschema:"source lines the agent has read"`
}

// SearchArgs are the arguments of search_code.
type SearchArgs struct {
	Query string `json:"query" jsonschema:"identifiers or words"`
	Limit int    `json:"limit,omitempty" jsonschema:"most results (default 10)"`
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

// NewMCPServer returns an MCP server exposing svc as four tools:
// recover_evidence, mark_observed, search_code and index_status. Each MCP
// session is an mss session: what recover_evidence delivered and what
// mark_observed reported count as observed in later calls.
func NewMCPServer(svc *Service, version string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "mss", Version: version}, &mcp.ServerOptions{
		Instructions: "Call recover_evidence with your current state to get the few source units your next decision still lacks; report files you read yourself with mark_observed.",
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:        "recover_evidence",
		Description: "Return the missing source evidence (4-8 intact functions/classes with path, lines, source) for your current state, excluding what you have already seen.",
	}, func(ctx context.Context, req *mcp.CallToolRequest, in RecoverArgs) (*mcp.CallToolResult, any, error) {
		resp, err := svc.Recover(ctx, &RecoverRequest{
			State: mss.State{
				Issue:              in.Issue,
				InformationNeed:    in.InformationNeed,
				CurrentHypothesis:  in.CurrentHypothesis,
				CurrentSubgoal:     in.CurrentSubgoal,
				CurrentObservation: in.CurrentObservation,
				ObservedSpans:      in.ObservedSpans,
			},
			SessionID:    mcpSession(req),
			BudgetTokens: in.BudgetTokens,
			MaxUnits:     in.MaxUnits,
		})
		if err != nil {
			return nil, nil, err
		}
		var b strings.Builder
		if f := resp.Fallback; f != nil {
			fmt.Fprintf(&b, "FALLBACK: %s stage %s failed (%s); units from the fallback policy.\n", resp.Method, f.Stage, f.Reason)
		}
		fmt.Fprintf(&b, "%d units, %d of %d tokens; %d spans already seen were excluded.\n", len(resp.Units), resp.Tokens, resp.Budget, resp.Observed)
		if err := render.Text(&b, resp.Units); err != nil {
			return nil, nil, err
		}
		return textResult(b.String()), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:        "mark_observed",
		Description: "Record source lines you have read so recover_evidence does not return them.",
	}, func(ctx context.Context, req *mcp.CallToolRequest, in ObservedArgs) (*mcp.CallToolResult, any, error) {
		info, err := svc.MarkObserved(mcpSession(req), in.ObservedSpans)
		if err != nil {
			return nil, nil, err
		}
		return textResult(fmt.Sprintf("recorded; this session has seen %d delivered and %d read spans.", info.Delivered, info.Read)), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:        "search_code",
		Description: "Lexical/symbol search over the repository's units; returns path:lines symbol.",
	}, func(ctx context.Context, req *mcp.CallToolRequest, in SearchArgs) (*mcp.CallToolResult, any, error) {
		units, err := svc.Search(ctx, in.Query, in.Limit)
		if err != nil {
			return nil, nil, err
		}
		var b strings.Builder
		if len(units) == 0 {
			b.WriteString("no matches\n")
		}
		for _, u := range units {
			fmt.Fprintf(&b, "%s:%d-%d", u.Path, u.StartLine, u.EndLine)
			if u.Symbol != "" {
				fmt.Fprintf(&b, " %s", u.Symbol)
			}
			if u.Kind != "" {
				fmt.Fprintf(&b, " (%s)", u.Kind)
			}
			if first, _, _ := strings.Cut(strings.TrimSpace(u.Content), "\n"); first != "" {
				fmt.Fprintf(&b, ": %s", strings.TrimSpace(first))
			}
			b.WriteByte('\n')
		}
		return textResult(b.String()), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:        "index_status",
		Description: "Show the index the answers come from.",
	}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		data, err := json.MarshalIndent(svc.Status(), "", "  ")
		if err != nil {
			return nil, nil, err
		}
		return textResult(string(data) + "\n"), nil, nil
	})
	return s
}

// NewMCPHandler serves s over the streamable HTTP transport.
func NewMCPHandler(s *mcp.Server) http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{
		SessionTimeout: DefaultSessionTTL,
	})
}
