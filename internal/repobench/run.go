package repobench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
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
	"github.com/missingcomplement/mss/internal/safefile"
	"github.com/missingcomplement/mss/pipeline"
)

// Snapshot answers states over one repository at one commit: the stages
// of a pipeline.Pipeline, which implements it. Candidates runs once per
// state, Select once per method.
type Snapshot interface {
	Candidates(ctx context.Context, state *mss.State, lim pipeline.Limits) (*pipeline.Query, error)
	Select(ctx context.Context, ctrl mss.Controller, q *pipeline.Query, lim pipeline.Limits, so pipeline.SelectOptions) (*pipeline.Answer, error)
}

// Opened is a snapshot and what opening it cost.
type Opened struct {
	Snapshot Snapshot
	// Phases times the stages of opening, in seconds by name (e.g.
	// "index" for building or moving the index, "engine" for loading it).
	Phases map[string]float64
}

// OpenFunc builds (or moves) the index of repo at commit and returns a
// snapshot over it. The runner calls it once per base commit, a
// repository's commits in the order CommitOrder gives, never for two
// commits of one repository at once.
type OpenFunc func(ctx context.Context, repo, gitDir, commit string) (*Opened, error)

// MethodRun is one method of a run and the predictions file it appends to.
type MethodRun struct {
	Name   string
	New    func() (mss.Controller, error) // one controller per worker
	Output string
}

// RunOptions configures a benchmark run. Several methods share one pass:
// each state's candidates are retrieved once and every method selects
// from them.
type RunOptions struct {
	States  []*mss.State
	Source  *Source // locates git directories and checks commits
	Open    OpenFunc
	Methods []MethodRun
	// Limits bound every answer (pipeline.DefaultLimits for the defaults).
	Limits pipeline.Limits
	// Concurrency is how many repositories are processed at once; 0
	// means 1.
	Concurrency int
	// Notice receives messages worth a person's attention (resumed
	// states, dropped torn lines). Nil discards them.
	Notice func(string)
	// Start, when set, learns how many states are pending once the
	// outputs have been read; Progress, when set, is called after each of
	// them is answered by every method.
	Start    func(pending int)
	Progress func(stateID string)
	// OnResult, when set, sees every answer (usage accounting); it may be
	// called from several workers at once.
	OnResult func(method string, res *mss.Result)
	// AllowFallback writes answers a model method gave with its fallback
	// policy, flagged. Without it such an answer stops the run: its row
	// would pass the fallback off as the model method's result.
	AllowFallback bool
	// Settings are the run's own settings that shape every answer (the
	// budget, the most units, the candidates, the order: RunConfig),
	// recorded in each prediction's config after the method's, so that
	// an output is resumed only by a run that answers as the one that
	// began it.
	Settings string
}

// withSettings is a prediction's config: the method's, then the run's
// own settings (RunConfig).
func withSettings(method, settings string) string {
	return strings.TrimSpace(method + " " + settings)
}

// RunConfig writes a run's own settings as a prediction's config records
// them after the method's: "budget=6144 max_units=8 candidates=200
// order=default".
func RunConfig(budget, maxUnits, candidates int, order string) string {
	return fmt.Sprintf("budget=%d max_units=%d candidates=%d order=%s", budget, maxUnits, candidates, order)
}

// IndexBuild records how long opening a snapshot took.
type IndexBuild struct {
	Repo, Commit string
	Seconds      float64 // all phases
	Phases       map[string]float64
	First        bool // the repository's first snapshot in this run
}

// MethodStats is one method's share of a run.
type MethodStats struct {
	Resumed, Done int
	Fallbacks     int // answers given by the method's fallback policy
	// LatencyMS is retrieval plus this method's selection per state
	// answered in this run, in the order answered.
	LatencyMS []float64
}

// RunStats summarises a run.
type RunStats struct {
	Total   int // states in the states file
	Pending int // states some method still had to answer
	Methods map[string]*MethodStats
	Builds  []IndexBuild
	Wall    time.Duration
	// Failed lists the repositories whose run failed; the others went on.
	Failed []RepoFailure
}

