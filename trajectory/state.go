package trajectory

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/missingcomplement/mss"
)

// StateOptions control how a trajectory becomes a state card.
type StateOptions struct {
	// Steps is how many leading steps form the prefix; 0 means all.
	Steps int
	// Units are the index's units at the trajectory's commit. With units,
	// every seen span is replaced by the spans of the units it overlaps;
	// without, the seen spans are kept as the trajectory gives them.
	Units []mss.Unit
}

// Alignment reports how seen lines met the index.
type Alignment struct {
	Seen      int      `json:"seen_spans"`      // spans the prefix showed
	Units     int      `json:"aligned_units"`   // distinct units they overlap
	Unaligned []string `json:"unaligned_paths"` // paths with seen lines but no overlapping unit, sorted
	// Outside are the files, opened or with seen lines, left out of the
	// card: those that are no repository-relative path, even matched to
	// an indexed one by their longest suffix (a library's file the agent
	// read), sorted.
	Outside []string `json:"outside,omitempty"`
}

// State builds the state card after the first opts.Steps steps.
func (t *Trajectory) State(opts StateOptions) (*mss.State, *Alignment, error) {
	n := opts.Steps
	if n < 0 || n > len(t.Steps) {
		return nil, nil, fmt.Errorf("step %d out of range: the trajectory has %d steps", n, len(t.Steps))
	}
	full := n == 0 || n == len(t.Steps)
	if n == 0 {
		n = len(t.Steps)
	}
	prefix := t.Steps[:n]

	var st mss.State
	if full && t.Card != nil {
		st = *t.Card
		st.ObservedSpans = nil
		st.OpenedFiles = nil
		for _, f := range t.Card.OpenedFiles {
			p := cleanPath(f, "")
			if p == "" && strings.TrimSpace(f) != "" {
				p = f // climbs out of the repository: left out below, and named
			}
			if p != "" {
				st.OpenedFiles = append(st.OpenedFiles, p)
			}
		}
	} else {
		st = mss.State{
			StateID:    t.StateID,
			ItemID:     t.ItemID,
			InstanceID: t.InstanceID,
			Repo:       t.Repo,
			BaseCommit: t.BaseCommit,
			Issue:      t.Issue,
		}
		if !full && st.StateID != "" {
			st.StateID = fmt.Sprintf("%s@%d", st.StateID, n)
		}
		seenFile := map[string]bool{}
		seenQuery := map[string]bool{}
		for _, s := range prefix {
			if s.InformationNeed != "" {
				st.InformationNeed = s.InformationNeed
			}
			if s.Hypothesis != "" {
				st.CurrentHypothesis = s.Hypothesis
			}
			if s.Subgoal != "" {
				st.CurrentSubgoal = s.Subgoal
			}
			if s.Kind == Read && s.Path != "" && !seenFile[s.Path] {
				seenFile[s.Path] = true
				st.OpenedFiles = append(st.OpenedFiles, s.Path)
			}
			if q := strings.TrimSpace(s.Query); q != "" && !seenQuery[q] {
				seenQuery[q] = true
				st.SearchQueries = append(st.SearchQueries, q)
			}
		}
		if len(prefix) > 0 {
			st.CurrentObservation = prefix[len(prefix)-1].Output
		}
	}

	var seen []mss.Span
	for _, s := range prefix {
		seen = append(seen, s.Seen...)
	}
	al := &Alignment{Seen: len(seen)}
	var byPath map[string][]mss.Unit // nil: no index to align against
	if opts.Units != nil {
		byPath = unitsByPath(opts.Units)
	}
	var opened, read []string
	st.OpenedFiles, opened = alignFiles(st.OpenedFiles, byPath)
	seen, read = spansInside(seen, byPath)
	al.Outside = uniqueSorted(append(opened, read...))
	if byPath == nil {
		st.ObservedSpans = sortSpans(seen)
		return &st, al, nil
	}
	st.ObservedSpans, al.Units, al.Unaligned = align(seen, byPath)
	return &st, al, nil
}

