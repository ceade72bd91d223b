package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/missingcomplement/mss"
)

func post(t *testing.T, url, body string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, data
}

func newHTTP(t *testing.T, opts HandlerOptions) (*Service, string, string) {
	t.Helper()
	svc, dir := newTestService(t, nil)
	ts := httptest.NewServer(NewHandler(svc, opts))
	t.Cleanup(ts.Close)
	return svc, dir, ts.URL
}

const recoverBody = `{"issue": "parse_header drops the last field", "information_need": "where header fields are split", "max_units": 2}`

func TestHTTPRecoverSessionHeader(t *testing.T) {
	_, dir, url := newHTTP(t, HandlerOptions{})
	resp, data := post(t, url+"/v1/recover", recoverBody, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, data)
	}
	var first RecoverResponse
	if err := json.Unmarshal(data, &first); err != nil {
		t.Fatal(err)
	}
	id := resp.Header.Get(SessionHeader)
	if id == "" || id != first.SessionID {
		t.Fatalf("session header %q, body %q: want the same new id", id, first.SessionID)
	}
	if len(first.Units) == 0 || first.Tokens > first.Budget {
		t.Fatalf("first answer: %d units, %d of %d tokens", len(first.Units), first.Tokens, first.Budget)
	}
	for _, u := range first.Units {
		src, _ := os.ReadFile(filepath.Join(dir, u.Path))
		lines := strings.SplitAfter(string(src), "\n")
		if got := strings.Join(lines[u.StartLine-1:u.EndLine], ""); strings.TrimRight(got, "\n") != strings.TrimRight(u.Content, "\n") {
			t.Errorf("%s:%d-%d: content differs from the file", u.Path, u.StartLine, u.EndLine)
		}
	}
	_, data = post(t, url+"/v1/recover", recoverBody, map[string]string{SessionHeader: id})
	var second RecoverResponse
	if err := json.Unmarshal(data, &second); err != nil {
		t.Fatal(err)
	}
	if second.Observed != len(first.Units) {
		t.Errorf("second answer observed %d spans, want the %d delivered first", second.Observed, len(first.Units))
	}
	for _, a := range second.Units {
		for _, b := range first.Units {
			if a.Overlaps(mss.Span{Path: b.Path, StartLine: b.StartLine, EndLine: b.EndLine}) {
				t.Errorf("second answer repeats %s", b.ID)
			}
		}
	}
	// mark observed, then health counts the session.
	resp, data = post(t, url+"/v1/observed", `{"observed_spans": [{"path": "widgets/util.py", "start_line": 1, "end_line": 3}]}`, map[string]string{SessionHeader: id})
	if resp.StatusCode != 200 || !strings.Contains(string(data), `"read_spans":1`) {
		t.Errorf("observed: %d %s", resp.StatusCode, data)
	}
	hr, err := http.Get(url + "/v1/health")
	if err != nil {
		t.Fatal(err)
	}
	var st Status
	json.NewDecoder(hr.Body).Decode(&st)
	hr.Body.Close()
	if st.Sessions != 1 || st.Index.Units == 0 || st.Method != "complement" {
		t.Errorf("health = %+v", st)
	}
	resp, data = post(t, url+"/v1/index", ``, nil)
	if resp.StatusCode != 200 || !strings.Contains(string(data), `"generation":2`) {
		t.Errorf("reindex: %d %s", resp.StatusCode, data)
	}
	resp, data = post(t, url+"/v1/search", `{"query": "split_fields"}`, nil)
	if resp.StatusCode != 200 || !strings.Contains(string(data), `"path":"widgets/util.py"`) {
		t.Errorf("search: %d %s", resp.StatusCode, data)
	}
}

