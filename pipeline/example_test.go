package pipeline_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/pipeline"
)

// Open indexes a repository (incrementally, into <repo>/.mss/index.db) and
// Recover answers a state card with intact units checked against the files.
func Example() {
	repo, _ := os.MkdirTemp("", "mss-example-")
	defer os.RemoveAll(repo)
	os.WriteFile(filepath.Join(repo, "parse.py"), []byte("def parse_header(line):\n    key, value = line.split(':')\n    return key, value\n"), 0o644)

	ctx := context.Background()
	p, err := pipeline.Open(ctx, pipeline.Options{Repo: repo})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	state := &mss.State{Issue: "parse_header fails on values containing ':'"}
	ans, err := p.Recover(ctx, state, pipeline.DefaultLimits())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, u := range ans.Units {
		fmt.Printf("%s:%d-%d %s\n", u.Path, u.StartLine, u.EndLine, u.Symbol)
	}
	// Output: parse.py:1-3 parse_header
}
