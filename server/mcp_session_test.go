package server

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPFullSession drives the server through a whole session with the
// SDK client over stdio framing: initialize, list the tools, call each,
// and check every structured result against the tool's declared output
// schema, and the text against the structured answer.
func TestMCPFullSession(t *testing.T) {
	svc, _ := newTestService(t, nil)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx := context.Background()
	done := make(chan error, 1)
	go func() {
		done <- NewMCPServer(svc, "v1.2.3 (abc)").Run(ctx, &StdioTransport{In: inR, Out: outW})
		outW.Close()
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if info := cs.InitializeResult().ServerInfo; info.Name != "mss" || info.Version != "v1.2.3 (abc)" {
		t.Errorf("serverInfo %+v", info)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*jsonschema.Resolved{}
	for _, tl := range tools.Tools {
		if tl.OutputSchema == nil {
			t.Errorf("%s: no output schema", tl.Name)
			continue
		}
		raw, _ := json.Marshal(tl.OutputSchema)
		var s jsonschema.Schema
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatalf("%s: output schema: %v", tl.Name, err)
		}
		r, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: output schema does not resolve: %v", tl.Name, err)
		}
		schemas[tl.Name] = r
		in, _ := json.Marshal(tl.InputSchema)
		var top map[string]any
		json.Unmarshal(in, &top)
		if tl.Name == "recover_evidence" && top["required"] != nil {
			t.Errorf("recover_evidence requires %v; a card needs any one text field", top["required"])
		}
	}
	call := func(name string, args any) (string, map[string]any) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		var v map[string]any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("%s: structured content %s: %v", name, raw, err)
		}
		if r := schemas[name]; r == nil {
			t.Fatalf("%s: no schema", name)
		} else if err := r.Validate(v); err != nil {
			t.Errorf("%s: structured content does not match the output schema: %v\n%s", name, err, raw)
		}
		var text strings.Builder
		for _, c := range res.Content {
			text.WriteString(c.(*mcp.TextContent).Text)
		}
		return text.String(), v
	}

	text, v := call("recover_evidence", headerIssue)
	units := v["units"].([]any)
	if len(units) == 0 {
		t.Fatalf("recover_evidence: no units\n%s", text)
	}
	for _, u := range units {
		u := u.(map[string]any)
		if p := u["path"].(string); !strings.Contains(text, p) {
			t.Errorf("unit %s is in the structured answer, not in the text", p)
		}
		if _, ok := u["start_line"].(float64); !ok {
			t.Errorf("unit without start_line: %v", u)
		}
	}
	if _, ok := v["session_id"]; ok {
		t.Errorf("stdio answer names the internal session id: %v", v["session_id"])
	}
	_, v = call("mark_observed", map[string]any{"observed_spans": []map[string]any{{"path": "widgets/util.py", "start_line": 1, "end_line": 4}}})
	if v["read_spans"].(float64) != 1 {
		t.Errorf("mark_observed: %v", v)
	}
	text, v = call("search_code", map[string]any{"query": "split_fields"})
	if us := v["units"].([]any); len(us) == 0 || !strings.Contains(text, "widgets/util.py") {
		t.Errorf("search_code: %v\n%s", v, text)
	}
	_, v = call("index_status", map[string]any{})
	if v["status"] != StateReady || v["index"].(map[string]any)["units"].(float64) == 0 || v["build"].(map[string]any)["finished"] == nil {
		t.Errorf("index_status: %v", v)
	}
	if _, ok := v["repo"]; !ok {
		t.Errorf("index_status over stdio (the user's own process) lacks the repository path: %v", v)
	}
	cs.Close()
	inW.Close()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
}

// progressLoader reports progress of a first build and holds it until
// released.
type progressLoader struct {
	Loader
	reported chan struct{}
	release  chan struct{}
	once     sync.Once
}

func (p *progressLoader) Load(ctx context.Context) (Snapshot, error) {
	first := false
	p.once.Do(func() { first = true })
	if first {
		if f := Progress(ctx); f != nil {
			f(1, 4)
			f(3, 4)
		}
		close(p.reported)
		select {
		case <-p.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return p.Loader.Load(ctx)
}

// TestMCPProgressWhileIndexing: a tool call that waits for the first
// index gets progress notifications when it sent a progress token.
func TestMCPProgressWhileIndexing(t *testing.T) {
	dir := writeFixture(t)
	pl := &progressLoader{Loader: &IndexLoader{Repo: dir}, reported: make(chan struct{}), release: make(chan struct{})}
	svc, err := New(context.Background(), Config{Repo: dir, Loader: pl, Background: true, MethodOptions: noGrow})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	<-pl.reported
	if st := svc.Status(); st.Status != StateIndexing || st.Build.FilesDone != 3 || st.Build.FilesTotal != 4 || st.Index != nil {
		t.Errorf("status while indexing: %+v", st)
	}
	ctx := context.Background()
	got := make(chan *mcp.ProgressNotificationParams, 16)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := NewMCPServer(svc, "test").Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			got <- r.Params
		},
	}).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	go func() {
		p := <-got // the call is waiting and reporting: let the build end
		if p.ProgressToken != "tok-1" || p.Progress != 3 || p.Total != 4 || !strings.Contains(p.Message, "3 of 4 files") {
			t.Errorf("progress %+v", p)
		}
		close(pl.release)
	}()
	params := &mcp.CallToolParams{Name: "recover_evidence", Arguments: headerIssue}
	params.SetProgressToken("tok-1")
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("recover_evidence: %v %+v", err, res)
	}
}

// TestServeStdioFinishesIndex: a client that disconnects while the index
// is built does not cut the build short: ServeStdio returns once the
// index is written and loaded.
func TestServeStdioFinishesIndex(t *testing.T) {
	dir := writeFixture(t)
	pl := &progressLoader{Loader: &IndexLoader{Repo: dir}, reported: make(chan struct{}), release: make(chan struct{})}
	svc, err := New(context.Background(), Config{Repo: dir, Loader: pl, Background: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	<-pl.reported
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	done := make(chan error, 1)
	go func() {
		done <- ServeStdio(context.Background(), NewMCPServer(svc, "test"), svc, &StdioTransport{In: in, Out: io.Discard}, nil)
	}()
	select {
	case err := <-done:
		t.Fatalf("ServeStdio returned (%v) while the index was still being built", err)
	default:
	}
	close(pl.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if st := svc.Status(); st.Status != StateReady || st.Index == nil || st.Index.Units == 0 {
		t.Errorf("status after ServeStdio: %+v, want a loaded index", st)
	}
}
