package server

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/index"
	"github.com/missingcomplement/mss/pipeline"
	"github.com/missingcomplement/mss/retrieve"
)

// Defaults and caps of a Service.
const (
	DefaultMethod       = "complement"
	DefaultScanInterval = time.Second
	DefaultFreshWait    = time.Second
	DefaultDeriveDelay  = 10 * time.Second
	DefaultCandidates   = retrieve.DefaultCandidates
	DefaultMaxBudget    = 32768
	DefaultMaxUnitsCap  = 32
	maxTextField        = mss.MaxTextBytes
)

// Config configures a Service.
type Config struct {
	// Repo is the work tree served. Required.
	Repo string
	// Loader (re)indexes Repo and opens snapshots. Required.
	Loader Loader
	// Method names the controller (mss.NewMethod); "" means "complement".
	Method        string
	MethodOptions mss.MethodOptions
	// ScanInterval is the least time between two freshness scans of the
	// work tree; 0 means DefaultScanInterval, negative turns scanning off
	// (the index then changes only through Reindex).
	ScanInterval time.Duration
	// FreshWait is how long a request waits for a re-index it triggered
	// before answering from the previous snapshot (whose units are then
	// checked against the files: moved units are re-numbered, changed ones
	// dropped). 0 means DefaultFreshWait.
	FreshWait time.Duration
	// DeriveDelay is how long the work tree must stay unchanged after an
	// edit before the retrieval structures are derived again in the
	// background (Rederiver): meanwhile the provisional snapshot answers,
	// and a run of edits is derived once, at its end, rather than once
	// per edit. 0 means DefaultDeriveDelay, negative derives at once.
	DeriveDelay time.Duration
	// Ignore lists files the freshness scan does not watch (the index
	// database and its journals, when they live inside Repo).
	Ignore []string
	// Background makes New return at once and build the first index in
	// the background; requests wait for it. (MCP clients give a server
	// little time to start.)
	Background bool
	Sessions   SessionLimits
	// MaxBudget and MaxUnits cap what one request may ask for; Candidates
	// is how many ranked units the controller sees. Zero means default.
	MaxBudget  int
	MaxUnits   int
	Candidates int
	// Logf, when set, receives one line when a build ends (and why a
	// snapshot was found unusable).
	Logf func(format string, args ...any)
}

// Service answers recover, mark-observed, search and status requests for
// one work tree. It is safe for concurrent use; MCP and HTTP share it.
type Service struct {
	cfg      Config
	root     string              // absolute, symbolic links resolved
	files    *pipeline.TreeFiles // reads stay inside root, through no symbolic link
	ctrl     mss.Controller
	sessions *Sessions

	mu   sync.RWMutex // guards snap and info
	snap Snapshot
	info IndexInfo

	refreshMu sync.Mutex // guards the fields below
	lastScan  time.Time
	stamps    map[string]stamp // as of the last build started
	ignore    map[string]bool
	watch     []watchEntry  // what scans stat of the snapshot's files the walk does not reach (watcher)
	building  chan struct{} // non-nil while a build runs; closed when it ends
	buildFrom time.Time     // when the running build started
	buildErr  error         // the last build's error
	buildEnd  time.Time     // when the last build ended
	damaged   error         // why the current snapshot failed a query; cleared by the next build
	scanErr   error         // why the last scan failed; cleared by the next that does not
	bg        context.Context
	stopBG    context.CancelFunc

	progress progressCounter // of the running build
	// buildWG counts running builds to their very end (their log line
	// and the derivation they start), which Close waits for: building is
	// released before them.
	buildWG sync.WaitGroup
	// derivingWG counts background derivations (rederive), which Close
	// waits for.
	derivingWG sync.WaitGroup

	releaseMu sync.Mutex
	release   *time.Timer // returns memory (releaseAfter)
}

// releaseDelay is how long after a background derivation the memory it
// used, garbage by then, is returned to the system: an edit sooner reuses
// it (fresh pages cost more than the work on some machines), and an agent
// that pauses leaves a small server.
const releaseDelay = 10 * time.Second

