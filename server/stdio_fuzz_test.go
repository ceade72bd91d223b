package server

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzCheckMessage: whatever a client writes on a line, the stdio filter
// decides without panicking, and only messages the SDK can decode pass,
// each request answered under the id it was sent with.
func FuzzCheckMessage(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{}`, `null`, `3`, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"1.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
		`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`,
		"{\"jsonrpc\":\"2.0\",\"id\":\"\\u0000\",\"method\":\"ping\"}", `not json`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`, `{"jsonrpc":"2.0","id":4.5,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1e0,"method":"ping"}`, `{"jsonrpc":"2.0","id":-0,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, `{"jsonrpc":"2.0","id":-9007199254740991,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"id":4.5,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":4.5,"ID":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":"\u00e9","method":"ping"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		_, code, why := checkMessage(msg)
		if code != 0 {
			if why == "" {
				t.Errorf("checkMessage(%q): code %d with no reason", msg, code)
			}
			return
		}
		m, err := jsonrpc.DecodeMessage(msg)
		if err != nil {
			t.Errorf("checkMessage(%q) passed a message the SDK cannot decode: %v", msg, err)
			return
		}
		// A request passed is answered under the id it was sent with,
		// or is a notification, sent with none.
		req, ok := m.(*jsonrpc.Request)
		if !ok {
			return
		}
		sent, hasID, _ := messageHead(msg)
		if !req.IsCall() {
			if hasID {
				t.Errorf("checkMessage(%q) passed a request with id %s that the SDK takes for a notification", msg, sent)
			}
			return
		}
		echo, err := json.Marshal(req.ID.Raw())
		if err != nil {
			t.Fatal(err)
		}
		var a, b any
		json.Unmarshal(sent, &a)
		json.Unmarshal(echo, &b)
		if _, num := a.(float64); (num && string(echo) != string(sent)) || (!num && a != b) {
			t.Errorf("checkMessage(%q) passed a request sent with id %s that the SDK answers under id %s", msg, sent, echo)
		}
	})
}
