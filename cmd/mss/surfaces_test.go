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
	"github.com/missingcomplement/mss/server"
)

// TestSurfacesAnswerAlike feeds one state card to mss recover and to the
// server's recover (what HTTP and MCP call): both answer through the one
// pipeline, so they deliver the same units with the same text.
func TestSurfacesAnswerAlike(t *testing.T) {
	repo := recoverRepo(t)
	card := `{"issue": "parse_header fails on values containing ':'",
	  "observed_spans": [{"path": "pkg/util.py", "start_line": 1, "end_line": 2}]}`
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
	var a, b []string
	for _, u := range cli.Units {
		a = append(a, u.Path+":"+strconv.Itoa(u.StartLine)+"-"+strconv.Itoa(u.EndLine)+"\n"+u.Content)
	}
	for _, u := range resp.Units {
		b = append(b, u.Path+":"+strconv.Itoa(u.StartLine)+"-"+strconv.Itoa(u.EndLine)+"\n"+u.Content)
	}
	if len(a) == 0 {
		t.Fatal("no units recovered")
	}
	if d := cmp.Diff(a, b); d != "" {
		t.Errorf("mss recover and the server differ (-cli +server):\n%s", d)
	}
	if _, err := os.Stat(filepath.Join(repo, ".mss", "index.db")); err != nil {
		t.Errorf("no index in the work tree: %v", err)
	}
}