// releaseAfter returns the memory of garbage to the system after d (at
// once for 0); a later call replaces an earlier one still waiting.
func (s *Service) releaseAfter(d time.Duration) {
	s.releaseMu.Lock()
	defer s.releaseMu.Unlock()
	if s.release != nil {
		s.release.Stop()
	}
	s.release = time.AfterFunc(d, func() {
		if s.bg.Err() == nil {
			debug.FreeOSMemory()
		}
	})
}

// BadRequest marks an error caused by the request, not the server.
type BadRequest struct{ Err error }

func (e *BadRequest) Error() string { return e.Err.Error() }
func (e *BadRequest) Unwrap() error { return e.Err }

func badRequest(format string, args ...any) error {
	return &BadRequest{fmt.Errorf(format, args...)}
}

// New indexes the work tree (incrementally when an index exists) and
// returns a Service answering from it.
func New(ctx context.Context, cfg Config) (*Service, error) {
	if cfg.Repo == "" || cfg.Loader == nil {
		return nil, errors.New("server: Config needs Repo and Loader")
	}
	if err := cfg.check(); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	if cfg.Method == "" {
		cfg.Method = DefaultMethod
	}
	if cfg.ScanInterval == 0 {
		cfg.ScanInterval = DefaultScanInterval
	}
	if cfg.DeriveDelay == 0 {
		cfg.DeriveDelay = DefaultDeriveDelay
	}
	if cfg.FreshWait <= 0 {
		cfg.FreshWait = DefaultFreshWait
	}
	if cfg.MaxBudget <= 0 {
		cfg.MaxBudget = DefaultMaxBudget
	}
	if cfg.MaxUnits <= 0 {
		cfg.MaxUnits = DefaultMaxUnitsCap
	}
	if cfg.Candidates <= 0 {
		cfg.Candidates = DefaultCandidates
	}
	abs, err := filepath.Abs(cfg.Repo)
	if err != nil {
		return nil, fmt.Errorf("server: repository %s: %w", cfg.Repo, err)
	}
	root, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("server: repository %s: %w", cfg.Repo, err)
	}
	files, err := pipeline.NewTreeFiles(root)
	if err != nil {
		return nil, fmt.Errorf("server: repository %s: %w", cfg.Repo, err)
	}
	ctrl, err := mss.NewMethod(cfg.Method, cfg.MethodOptions)
	if err != nil {
		files.Close()
		return nil, fmt.Errorf("server: %w", err)
	}
	s := &Service{
		cfg:      cfg,
		root:     root,
		files:    files,
		ctrl:     ctrl,
		sessions: NewSessions(cfg.Sessions),
		ignore:   map[string]bool{},
	}
	s.bg, s.stopBG = context.WithCancel(context.Background())
	for _, p := range cfg.Ignore {
		if a, err := filepath.Abs(p); err == nil {
			if r, err := filepath.EvalSymlinks(filepath.Dir(a)); err == nil {
				a = filepath.Join(r, filepath.Base(a))
			}
			s.ignore[a] = true
		}
	}
	if cfg.Background {
		if _, _, err := s.startBuild(true); err != nil {
			s.Close()
			return nil, err
		}
		return s, nil
	}
	if err := s.refresh(ctx, true); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Close releases the snapshot and the repository handle.
func (s *Service) Close() error {
	s.stopBG()
	// A build starts under refreshMu and only while bg lives (startBuild),
	// and bg is cancelled above: once the lock has been held here, no
	// build is added to buildWG. The section is a barrier, so it is empty.
	s.refreshMu.Lock()
	//lint:ignore SA2001 a barrier: startBuild checks bg under this lock
	s.refreshMu.Unlock()
	s.buildWG.Wait()
	// The builds waited for may have started a derivation.
	s.derivingWG.Wait()
	s.releaseMu.Lock()
	if s.release != nil {
		s.release.Stop()
	}
	s.releaseMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	if s.snap != nil {
		err = s.snap.Close()
		s.snap = nil
	}
	return errors.Join(err, s.files.Close())
}

// Root is the absolute path of the served work tree.
func (s *Service) Root() string { return s.root }

