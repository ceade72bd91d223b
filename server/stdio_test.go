package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
)

// rpcReply is a JSON-RPC response as the client reads it.
type rpcReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// TestStdioMalformedLines: every malformed line gets a JSON-RPC error
// and the server goes on to answer the well-formed messages after it. A
// request whose id the server cannot echo as sent is one: its answer
// would go to another id, or to none.
func TestStdioMalformedLines(t *testing.T) {
	svc, _ := newTestService(t, nil)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	const limit = 4096
	done := make(chan error, 1)
	go func() {
		done <- NewMCPServer(svc, "test").Run(context.Background(), &StdioTransport{In: inR, Out: outW, MaxLine: limit})
		outW.Close()
	}()
	replies := make(chan rpcReply, 64)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var r rpcReply
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Errorf("server wrote a line that is not JSON: %q", sc.Text())
				continue
			}
			replies <- r
		}
		close(replies)
	}()
	bad := []struct {
		name, line string
		code       int64
		id         string
	}{
		{"not JSON", `hello`, -32700, "null"},
		{"truncated", `{"jsonrpc":"2.0","id":1,"method":"ping"`, -32700, "null"},
		{"empty object", `{}`, -32600, "null"},
		{"null", `null`, -32600, "null"},
		{"number", `42`, -32600, "null"},
		{"wrong version", `{"jsonrpc":"1.0","id":7,"method":"ping"}`, -32600, "7"},
		{"no version", `{"id":"x","method":"ping"}`, -32600, `"x"`},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, "null"},
		{"deep nesting", strings.Repeat("[", 2000) + strings.Repeat("]", 2000), -32600, "null"},
		{"deep params", `{"jsonrpc":"2.0","id":8,"method":"ping","params":` + strings.Repeat(`{"a":`, 100) + "1" + strings.Repeat("}", 100) + "}", -32600, "null"},
		{"empty batch", `[]`, -32600, "null"},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, "null"},
		{"fractional id", `{"jsonrpc":"2.0","id":4.5,"method":"ping"}`, -32600, "null"},
		{"integer id with a fraction", `{"jsonrpc":"2.0","id":4.0,"method":"ping"}`, -32600, "null"},
		{"exponent id", `{"jsonrpc":"2.0","id":1e0,"method":"ping"}`, -32600, "null"},
		{"negative zero id", `{"jsonrpc":"2.0","id":-0,"method":"ping"}`, -32600, "null"},
		{"id past 2^53", `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, -32600, "null"},
		{"id past int64", `{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}`, -32600, "null"},
		{"boolean id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600, "null"},
		{"bad id given last", `{"jsonrpc":"2.0","id":4,"id":4.5,"method":"ping"}`, -32600, "null"},
		{"bad id, wrong version", `{"jsonrpc":"1.0","id":4.5,"method":"ping"}`, -32600, "null"},
		{"over-long line", `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"x":"` + strings.Repeat("x", 2*limit) + `"}}`, -32700, "null"},
	}
	write := func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	next := func(what string) rpcReply {
		t.Helper()
		r, ok := <-replies
		if !ok {
			t.Fatalf("%s: the server closed its output", what)
		}
		return r
	}
	for i, b := range bad {
		// A ping after each line: what comes before its answer is the
		// line's (a line the server does not answer has none).
		write(b.line)
		after := fmt.Sprintf(`"after %d"`, i)
		write(`{"jsonrpc":"2.0","id":` + after + `,"method":"ping"}`)
		var got []rpcReply
		for r := next(b.name); string(r.ID) != after; r = next(b.name) {
			got = append(got, r)
		}
		if len(got) != 1 {
			t.Errorf("%s: %d answers, want 1: %+v", b.name, len(got), got)
			continue
		}
		if r := got[0]; r.Error == nil || r.Error.Code != b.code || string(r.ID) != b.id || r.JSONRPC != "2.0" {
			t.Errorf("%s: got %+v (error %+v), want code %d id %s", b.name, r, r.Error, b.code, b.id)
		}
	}
	write("") // blank lines are skipped
	write(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if r := next("initialize"); string(r.ID) != "1" || r.Error != nil {
		t.Fatalf("initialize after the malformed lines: %+v", r)
	}
	write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	write(`hello again`)
	if r := next("second bad line"); r.Error == nil || r.Error.Code != -32700 {
		t.Errorf("bad line after initialize: %+v", r)
	}
	// Every id the server can answer under is echoed as sent.
	for _, id := range []string{`4`, `0`, `-3`, `9007199254740991`, `-9007199254740991`, `"x"`, `"a\"b"`, `""`, `"ID"`} {
		write(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		if r := next("ping " + id); string(r.ID) != id || r.Error != nil {
			t.Errorf("ping with id %s: answered under id %s (error %+v)", id, r.ID, r.Error)
		}
	}
	write(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_code","arguments":{"query":"split_fields"}}}`)
	r := next("tools/call")
	if string(r.ID) != "2" || r.Error != nil || !strings.Contains(string(r.Result), "widgets/util.py") {
		t.Errorf("tools/call after the malformed lines: %+v %s", r, r.Result)
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Errorf("Run after stdin closed: %v", err)
	}
}

func TestJSONDepth(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{`1`, 0}, {`{}`, 1}, {`[[1],[2,[3]]]`, 3}, {`{"a":"[[[["}`, 1}, {`{"a":"\"[["}`, 1},
		{fmt.Sprintf(`%s%s`, strings.Repeat("[", 70), strings.Repeat("]", 70)), maxJSONDepth + 1},
	} {
		if got := jsonDepth([]byte(tc.in)); got != tc.want {
			t.Errorf("jsonDepth(%s) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
