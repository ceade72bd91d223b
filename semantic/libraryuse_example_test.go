package semantic_test

import (
	"context"
	"fmt"
	"log"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/semantic"
)

// Example_libraryUse is the library use shown in docs/llm.md, kept
// compiling here. It is not run: it calls the configured endpoint.
func Example_libraryUse() {
	ctx := context.Background()
	var (
		state *mss.State      // the agent's state card
		cands []mss.Candidate // its candidates, fused order
	)
	opts := mss.MethodOptions{Settings: map[string]string{"propose.model": "gpt-4.1", "fast.model": "gpt-4.1-mini", "cache_dir": ".mss-cache"}}
	if err := semantic.Preflight(ctx, opts); err != nil { // key, models, endpoints
		log.Fatal(err)
	}
	ctl, err := mss.NewMethod("mss-complement", opts)
	if err != nil {
		log.Fatal(err)
	}
	res, err := ctl.Select(ctx, &mss.Request{State: state, Candidates: cands})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(semantic.SummarizeUsage([]*mss.Usage{res.Usage}))
}
