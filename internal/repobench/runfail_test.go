package repobench

import (
	"context"
	"errors"
	"fmt"
	"github.com/missingcomplement/mss/internal/gittest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/pipeline"
)

// TestRunKeepsGoingWhenARepositoryFails: one repository whose index cannot
// be built is reported; the others are answered; the run ends in an error.
func TestRunKeepsGoingWhenARepositoryFails(t *testing.T) {
	fx, states := runFixture(t)
	gittest.Run(t, fx.root, "clone", "-q", "--bare", fx.gitDir, filepath.Join(fx.root, "Acme+Gadget", "repo"))
	states = append(states, &mss.State{StateID: "g1", Repo: "acme/gadget", BaseCommit: fx.c1, StateType: "before_search", InformationNeed: "a.py:1-2"})
	src := NewSource(fx.root)
	defer src.Close()
	out := filepath.Join(t.TempDir(), "pred.jsonl")
	opts := RunOptions{
		States: states, Source: src, Concurrency: 1, Limits: pipeline.DefaultLimits(),
		Methods: []MethodRun{{Name: "first", Output: out, New: func() (mss.Controller, error) { return firstController{}, nil }}},
		Open: func(_ context.Context, repo, _, commit string) (*Opened, error) {
			if repo == "acme/gadget" {
				return nil, fmt.Errorf("git cat-file: %s missing", commit[:7])
			}
			return &Opened{Snapshot: lineSnapshot{commit}}, nil
		},
	}
	stats, err := Run(context.Background(), opts)
	if !errors.Is(err, ErrReposFailed) || !strings.Contains(err.Error(), "acme/gadget") {
		t.Fatalf("Run: %v, want ErrReposFailed naming acme/gadget", err)
	}
	if stats == nil || stats.Methods["first"].Done != 3 {
		t.Fatalf("stats %+v: want the 3 widget states answered", stats)
	}
	if len(stats.Failed) != 1 || stats.Failed[0].Repo != "acme/gadget" || stats.Failed[0].States != 1 || !strings.Contains(stats.Failed[0].Err, "missing") {
		t.Errorf("failures %+v", stats.Failed)
	}
}

// TestRunStopsOnOtherSettings: an output whose answers were made with
// other settings stops the run at its first answer, as every repository
// would meet it; it is no failure of one repository, and no other
// repository's index is built for it.
func TestRunStopsOnOtherSettings(t *testing.T) {
	fx, states := runFixture(t)
	gittest.Run(t, fx.root, "clone", "-q", "--bare", fx.gitDir, filepath.Join(fx.root, "Acme+Gadget", "repo"))
	states = append(states,
		&mss.State{StateID: "g1", Repo: "acme/gadget", BaseCommit: fx.c1, StateType: "before_search", InformationNeed: "a.py:1-2"},
		&mss.State{StateID: "g2", Repo: "acme/gadget", BaseCommit: fx.c2, StateType: "before_search", InformationNeed: "a.py:1-2"})
	src := NewSource(fx.root)
	defer src.Close()
	out := filepath.Join(t.TempDir(), "pred.jsonl")
	writeFile(t, out, `{"state_id":"s1","method":"first","config":"v0","units":[],"retrieve_ms":1}`+"\n")
	var opened []string
	opts := RunOptions{
		States: states, Source: src, Concurrency: 1, Limits: pipeline.DefaultLimits(),
		Methods: []MethodRun{{Name: "first", Output: out, New: func() (mss.Controller, error) { return firstController{}, nil }}},
		Open: func(_ context.Context, repo, _, commit string) (*Opened, error) {
			opened = append(opened, repo)
			return &Opened{Snapshot: lineSnapshot{commit}}, nil
		},
	}
	stats, err := Run(context.Background(), opts)
	if err == nil || errors.Is(err, ErrReposFailed) || !strings.Contains(err.Error(), `its answers were made with config "v0", this run's first is "v1"`) {
		t.Fatalf("Run: %v, want the run stopped naming both configurations", err)
	}
	if len(stats.Failed) != 0 || len(opened) != 1 {
		t.Errorf("failures %+v, snapshots opened %q: want none failed and one snapshot opened", stats.Failed, opened)
	}
	if data, _ := os.ReadFile(out); strings.Count(string(data), "\n") != 1 {
		t.Errorf("output now holds %q; want it as it was", data)
	}
}

// TestRunRecordsItsSettings: the run's own settings go into every
// prediction's config after the method's, so an output begun at one
// budget is not resumed at another.
func TestRunRecordsItsSettings(t *testing.T) {
	fx, states := runFixture(t)
	src := NewSource(fx.root)
	defer src.Close()
	out := filepath.Join(t.TempDir(), "pred.jsonl")
	run := func(states []*mss.State, budget int) error {
		lim := pipeline.DefaultLimits()
		lim.Budget = budget
		_, err := Run(context.Background(), RunOptions{
			States: states, Source: src, Concurrency: 1, Limits: lim, Settings: RunConfig(budget, lim.MaxUnits, lim.Candidates, "default"),
			Methods: []MethodRun{{Name: "first", Output: out, New: func() (mss.Controller, error) { return firstController{}, nil }}},
			Open: func(_ context.Context, _, _, commit string) (*Opened, error) {
				return &Opened{Snapshot: lineSnapshot{commit}}, nil
			},
		})
		return err
	}
	if err := run(states[:1], 6144); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(out)
	if want := `"config":"v1 budget=6144 max_units=8 candidates=200 order=default"`; !strings.Contains(string(data), want) {
		t.Fatalf("output %s; want it to hold %s", data, want)
	}
	err := run(states[:2], 2048)
	if err == nil || !strings.Contains(err.Error(), `this run's first is "v1 budget=2048 max_units=8 candidates=200 order=default"`) {
		t.Fatalf("resumed at another budget: %v, want it refused naming both configurations", err)
	}
}
