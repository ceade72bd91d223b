package server

import (
	"context"
	"fmt"
	"time"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/index"
	"github.com/missingcomplement/mss/retrieve"
)

// IndexLoader keeps an index file of a work tree up to date with
// index.Build (which re-parses only files whose content changed) and
// builds a retrieval engine over it.
type IndexLoader struct {
	Repo   string // the work tree
	DB     string // index file; "" means <Repo>/.mss/index.db
	Index  index.Options
	Engine retrieve.Options
}

// Load implements Loader.
func (l *IndexLoader) Load(ctx context.Context) (Snapshot, error) {
	opts := l.Index
	opts.Repo, opts.DB, opts.Rev = l.Repo, l.DB, ""
	if f := Progress(ctx); f != nil {
		opts.Progress = f
	}
	t0 := time.Now()
	sum, err := index.Build(ctx, opts)
	if err != nil {
		return nil, err
	}
	ix, err := index.Open(sum.DB)
	if err != nil {
		return nil, err
	}
	t1 := time.Now()
	eng, err := retrieve.FromIndex(ix, l.Engine)
	if err != nil {
		ix.Close()
		return nil, err
	}
	m := ix.Meta()
	return &indexSnapshot{
		ix:  ix,
		eng: eng,
		info: IndexInfo{
			Units:    m.Units,
			Files:    m.Files,
			DB:       sum.DB,
			Built:    m.Built,
			Changed:  sum.Parsed,
			Skipped:  sum.Skipped,
			IndexMS:  t1.Sub(t0).Milliseconds(),
			EngineMS: time.Since(t1).Milliseconds(),
		},
	}, nil
}

type indexSnapshot struct {
	ix   *index.Index
	eng  *retrieve.Engine
	info IndexInfo
}

// FileUnits makes the snapshot an mss.UnitSource.
func (s *indexSnapshot) FileUnits(path string) []mss.Unit { return s.eng.FileUnits(path) }

func (s *indexSnapshot) Candidates(ctx context.Context, st *mss.State, limit int) ([]mss.Candidate, error) {
	return s.eng.Candidates(ctx, st, limit)
}

func (s *indexSnapshot) Search(query string, limit int) ([]mss.Unit, error) {
	us, err := s.ix.Search(query, limit)
	if err != nil {
		return nil, fmt.Errorf("search %q: %w", query, err)
	}
	return us, nil
}

func (s *indexSnapshot) Info() IndexInfo { return s.info }

func (s *indexSnapshot) Close() error { return s.ix.Close() }
