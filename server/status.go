package server

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/index"
)

// Index states, as Status reports them.
const (
	// StateIndexing: the first index is being built; requests wait for it.
	StateIndexing = "indexing"
	// StateReady: answers come from an index of the current files.
	StateReady = "ready"
	// StateStale: files changed and a re-index is running; answers come
	// from the previous index, each unit checked against its file.
	StateStale = "stale"
	// StateRebuilding: the index failed a query (damaged on disk) and is
	// being rebuilt; requests get 503 until it is back.
	StateRebuilding = "rebuilding"
	// StateError: there is no usable index, or the work tree cannot be
	// scanned (removed, unreadable); Error says why.
	StateError = "error"
)

// Status describes the service and its index.
type Status struct {
	// Status is the index state: indexing, ready, stale, rebuilding or error.
	Status string `json:"status"`
	// Error is why the last build failed, or why the index is unusable.
	Error string `json:"error,omitempty"`
	// Name is the work tree's directory name; Repo its absolute path
	// (left out of unauthenticated health answers).
	Name     string `json:"name"`
	Repo     string `json:"repo,omitempty"`
	Method   string `json:"method"`
	Sessions int    `json:"sessions"`
	// Index describes the index answers come from; nil until the first
	// build ends.
	Index *IndexInfo  `json:"index,omitempty"`
	Build BuildStatus `json:"build"`
}

// BuildStatus describes the running build, or the last one.
type BuildStatus struct {
	Running  bool      `json:"running"`
	Started  time.Time `json:"started,omitzero"`
	Finished time.Time `json:"finished,omitzero"` // zero while running
	// FilesDone of FilesTotal have been parsed (while running, when the
	// loader reports progress).
	FilesDone  int `json:"files_done,omitempty"`
	FilesTotal int `json:"files_total,omitempty"`
}

// Public is st without absolute paths: what an unauthenticated caller sees.
// An error keeps the base name of each path it names (the work tree's, an
// index file's outside it).
func (st Status) Public() Status {
	st.Repo = ""
	if st.Index != nil {
		in := st.Index.Public()
		st.Index = &in
	}
	st.Error = publicText(st.Error)
	return st
}

// publicText is msg with each absolute path it names cut to its base
// name: what a caller without the server's token is told of the server's
// own errors.
func publicText(msg string) string {
	return absPath.ReplaceAllStringFunc(msg, func(m string) string {
		at := strings.IndexByte(m, '/')
		return m[:at] + filepath.Base(m[at:])
	})
}

// absPath matches an absolute path in a message, with what precedes it.
var absPath = regexp.MustCompile(`(^|[\s(:'"=])/[^\s:'"()]+`)

// Status reports the service's state.
func (s *Service) Status() Status {
	st := Status{Name: filepath.Base(s.root), Repo: s.root, Method: s.ctrl.Name(), Sessions: s.sessions.Len()}
	s.mu.RLock()
	loaded := s.snap != nil
	info := s.info
	s.mu.RUnlock()
	if loaded {
		st.Index = &info
	}
	s.refreshMu.Lock()
	running := s.building != nil
	st.Build = BuildStatus{Running: running, Started: s.buildFrom}
	if !running {
		st.Build.Finished = s.buildEnd
	}
	buildErr, damaged, scanErr := s.buildErr, s.damaged, s.scanErr
	s.refreshMu.Unlock()
	if running {
		st.Build.FilesDone, st.Build.FilesTotal = s.progress.get()
	}
	switch {
	case damaged != nil && running:
		st.Status, st.Error = StateRebuilding, damaged.Error()
	case damaged != nil:
		st.Status, st.Error = StateError, damaged.Error()
	case scanErr != nil && !running:
		st.Status, st.Error = StateError, scanErr.Error()
	case !loaded && running:
		st.Status = StateIndexing
	case !loaded:
		st.Status = StateError
		if buildErr != nil {
			st.Error = buildErr.Error()
		} else {
			st.Error = "no index loaded"
		}
	case running:
		st.Status = StateStale
	default:
		st.Status = StateReady
		if buildErr != nil {
			// Answers come from the last good index, checked against the files.
			st.Status, st.Error = StateStale, buildErr.Error()
		}
	}
	return st
}

