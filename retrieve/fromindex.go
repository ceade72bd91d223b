package retrieve

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"

	"github.com/missingcomplement/mss/index"
)

// FromIndex opens the engine stored in an index (see Deriver), or builds
// one over an index without it from its units and edges. When
// opts names no git directory, the history view reads the repository the
// index was built from, at the index's commit, if it is a git repository.
// Building, the git log the history view reads, the units and the edges
// are read at once, so a cold open waits for the slowest of them, not for
// their sum; a stored engine holds the log of the indexed commit.
func FromIndex(ix *index.Index, opts Options) (*Engine, error) {
	opts = indexOptions(ix, opts)
	var warn []string
	if d := ix.Meta().Derived; d != "" && d != storedVersion {
		warn = append(warn, fmt.Sprintf("stored retrieval structures are of another version (%s, this build reads %s); built from the units instead, which is slower (re-run mss index to derive them)", d, storedVersion))
	}
	if ix.Meta().Derived == storedVersion {
		e, err := openStored(ix, opts)
		if err == nil {
			return e, nil
		}
		// The units are the truth; the stored structures only save time.
		warn = append(warn, fmt.Sprintf("stored retrieval structures unreadable (%v); built from the units instead, which is slower (mss index derives them again)", err))
	}
	// The engine's history view finds the log kept, or waits for this
	// read to finish; an error is reported there.
	prefetchHistory(opts)
	type edgesRead struct {
		edges []index.Edge
		err   error
	}
	ec := make(chan edgesRead, 1)
	go func() {
		edges, err := ix.Edges()
		ec <- edgesRead{edges, err}
	}()
	units, err := ix.Units()
	er := <-ec
	if err != nil {
		return nil, fmt.Errorf("retrieve: reading units of %s: %w", ix.Path(), err)
	}
	if er.err != nil {
		return nil, fmt.Errorf("retrieve: reading edges of %s: %w", ix.Path(), er.err)
	}
	e := NewEngine(units, er.edges, opts)
	e.warn = append(warn, e.warn...)
	return e, nil
}

// OverlayIndex overlays the retrieval structures ix keeps from an earlier
// build (index.Meta.Base) with the files changed since (see Overlay). It
// fails when ix keeps none of this version, and with ErrOverlayTooLarge.
func OverlayIndex(ctx context.Context, ix *index.Index, opts Options) (*Engine, error) {
	if b := ix.Meta().Base; ix.Base() == nil || b != storedVersion {
		return nil, fmt.Errorf("retrieve: index %s keeps no retrieval structures of version %s to overlay (it keeps %q)", ix.Path(), storedVersion, b)
	}
	return overlayIndex(ctx, ix, indexOptions(ix, opts))
}

func overlayIndex(ctx context.Context, ix *index.Index, opts Options) (*Engine, error) {
	// The base is read for its structures only: no history, no embeddings.
	bo := Options{Disable: append(slices.Clone(opts.Disable), ViewHistory)}
	base, err := openStored(ix.Base(), bo)
	if err != nil {
		return nil, err
	}
	// The git log the base holds, when it is of the commit asked for,
	// spares the history view a run of git.
	if err := storedHistory(ix.Base(), opts); err != nil {
		return nil, err
	}
	return Overlay(ctx, base, ix, opts)
}

// indexOptions completes opts for an engine over ix: the history view
// reads the index's commit of the repository it was built from, unless
// opts names another.
func indexOptions(ix *index.Index, opts Options) Options {
	meta := ix.Meta()
	if opts.Commit == "" {
		opts.Commit = meta.Commit
	}
	if opts.GitDir == "" && opts.Commit != "" && meta.Repo != "" {
		// A work tree's directory lies at a prefix of its commits' trees.
		if out, err := exec.Command("git", "-C", meta.Repo, "rev-parse", "--absolute-git-dir", "--show-prefix").Output(); err == nil {
			lines := strings.Split(string(out), "\n")
			opts.GitDir = strings.TrimSpace(lines[0])
			if len(lines) > 1 && meta.Source != "commit" {
				opts.GitPrefix = lines[1] // as git gives it: a name may end in a space
			}
		}
	}
	return opts
}

func disabled(opts Options, view string) bool {
	for _, v := range opts.Disable {
		if v == view {
			return true
		}
	}
	return false
}
