package server

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzCheckMessage: whatever a client writes on a line, the stdio filter
// decides without panicking, and only messages the SDK can decode pass.
func FuzzCheckMessage(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{}`, `null`, `3`, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"1.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
		`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`,
		"{\"jsonrpc\":\"2.0\",\"id\":\"\\u0000\",\"method\":\"ping\"}", `not json`,
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
		if _, err := jsonrpc.DecodeMessage(msg); err != nil {
			t.Errorf("checkMessage(%q) passed a message the SDK cannot decode: %v", msg, err)
		}
	})
}