// Method is the controller's name.
func (s *Service) Method() string { return s.ctrl.Name() }

// Sessions is the session store.
func (s *Service) Sessions() *Sessions { return s.sessions }

// refresh brings the snapshot up to date: it scans the work tree (unless
// scanned within ScanInterval and not forced) and, when files changed or
// force is set, starts a build in the background. It then waits for the
// running build until FreshWait after the build started (without limit
// when forced), so a slow build delays requests by FreshWait at most once.
func (s *Service) refresh(ctx context.Context, force bool) error {
	done, started, err := s.startBuild(force)
	if err != nil || done == nil {
		return err
	}
	s.mu.RLock()
	loaded := s.snap != nil
	s.mu.RUnlock()
	var timeout <-chan time.Time
	if !force && loaded {
		left := s.cfg.FreshWait - time.Since(started)
		if left <= 0 {
			return nil
		}
		t := time.NewTimer(left)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-done:
		s.refreshMu.Lock()
		defer s.refreshMu.Unlock()
		return s.buildErr
	case <-timeout:
		return nil // answer from the previous snapshot, checked against the files
	case <-ctx.Done():
		return ctx.Err()
	}
}

// startBuild scans and starts a build if needed. It returns the channel of
// the running build and when it started, or nil when the snapshot is
// current.
func (s *Service) startBuild(force bool) (chan struct{}, time.Time, error) {
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	if s.building != nil {
		return s.building, s.buildFrom, nil
	}
	if s.bg.Err() != nil { // closed (Close)
		return nil, time.Time{}, nil
	}
	if !force && (s.cfg.ScanInterval < 0 || time.Since(s.lastScan) < s.cfg.ScanInterval) {
		return nil, time.Time{}, nil
	}
	cur, err := scanTree(s.root, s.ignore, s.watch)
	if err != nil {
		// The tree was removed or made unreadable: no answer can be
		// checked against its files until it is back.
		s.scanErr = fmt.Errorf("server: the work tree %s cannot be scanned: %w", s.root, err)
		return nil, time.Time{}, &indexUnavailable{s.scanErr}
	}
	s.scanErr = nil
	s.lastScan = time.Now()
	if !force && s.stamps != nil && diffStamps(s.stamps, cur) == 0 {
		return nil, time.Time{}, nil
	}
	s.stamps = cur
	done := make(chan struct{})
	s.building, s.buildFrom = done, time.Now()
	s.buildWG.Add(1)
	go s.build(done)
	return done, s.buildFrom, nil
}

// build loads a snapshot and swaps it in; it runs alone (startBuild).
func (s *Service) build(done chan struct{}) {
	defer s.buildWG.Done()
	defer close(done)
	start := time.Now()
	s.progress.reset()
	snap, err := s.cfg.Loader.Load(WithProgress(s.bg, s.progress.set))
	if err == nil {
		info := snap.Info()
		info.BuildMS = time.Since(start).Milliseconds()
		s.mu.Lock()
		old := s.snap
		info.Generation = s.info.Generation + 1
		s.snap, s.info = snap, info
		s.mu.Unlock()
		// The write lock waited for every reader of old.
		if old != nil {
			if cerr := old.Close(); cerr != nil {
				err = fmt.Errorf("server: closing the previous index: %w", cerr)
			}
		}
	} else {
		err = fmt.Errorf("server: indexing %s: %w", s.root, err)
	}
	var watch []string
	if w, ok := snap.(watcher); ok {
		watch = w.Watch()
	}
	s.refreshMu.Lock()
	s.buildErr = err
	s.buildEnd = time.Now()
	if snap == nil {
		s.stamps = nil // the next scan retries
	} else {
		s.damaged = nil
		s.setWatch(watch)
	}
	s.building = nil
	s.refreshMu.Unlock()
	s.logBuild(snap, err, time.Since(start))
	if err == nil && provisional(snap) {
		if r, ok := s.cfg.Loader.(Rederiver); ok && s.bg.Err() == nil {
			s.derivingWG.Add(1)
			go func() {
				defer s.derivingWG.Done()
				s.rederive(r, snap)
			}()
		}
	} else if err == nil {
		// Deriving built an engine in memory, garbage now.
		s.releaseAfter(0)
	}
}

