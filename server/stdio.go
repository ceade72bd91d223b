package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

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
	out := &lockedWriter{w: t.Out}
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(filterLines(t.In, pw, out, limit, t.Logf))
	}()
	return (&mcp.IOTransport{Reader: pr, Writer: out, MaxLineLength: limit + 1}).Connect(ctx)
}

// lockedWriter serialises the SDK's messages and the filter's answers, so
// lines never interleave. The SDK writes each message in one Write.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }

// filterLines copies well-formed message lines from in to pass and
// answers the others on out. It returns nil at the end of in.
func filterLines(in io.Reader, pass io.Writer, out io.Writer, limit int, logf func(string, ...any)) error {
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
				if len(line)+len(chunk) > limit+1 { // +1: the newline
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
			if werr := refuse(out, logf, nil, jsonrpc.CodeParseError, fmt.Sprintf("message line longer than %d bytes", limit)); werr != nil {
				return werr
			}
		} else if msg := bytes.TrimSpace(line); len(msg) > 0 {
			id, code, why := checkMessage(msg)
			if code != 0 {
				if werr := refuse(out, logf, id, code, why); werr != nil {
					return werr
				}
			} else if _, werr := pass.Write(append(msg, '\n')); werr != nil {
				return nil // the SDK closed the connection
			}
		}
		if eof {
			return nil
		}
	}
}

// checkMessage decides whether msg is one JSON-RPC message the SDK can
// take. If not, it returns the id to answer (when one can be read), the
// error code and why.
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
	var head struct {
		ID json.RawMessage `json:"id"`
	}
	json.Unmarshal(msg, &head) // valid JSON object: cannot fail on a RawMessage field
	id := head.ID
	if _, err := jsonrpc.MakeID(rawValue(id)); err != nil || len(id) == 0 || bytes.Equal(id, []byte("null")) {
		id = nil // answer with a null id: this one cannot be echoed
	}
	if _, err := jsonrpc.DecodeMessage(msg); err != nil {
		return id, jsonrpc.CodeInvalidRequest, "invalid request: " + err.Error()
	}
	return nil, 0, ""
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
func refuse(out io.Writer, logf func(string, ...any), id json.RawMessage, code int64, msg string) error {
	if id == nil {
		id = json.RawMessage("null")
	}
	if logf != nil {
		logf("mss: mcp: refused a message: %s", msg)
	}
	data, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: msg}})
	if err != nil {
		return err
	}
	_, err = out.Write(append(data, '\n'))
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
