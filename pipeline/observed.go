package pipeline

import (
	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/index"
)

// An agent reads a file as it is on disk, so the spans it says it has read
// are in the file's lines now. When the index lags the file (an edit not
// yet re-indexed, as while a server re-indexes), those are not the lines
// its units have: a span over the edited file's new lines would mark as
// read a unit the agent never saw there, and miss the unit it did read.
// Before ranking, such spans are carried into the index's lines through
// the units the file still holds, located as Verify locates them; after
// Verify moves a unit to its lines now, it is checked against the spans
// as given.

// inIndex returns spans with those of work-tree files that changed since
// indexing re-numbered into the index's lines, and whether any was: a
// span's lines within a unit the file still holds (perhaps elsewhere) are
// carried to that unit's indexed lines, and lines in no such unit (text
// added or changed since, blank lines between units) are left out.
func (p *Pipeline) inIndex(spans []mss.Span) ([]mss.Span, bool) {
	if _, tree := p.files.(*TreeFiles); !tree || p.ix == nil || len(spans) == 0 {
		return spans, false
	}
	moved := map[string][]located{}
	seen := map[string]bool{}
	for _, sp := range spans {
		if seen[sp.Path] {
			continue
		}
		seen[sp.Path] = true
		if locs, ok := p.relocated(sp.Path); ok {
			moved[sp.Path] = locs
		}
	}
	if len(moved) == 0 {
		return spans, false
	}
	out := make([]mss.Span, 0, len(spans))
	for _, sp := range spans {
		locs, ok := moved[sp.Path]
		if !ok {
			out = append(out, sp)
			continue
		}
		for _, l := range locs {
			a, b := max(sp.StartLine, l.now), min(sp.EndLine, l.now+l.lines-1)
			if a > b {
				continue
			}
			out = append(out, mss.Span{Path: sp.Path, StartLine: a - l.now + l.indexed, EndLine: b - l.now + l.indexed, Symbol: sp.Symbol})
		}
	}
	return out, true
}

// located is where an indexed unit's text is in its file now.
type located struct {
	indexed, now, lines int // first line in the index, and now; line count
}

// relocated locates the indexed units of path in the file now, in line
// order; ok is false when every unit it still holds is where the index
// has it (the file is the one indexed, or changed without moving any),
// or it cannot be read or the index holds none of it: then its lines are
// the index's.
func (p *Pipeline) relocated(path string) (locs []located, ok bool) {
	if !p.known[path] {
		return nil, false
	}
	data, err := p.files.ReadFile(path)
	if err != nil {
		return nil, false
	}
	if b := p.ix.RecordedBlob(path); b != "" && b == index.BlobID(data) {
		return nil, false
	}
	lines := normalizeLines(splitLines(string(data)))
	same := true
	for _, u := range p.FileUnits(path) {
		want := normalizeLines(splitLines(u.Content))
		if len(want) == 0 {
			continue
		}
		at := locate(lines, want, u.StartLine)
		if at < 0 {
			continue // changed since: Verify leaves it out
		}
		same = same && at == u.StartLine
		locs = append(locs, located{indexed: u.StartLine, now: at, lines: len(want)})
	}
	return locs, !same
}
