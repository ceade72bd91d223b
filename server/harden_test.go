package server

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/index"
	"github.com/missingcomplement/mss/internal/gittest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func apiError(t *testing.T, data []byte) APIError {
	t.Helper()
	var e APIError
	if err := json.Unmarshal(data, &e); err != nil || e.Code == "" || e.Message == "" {
		t.Fatalf("error body %s is not an APIError (%v)", data, err)
	}
	return e
}

// TestHTTPSlowBodyHoldsNoSlot: a client trickling its body holds no
// request slot while it does, and gets 408 when the body is late.
func TestHTTPSlowBodyHoldsNoSlot(t *testing.T) {
	svc, _ := newTestService(t, nil)
	active := make(chan struct{}, 16)
	ts := httptest.NewUnstartedServer(NewHandler(svc, HandlerOptions{MaxConcurrent: 1, QueueWait: time.Minute, BodyTimeout: 300 * time.Millisecond}))
	ts.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateActive {
			active <- struct{}{}
		}
	}
	ts.Start()
	t.Cleanup(ts.Close)

	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/recover HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{\"issue\": \"par")
	<-active // the slow request is being read

	// The only slot is free: a whole request is answered at once.
	resp, data := post(t, ts.URL+"/v1/recover", recoverBody, nil)
	if resp.StatusCode != 200 {
		t.Errorf("request beside a slow body: %d %s, want 200", resp.StatusCode, data)
	}
	sr, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Body.Close()
	var e APIError
	json.NewDecoder(sr.Body).Decode(&e)
	if sr.StatusCode != http.StatusRequestTimeout || e.Code != CodeBodyTimeout {
		t.Errorf("slow body: %d %+v, want 408 %s", sr.StatusCode, e, CodeBodyTimeout)
	}
}

// TestMCPTransportErrorsAreJSON: what the streamable transport refuses
// (a wrong content type, a malformed message, an unknown session), and
// a request with an id it would not answer under as sent, is answered as
// every API error is, JSON with a code, at the transport's status; its
// answers to good messages are untouched.
func TestMCPTransportErrorsAreJSON(t *testing.T) {
	svc, _ := newTestService(t, nil)
	ts := httptest.NewServer(NewHandler(svc, HandlerOptions{MCP: NewMCPHandler(NewMCPServer(svc, "test"), svc, 0)}))
	t.Cleanup(ts.Close)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	accept := "application/json, text/event-stream"
	for _, tc := range []struct {
		name, body string
		hdr        map[string]string
		status     int
		code       string
	}{
		{"content type", init, map[string]string{"Accept": accept, "Content-Type": "text/plain"}, http.StatusUnsupportedMediaType, CodeBadRequest},
		{"malformed", `{"jsonrpc":`, map[string]string{"Accept": accept}, http.StatusBadRequest, CodeBadRequest},
		{"unknown session", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, map[string]string{"Accept": accept, "Mcp-Session-Id": "no-such-session"}, http.StatusNotFound, CodeNotFound},
		// Requests the transport would answer under another id, or none.
		{"null id", strings.Replace(init, `"id":1`, `"id":null`, 1), map[string]string{"Accept": accept}, http.StatusBadRequest, CodeBadRequest},
		{"fractional id", strings.Replace(init, `"id":1`, `"id":4.5`, 1), map[string]string{"Accept": accept}, http.StatusBadRequest, CodeBadRequest},
		{"exponent id", strings.Replace(init, `"id":1`, `"id":1e0`, 1), map[string]string{"Accept": accept}, http.StatusBadRequest, CodeBadRequest},
		{"id past 2^53", strings.Replace(init, `"id":1`, `"id":9007199254740993`, 1), map[string]string{"Accept": accept}, http.StatusBadRequest, CodeBadRequest},
		{"id past int64", strings.Replace(init, `"id":1`, `"id":12345678901234567890`, 1), map[string]string{"Accept": accept}, http.StatusBadRequest, CodeBadRequest},
		{"bad id in a batch", `[` + init + `,{"jsonrpc":"2.0","id":2.5,"method":"ping"}]`, map[string]string{"Accept": accept}, http.StatusBadRequest, CodeBadRequest},
	} {
		resp, data := post(t, ts.URL+"/mcp", tc.body, tc.hdr)
		if resp.StatusCode != tc.status || resp.Header.Get("Content-Type") != "application/json" || apiError(t, data).Code != tc.code || apiError(t, data).Message == "" {
			t.Errorf("%s: %d %s %s, want %d JSON with code %s", tc.name, resp.StatusCode, resp.Header.Get("Content-Type"), data, tc.status, tc.code)
		}
	}
	resp, data := post(t, ts.URL+"/mcp", init, map[string]string{"Accept": accept})
	if resp.StatusCode != 200 || !strings.Contains(string(data), `"serverInfo"`) {
		t.Errorf("initialize: %d %s", resp.StatusCode, data)
	}
	for _, id := range []string{`9007199254740991`, `-9007199254740991`, `"x"`} {
		resp, data := post(t, ts.URL+"/mcp", strings.Replace(init, `"id":1`, `"id":`+id, 1), map[string]string{"Accept": accept})
		if resp.StatusCode != 200 || !strings.Contains(string(data), `"id":`+id+`,`) {
			t.Errorf("initialize with id %s: %d %s", id, resp.StatusCode, data)
		}
	}
}