func TestHTTPRejects(t *testing.T) {
	_, _, url := newHTTP(t, HandlerOptions{MaxBody: 4096})
	big := fmt.Sprintf(`{"issue": %q}`, strings.Repeat("x", 5000))
	tests := []struct {
		name, path, body string
		hdr              map[string]string
		code             int
		want             string
	}{
		{"too large", "/v1/recover", big, nil, 413, "larger than 4096"},
		{"bad json", "/v1/recover", `{"issue": `, nil, 400, "bad JSON"},
		{"unknown field", "/v1/recover", `{"isue": "x"}`, nil, 400, `unknown field \"isue\"`},
		{"two values", "/v1/recover", `{"issue": "x"} {}`, nil, 400, "more than one value"},
		{"empty", "/v1/recover", ``, nil, 400, "empty body"},
		{"no text", "/v1/recover", `{"information_need": " "}`, nil, 400, `"code":"invalid_state","message":"state: no text to recover evidence for`},
		{"mistyped field", "/v1/recover", `{"issue": "x", "search_queries": "q"}`, nil, 400, `"field":"search_queries"`},
		{"index unknown field", "/v1/index", `{"full": true}`, nil, 400, `"code":"bad_request","message":"unknown field \"full\""`},
		{"search negative limit", "/v1/search", `{"query": "x", "limit": -1}`, nil, 400, "want a positive number"},
		{"no route", "/v1/nothing", `{}`, nil, 404, `"code":"not_found"`},
		// A byte order mark is skipped on every route, as on /v1/recover.
		{"byte order mark", "/v1/search", "\xef\xbb\xbf{\"query\": \"x\", \"limit\": -1}", nil, 400, "want a positive number"},
		{"dotdot", "/v1/recover", `{"issue": "x", "observed_spans": [{"path": "../../etc/passwd", "start_line": 1, "end_line": 2}]}`, nil, 400, "observed_spans[0].path"},
		{"no spans", "/v1/observed", `{"session_id": "s1"}`, nil, 400, `"message":"field observed_spans: missing; give the spans read ([] for none)","field":"observed_spans"`},
		{"absolute", "/v1/observed", `{"session_id": "s1", "observed_spans": [{"path": "/etc/passwd", "start_line": 1, "end_line": 2}]}`, nil, 400, "is absolute"},
		{"bad lines", "/v1/observed", `{"session_id": "s1", "observed_spans": [{"path": "a.py", "start_line": 5, "end_line": 2}]}`, nil, 400, "lines 5-2 are not a 1-based range"},
		{"lines past the limit", "/v1/observed", `{"session_id": "s1", "observed_spans": [{"path": "a.py", "start_line": 1, "end_line": 2000000000}]}`, nil, 400, "end past line 1073741824"},
		{"no session", "/v1/observed", `{"observed_spans": []}`, nil, 400, "session_id or the"},
		{"session mismatch", "/v1/recover", `{"issue": "x", "session_id": "a"}`, map[string]string{SessionHeader: "b"}, 400, "differs"},
		{"bad session", "/v1/recover", `{"issue": "x", "session_id": "a b"}`, nil, 400, "session id"},
		{"budget cap", "/v1/recover", `{"issue": "x", "budget_tokens": 1000000}`, nil, 400, "exceeds"},
		{"negative budget", "/v1/recover", `{"issue": "x", "budget_tokens": -5}`, nil, 400, `"message":"budget_tokens -5: want a positive number`},
		{"negative units", "/v1/recover", `{"issue": "x", "max_units": -1}`, nil, 400, `"message":"max_units -1: want a positive number`},
		{"wrong method", "/v1/health", `{}`, nil, 405, `"code":"method_not_allowed"`},
		// A card is read here as mss.ParseState reads it everywhere else:
		// no key taken for a field by folding case, no field given twice,
		// and a refused field named with its line.
		{"folded key", "/v1/recover", `{"Issue": "x"}`, nil, 400, `"field":"Issue"`},
		{"folded span key", "/v1/recover", `{"issue": "x", "observed_spans": [{"path": "a.py", "start_line": 1, "end_line": 2, "START_LINE": 5}]}`, nil, 400, `"field":"observed_spans[0].START_LINE"`},
		{"folded request key", "/v1/recover", `{"issue": "x", "Max_Units": 1}`, nil, 400, `"field":"Max_Units"`},
		{"folded observed key", "/v1/observed", `{"session_id": "s1", "observed_spans": [{"path": "a.py", "start_line": 1, "end_line": 2, "End_Line": 9}]}`, nil, 400, `"field":"observed_spans[0].End_Line"`},
		{"mistyped span field", "/v1/recover", `{"issue": "x", "observed_spans": [{"path": "a.py", "start_line": 1, "end_line": 2}, {"path": "a.py", "start_line": "3", "end_line": 4}]}`, nil, 400, `"field":"observed_spans[1].start_line"`},
		{"duplicate", "/v1/recover", "{\"issue\": \"x\",\n \"issue\": \"y\"}", nil, 400, `"field":"issue","line":2`},
		{"folded search key", "/v1/search", `{"Query": "split_fields"}`, nil, 400, `"field":"Query"`},
		{"duplicate search key", "/v1/search", "{\"query\": \"split_fields\",\n \"query\": \"parse_header\"}", nil, 400, `"field":"query","line":2`},
		// Text that is not UTF-8 would be read as U+FFFD: refused as
		// mss.ParseState refuses it in a card, naming the field and line.
		{"not utf8", "/v1/recover", "{\"issue\": \"caf\xe9 \xff\xfe\"}", nil, 400, `"message":"field issue: not UTF-8 text","field":"issue","line":1`},
		{"not utf8 line", "/v1/recover", "{\"issue\": \"x\",\n \"current_observation\": \"caf\xe9\"}", nil, 400, `"field":"current_observation","line":2`},
		{"not utf8 observed", "/v1/observed", "{\"session_id\": \"s1\", \"observed_spans\": [{\"path\": \"caf\xe9.py\", \"start_line\": 1, \"end_line\": 2}]}", nil, 400, `"message":"field observed_spans[0].path: not UTF-8 text"`},
		{"not utf8 search", "/v1/search", "{\"query\": \"caf\xff\"}", nil, 400, `"message":"field query: not UTF-8 text","field":"query","line":1`},
		{"null span", "/v1/recover", "{\"issue\": \"x\",\n \"observed_spans\": [null]}", nil, 400, `"field":"observed_spans[0]","line":2`},
		{"null observed span", "/v1/observed", `{"session_id": "s1", "observed_spans": [null]}`, nil, 400, `"field":"observed_spans[0]"`},
		{"null card field", "/v1/recover", "{\"issue\": \"x\",\n \"observed_spans\": null}", nil, 400, `"field":"observed_spans","line":2`},
		{"null issue", "/v1/recover", `{"issue": null, "information_need": "x"}`, nil, 400, `"message":"field issue: null; want a string`},
		// A null for a request's own field is no default either: the MCP
		// tools refuse it too.
		{"null budget", "/v1/recover", "{\"issue\": \"x\",\n \"budget_tokens\": null}", nil, 400, `"message":"field budget_tokens: null; give a value, or leave the field out","field":"budget_tokens","line":2`},
		{"null units", "/v1/recover", `{"issue": "x", "max_units": null}`, nil, 400, `"field":"max_units"`},
		{"null session", "/v1/observed", `{"session_id": null, "observed_spans": []}`, nil, 400, `"field":"session_id"`},
		{"null limit", "/v1/search", `{"query": "x", "limit": null}`, nil, 400, `"field":"limit"`},
		{"state line", "/v1/recover", "{\"issue\": \"x\",\n \"observed_spans\": [\n {\"path\": \"../a.py\", \"start_line\": 1, \"end_line\": 2}]}", nil, 400, `"field":"observed_spans[0].path","line":3`},
		// Spans reported read are refused as a card's are: the same
		// code, message, field and line.
		{"observed state line", "/v1/observed", "{\"session_id\": \"s1\",\n \"observed_spans\": [\n {\"path\": \"../a.py\", \"start_line\": 1, \"end_line\": 2}]}", nil, 400, `"code":"invalid_state","message":"state line 3: field observed_spans[0].path: not a repository-relative path: \"../a.py\" climbs out of the repository with a .. element","field":"observed_spans[0].path","line":3`},
		{"observed bad lines", "/v1/observed", "{\"session_id\": \"s1\",\n \"observed_spans\": [{\"path\": \"a.py\", \"start_line\": 1, \"end_line\": 2},\n {\"path\": \"a.py\", \"start_line\": 5, \"end_line\": 2}]}", nil, 400, `"code":"invalid_state","message":"state line 3: field observed_spans[1]: (a.py) lines 5-2 are not a 1-based range (want 1 <= start_line <= end_line)","field":"observed_spans[1]","line":3`},
	}
	for _, tc := range tests {
		resp, data := post(t, url+tc.path, tc.body, tc.hdr)
		if resp.StatusCode != tc.code || !strings.Contains(string(data), tc.want) {
			t.Errorf("%s: %d %s; want %d containing %q", tc.name, resp.StatusCode, data, tc.code, tc.want)
		}
	}
}

