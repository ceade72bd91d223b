package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCP over stdio frames one JSON-RPC message a line. The SDK's transport
// ends the connection, and so the process, on the first line it cannot
// decode; an agent's one stray line would take the server down. A
// StdioTransport reads the lines itself: a well-formed message goes on to
// the SDK, anything else is answered here with a JSON-RPC error (-32700
// parse error, -32600 invalid request) and the server keeps serving.

// Limits of a StdioTransport.
const (
	DefaultMaxLine = 8 << 20 // bytes in one message line (a state card is at most 4 MiB)
	maxJSONDepth   = 64      // nesting of arrays and objects in one message
)

// StdioTransport is an mcp.Transport over a reader and a writer (stdin
// and stdout) that answers malformed lines itself.
type StdioTransport struct {
	In  io.Reader
	Out io.Writer
	// MaxLine bounds one message line in bytes; 0 means DefaultMaxLine.
	// A longer line is answered with -32700 and skipped.
	MaxLine int
	// Logf, when set, is told about each refused line.
	Logf func(format string, args ...any)
}

// Connect implements mcp.Transport.
func (t *StdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	limit := t.MaxLine
	if limit <= 0 {
		limit = DefaultMaxLine
	}
	f := &stdioFilter{out: &lockedWriter{w: t.Out}, limit: limit, logf: t.Logf,
		pending: map[string]bool{}, idle: make(chan struct{}), closed: make(chan struct{})}
	f.out.sent = f.answered
	pr, pw := io.Pipe()
	go func() {
		err := f.run(t.In, pw)
		if err == nil {
			f.drain()
		}
		pw.CloseWithError(err)
	}()
	return (&mcp.IOTransport{Reader: &notifyCloser{pr, f}, Writer: f.out, MaxLineLength: limit + 1}).Connect(ctx)
}

// stdioFilter passes well-formed lines on and answers the others. It
// keeps the ids of requests passed on and not yet answered: when the
// client's input ends, the connection is closed only once they are
// answered, so a client that writes its requests and closes stdin at
// once still gets every answer.
type stdioFilter struct {
	out   *lockedWriter
	limit int
	logf  func(string, ...any)

	mu      sync.Mutex
	pending map[string]bool // ids of requests passed on, not yet answered
	idle    chan struct{}   // closed when pending empties after the input ended
	ended   bool
	closed  chan struct{} // closed when the SDK closes the connection
	once    sync.Once
}

// drain waits until every passed request is answered or the connection closes.
func (f *stdioFilter) drain() {
	f.mu.Lock()
	f.ended = true
	if len(f.pending) == 0 {
		f.mu.Unlock()
		return
	}
	f.mu.Unlock()
	t := time.NewTimer(drainWait)
	defer t.Stop()
	select {
	case <-f.idle:
	case <-f.closed:
	case <-t.C:
	}
}

// drainWait bounds the wait for answers after the client's input ended.
const drainWait = 10 * time.Minute

// idKey is the canonical form of a JSON-RPC id (1, 1.0 and 1e0 are one id).
func idKey(raw json.RawMessage) (string, bool) {
	id, err := jsonrpc.MakeID(rawValue(raw))
	if err != nil || !id.IsValid() {
		return "", false
	}
	return fmt.Sprintf("%T:%v", id.Raw(), id.Raw()), true
}

func (f *stdioFilter) request(id json.RawMessage) {
	if k, ok := idKey(id); ok {
		f.mu.Lock()
		f.pending[k] = true
		f.mu.Unlock()
	}
}

