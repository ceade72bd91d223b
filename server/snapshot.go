package server

import (
	"context"
	"path/filepath"
	"time"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/index"
	"github.com/missingcomplement/mss/pipeline"
)

// Snapshot is one indexed state of the work tree: the recover pipeline
// over it and a lexical search. A Service swaps snapshots whole.
type Snapshot interface {
	// Candidates and Select are the stages of pipeline.Pipeline: rank
	// units for a state, then select, verify against the files and fit.
	Candidates(ctx context.Context, state *mss.State, lim pipeline.Limits) (*pipeline.Query, error)
	Select(ctx context.Context, ctrl mss.Controller, q *pipeline.Query, lim pipeline.Limits, so pipeline.SelectOptions) (*pipeline.Answer, error)
	// Search is a plain lexical/symbol search over the units.
	Search(ctx context.Context, query string, limit int) ([]mss.Unit, error)
	// Info describes the snapshot.
	Info() IndexInfo
	// Close releases the snapshot once no request uses it.
	Close() error
}

// Loader brings the index up to date with the work tree (incrementally)
// and opens a snapshot of it.
type Loader interface {
	Load(ctx context.Context) (Snapshot, error)
}

// Rederiver is a Loader whose snapshots may be provisional (a snapshot
// with a Provisional method that reports true): quick to load, answering
// as the final one will, but larger. Rederive loads the final snapshot; a
// Service calls it in the background and swaps its result in.
type Rederiver interface {
	Rederive(ctx context.Context) (Snapshot, error)
}

// IndexInfo describes the snapshot a Service answers from.
type IndexInfo struct {
	Units   int       `json:"units"`
	Files   int       `json:"files"`
	Edges   int       `json:"edges,omitempty"`
	DB      string    `json:"db,omitempty"`
	Built   time.Time `json:"built"`
	BuildMS int64     `json:"build_ms"`
	// IndexMS and EngineMS split BuildMS between the index update and
	// the retrieval engine's construction, when the loader knows (0 for
	// less than a millisecond; absent when it does not know).
	IndexMS  *int64 `json:"index_ms,omitempty"`
	EngineMS *int64 `json:"engine_ms,omitempty"`
	// Engine says what answers: "stored" (the structures derived with the
	// index, read in place), "overlay" (those structures overlaid with
	// the files changed since, until they are derived again) or "memory"
	// (an engine built from every unit). Empty when the loader does not
	// say.
	Engine string `json:"engine,omitempty"`
	// Generation counts snapshots loaded since the service started.
	Generation int `json:"generation"`
	// Changed is how many files the last build parsed (the rest were
	// reused from the previous index).
	Changed int `json:"changed_files"`
	// Skipped counts files left out of the index, by reason.
	Skipped map[string]int `json:"skipped,omitempty"`
	// LargeSource lists the files a grammar parses that were left out as
	// too large, largest first (index.Summary.LargeSource).
	LargeSource []index.SkippedFile `json:"large_source,omitempty"`
}

// Public is in without the index file's absolute path (its base name
// only): what a caller without the server's token sees.
func (in IndexInfo) Public() IndexInfo {
	in.DB = filepath.Base(in.DB)
	return in
}
