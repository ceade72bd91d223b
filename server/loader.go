package server

import (
	"context"
	"fmt"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/index"
	"github.com/missingcomplement/mss/pipeline"
	"github.com/missingcomplement/mss/retrieve"
)

// IndexLoader keeps an index file of a work tree up to date with
// index.Build (which re-parses only files whose content changed) and opens
// the recover pipeline over it.
type IndexLoader struct {
	Repo   string // the work tree
	DB     string // index file; "" means <Repo>/.mss/index.db
	Index  index.Options
	Engine retrieve.Options
}

// Load implements Loader.
func (l *IndexLoader) Load(ctx context.Context) (Snapshot, error) {
	opts := l.Index
	if f := Progress(ctx); f != nil {
		opts.Progress = f
	}
	p, err := pipeline.Open(ctx, pipeline.Options{Repo: l.Repo, DB: l.DB, Index: opts, Engine: l.Engine})
	if err != nil {
		return nil, err
	}
	m, ph := p.Meta(), p.Phases()
	return &indexSnapshot{
		Pipeline: p,
		info: IndexInfo{
			Units:    m.Units,
			Files:    m.Files,
			DB:       p.Summary().DB,
			Built:    m.Built,
			Changed:  p.Summary().Parsed,
			Skipped:  p.Summary().Skipped,
			IndexMS:  int64(ph.Index * 1000),
			EngineMS: int64(ph.Engine * 1000),
		},
	}, nil
}

// indexSnapshot is a pipeline over one build of the index.
type indexSnapshot struct {
	*pipeline.Pipeline
	info IndexInfo
}

var _ mss.UnitSource = (*indexSnapshot)(nil)

func (s *indexSnapshot) Search(query string, limit int) ([]mss.Unit, error) {
	us, err := s.Index().Search(query, limit)
	if err != nil {
		return nil, fmt.Errorf("search %q: %w", query, err)
	}
	return us, nil
}

func (s *indexSnapshot) Info() IndexInfo { return s.info }