// cancelled forgets a request the client cancelled: it gets no answer.
func (f *stdioFilter) cancelled(msg []byte) {
	var n struct {
		Method string `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(msg, &n) == nil && n.Method == "notifications/cancelled" {
		f.done(n.Params.RequestID)
	}
}

// answered is told about every message the SDK writes.
func (f *stdioFilter) answered(msg []byte) {
	var head struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
	}
	if json.Unmarshal(msg, &head) != nil || head.Method != nil || len(head.ID) == 0 {
		return
	}
	f.done(head.ID)
}

func (f *stdioFilter) done(id json.RawMessage) {
	k, ok := idKey(id)
	if !ok {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.pending, k)
	if f.ended && len(f.pending) == 0 {
		f.once.Do(func() { close(f.idle) })
	}
}

// notifyCloser tells the filter when the SDK closes the connection.
type notifyCloser struct {
	*io.PipeReader
	f *stdioFilter
}

func (n *notifyCloser) Close() error {
	select {
	case <-n.f.closed:
	default:
		close(n.f.closed)
	}
	return n.PipeReader.Close()
}

// lockedWriter serialises the SDK's messages and the filter's answers, so
// lines never interleave. The SDK writes each message in one Write.
type lockedWriter struct {
	mu   sync.Mutex
	w    io.Writer
	sent func([]byte)
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	n, err := l.w.Write(p)
	l.mu.Unlock()
	if err == nil && l.sent != nil {
		l.sent(p)
	}
	return n, err
}

func (l *lockedWriter) Close() error { return nil }

// run copies well-formed message lines from in to pass and answers the
// others. It returns nil at the end of in.
func (f *stdioFilter) run(in io.Reader, pass io.Writer) error {
	br := bufio.NewReaderSize(in, 64<<10)
	var line []byte
	for {
		var tooLong bool
		line, tooLong = line[:0], false
		var err error
		for {
			var chunk []byte
			chunk, err = br.ReadSlice('\n')
			if !tooLong {
				if len(line)+len(chunk) > f.limit+1 { // +1: the newline
					tooLong, line = true, line[:0]
				} else {
					line = append(line, chunk...)
				}
			}
			if !errors.Is(err, bufio.ErrBufferFull) {
				break
			}
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		eof := err != nil
		if tooLong {
			if werr := f.refuse(nil, jsonrpc.CodeParseError, fmt.Sprintf("message line longer than %d bytes", f.limit)); werr != nil {
				return werr
			}
		} else if msg := bytes.TrimSpace(line); len(msg) > 0 {
			id, code, why := checkMessage(msg)
			switch {
			case code != 0:
				if werr := f.refuse(id, code, why); werr != nil {
					return werr
				}
			default:
				if id != nil {
					f.request(id)
				} else {
					f.cancelled(msg)
				}
				if _, werr := pass.Write(append(msg, '\n')); werr != nil {
					return nil // the SDK closed the connection
				}
			}
		}
		if eof {
			return nil
		}
	}
}

// checkMessage decides whether msg is one JSON-RPC message the SDK can
// take. If not, it returns the id to answer (when one can be read and
// echoed as sent), the error code and why; if so, the id of a request
// (nil for notifications and responses) and code 0. A request whose id
// the SDK would not echo as sent (see badID) is refused, so that no
// answer goes to another id, or to none.
func checkMessage(msg []byte) (json.RawMessage, int64, string) {
	if d := jsonDepth(msg); d > maxJSONDepth {
		return nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message nested deeper than %d levels", maxJSONDepth)
	}
	if !json.Valid(msg) {
		return nil, jsonrpc.CodeParseError, "parse error: not one JSON value"
	}
	switch msg[0] {
	case '{':
	case '[':
		return nil, jsonrpc.CodeInvalidRequest, "batches are not supported: send one message a line"
	default:
		return nil, jsonrpc.CodeInvalidRequest, "invalid request: a message is a JSON object"
	}
	id, hasID, _ := messageHead(msg)
	bad := ""
	if hasID {
		bad = badID(id)
	}
	if !hasID || bad != "" {
		id = nil // answer with a null id: this one cannot be echoed
	}
	m, err := jsonrpc.DecodeMessage(msg)
	if err != nil {
		return id, jsonrpc.CodeInvalidRequest, "invalid request: " + err.Error()
	}
	req, ok := m.(*jsonrpc.Request)
	switch {
	case !ok:
		return nil, 0, "" // a response to the server's request
	case bad != "":
		return nil, jsonrpc.CodeInvalidRequest, "invalid request: " + bad
	case req.IsCall():
		return id, 0, ""
	}
	return nil, 0, ""
}

// messageHead reads a message object's id, whether it has one and
// whether it has a method (a request), as the SDK reads them: the keys
// in this case only, the last of a key given twice.
func messageHead(msg []byte) (id json.RawMessage, hasID, request bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil {
		return nil, false, false
	}
	id, hasID = m["id"]
	_, request = m["method"]
	return id, hasID, request
}

// maxID bounds the integer ids the SDK echoes as sent: it reads a number
// as a float64, exact up to 2^53 (RFC 8259's interoperable integers).
const maxID = 1<<53 - 1

// intID is an integer written as the SDK writes it back.
var intID = regexp.MustCompile(`^(0|-?[1-9][0-9]*)$`)

// badID says why a request's id, its JSON text, cannot be answered as
// sent, or returns "" when it can: a string, or an integer within
// ±maxID written without fraction, exponent or sign of zero. The SDK
// rounds any other number (4.5 becomes 4, 9007199254740993 becomes
// 9007199254740992, 1e0 and 1.0 become 1), so the answer would name
// another request, and takes a null id for no id at all (no answer).
func badID(raw json.RawMessage) string {
	if len(raw) > 0 && raw[0] == '"' {
		return ""
	}
	if intID.Match(raw) {
		if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil && -maxID <= n && n <= maxID {
			return ""
		}
	}
	shown := string(raw)
	if len(shown) > 40 {
		shown = shown[:40] + "..."
	}
	return fmt.Sprintf("id %s cannot be answered as sent: an id is a string, or an integer from %d to %d without fraction or exponent", shown, -maxID, maxID)
}

// rawValue decodes a JSON id for MakeID (numbers as float64, like the SDK).
func rawValue(raw json.RawMessage) any {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return nil
	}
	return v
}

// jsonDepth returns the deepest nesting of arrays and objects in data,
// outside strings. It stops counting past maxJSONDepth.
func jsonDepth(data []byte) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, c := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			if depth > deepest {
				deepest = depth
				if deepest > maxJSONDepth {
					return deepest
				}
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// refuse writes a JSON-RPC error response.
func (f *stdioFilter) refuse(id json.RawMessage, code int64, msg string) error {
	if id == nil {
		id = json.RawMessage("null")
	}
	if f.logf != nil {
		f.logf("mss: mcp: refused a message: %s", msg)
	}
	data, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: msg}})
	if err != nil {
		return err
	}
	_, err = f.out.Write(append(data, '\n'))
	return err
}

// ServeStdio serves s over t until the client goes away (the end of its
// input) or ctx ends. When the client went away while svc was building
// its index, the build is finished and written before ServeStdio returns:
// a short-lived client (one call, then exit) still leaves a ready index
// for the next start. When ctx ends (a signal), it returns at once; the
// index on disk is then the previous one, intact, since builds write a
// new file and rename it into place.
func ServeStdio(ctx context.Context, s *mcp.Server, svc *Service, t mcp.Transport, logf func(string, ...any)) error {
	if err := s.Run(ctx, t); err != nil && ctx.Err() == nil {
		return fmt.Errorf("mcp: %w", err)
	}
	if ctx.Err() != nil {
		return nil
	}
	if st := svc.Status(); st.Build.Running && logf != nil {
		logf("mss: client disconnected; finishing the index before exit")
	}
	if err := svc.Wait(ctx); err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}