// watcher is a Snapshot that holds files a scan's walk of the work tree
// does not reach (a tracked file under a hidden directory): Watch lists
// them, relative to the root, and scans stat them too, so that an edit
// to one is indexed as any other is.
type watcher interface{ Watch() []string }

// setWatch makes scans stat watch, the files of the snapshot just
// loaded that the walk does not reach, with refreshMu held. A file
// watched already has its stamp from the scan before the build; one
// watched from now on is stamped as it is now when it was last written
// well before the build started (the build read what it holds), and is
// otherwise left for the next scan to find, which builds again.
func (s *Service) setWatch(watch []string) {
	entries := watchEntries(s.root, watch)
	if s.stamps != nil {
		now := map[string]bool{}
		for _, e := range entries {
			now[e.key] = true
		}
		was := map[string]bool{}
		for _, e := range s.watch {
			was[e.key] = true
			if !now[e.key] {
				delete(s.stamps, e.key)
			}
		}
		var added []watchEntry
		for _, e := range entries {
			if !was[e.key] {
				added = append(added, e)
			}
		}
		settled := s.buildFrom.Add(-watchSettle).UnixNano()
		for k, st := range statWatched(s.root, added) {
			if st.mtime < settled {
				s.stamps[k] = st
			}
		}
	}
	s.watch = entries
}

func provisional(snap Snapshot) bool {
	p, ok := snap.(interface{ Provisional() bool })
	return ok && p.Provisional()
}

// rederive loads the final snapshot in place of the provisional one,
// without holding up requests: they keep the provisional snapshot until
// the final one is swapped in, and a build started meanwhile wins (the
// final snapshot is then dropped). The final snapshot is of the same
// units and answers as the provisional one did, so it keeps its
// generation.
func (s *Service) rederive(r Rederiver, from Snapshot) {
	if d := s.cfg.DeriveDelay; d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-s.bg.Done():
			t.Stop()
			return
		}
		s.mu.RLock()
		later := s.snap != from
		s.mu.RUnlock()
		if later {
			return // a later edit's snapshot is derived in its turn
		}
	}
	start := time.Now()
	snap, err := r.Rederive(s.bg)
	if err != nil {
		if s.bg.Err() == nil && !errors.Is(err, index.ErrUnitsChanged) {
			s.logf("mss: deriving the retrieval structures of %s failed after %s: %v (answers stay with the provisional engine)", s.root, time.Since(start).Round(time.Millisecond), err)
		}
		return
	}
	s.mu.Lock()
	if s.snap != from || s.bg.Err() != nil {
		s.mu.Unlock()
		snap.Close()
		return
	}
	info := snap.Info()
	info.BuildMS = time.Since(start).Milliseconds()
	info.Generation = s.info.Generation
	s.snap, s.info = snap, info
	s.mu.Unlock()
	// The write lock waited for every reader of the provisional snapshot.
	if cerr := from.Close(); cerr != nil {
		s.logf("mss: closing the previous index: %v", cerr)
	}
	s.releaseAfter(releaseDelay)
	s.logf("mss: derived the retrieval structures of %s in %s", s.root, time.Since(start).Round(time.Millisecond))
}

// notLoaded explains why there is no snapshot.
func (s *Service) notLoaded() error {
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	if s.buildErr != nil {
		return &indexUnavailable{fmt.Errorf("server: no index loaded: %w", s.buildErr)}
	}
	return &indexUnavailable{errors.New("server: no index loaded yet")}
}

// Reindex forces a scan and a reload.
func (s *Service) Reindex(ctx context.Context) (IndexInfo, error) {
	if err := s.refresh(ctx, true); err != nil {
		return IndexInfo{}, err
	}
	return s.Info(), nil
}

// Info describes the current snapshot.
func (s *Service) Info() IndexInfo {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.info
}