// RepoFailure is one repository that could not be run to the end: its
// index could not be built, or a state failed. Its remaining states stay
// unanswered (a later run resumes them).
type RepoFailure struct {
	Repo   string
	States int // states of the repository pending at the start of the run
	Err    string
}

// ErrReposFailed is returned, with the stats, when some repository failed
// and the others were run.
var ErrReposFailed = errors.New("repositories failed")

// outputError marks a failure to write predictions, or a refusal to
// write them (an output made with other settings): it stops the run,
// since every repository would meet it.
type outputError struct{ err error }

func (e outputError) Error() string { return e.err.Error() }
func (e outputError) Unwrap() error { return e.err }

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

// methodOut is a method's output file and what it holds.
type methodOut struct {
	MethodRun
	f    *os.File
	done map[string]*Prediction
}

// Run answers every state of opts.States that a method's output does not
// hold yet, appending one prediction line per state and method. When a
// method's file holds every state, it is rewritten in states-file order.
func Run(ctx context.Context, opts RunOptions) (*RunStats, error) {
	start := time.Now()
	notice := opts.Notice
	if notice == nil {
		notice = func(string) {}
	}
	if len(opts.Methods) == 0 {
		return nil, fmt.Errorf("no method to run")
	}
	if err := opts.Limits.Check(); err != nil {
		return nil, err
	}
	known := map[string]bool{}
	order := make([]string, 0, len(opts.States))
	for _, s := range opts.States {
		known[s.StateID] = true
		order = append(order, s.StateID)
	}
	stats := &RunStats{Total: len(opts.States), Methods: map[string]*MethodStats{}}
	outs := make([]*methodOut, len(opts.Methods))
	seenOut := map[string]string{}
	for i, m := range opts.Methods {
		if prev, dup := seenOut[m.Output]; dup {
			return nil, fmt.Errorf("methods %s and %s both write %s", prev, m.Name, m.Output)
		}
		seenOut[m.Output] = m.Name
		// Two spellings of one file (out/a/../p.jsonl, a link to it) are
		// no other run's: the file an earlier method opened is this one.
		if st, err := os.Stat(m.Output); err == nil {
			for _, o := range outs[:i] {
				if ost, err := o.f.Stat(); err == nil && os.SameFile(st, ost) {
					return nil, fmt.Errorf("methods %s and %s both write %s (as %s)", o.Name, m.Name, o.Output, m.Output)
				}
			}
		}
		// The output is held from reading what an earlier run left in it
		// to the last line this run adds: a second run on it is refused.
		f, made, err := openAppend(m.Output, "--output")
		if err != nil {
			return nil, err
		}
		defer closeOutput(f, made)
		done, err := Resume(m.Output, m.Name, known, notice)
		if err != nil {
			return nil, err
		}
		if len(done) > 0 {
			notice(fmt.Sprintf("%s: %d of %d states already answered; resuming", m.Output, len(done), len(opts.States)))
		}
		outs[i] = &methodOut{MethodRun: m, done: done, f: f}
		stats.Methods[m.Name] = &MethodStats{Resumed: len(done)}
	}

	// Group what is left by repository and base commit, and check every
	// mirror and commit before any work starts.
	byRepo := map[string]*repoWork{}
	var repos []string
	for _, s := range opts.States {
		pending := false
		for _, o := range outs {
			if o.done[s.StateID] == nil {
				pending = true
			}
		}
		if !pending {
			continue
		}
		stats.Pending++
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
		var err error
		if w.commits, err = CommitOrder(ctx, w.gitDir, w.commits); err != nil {
			return nil, fmt.Errorf("repository %s: %w", w.repo, err)
		}
	}
	if opts.Start != nil {
		opts.Start(stats.Pending)
	}
	// Largest repositories first, so parallel workers finish together.
	sort.SliceStable(repos, func(a, b int) bool { return byRepo[repos[a]].n > byRepo[repos[b]].n })

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
	rec := &recorder{mu: &mu, stats: stats, progress: opts.Progress}
	workers := max(opts.Concurrency, 1)
	queue := make(chan *repoWork)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctls := make([]mss.Controller, len(outs))
			for i, o := range outs {
				c, err := o.New()
				if err != nil {
					fail(fmt.Errorf("method %s: %w", o.Name, err))
					for range queue {
					}
					return
				}
				ctls[i] = c
			}
			for w := range queue {
				if ctx.Err() != nil {
					continue
				}
				if err := runRepo(ctx, opts, outs, ctls, w, rec); err != nil {
					var oe outputError
					if errors.As(err, &oe) || ctx.Err() != nil {
						fail(err)
						continue
					}
					// One repository's failure does not stop the others.
					mu.Lock()
					stats.Failed = append(stats.Failed, RepoFailure{Repo: w.repo, States: w.n, Err: err.Error()})
					mu.Unlock()
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
	// The outputs stay open, and so held, until Run returns (closeOutput),
	// past the rewrite in states order below.
	for _, o := range outs {
		if err := o.f.Sync(); err != nil && firstErr == nil {
			firstErr = fmt.Errorf("%s: %w", o.Output, err)
		}
	}
	stats.Wall = time.Since(start)
	sort.Slice(stats.Failed, func(a, b int) bool { return stats.Failed[a].Repo < stats.Failed[b].Repo })
	if firstErr != nil {
		return stats, firstErr
	}
	if len(stats.Failed) > 0 {
		msgs := make([]string, len(stats.Failed))
		for i, f := range stats.Failed {
			msgs[i] = f.Repo + ": " + f.Err
		}
		return stats, fmt.Errorf("%d of %d %w: %s", len(stats.Failed), len(repos), ErrReposFailed, strings.Join(msgs, "; "))
	}
	for _, o := range outs {
		if len(o.done) == len(opts.States) {
			if err := rewriteInOrder(o.Output, order, o.done); err != nil {
				return stats, fmt.Errorf("%s: rewriting in states order: %w", o.Output, err)
			}
		}
	}
	return stats, nil
}

// openAppend opens a predictions file or a cache for appending, held by
// this run (safefile.OpenAppend), once it is known to be no device or
// link, and says whether the file was made for it (closeOutput removes it
// again when it stays empty); flag names the flag that chooses another
// file.
func openAppend(path, flag string) (f *os.File, made bool, err error) {
	if err := safefile.Writable(path, nil); err != nil {
		return nil, false, err
	}
	if err := safefile.MkdirFor(path); err != nil {
		return nil, false, err
	}
	_, statErr := os.Lstat(path)
	f, err = safefile.OpenAppend(path)
	if errors.Is(err, safefile.ErrBusy) {
		return nil, false, fmt.Errorf("%w; wait for it, or use another %s", err, flag)
	}
	return f, errors.Is(statErr, fs.ErrNotExist), err
}

// closeOutput closes a predictions file, removing it when this run made
// it and it is still empty (a run that answered nothing leaves no file
// behind), before its lock goes with the close.
func closeOutput(f *os.File, made bool) {
	removeMadeEmpty(f, made)
	f.Close()
}

// removeMadeEmpty removes the open file f when made (this run created it)
// and it is empty, if its name is still f.
func removeMadeEmpty(f *os.File, made bool) {
	if st, err := f.Stat(); err == nil && made && st.Size() == 0 {
		if now, err := os.Lstat(f.Name()); err == nil && os.SameFile(st, now) {
			os.Remove(f.Name())
		}
	}
}

// recorder serialises writes and bookkeeping across workers.
type recorder struct {
	mu       *sync.Mutex
	stats    *RunStats
	progress func(string)
}

func (r *recorder) build(b IndexBuild) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stats.Builds = append(r.stats.Builds, b)
}

// answered reports whether o holds an answer to the state: o.done is
// written by every worker, under the lock.
func (r *recorder) answered(o *methodOut, stateID string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return o.done[stateID] != nil
}

func (r *recorder) write(o *methodOut, p *Prediction) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	// Every answer of a file is made with one configuration (Resume
	// checks the file's own): a run resumed with other settings would
	// add answers of another method under the same name.
	for _, q := range o.done {
		if q.Config != p.Config {
			return outputError{fmt.Errorf("%s: its answers were made with config %q, this run's %s is %q; use another --output, or the settings it was made with", o.Output, q.Config, o.Name, p.Config)}
		}
		break
	}
	if err := appendLine(o.f, p); err != nil {
		return outputError{fmt.Errorf("%s: %w", o.Output, err)}
	}
	o.done[p.StateID] = p
	ms := r.stats.Methods[o.Name]
	ms.Done++
	if p.Fallback != nil {
		ms.Fallbacks++
	}
	ms.LatencyMS = append(ms.LatencyMS, p.LatencyMS())
	return nil
}