func TestHTTPToken(t *testing.T) {
	svc, _ := newTestService(t, nil)
	ts := httptest.NewServer(RequireToken("s3cret", NewHandler(svc, HandlerOptions{}), "/v1/health"))
	defer ts.Close()
	for _, tc := range []struct {
		auth string
		code int
	}{{"", 401}, {"Bearer wrong", 401}, {"s3cret", 401}, {"Bearer s3cret", 200}} {
		resp, data := post(t, ts.URL+"/v1/recover", recoverBody, map[string]string{"Authorization": tc.auth})
		if resp.StatusCode != tc.code {
			t.Errorf("Authorization %q: %d %s, want %d", tc.auth, resp.StatusCode, data, tc.code)
		}
	}
	resp, err := http.Get(ts.URL + "/v1/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("health without a token: %d, want 200", resp.StatusCode)
	}
}

// TestHTTPConcurrentWithEdits runs bounded concurrent clients while the
// work tree changes underneath them; every answer must match the files.
func TestHTTPConcurrentWithEdits(t *testing.T) {
	_, dir, url := newHTTP(t, HandlerOptions{MaxConcurrent: 3})
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for c := 0; c < 6; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			for i := 0; i < 5; i++ {
				body := fmt.Sprintf(`{"issue": "parse_header drops the last field", "information_need": "split fields %d", "session_id": "c%d"}`, i, c)
				resp, err := http.Post(url+"/v1/recover", "application/json", strings.NewReader(body))
				if err != nil {
					errs <- err
					return
				}
				var rr RecoverResponse
				err = json.NewDecoder(resp.Body).Decode(&rr)
				resp.Body.Close()
				if resp.StatusCode != 200 || err != nil {
					errs <- fmt.Errorf("client %d: status %d, %v", c, resp.StatusCode, err)
					return
				}
			}
		}(c)
	}
	p := filepath.Join(dir, "widgets/util.py")
	for i := 0; i < 5; i++ {
		old, _ := os.ReadFile(p)
		if err := os.WriteFile(p, append([]byte("# edit\n"), old...), 0o644); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// After the edits settle, an answer about util.py is current.
	resp, data := post(t, url+"/v1/recover", `{"issue": "split_fields Reader read_header", "max_units": 8}`, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, data)
	}
	var rr RecoverResponse
	json.Unmarshal(data, &rr)
	src, _ := os.ReadFile(p)
	lines := strings.SplitAfter(string(src), "\n")
	for _, u := range rr.Units {
		if u.Path != "widgets/util.py" {
			continue
		}
		if got := strings.Join(lines[u.StartLine-1:u.EndLine], ""); strings.TrimRight(got, "\n") != strings.TrimRight(u.Content, "\n") {
			t.Errorf("%s:%d-%d is stale", u.Path, u.StartLine, u.EndLine)
		}
	}
}

