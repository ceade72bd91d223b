package retrieve

import (
	"fmt"
	"os/exec"
	"strings"

	"github.com/missingcomplement/mss/index"
)

// FromIndex builds an engine over an open index: its units and edges. When
// opts names no git directory, the history view reads the repository the
// index was built from, at the index's commit, if it is a git repository.
func FromIndex(ix *index.Index, opts Options) (*Engine, error) {
	units, err := ix.Units()
	if err != nil {
		return nil, fmt.Errorf("retrieve: reading units of %s: %w", ix.Path(), err)
	}
	edges, err := ix.Edges()
	if err != nil {
		return nil, fmt.Errorf("retrieve: reading edges of %s: %w", ix.Path(), err)
	}
	meta := ix.Meta()
	if opts.Commit == "" {
		opts.Commit = meta.Commit
	}
	if opts.GitDir == "" && opts.Commit != "" && meta.Repo != "" {
		if out, err := exec.Command("git", "-C", meta.Repo, "rev-parse", "--absolute-git-dir").Output(); err == nil {
			opts.GitDir = strings.TrimSpace(string(out))
		}
	}
	return NewEngine(units, edges, opts), nil
}