func (r *recorder) stateDone(id string) {
	if r.progress == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.progress(id)
}

// runRepo answers one repository's states, commit by commit.
func runRepo(ctx context.Context, opts RunOptions, outs []*methodOut, ctls []mss.Controller, w *repoWork, rec *recorder) error {
	for i, commit := range w.commits {
		if err := ctx.Err(); err != nil {
			return err
		}
		t0 := time.Now()
		op, err := opts.Open(ctx, w.repo, w.gitDir, commit)
		if err != nil {
			return fmt.Errorf("repository %s: indexing %s: %w", w.repo, commit, err)
		}
		rec.build(IndexBuild{Repo: w.repo, Commit: commit, Seconds: time.Since(t0).Seconds(), Phases: op.Phases, First: i == 0})
		for _, st := range w.states[commit] {
			if err := answerAll(ctx, opts, outs, ctls, op.Snapshot, st, rec); err != nil {
				return fmt.Errorf("state %s: %w", st.StateID, err)
			}
			rec.stateDone(st.StateID)
		}
		if c, ok := op.Snapshot.(interface{ Close() error }); ok {
			if err := c.Close(); err != nil {
				return fmt.Errorf("repository %s: closing index at %s: %w", w.repo, commit, err)
			}
		}
	}
	return nil
}