// RecoverRequest asks for the missing complement. It embeds the state card,
// so a state file (mss state from-trajectory) posts as is.
type RecoverRequest struct {
	mss.State
	// SessionID names the agent session; its delivered and read spans
	// count as observed. Empty: no session memory (HTTP assigns one).
	SessionID    string `json:"session_id,omitempty"`
	BudgetTokens int    `json:"budget_tokens,omitempty"`
	MaxUnits     int    `json:"max_units,omitempty"`
	// Trace asks for the controller's trace in the answer.
	Trace bool `json:"trace,omitempty"`
}

// RecoverResponse is the answer: intact units within the budget.
type RecoverResponse struct {
	SessionID string     `json:"session_id,omitempty"`
	Method    string     `json:"method"`
	Units     []mss.Unit `json:"units"`
	Tokens    int        `json:"tokens"`
	Budget    int        `json:"budget_tokens"`
	// Observed is how many spans were treated as already seen (request
	// plus session).
	Observed int       `json:"observed_spans"`
	Index    IndexInfo `json:"index"`
	// Warnings are things the caller should know and fix: observed paths
	// the index does not hold (their spans exclude nothing), typically.
	Warnings []string        `json:"warnings,omitempty"`
	Trace    []mss.TraceStep `json:"trace,omitempty"`
	// Fallback is set when a model-calling method answered with its
	// deterministic fallback: which stage failed and why.
	Fallback *mss.Fallback `json:"fallback,omitempty"`
}

func checkText(field, v string) error {
	if len(v) > maxTextField {
		return badRequest("%s: %d bytes, limit %d", field, len(v), maxTextField)
	}
	return nil
}

// Recover answers a request: refreshes the index if the tree changed,
// ranks candidates, runs the controller, and delivers the chosen units not
// yet observed, within the budget; the delivered spans join the session.
// Calls in one session are answered one at a time, in the order they
// reach the service, so none is given what an earlier one delivered.
func (s *Service) Recover(ctx context.Context, req *RecoverRequest) (*RecoverResponse, error) {
	st := req.State
	st.ObservedSpans = append([]mss.Span(nil), st.ObservedSpans...) // Validate cleans paths in place
	if err := st.Validate(); err != nil {
		return nil, err
	}
	spans := st.ObservedSpans
	budget, maxUnits := req.BudgetTokens, req.MaxUnits
	if budget < 0 {
		return nil, badRequest("budget_tokens %d: want a positive number (0 or absent: %d)", budget, mss.DefaultBudget)
	}
	if maxUnits < 0 {
		return nil, badRequest("max_units %d: want a positive number (0 or absent: %d)", maxUnits, mss.DefaultMaxUnits)
	}
	if budget == 0 {
		budget = mss.DefaultBudget
	}
	if maxUnits == 0 {
		maxUnits = mss.DefaultMaxUnits
	}
	if budget > s.cfg.MaxBudget {
		return nil, badRequest("budget_tokens %d exceeds this server's limit %d", budget, s.cfg.MaxBudget)
	}
	if maxUnits > s.cfg.MaxUnits {
		return nil, badRequest("max_units %d exceeds this server's limit %d", maxUnits, s.cfg.MaxUnits)
	}
	if req.SessionID != "" {
		if err := CheckSessionID(req.SessionID); err != nil {
			return nil, &BadRequest{err}
		}
		// From reading what the session has seen to recording what this
		// answer delivers, no other call of the session runs.
		done, err := s.sessions.turn(ctx, req.SessionID)
		if err != nil {
			return nil, err
		}
		defer done()
		s.sessions.Add(req.SessionID, false, spans)
		spans = s.sessions.Observed(req.SessionID)
	}
	st.ObservedSpans = spans

	if err := s.refresh(ctx, false); err != nil {
		return nil, err
	}
	if err := s.usable(); err != nil {
		return nil, err
	}
	resp, err := s.answer(ctx, &st, budget, maxUnits)
	if err != nil {
		return nil, err
	}
	var unnamable []string
	resp.Units, unnamable = DropUnnamable(resp.Units)
	resp.Warnings = append(resp.Warnings, unnamable...)
	if !req.Trace {
		resp.Trace = nil
	}
	resp.SessionID = req.SessionID
	if req.SessionID != "" {
		delivered := make([]mss.Span, len(resp.Units))
		for i, u := range resp.Units {
			delivered[i] = mss.Span{Path: u.Path, StartLine: u.StartLine, EndLine: u.EndLine, Symbol: u.Symbol}
		}
		s.sessions.Add(req.SessionID, true, delivered)
	}
	return resp, nil
}

