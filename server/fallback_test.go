package server

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/llm/llmtest"
	_ "github.com/missingcomplement/mss/semantic" // mss-complement
)

// TestFallbackInAnswer: when the model endpoint is down, mss-complement's
// answer still has units (the fallback's) and says it is a fallback.
func TestFallbackInAnswer(t *testing.T) {
	srv := llmtest.NewPersonality(llmtest.PersonalityDown)
	defer srv.Close()
	t.Setenv("MSS_LLM_API_KEY", "sk-server-SECRET-0001")
	dir := writeFixture(t)
	svc, err := New(context.Background(), Config{Repo: dir, Loader: &IndexLoader{Repo: dir}, ScanInterval: time.Nanosecond, FreshWait: time.Minute,
		Method: "mss-complement", MethodOptions: mss.MethodOptions{Settings: map[string]string{"base_url": srv.BaseURL(), "propose.model": "gpt-5", "retries": "0"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	resp, err := svc.Recover(context.Background(), &RecoverRequest{State: stateFor("where header fields are split")})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Fallback == nil || resp.Fallback.Stage != "propose" || len(resp.Units) == 0 {
		t.Fatalf("fallback %+v, %d units; want the propose stage's failure and the fallback's units", resp.Fallback, len(resp.Units))
	}
	b, _ := json.Marshal(resp)
	if !strings.Contains(string(b), `"fallback":{"stage":"propose"`) || strings.Contains(string(b), "sk-server-SECRET") {
		t.Errorf("answer JSON: %s", b)
	}
}