// answerAll retrieves once for a state and lets every method that has not
// answered it select. A panic is recovered and returned as the state's
// error.
func answerAll(ctx context.Context, opts RunOptions, outs []*methodOut, ctls []mss.Controller, snap Snapshot, st *mss.State, rec *recorder) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	t0 := time.Now()
	q, err := snap.Candidates(ctx, st, opts.Limits)
	if err != nil {
		return fmt.Errorf("retrieving: %w", err)
	}
	retrieveMS := roundMS(time.Since(t0))
	for i, o := range outs {
		if rec.answered(o, st.StateID) {
			continue
		}
		t1 := time.Now()
		res, err := snap.Select(ctx, ctls[i], q, opts.Limits, pipeline.SelectOptions{})
		if err != nil {
			return fmt.Errorf("method %s: %w", o.Name, err)
		}
		if opts.OnResult != nil {
			opts.OnResult(o.Name, &res.Result)
		}
		if f := res.Fallback; f != nil && !opts.AllowFallback {
			return fmt.Errorf("method %s did not answer with its model (stage %s: %s); its row is not written: check the endpoint (mss llm check), or pass --allow-fallback to record fallback answers, flagged", o.Name, f.Stage, f.Reason)
		}
		p := &Prediction{
			StateID:    st.StateID,
			Method:     o.Name,
			Config:     withSettings(res.Config, opts.Settings),
			Units:      make([]PredUnit, 0, len(res.Units)),
			Candidates: len(q.Candidates),
			RetrieveMS: retrieveMS,
			SelectMS:   roundMS(time.Since(t1)),
			Fallback:   res.Fallback,
		}
		for _, u := range res.Units {
			p.Units = append(p.Units, predUnit(&u))
		}
		if err := rec.write(o, p); err != nil {
			return err
		}
	}
	return nil
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