// Wait waits for a running build to end (or ctx), and returns its error.
func (s *Service) Wait(ctx context.Context) error {
	s.refreshMu.Lock()
	done := s.building
	s.refreshMu.Unlock()
	if done != nil {
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	return s.buildErr
}

// usable refuses requests while the current snapshot is known damaged.
func (s *Service) usable() error {
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	if s.damaged != nil {
		return &indexUnavailable{fmt.Errorf("server: the index is unusable and is being rebuilt: %w", s.damaged)}
	}
	return nil
}

// snapshotFailed records that the snapshot failed a query the index
// should always answer (a damaged database), starts a rebuild, and
// returns the error to answer.
func (s *Service) snapshotFailed(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	s.refreshMu.Lock()
	first := s.damaged == nil
	if first {
		s.damaged = err
	}
	s.refreshMu.Unlock()
	if first {
		s.logf("mss: the index failed a query (%v); rebuilding", err)
		if _, _, serr := s.startBuild(true); serr != nil {
			s.logf("mss: cannot rebuild: %v", serr)
		}
	}
	return &indexUnavailable{err}
}

func (s *Service) logf(format string, args ...any) {
	if s.cfg.Logf != nil {
		s.cfg.Logf(format, args...)
	}
}

// logBuild logs the end of a build.
func (s *Service) logBuild(snap Snapshot, err error, took time.Duration) {
	if err != nil {
		s.logf("mss: indexing %s failed after %s: %v", s.root, took.Round(time.Millisecond), err)
		return
	}
	in := snap.Info()
	skipped := 0
	for _, n := range in.Skipped {
		skipped += n
	}
	s.logf("mss: indexed %s: %d files, %d units, %d skipped, %d parsed, in %s", s.root, in.Files, in.Units, skipped, in.Changed, took.Round(time.Millisecond))
	if len(in.LargeSource) > 0 {
		s.logf("mss: source left out as too large: %s; --max-file-bytes raises the cap", index.NameFiles(in.LargeSource, 1))
	}
}

// unknownPaths warns about observed span paths the index holds no unit
// of: their spans exclude nothing, and a mistyped path is the usual cause.
func (s *Service) unknownPaths(spans []mss.Span) []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	src, ok := s.snap.(mss.UnitSource)
	if !ok {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, sp := range spans {
		p, err := mss.CleanPath(sp.Path)
		if err != nil || seen[p] {
			continue
		}
		seen[p] = true
		if len(src.FileUnits(p)) == 0 {
			out = append(out, fmt.Sprintf("observed path %s is not in the index; its spans exclude nothing", Quote(sp.Path)))
		}
	}
	sort.Strings(out)
	return out
}

// progressCounter holds the running build's progress.
type progressCounter struct {
	mu          sync.Mutex
	done, total int
}

func (p *progressCounter) set(done, total int) {
	p.mu.Lock()
	p.done, p.total = done, total
	p.mu.Unlock()
}

func (p *progressCounter) reset() { p.set(0, 0) }

func (p *progressCounter) get() (int, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.done, p.total
}

type progressKey struct{}

// WithProgress returns ctx carrying a progress callback for a Loader.
func WithProgress(ctx context.Context, f func(done, total int)) context.Context {
	return context.WithValue(ctx, progressKey{}, f)
}

// Progress returns the progress callback ctx carries, or nil. A Loader
// passes it to the index build (index.Options.Progress).
func Progress(ctx context.Context) func(done, total int) {
	f, _ := ctx.Value(progressKey{}).(func(done, total int))
	return f
}

// check refuses negative limits; zero ones take defaults.
func (c *Config) check() error {
	for _, l := range []struct {
		name string
		v    int64
	}{
		{"MaxBudget", int64(c.MaxBudget)}, {"MaxUnits", int64(c.MaxUnits)}, {"Candidates", int64(c.Candidates)},
		{"FreshWait", int64(c.FreshWait)}, {"Sessions.TTL", int64(c.Sessions.TTL)},
		{"Sessions.MaxSessions", int64(c.Sessions.MaxSessions)}, {"Sessions.MaxSpans", int64(c.Sessions.MaxSpans)},
	} {
		if l.v < 0 {
			return fmt.Errorf("%s is %d: want a positive limit (or 0 for the default)", l.name, l.v)
		}
	}
	return nil
}