// TestMCPOverHTTPSharesSlots: /mcp POSTs take the API's request slots and
// body limit.
func TestMCPOverHTTPSharesSlots(t *testing.T) {
	svc, _ := newTestService(t, nil)
	h := NewHandler(svc, HandlerOptions{MaxConcurrent: 1, QueueWait: 20 * time.Millisecond, MaxBody: 1024,
		MCP: NewMCPHandler(NewMCPServer(svc, "test"), svc, 0)})
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	hdr := map[string]string{"Accept": "application/json, text/event-stream"}

	h.(*handler).slots <- struct{}{} // every slot taken
	resp, data := post(t, ts.URL+"/mcp", init, hdr)
	if resp.StatusCode != http.StatusServiceUnavailable || apiError(t, data).Code != CodeBusy {
		t.Errorf("/mcp with no free slot: %d %s, want 503 busy", resp.StatusCode, data)
	}
	<-h.(*handler).slots
	resp, data = post(t, ts.URL+"/mcp", init, hdr)
	if resp.StatusCode != 200 {
		t.Errorf("/mcp with a free slot: %d %s", resp.StatusCode, data)
	}
	resp, data = post(t, ts.URL+"/mcp", init[:len(init)-1]+`,"x":"`+strings.Repeat("x", 2000)+`"}`, hdr)
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("/mcp body over the limit: %d %s, want 413", resp.StatusCode, data)
	}
}

// TestMCPSessionCap: streamable HTTP sessions beyond the cap evict the
// least recently used, as API sessions do.
func TestMCPSessionCap(t *testing.T) {
	svc, _ := newTestService(t, nil)
	s := NewMCPServer(svc, "test")
	capped := NewMCPHandler(s, svc, 3)
	ts := httptest.NewServer(capped)
	t.Cleanup(ts.Close)
	ctx := context.Background()
	var sessions []*mcp.ClientSession
	for i := 0; i < 8; i++ {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL, DisableStandaloneSSE: true}, nil)
		if err != nil {
			t.Fatalf("session %d: %v", i, err)
		}
		t.Cleanup(func() { cs.Close() })
		sessions = append(sessions, cs)
	}
	if n := capped.(*mcpSessionCap).Len(); n > 3 {
		t.Errorf("%d MCP sessions counted, cap 3", n)
	}
	answering := 0
	for i, cs := range sessions {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "index_status", Arguments: map[string]any{}})
		if err == nil {
			answering++
		}
		if i == len(sessions)-1 && err != nil {
			t.Errorf("the newest session: %v", err)
		}
	}
	if answering > 3 {
		t.Errorf("%d of 8 sessions still answer, cap 3", answering)
	}
}

