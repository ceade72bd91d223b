package retrieve

import (
	"strings"

	"github.com/missingcomplement/mss"
)

// The views read units and tables through these accessors, so that one
// code path serves an engine built in memory (slices and maps) and one
// opened from an index's stored structures (read in place; see stored.go).
// A stored engine's units hold their id, path, lines and symbol only:
// what leaves the engine is completed from the index first (fill). An
// overlay (overlay.go) answers for its added units and changed files
// first, then for the live units of its stored base.

// Stored reports whether the engine was opened from an index's stored
// structures (rather than built in memory, or overlaid on them).
func (e *Engine) Stored() bool { return e.m != nil && e.x == nil }

// Len is the number of units.
func (e *Engine) Len() int { return e.n }

// live reports whether unit i is one the engine holds (an overlay's dead
// units keep their indices).
func (e *Engine) live(i int) bool { return e.x == nil || i >= e.x.n || !e.x.dead[i] }

// span bounds unit indices: an overlay's dead units keep theirs.
func (e *Engine) span() int {
	if e.x != nil {
		return e.x.n + len(e.x.units)
	}
	return e.n
}

// unitAt returns unit i (a stored engine's without content or names).
func (e *Engine) unitAt(i int) *mss.Unit {
	if e.x != nil && i >= e.x.n {
		return &e.x.units[i-e.x.n]
	}
	if e.m != nil {
		u := e.m.unit(i)
		return &u
	}
	return &e.units[i]
}

// factsAt returns what the views compare of unit i.
func (e *Engine) factsAt(i int) *unitInfo {
	if e.x != nil && i >= e.x.n {
		return &e.x.info[i-e.x.n]
	}
	if e.m != nil {
		in := e.m.facts(i)
		return &in
	}
	return &e.info[i]
}

// classAt is unit i's path class.
func (e *Engine) classAt(i int) PathClass {
	if e.x != nil && i >= e.x.n {
		return e.x.info[i-e.x.n].class
	}
	if e.m != nil {
		return e.m.class[e.m.pathPos(i)]
	}
	return e.info[i].class
}

// unitsOf lists the units of path in line order.
func (e *Engine) unitsOf(path string) []int {
	if e.x != nil {
		if us, ok := e.x.byPath[path]; ok {
			return us
		}
	}
	if e.m != nil {
		return e.m.unitsOf(path)
	}
	return e.byPath[path]
}

// LastLine is the last line the units of path reach (0 for a path the
// engine does not hold).
func (e *Engine) LastLine(path string) int {
	last := 0
	for _, i := range e.unitsOf(path) {
		last = max(last, e.unitAt(i).EndLine)
	}
	return last
}

// hasPath reports whether the engine holds units of path.
func (e *Engine) hasPath(path string) bool {
	if e.x != nil {
		if us, ok := e.x.byPath[path]; ok {
			return len(us) > 0
		}
	}
	if e.m != nil {
		return e.m.paths.Find(path) >= 0
	}
	_, ok := e.byPath[path]
	return ok
}

// Paths lists the files the engine holds units of, sorted.
func (e *Engine) Paths() []string {
	if e.x != nil {
		return append([]string(nil), e.x.paths...)
	}
	if e.m != nil {
		out := make([]string, e.m.paths.Len())
		for i := range out {
			out[i] = strings.Clone(e.m.paths.Key(i))
		}
		return out
	}
	return append([]string(nil), e.paths...)
}

// basePaths lists the paths whose lower-cased file name is base.
func (e *Engine) basePaths(base string) []string {
	if e.m != nil {
		pos := e.m.list(e.m.base, base)
		out := make([]string, len(pos))
		for k, p := range pos {
			out[k] = e.m.paths.Key(p)
		}
		if e.x != nil {
			return e.x.basePaths(base, out)
		}
		return out
	}
	return e.baseName[base]
}

// HasUnit reports whether the engine holds a unit of this id.
func (e *Engine) HasUnit(id string) bool {
	_, ok := e.idIndex(id)
	return ok
}

// idIndex finds a unit by id.
func (e *Engine) idIndex(id string) (int, bool) {
	if e.x != nil {
		if i, ok := e.x.byID[id]; ok {
			return i, true
		}
	}
	if e.m != nil {
		if v, ok := e.m.ids.Get(id); ok && len(v) == 4 {
			i := int(le.Uint32(v))
			return i, e.x == nil || !e.x.dead[i]
		}
		return 0, false
	}
	i, ok := e.byID[id]
	return i, ok
}

// named lists the units filed under key in a name table.
func (e *Engine) named(k nameKind, key string) []int {
	if e.m == nil {
		return e.names[k][key]
	}
	l := e.m.list(e.m.names[k], key)
	if e.x != nil {
		l = e.x.list(l, e.x.names[k][key])
	}
	return l
}

// defsOf lists the units defining a lower-cased name.
func (e *Engine) defsOf(name string) []int { return e.named(namesDefined, name) }

// qualsOf lists the units whose lower-cased symbol path is qual.
func (e *Engine) qualsOf(qual string) []int { return e.named(namesQualified, qual) }

// refsOf lists the units referencing a lower-cased name.
func (e *Engine) refsOf(name string) []int { return e.named(namesReferenced, name) }

// hasEdges reports whether the engine has explicit edges.
func (e *Engine) hasEdges() bool {
	if e.m != nil {
		return e.m.edges
	}
	return e.adj[edgesOut] != nil
}

// edges are unit a's explicit edges in direction d, in index order.
func (e *Engine) edges(d edgeDir, a int) []edgeTo {
	switch {
	case e.x != nil && a >= e.x.n:
		return e.x.adj[d][a]
	case e.x != nil:
		return e.x.live(e.m.adjacent(d, a))
	case e.m != nil:
		return e.m.adjacent(d, a)
	}
	return e.adj[d][a]
}
