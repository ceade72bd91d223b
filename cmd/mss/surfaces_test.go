package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/llm/llmtest"
	"github.com/missingcomplement/mss/retrieve"
	"github.com/missingcomplement/mss/server"
)

// TestSurfacesAnswerAlike feeds one state card to mss recover and to the
// server's recover (what HTTP and MCP call): both answer through the one
// pipeline, so they deliver the same units with the same text.
func TestSurfacesAnswerAlike(t *testing.T) {
	repo := recoverRepo(t)
	card := `{"issue": "parse_header fails on values containing ':'",
	  "observed_spans": [{"path": "pkg/util.py", "start_line": 1, "end_line": 2}]}`
	cli, _ := cliAnswer(t, repo, card)
	if d := cmp.Diff(cli, serverAnswer(t, repo, card)); d != "" {
		t.Errorf("mss recover and the server differ (-cli +server):\n%s", d)
	}
	if _, err := os.Stat(filepath.Join(repo, ".mss", "index.db")); err != nil {
		t.Errorf("no index in the work tree: %v", err)
	}
}

// TestSurfacesEmbed: with MSS_EMBED_* set, mss recover and the server's
// recover (what HTTP and MCP call) both read the embedding view, from the
// one place the pipeline opens it, and deliver the same units.
func TestSurfacesEmbed(t *testing.T) {
	emb := llmtest.NewEmbeddings("m", "", "header", "request")
	defer emb.Close()
	t.Setenv(retrieve.EnvEmbedBaseURL, emb.URL)
	t.Setenv(retrieve.EnvEmbedModel, "m")
	t.Setenv(retrieve.EnvEmbedAPIKey, "")

	repo := recoverRepo(t)
	card := `{"issue": "the header of a request is lost"}`
	cli, out := cliAnswer(t, repo, card)
	cliCalls := emb.Calls()
	if cliCalls == 0 {
		t.Fatal("mss recover never asked the embedding endpoint")
	}
	if !strings.Contains(out, "embedding #") {
		t.Errorf("mss recover's trace names no embedding rank:\n%s", out)
	}
	svc := serverAnswer(t, repo, card)
	if emb.Calls() == cliCalls {
		t.Error("the server never asked the embedding endpoint")
	}
	if d := cmp.Diff(cli, svc); d != "" {
		t.Errorf("mss recover and the server differ with the embedding view (-cli +server):\n%s", d)
	}
}

// cliAnswer is mss recover's answer to card over repo, each unit as its
// span and text, and its whole output; it fails the test when no unit
// comes back.
func cliAnswer(t *testing.T, repo, card string) ([]string, string) {
	t.Helper()
	out, stderr, err := runRecover(t, card, "--repo", repo, "--state", "-", "--json")
	if err != nil {
		t.Fatalf("recover: %v\n%s", err, stderr)
	}
	var cli struct {
		Units []struct {
			Path      string `json:"path"`
			StartLine int    `json:"start_line"`
			EndLine   int    `json:"end_line"`
			Content   string `json:"content"`
		} `json:"units"`
	}
	if err := json.Unmarshal([]byte(out), &cli); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range cli.Units {
		got = append(got, unitText(u.Path, u.StartLine, u.EndLine, u.Content))
	}
	if len(got) == 0 {
		t.Fatal("no units recovered")
	}
	return got, out
}

// serverAnswer is the server's answer to card over repo, as cliAnswer
// gives mss recover's.
func serverAnswer(t *testing.T, repo, card string) []string {
	t.Helper()
	svc, err := server.New(context.Background(), server.Config{Repo: repo, Loader: &server.IndexLoader{Repo: repo},
		Ignore: []string{filepath.Join(repo, ".mss")}})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	st, err := mss.DecodeState("card", strings.NewReader(card))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := svc.Recover(context.Background(), &server.RecoverRequest{State: *st})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range resp.Units {
		got = append(got, unitText(u.Path, u.StartLine, u.EndLine, u.Content))
	}
	return got
}

// unitText is a delivered unit as the surfaces' answers are compared.
func unitText(path string, start, end int, content string) string {
	return path + ":" + strconv.Itoa(start) + "-" + strconv.Itoa(end) + "\n" + content
}