// TestHTTPAuth: the bearer scheme is case-insensitive; health shows
// absolute paths only with the token; a blank token is refused.
func TestHTTPAuth(t *testing.T) {
	svc, dir := newTestService(t, nil)
	ts := httptest.NewServer(RequireToken("s3cret", NewHandler(svc, HandlerOptions{}), "/v1/health"))
	t.Cleanup(ts.Close)
	for _, auth := range []string{"Bearer s3cret", "bearer s3cret", "BEARER  s3cret"} {
		if resp, data := post(t, ts.URL+"/v1/recover", recoverBody, map[string]string{"Authorization": auth}); resp.StatusCode != 200 {
			t.Errorf("Authorization %q: %d %s", auth, resp.StatusCode, data)
		}
	}
	resp, data := post(t, ts.URL+"/v1/recover", recoverBody, map[string]string{"Authorization": "Basic s3cret"})
	if resp.StatusCode != 401 || apiError(t, data).Code != CodeUnauthorized {
		t.Errorf("Basic scheme: %d %s", resp.StatusCode, data)
	}
	root, _ := filepath.EvalSymlinks(dir)
	health := func(auth string) (int, string) {
		req, _ := http.NewRequest("GET", ts.URL+"/v1/health", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		bufio.NewReader(resp.Body).WriteTo(&b)
		return resp.StatusCode, b.String()
	}
	if code, body := health(""); code != 200 || strings.Contains(body, root) || strings.Contains(body, `"/`) || !strings.Contains(body, `"status":"ready"`) {
		t.Errorf("health without a token: %d %s; want ready with no absolute path", code, body)
	}
	if code, body := health("Bearer s3cret"); code != 200 || !strings.Contains(body, root) {
		t.Errorf("health with the token: %d %s; want the repository path", code, body)
	}
	for _, tok := range []string{" ", "\t", " s3cret", "s3\ncret"} {
		if err := CheckToken(tok); err == nil {
			t.Errorf("CheckToken(%q) accepted", tok)
		}
		if err := ListenAndServe(context.Background(), "127.0.0.1:0", http.NotFoundHandler(), ServeOptions{Token: tok}); err == nil {
			t.Errorf("ListenAndServe with token %q started", tok)
		}
	}
}

// failingLoader fails every load.
type failingLoader struct{}

func (failingLoader) Load(context.Context) (Snapshot, error) {
	return nil, errors.New("database disk image is malformed")
}

// TestHealthReportsUnusableIndex: with no usable index, health says so
// (503, state error) and requests get 503 index_unavailable, not 500.
func TestHealthReportsUnusableIndex(t *testing.T) {
	dir := writeFixture(t)
	svc, err := New(context.Background(), Config{Repo: dir, Loader: failingLoader{}, Background: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	svc.Wait(context.Background())
	ts := httptest.NewServer(NewHandler(svc, HandlerOptions{}))
	t.Cleanup(ts.Close)
	resp, err := http.Get(ts.URL + "/v1/health")
	if err != nil {
		t.Fatal(err)
	}
	var st Status
	json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if resp.StatusCode != 503 || st.Status != StateError || !strings.Contains(st.Error, "malformed") {
		t.Errorf("health: %d %+v; want 503, error, the cause", resp.StatusCode, st)
	}
	for _, path := range []string{"/v1/recover", "/v1/search"} {
		body := recoverBody
		if path == "/v1/search" {
			body = `{"query": "parse_header"}`
		}
		resp, data := post(t, ts.URL+path, body, nil)
		if resp.StatusCode != 503 || apiError(t, data).Code != CodeIndexUnavailable {
			t.Errorf("%s without an index: %d %s; want 503 %s", path, resp.StatusCode, data, CodeIndexUnavailable)
		}
	}
}

// damagedSnapshot fails its searches, as a database with damaged pages does.
type damagedSnapshot struct{ Snapshot }

func (damagedSnapshot) Search(context.Context, string, int) ([]mss.Unit, error) {
	return nil, errors.New("database disk image is malformed")
}

// damageOnce damages the first snapshot it loads; later loads are sound.
type damageOnce struct {
	Loader
	mu    sync.Mutex
	loads int
}

func (d *damageOnce) Load(ctx context.Context) (Snapshot, error) {
	snap, err := d.Loader.Load(ctx)
	d.mu.Lock()
	d.loads++
	n := d.loads
	d.mu.Unlock()
	if err == nil && n == 1 {
		return damagedSnapshot{snap}, nil
	}
	return snap, err
}

// TestDamagedIndexRebuilt: a snapshot that fails a query is reported
// (503, not 500), health says it is unusable, and it is rebuilt.
func TestDamagedIndexRebuilt(t *testing.T) {
	dir := writeFixture(t)
	d := &damageOnce{Loader: &IndexLoader{Repo: dir}}
	var logged []string
	var mu sync.Mutex
	svc, err := New(context.Background(), Config{Repo: dir, Loader: d, ScanInterval: -1,
		Logf: func(f string, a ...any) { mu.Lock(); logged = append(logged, fmt.Sprintf(f, a...)); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	_, err = svc.Search(context.Background(), "parse_header", 5)
	var un *indexUnavailable
	if !errors.As(err, &un) {
		t.Fatalf("search on a damaged index: %v, want index unavailable", err)
	}
	if st := svc.Status(); st.Status != StateRebuilding && st.Status != StateReady {
		t.Errorf("status after the failure: %+v", st)
	}
	svc.Wait(context.Background())
	if st := svc.Status(); st.Status != StateReady || st.Index.Generation != 2 {
		t.Errorf("status after the rebuild: %+v, want ready, generation 2", st)
	}
	resp, err := svc.Search(context.Background(), "parse_header", 5)
	if err != nil || len(resp.Units) == 0 {
		t.Errorf("search after the rebuild: %v %v", resp, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if j := strings.Join(logged, "\n"); !strings.Contains(j, "failed a query") || !strings.Contains(j, "mss: indexed") {
		t.Errorf("log:\n%s\nwant the failure and the rebuild", j)
	}
}

// escapingSnapshot returns, besides the index's results, a unit whose
// path leads through a symbolic link out of the repository.
type escapingSnapshot struct{ Snapshot }

func (e escapingSnapshot) Search(ctx context.Context, q string, n int) ([]mss.Unit, error) {
	us, err := e.Snapshot.Search(ctx, q, n)
	return append([]mss.Unit{{ID: "x", Path: "sub/secret.py", StartLine: 1, EndLine: 1, Content: "TOKEN = 'outside'\n", Symbol: "TOKEN"}}, us...), err
}

type escapingLoader struct{ Loader }

func (l escapingLoader) Load(ctx context.Context) (Snapshot, error) {
	snap, err := l.Loader.Load(ctx)
	if err != nil {
		return nil, err
	}
	return escapingSnapshot{snap}, nil
}

// TestSearchConfined: search never shows content reached through a
// symbolic link out of the repository, whatever the index holds.
func TestSearchConfined(t *testing.T) {
	dir := writeFixture(t)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.py"), []byte("TOKEN = 'outside'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "sub")); err != nil {
		t.Skip("symlinks unsupported:", err)
	}
	svc, err := New(context.Background(), Config{Repo: dir, Loader: escapingLoader{&IndexLoader{Repo: dir}}, ScanInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	resp, err := svc.Search(context.Background(), "TOKEN split_fields", 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range resp.Units {
		if strings.Contains(u.Content, "outside") || u.Path == "sub/secret.py" {
			t.Errorf("search showed %s: %q", u.Path, u.Content)
		}
	}
	if len(resp.Warnings) == 0 || !strings.Contains(resp.Warnings[0], "sub/secret.py") {
		t.Errorf("warnings %q, want one naming sub/secret.py", resp.Warnings)
	}
}

// TestStateCardEverywhere: HTTP and MCP accept any state-card field
// alone, as the CLI does, and warn about observed paths the index lacks.
func TestStateCardEverywhere(t *testing.T) {
	svc, _, url := newHTTP(t, HandlerOptions{})
	resp, data := post(t, url+"/v1/recover", `{"latest_test_output": "FAILED test_parse_header: parse_header dropped the last field"}`, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("latest_test_output alone: %d %s", resp.StatusCode, data)
	}
	body := `{"issue": "parse_header drops a field", "current_diff": "-    return fields\n+    return fields[:-1]", "search_queries": ["parse_header"],
		"opened_files": ["widgets/header.py"], "observed_spans": [{"path": "widgets\\hedaer.py", "start_line": 1, "end_line": 3}, {"path": "./widgets/util.py", "start_line": 1, "end_line": 1}]}`
	resp, data = post(t, url+"/v1/recover", body, nil)
	var rr RecoverResponse
	if err := json.Unmarshal(data, &rr); err != nil || resp.StatusCode != 200 {
		t.Fatalf("full card: %d %s", resp.StatusCode, data)
	}
	want := []string{"observed path widgets/hedaer.py is not in the index; its spans exclude nothing"}
	if fmt.Sprint(rr.Warnings) != fmt.Sprint(want) {
		t.Errorf("HTTP warnings %q, want %q", rr.Warnings, want)
	}
	resp, data = post(t, url+"/v1/observed", `{"session_id": "s1", "observed_spans": [{"path": "nope.py", "start_line": 1, "end_line": 2}]}`, nil)
	if resp.StatusCode != 200 || !strings.Contains(string(data), "observed path nope.py is not in the index") {
		t.Errorf("observed with an unknown path: %d %s", resp.StatusCode, data)
	}

	cs := connect(t, svc)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "recover_evidence", Arguments: map[string]any{
		"latest_test_output": "FAILED test_parse_header",
		"observed_spans":     []map[string]any{{"path": "widgets/hedaer.py", "start_line": 1, "end_line": 2}},
	}})
	if err != nil || res.IsError {
		t.Fatalf("MCP latest_test_output alone: %v %+v", err, res)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var mr RecoverResponse
	json.Unmarshal(raw, &mr)
	if len(mr.Warnings) != 1 || !strings.Contains(mr.Warnings[0], "widgets/hedaer.py") {
		t.Errorf("MCP warnings %q", mr.Warnings)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "warning: observed path widgets/hedaer.py") {
		t.Errorf("MCP text lacks the warning:\n%s", text)
	}
}

// TestNegativeLimitsRefused: a negative limit is an error, not a default.
func TestNegativeLimitsRefused(t *testing.T) {
	dir := writeFixture(t)
	for _, cfg := range []Config{{MaxBudget: -1}, {MaxUnits: -5}, {Sessions: SessionLimits{MaxSessions: -1}}, {FreshWait: -time.Second}} {
		cfg.Repo, cfg.Loader = dir, &IndexLoader{Repo: dir}
		if svc, err := New(context.Background(), cfg); err == nil {
			svc.Close()
			t.Errorf("New(%+v) accepted a negative limit", cfg)
		}
	}
	for _, o := range []HandlerOptions{{MaxBody: -1}, {MaxConcurrent: -1}, {BodyTimeout: -time.Second}} {
		if err := o.Check(); err == nil {
			t.Errorf("HandlerOptions%+v.Check accepted a negative limit", o)
		}
	}
}

// TestNoAbsolutePathWithoutToken: recover and re-index answers name the
// index file by its base name to a caller without the token (a server
// without one included), and by its path to one with it.
func TestNoAbsolutePathWithoutToken(t *testing.T) {
	svc, dir := newTestService(t, nil)
	root, _ := filepath.EvalSymlinks(dir)
	open := httptest.NewServer(NewHandler(svc, HandlerOptions{}))
	t.Cleanup(open.Close)
	locked := httptest.NewServer(RequireToken("s3cret", NewHandler(svc, HandlerOptions{}), "/v1/health"))
	t.Cleanup(locked.Close)
	for _, route := range []string{"/v1/recover", "/v1/index"} {
		body := recoverBody
		if route == "/v1/index" {
			body = "{}"
		}
		for _, tc := range []struct {
			url, auth string
			abs       bool
		}{{open.URL, "", false}, {locked.URL, "Bearer s3cret", true}} {
			resp, data := post(t, tc.url+route, body, map[string]string{"Authorization": tc.auth})
			if resp.StatusCode != 200 {
				t.Fatalf("%s (auth %q): %d %s", route, tc.auth, resp.StatusCode, data)
			}
			if got := strings.Contains(string(data), root) || strings.Contains(string(data), dir); got != tc.abs {
				t.Errorf("%s (auth %q): absolute path shown = %v, want %v:\n%s", route, tc.auth, got, tc.abs, data)
			}
			if !strings.Contains(string(data), `"db":"index.db"`) && !tc.abs {
				t.Errorf("%s: want the index named by its base name:\n%s", route, data)
			}
		}
	}
}

// TestNoAbsolutePathInErrorsWithoutToken: the server's own errors (here:
// the work tree cannot be scanned) name each path by its base name to a
// caller without the token, over the API and MCP over HTTP alike, as
// health does; with the token, and over MCP's stdio, they name the path.
func TestNoAbsolutePathInErrorsWithoutToken(t *testing.T) {
	svc, dir := newTestService(t, nil)
	root, _ := filepath.EvalSymlinks(dir)
	api := func() http.Handler {
		return NewHandler(svc, HandlerOptions{MCP: NewMCPHandler(NewMCPServer(svc, "test"), svc, 0)})
	}
	open := httptest.NewServer(api())
	t.Cleanup(open.Close)
	locked := httptest.NewServer(RequireToken("s3cret", api(), "/v1/health"))
	t.Cleanup(locked.Close)
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: open.URL + "/mcp", DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	local := connect(t, svc)

	if err := os.Rename(dir, dir+".away"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Rename(dir+".away", dir) })
	abs := func(msg string) bool { return strings.Contains(msg, root) || strings.Contains(msg, dir) }
	for _, route := range []string{"/v1/recover", "/v1/index", "/v1/search"} {
		body := recoverBody
		switch route {
		case "/v1/index":
			body = "{}"
		case "/v1/search":
			body = `{"query": "parse_header"}`
		}
		for _, tc := range []struct {
			url, auth string
			abs       bool
		}{{open.URL, "", false}, {locked.URL, "Bearer s3cret", true}} {
			resp, data := post(t, tc.url+route, body, map[string]string{"Authorization": tc.auth})
			e := apiError(t, data)
			if resp.StatusCode != http.StatusServiceUnavailable || e.Code != CodeIndexUnavailable {
				t.Fatalf("%s (auth %q) with the tree gone: %d %s, want 503 %s", route, tc.auth, resp.StatusCode, data, CodeIndexUnavailable)
			}
			if abs(e.Message) != tc.abs || !strings.Contains(e.Message, filepath.Base(dir)) {
				t.Errorf("%s (auth %q): %q; want the work tree named by its absolute path = %v, by its base name otherwise", route, tc.auth, e.Message, tc.abs)
			}
		}
	}
	for _, tc := range []struct {
		name string
		cs   *mcp.ClientSession
		abs  bool
	}{{"over HTTP", cs, false}, {"over stdio", local, true}} {
		for _, call := range []struct{ tool, args string }{
			{"recover_evidence", `{"issue": "parse_header drops the last field"}`},
			{"search_code", `{"query": "parse_header"}`},
		} {
			isErr, text := callTool(t, tc.cs, call.tool, call.args)
			if !isErr || !strings.Contains(text, "cannot be scanned") {
				t.Fatalf("%s %s with the tree gone: error %v, %q", call.tool, tc.name, isErr, text)
			}
			if abs(text) != tc.abs || !strings.Contains(text, filepath.Base(dir)) {
				t.Errorf("%s %s: %q; want the work tree named by its absolute path = %v, by its base name otherwise", call.tool, tc.name, text, tc.abs)
			}
		}
	}
}

// TestLargeSourceReported: source left out as too large is named in the
// index info (health, index_status) and in the build's log.
func TestLargeSourceReported(t *testing.T) {
	dir := writeFixture(t)
	big := "package big\n" + strings.Repeat("\nfunc F() {}\n", 4000)
	gittest.WriteTree(t, dir, map[string]string{"big/big.go": big})
	var logged []string
	var mu sync.Mutex
	svc, err := New(context.Background(), Config{Repo: dir, Loader: &IndexLoader{Repo: dir, Index: index.Options{MaxFileBytes: 40000}}, ScanInterval: -1,
		Logf: func(f string, a ...any) { mu.Lock(); logged = append(logged, fmt.Sprintf(f, a...)); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	svc.Wait(context.Background())
	in := svc.Info()
	if len(in.LargeSource) != 1 || in.LargeSource[0].Path != "big/big.go" || in.LargeSource[0].Bytes != int64(len(big)) {
		t.Errorf("large source %+v, want big/big.go of %d bytes", in.LargeSource, len(big))
	}
	mu.Lock()
	defer mu.Unlock()
	want := fmt.Sprintf("mss: source left out as too large: big/big.go (%d bytes); --max-file-bytes raises the cap", len(big))
	if !slices.Contains(logged, want) {
		t.Errorf("log %q does not name big/big.go", logged)
	}
}

// TestMCPSessionTTL: an idle streamable HTTP session is closed after the
// service's session TTL, when its observed spans are forgotten too, not
// after a TTL of its own.
func TestMCPSessionTTL(t *testing.T) {
	dir := writeFixture(t)
	svc, err := New(context.Background(), Config{Repo: dir, Loader: &IndexLoader{Repo: dir}, Sessions: SessionLimits{TTL: 300 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	ts := httptest.NewServer(NewMCPHandler(NewMCPServer(svc, "test"), svc, 0))
	t.Cleanup(ts.Close)
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "index_status", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "index_status", Arguments: map[string]any{}}); err == nil {
		t.Errorf("a session idle three times the TTL still answers")
	}
}
