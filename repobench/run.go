package repobench

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/missingcomplement/mss"
)

// Snapshot ranks the units of one repository at one commit.
type Snapshot interface {
	Candidates(ctx context.Context, state *mss.State, limit int) ([]mss.Candidate, error)
}

// OpenFunc builds (or moves) the index of repo at commit and returns a
// snapshot over it. The runner calls it once per base commit, a
// repository's commits in the order CommitOrder gives, never for two
// commits of one repository at once.
type OpenFunc func(ctx context.Context, repo, gitDir, commit string) (Snapshot, error)

// RunOptions configures a benchmark run.
type RunOptions struct {
	States []*mss.State
	Source *Source // locates git directories and checks commits
	Open   OpenFunc
	// Method names the registered method; NewController builds one per
	// worker.
	Method        string
	NewController func() (mss.Controller, error)
	Budget        int // 0 means mss.DefaultBudget
	MaxUnits      int // 0 means mss.DefaultMaxUnits
	Candidates    int // candidate limit; 0 means the engine's default
	Output        string
	Concurrency   int // repositories in flight; 0 means 1
	// Notice receives messages worth a person's attention (resumed
	// states, dropped torn lines). Nil discards them.
	Notice func(string)
	// Progress, when set, is called after each state is written.
	Progress func(stateID string)
}

// IndexBuild records how long opening a snapshot took.
type IndexBuild struct {
	Repo, Commit string
	Seconds      float64
	First        bool // the repository's first snapshot in this run
}

// RunStats summarises a run.
type RunStats struct {
	Total, Resumed, Done int
	// LatencyMS is retrieval plus selection per state answered in this
	// run, in the order answered.
	LatencyMS []float64
	Builds    []IndexBuild
	Wall      time.Duration
}

// Percentile returns the p-th percentile (0..100) of xs by the nearest-rank
// rule, or NaN when xs is empty.
func Percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	rank = min(max(rank, 1), len(s))
	return s[rank-1]
}

// repoWork is one repository's states grouped by base commit, commits in
// processing order.
type repoWork struct {
	repo    string
	gitDir  string
	commits []string
	states  map[string][]*mss.State
	n       int
}

// Run answers every state of opts.States not already in opts.Output,
// appending one prediction line per state. When every state is answered,
// the file is rewritten in states-file order.
func Run(ctx context.Context, opts RunOptions) (*RunStats, error) {
	start := time.Now()
	notice := opts.Notice
	if notice == nil {
		notice = func(string) {}
	}
	known := map[string]bool{}
	order := make([]string, 0, len(opts.States))
	for _, s := range opts.States {
		known[s.StateID] = true
		order = append(order, s.StateID)
	}
	done, err := Resume(opts.Output, opts.Method, known, notice)
	if err != nil {
		return nil, err
	}
	stats := &RunStats{Total: len(opts.States), Resumed: len(done)}
	if len(done) > 0 {
		notice(fmt.Sprintf("%s: %d of %d states already answered; resuming", opts.Output, len(done), len(opts.States)))
	}

	// Group what is left by repository and base commit, and check every
	// mirror and commit before any work starts.
	byRepo := map[string]*repoWork{}
	var repos []string
	for _, s := range opts.States {
		if done[s.StateID] != nil {
			continue
		}
		key := strings.ToLower(s.Repo) // one index per repository, however spelled
		w := byRepo[key]
		if w == nil {
			dir, err := opts.Source.GitDir(s.Repo)
			if err != nil {
				return nil, fmt.Errorf("state %s: %w", s.StateID, err)
			}
			w = &repoWork{repo: s.Repo, gitDir: dir, states: map[string][]*mss.State{}}
			byRepo[key] = w
			repos = append(repos, key)
		}
		if err := opts.Source.CheckCommit(s.Repo, s.BaseCommit); err != nil {
			return nil, fmt.Errorf("state %s: %w", s.StateID, err)
		}
		if w.states[s.BaseCommit] == nil {
			w.commits = append(w.commits, s.BaseCommit)
		}
		w.states[s.BaseCommit] = append(w.states[s.BaseCommit], s)
		w.n++
	}
	for _, w := range byRepo {
		if w.commits, err = CommitOrder(ctx, w.gitDir, w.commits); err != nil {
			return nil, fmt.Errorf("repository %s: %w", w.repo, err)
		}
	}
	// Largest repositories first, so parallel workers finish together.
	sort.SliceStable(repos, func(a, b int) bool { return byRepo[repos[a]].n > byRepo[repos[b]].n })

	out, err := os.OpenFile(opts.Output, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	defer out.Close()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		cancel()
	}
	record := func(p *Prediction, build *IndexBuild) error {
		mu.Lock()
		defer mu.Unlock()
		if build != nil {
			stats.Builds = append(stats.Builds, *build)
			return nil
		}
		if err := appendLine(out, p); err != nil {
			return fmt.Errorf("%s: %w", opts.Output, err)
		}
		done[p.StateID] = p
		stats.Done++
		stats.LatencyMS = append(stats.LatencyMS, p.LatencyMS())
		if opts.Progress != nil {
			opts.Progress(p.StateID)
		}
		return nil
	}
	workers := max(opts.Concurrency, 1)
	queue := make(chan *repoWork)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctl, err := opts.NewController()
			if err != nil {
				fail(fmt.Errorf("method %s: %w", opts.Method, err))
				for range queue {
				}
				return
			}
			for w := range queue {
				if ctx.Err() != nil {
					continue
				}
				if err := runRepo(ctx, opts, ctl, w, record); err != nil {
					fail(err)
				}
			}
		}()
	}
	for _, r := range repos {
		queue <- byRepo[r]
	}
	close(queue)
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		firstErr = ctx.Err()
	}
	if err := out.Close(); err != nil && firstErr == nil {
		firstErr = err
	}
	stats.Wall = time.Since(start)
	if firstErr != nil {
		return stats, firstErr
	}
	if len(done) == len(opts.States) {
		if err := rewriteInOrder(opts.Output, order, done); err != nil {
			return stats, fmt.Errorf("%s: rewriting in states order: %w", opts.Output, err)
		}
	}
	return stats, nil
}