func TestListenAndServeRefusesRemote(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := http.NotFoundHandler()
	if err := ListenAndServe(ctx, "0.0.0.0:0", h, ServeOptions{}); err == nil || !strings.Contains(err.Error(), "not loopback") {
		t.Errorf("non-loopback without --allow-remote: %v", err)
	}
	if err := ListenAndServe(ctx, "0.0.0.0:0", h, ServeOptions{AllowRemote: true}); err == nil || !strings.Contains(err.Error(), "token") {
		t.Errorf("remote without a token: %v", err)
	}
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- ListenAndServe(ctx, "127.0.0.1:0", h, ServeOptions{Ready: func(a string) { ready <- a }})
	}()
	addr := <-ready
	resp, err := http.Get("http://" + addr + "/x")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /x on loopback: %d, want 404 from the handler", resp.StatusCode)
	}
	req, _ := http.NewRequest("GET", "http://"+addr+"/x", nil)
	req.Host = "attacker.example:80"
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("request naming a foreign host: %d, want 403", resp.StatusCode)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("shutdown: %v", err)
	}
}

// TestHTTPBusy: beyond MaxConcurrent, a request waits QueueWait and then
// gets 503.
func TestHTTPBusy(t *testing.T) {
	dir := writeFixture(t)
	g := &gatedLoader{Loader: &IndexLoader{Repo: dir}, gate: make(chan struct{})}
	svc, err := New(context.Background(), Config{Repo: dir, Loader: g})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	ts := httptest.NewServer(NewHandler(svc, HandlerOptions{MaxConcurrent: 1, QueueWait: 20 * time.Millisecond}))
	defer ts.Close()
	held := make(chan int, 1)
	go func() {
		// Holds the only slot until the gate opens.
		resp, err := http.Post(ts.URL+"/v1/index", "application/json", nil)
		if err != nil {
			held <- 0
			return
		}
		resp.Body.Close()
		held <- resp.StatusCode
	}()
	deadline := time.Now().Add(5 * time.Second)
	for {
		g.mu.Lock()
		n := g.loads
		g.mu.Unlock()
		if n >= 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	resp, data := post(t, ts.URL+"/v1/recover", recoverBody, nil)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("request beyond the limit: %d %s, want 503 with Retry-After", resp.StatusCode, data)
	}
	close(g.gate)
	if code := <-held; code != 200 {
		t.Errorf("the slot holder got %d, want 200", code)
	}
	if resp, data := post(t, ts.URL+"/v1/recover", recoverBody, nil); resp.StatusCode != 200 {
		t.Errorf("after the slot freed: %d %s", resp.StatusCode, data)
	}
}

// TestHTTPUncleanPath: a path not in its clean form is answered as no
// route, in JSON, not redirected.
func TestHTTPUncleanPath(t *testing.T) {
	_, _, url := newHTTP(t, HandlerOptions{})
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, p := range []string{"//v1/health", "/v1/../v1/health", "/v1/./health", "/v1/health/"} {
		resp, err := client.Get(url + p)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(data), `"code":"not_found"`) {
			t.Errorf("GET %s: %d %s; want 404 not_found in JSON", p, resp.StatusCode, data)
		}
	}
}