// answer runs the pipeline on the current snapshot: rank, select, check
// every chosen unit against its file (a unit whose lines moved since
// indexing is re-numbered, one whose text changed is dropped), fit.
func (s *Service) answer(ctx context.Context, st *mss.State, budget, maxUnits int) (*RecoverResponse, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.snap == nil {
		return nil, s.notLoaded()
	}
	lim := pipeline.Limits{Budget: budget, MaxUnits: maxUnits, MinUnits: min(mss.DefaultMinUnits, maxUnits), Candidates: s.cfg.Candidates}
	q, err := s.snap.Candidates(ctx, st, lim)
	if err != nil {
		var se *mss.StateError
		if errors.As(err, &se) {
			return nil, &BadRequest{err}
		}
		return nil, fmt.Errorf("server: ranking candidates: %w", err)
	}
	// Units grow into their neighbours only from a current snapshot: while
	// a re-index is pending, a neighbour may be text the file no longer
	// holds, and the grown unit would be dropped with what was chosen.
	s.refreshMu.Lock()
	stale := s.building != nil
	s.refreshMu.Unlock()
	ans, err := s.snap.Select(ctx, s.ctrl, q, lim, pipeline.SelectOptions{NoGrow: stale})
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	for i := range ans.Units {
		ans.Units[i].Defines, ans.Units[i].References, ans.Units[i].Imports = nil, nil, nil
	}
	return &RecoverResponse{
		Method:   ans.Method,
		Units:    ans.Units,
		Tokens:   ans.Tokens,
		Budget:   budget,
		Observed: len(st.ObservedSpans),
		Index:    s.info,
		Trace:    ans.Trace,
		Warnings: ans.Warnings,
		Fallback: ans.Fallback,
	}, nil
}

// MarkObserved records spans the agent has read in session id, after the
// session's calls that came before it.
func (s *Service) MarkObserved(ctx context.Context, id string, spans []mss.Span) (SessionInfo, error) {
	if err := CheckSessionID(id); err != nil {
		return SessionInfo{}, &BadRequest{err}
	}
	clean := append([]mss.Span(nil), spans...) // ValidateSpans cleans paths in place
	if err := mss.ValidateSpans(clean); err != nil {
		return SessionInfo{}, err
	}
	done, err := s.sessions.turn(ctx, id)
	if err != nil {
		return SessionInfo{}, err
	}
	info := s.sessions.Add(id, false, clean)
	done()
	info.Warnings = s.unknownPaths(spans)
	return info, nil
}

// Search runs a lexical/symbol search on the fresh index. Each result
// is checked against its file, read through the repository root (no
// symbolic link out of it is followed): a result whose file moved it is
// re-numbered, one whose text the file no longer holds is left out with
// a warning, so a search never shows what the file does not say.
func (s *Service) Search(ctx context.Context, query string, limit int) (*SearchResponse, error) {
	if strings.TrimSpace(query) == "" {
		return nil, badRequest("query is required")
	}
	if err := checkText("query", query); err != nil {
		return nil, err
	}
	if limit < 0 {
		return nil, badRequest("limit %d: want a positive number", limit)
	}
	if limit == 0 {
		limit = 10
	}
	if limit > 100 {
		return nil, badRequest("limit %d exceeds 100", limit)
	}
	if err := s.refresh(ctx, false); err != nil {
		return nil, err
	}
	if err := s.usable(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.snap == nil {
		return nil, s.notLoaded()
	}
	us, err := s.snap.Search(ctx, query, limit)
	if err != nil {
		return nil, s.snapshotFailed(fmt.Errorf("server: search: %w", err))
	}
	verified, warn := s.verifyUnits(us)
	resp := &SearchResponse{Units: []mss.Unit{}, Warnings: warn}
	resp.Units = append(resp.Units, verified...)
	return resp, nil
}