// runRepo answers one repository's states, commit by commit.
func runRepo(ctx context.Context, opts RunOptions, ctl mss.Controller, w *repoWork, record func(*Prediction, *IndexBuild) error) error {
	for i, commit := range w.commits {
		if err := ctx.Err(); err != nil {
			return err
		}
		t0 := time.Now()
		snap, err := opts.Open(ctx, w.repo, w.gitDir, commit)
		if err != nil {
			return fmt.Errorf("repository %s: indexing %s: %w", w.repo, commit, err)
		}
		if err := record(nil, &IndexBuild{Repo: w.repo, Commit: commit, Seconds: time.Since(t0).Seconds(), First: i == 0}); err != nil {
			return err
		}
		for _, st := range w.states[commit] {
			p, err := answer(ctx, opts, ctl, snap, st)
			if err != nil {
				return fmt.Errorf("state %s: %w", st.StateID, err)
			}
			if err := record(p, nil); err != nil {
				return err
			}
		}
		if c, ok := snap.(interface{ Close() error }); ok {
			if err := c.Close(); err != nil {
				return fmt.Errorf("repository %s: closing index at %s: %w", w.repo, commit, err)
			}
		}
	}
	return nil
}

// answer retrieves and selects for one state. A panic in the method is
// recovered and returned as this state's error.
func answer(ctx context.Context, opts RunOptions, ctl mss.Controller, snap Snapshot, st *mss.State) (p *Prediction, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	t0 := time.Now()
	cands, err := snap.Candidates(ctx, st, opts.Candidates)
	if err != nil {
		return nil, fmt.Errorf("retrieving: %w", err)
	}
	t1 := time.Now()
	res, err := ctl.Select(ctx, &mss.Request{State: st, Candidates: cands, Budget: opts.Budget, MaxUnits: opts.MaxUnits})
	if err != nil {
		return nil, fmt.Errorf("method %s: %w", opts.Method, err)
	}
	t2 := time.Now()
	p = &Prediction{
		StateID:    st.StateID,
		Method:     opts.Method,
		Config:     res.Config,
		Units:      make([]PredUnit, 0, len(res.Units)),
		Candidates: len(cands),
		RetrieveMS: roundMS(t1.Sub(t0)),
		SelectMS:   roundMS(t2.Sub(t1)),
	}
	for _, u := range res.Units {
		p.Units = append(p.Units, PredUnit{Path: u.Path, StartLine: u.StartLine, EndLine: u.EndLine, Symbol: u.Symbol, Tokens: u.Tokens})
	}
	return p, nil
}

// roundMS is d in milliseconds to the microsecond.
func roundMS(d time.Duration) float64 {
	return math.Round(float64(d.Microseconds())) / 1000
}

// CommitOrder orders a repository's base commits so that each index move
// is small: by committer time, oldest first, ties by hash. An unknown
// commit is an error naming it.
func CommitOrder(ctx context.Context, gitDir string, commits []string) ([]string, error) {
	if len(commits) <= 1 {
		return commits, nil
	}
	args := append([]string{"--git-dir", gitDir, "log", "--no-walk=unsorted", "--format=%H %ct"}, commits...)
	cmd := exec.CommandContext(ctx, "git", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git log in %s: %w: %s", gitDir, err, strings.TrimSpace(stderr.String()))
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(commits) {
		return nil, fmt.Errorf("git log in %s: got %d commits for %d asked", gitDir, len(lines), len(commits))
	}
	type ct struct {
		name string
		hash string
		t    int64
	}
	cs := make([]ct, len(commits))
	for i, l := range lines {
		hash, ts, ok := strings.Cut(l, " ")
		t, err := strconv.ParseInt(ts, 10, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("git log in %s: unexpected line %q", gitDir, l)
		}
		cs[i] = ct{commits[i], hash, t}
	}
	sort.SliceStable(cs, func(a, b int) bool {
		if cs[a].t != cs[b].t {
			return cs[a].t < cs[b].t
		}
		return cs[a].hash < cs[b].hash
	})
	ordered := make([]string, len(cs))
	for i, c := range cs {
		ordered[i] = c.name
	}
	return ordered, nil
}