// alignFiles maps opened files to indexed paths as Align maps a span's
// (with units; as given without), and leaves out, returning them apart,
// those that are then no repository-relative path: a card names files
// of the repository only.
func alignFiles(files []string, byPath map[string][]mss.Unit) (in, outside []string) {
	seen := map[string]bool{}
	for _, f := range files {
		c, ok := repoPath(f, byPath)
		if !ok {
			outside = append(outside, f)
			continue
		}
		if !seen[c] {
			seen[c] = true
			in = append(in, c)
		}
	}
	sort.Strings(outside)
	return in, outside
}

// repoPath maps p to an indexed path as Align maps a span's (with units;
// as given without) and cleans it, reporting whether it is then a
// repository-relative path.
func repoPath(p string, byPath map[string][]mss.Unit) (string, bool) {
	if byPath != nil {
		p = resolve(p, byPath)
	}
	c, err := mss.CleanPath(p)
	return c, err == nil
}

// spansInside keeps the seen spans whose path is a repository's
// (repoPath), and returns apart the paths of the others: lines of a file
// outside the repository (a library's file the agent read) are nothing a
// card can name.
func spansInside(seen []mss.Span, byPath map[string][]mss.Unit) (in []mss.Span, outside []string) {
	for _, s := range seen {
		if _, ok := repoPath(s.Path, byPath); !ok {
			outside = append(outside, s.Path)
			continue
		}
		in = append(in, s)
	}
	return in, outside
}

// uniqueSorted returns names sorted, each once.
func uniqueSorted(names []string) []string {
	sort.Strings(names)
	return slices.Compact(names)
}

// Align replaces each seen span by the spans of the units it overlaps.
// A span's path is matched exactly, or else by the longest suffix that is
// an indexed path (trajectories often carry the agent's checkout prefix,
// such as /testbed/). Spans that overlap no unit are kept as given and
// their paths reported. The result is sorted and free of duplicates.
func Align(seen []mss.Span, units []mss.Unit) (spans []mss.Span, aligned int, unaligned []string) {
	return align(seen, unitsByPath(units))
}

// unitsByPath files units by path, each file's in line order.
func unitsByPath(units []mss.Unit) map[string][]mss.Unit {
	byPath := map[string][]mss.Unit{}
	for _, u := range units {
		byPath[u.Path] = append(byPath[u.Path], u)
	}
	for p := range byPath {
		us := byPath[p]
		sort.Slice(us, func(i, j int) bool { return us[i].StartLine < us[j].StartLine })
	}
	return byPath
}

// align is Align over units filed by path (unitsByPath).
func align(seen []mss.Span, byPath map[string][]mss.Unit) (spans []mss.Span, aligned int, unaligned []string) {
	hit := map[string]bool{}
	miss := map[string]bool{}
	for _, s := range seen {
		p := resolve(s.Path, byPath)
		matched := false
		for _, u := range byPath[p] {
			if u.StartLine > s.EndLine {
				break
			}
			if u.EndLine < s.StartLine {
				continue
			}
			matched = true
			key := u.ID
			if key == "" {
				key = fmt.Sprintf("%s:%d-%d", u.Path, u.StartLine, u.EndLine)
			}
			if !hit[key] {
				hit[key] = true
				spans = append(spans, mss.Span{Path: u.Path, StartLine: u.StartLine, EndLine: u.EndLine, Symbol: u.Symbol})
			}
		}
		if !matched {
			s.Path = p
			spans = append(spans, s)
			miss[p] = true
		}
	}
	for p := range miss {
		unaligned = append(unaligned, p)
	}
	sort.Strings(unaligned)
	return sortSpans(spans), len(hit), unaligned
}

// resolve maps a trajectory path to an indexed path: itself if indexed,
// else its longest indexed suffix, else itself.
func resolve(p string, byPath map[string][]mss.Unit) string {
	if _, ok := byPath[p]; ok {
		return p
	}
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		if _, ok := byPath[p[i+1:]]; ok {
			return p[i+1:]
		}
	}
	return p
}
