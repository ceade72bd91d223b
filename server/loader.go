package server

import (
	"context"
	"fmt"
	"sync"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/index"
	"github.com/missingcomplement/mss/pipeline"
	"github.com/missingcomplement/mss/retrieve"
)

// IndexLoader keeps an index file of a work tree up to date with
// index.Build (which re-parses only files whose content changed) and opens
// the recover pipeline over it.
//
// The first load derives the index's stored retrieval structures (or, on
// an index that has them from before, overlays them with the files
// changed since) and opens the engine over them (small, and quick to
// open). Later loads, after edits, update the units only, and overlay the
// structures the index keeps with the changed files (pipeline.Options
// Overlay), or build the engine in memory when too much changed: either
// is quicker than deriving again. Such a snapshot is Provisional, and a
// Service then calls Rederive in the background (index.Derive, which
// holds up no build) and swaps in its stored engine, whose answers are
// those of an engine built from every unit.
type IndexLoader struct {
	Repo   string // the work tree
	DB     string // index file; "" means <Repo>/.mss/index.db
	Index  index.Options
	Engine retrieve.Options

	mu   sync.Mutex
	last IndexInfo // of the last load; DB is "" before the first
}

// Load implements Loader.
func (l *IndexLoader) Load(ctx context.Context) (Snapshot, error) {
	l.mu.Lock()
	quick := l.last.DB != ""
	l.mu.Unlock()
	opts := l.Index
	if f := Progress(ctx); f != nil {
		opts.Progress = f
	}
	p, err := pipeline.Open(ctx, pipeline.Options{Repo: l.Repo, DB: l.DB, Index: opts, Engine: l.Engine, NoDerive: quick, Overlay: true})
	if err != nil {
		return nil, err
	}
	sum := p.Summary()
	s := newSnapshot(p, IndexInfo{DB: sum.DB, Changed: sum.Parsed, Skipped: sum.Skipped, LargeSource: sum.LargeSource})
	l.mu.Lock()
	l.last = s.info
	l.mu.Unlock()
	return s, nil
}

// Rederive derives the stored retrieval structures of the index as the
// last load left it and opens a snapshot over them. It fails with
// index.ErrUnitsChanged when a load changed the units meanwhile (that
// load's snapshot is then the one to rederive).
func (l *IndexLoader) Rederive(ctx context.Context) (Snapshot, error) {
	l.mu.Lock()
	last := l.last
	l.mu.Unlock()
	if last.DB == "" {
		return nil, fmt.Errorf("server: nothing loaded to derive")
	}
	if err := index.Derive(ctx, last.DB, retrieve.Deriver); err != nil {
		return nil, err
	}
	p, err := pipeline.Open(ctx, pipeline.Options{DB: last.DB, Engine: l.Engine})
	if err != nil {
		return nil, err
	}
	return newSnapshot(p, IndexInfo{DB: last.DB, Skipped: last.Skipped, LargeSource: last.LargeSource}), nil
}

// newSnapshot completes info from the pipeline's index and phases.
func newSnapshot(p *pipeline.Pipeline, info IndexInfo) *indexSnapshot {
	m, ph := p.Meta(), p.Phases()
	info.Units, info.Files, info.Built = m.Units, m.Files, m.Built
	indexMS, engineMS := int64(ph.Index*1000), int64(ph.Engine*1000)
	info.IndexMS, info.EngineMS = &indexMS, &engineMS
	switch e := p.Engine(); {
	case e.Stored():
		info.Engine = "stored"
	case e.Overlaid():
		info.Engine = "overlay"
	default:
		info.Engine = "memory"
	}
	snap := &indexSnapshot{Pipeline: p, info: info}
	if ix := p.Index(); ix != nil {
		if files, err := ix.Files(); err == nil {
			var held []string
			for _, f := range files {
				if f.Units > 0 {
					held = append(held, f.Path)
				}
			}
			snap.watch = unwalked(held)
		}
	}
	return snap
}

// indexSnapshot is a pipeline over one build of the index.
type indexSnapshot struct {
	*pipeline.Pipeline
	info IndexInfo
	// watch lists the files with units that a scan's walk does not reach
	// (under a hidden directory, node_modules, ...), relative to the root.
	watch []string
}

// Watch lists the files the snapshot holds units of that a scan's walk
// of the work tree does not reach: scans stat them too (watcher).
func (s *indexSnapshot) Watch() []string { return s.watch }

var _ mss.UnitSource = (*indexSnapshot)(nil)

func (s *indexSnapshot) Search(ctx context.Context, query string, limit int) ([]mss.Unit, error) {
	return s.Engine().Search(ctx, query, limit)
}

func (s *indexSnapshot) Info() IndexInfo { return s.info }

// Provisional reports an engine built in memory or overlaid, which
// Rederive replaces.
func (s *indexSnapshot) Provisional() bool { return !s.Engine().Stored() }
