package repobench

import (
	"errors"
	"fmt"
	"os"

	"github.com/missingcomplement/mss"
)

// Track is a states file with its labels and a reader of its
// repositories, as every command over the repository track loads it.
type Track struct {
	States []*mss.State
	// Labels are the states' certificates by state id; nil when no labels
	// file was given.
	Labels map[string]*Label
	// Known holds every state id of the states file.
	Known  map[string]bool
	Source *Source
}

// LoadTrack reads the states file and, when labelsPath is not empty, its
// labels (every state must have one), and opens the repositories under
// mirrorRoot, where every state's repository and base commit must be. The
// caller closes t.Source.
func LoadTrack(statesPath, labelsPath, mirrorRoot string) (*Track, error) {
	if fi, err := os.Stat(mirrorRoot); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("--mirror-root %s: not a directory", mirrorRoot)
	}
	states, lines, err := loadStates(statesPath)
	if err != nil {
		return nil, err
	}
	t := &Track{States: states, Known: make(map[string]bool, len(states))}
	for _, s := range states {
		t.Known[s.StateID] = true
	}
	if labelsPath != "" {
		if t.Labels, err = LoadLabels(labelsPath); err != nil {
			return nil, err
		}
		for i, s := range states {
			if t.Labels[s.StateID] == nil {
				return nil, fmt.Errorf("%s:%d: field state_id: %q has no label in %s; give the labels of this states file", statesPath, lines[i], s.StateID, labelsPath)
			}
		}
	}
	t.Source = NewSource(mirrorRoot)
	// Every state's repository and base commit must be there, before any
	// work: named by the states file's line and field.
	for i, s := range states {
		if err := t.Source.CheckCommit(s.Repo, s.BaseCommit); err != nil {
			t.Source.Close()
			field := "repo"
			if errors.Is(err, ErrUnknownCommit) {
				field = "base_commit"
			}
			return nil, fmt.Errorf("%s:%d: field %s: %w", statesPath, lines[i], field, err)
		}
	}
	return t, nil
}
