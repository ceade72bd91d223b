package retrieve

import (
	"strings"

	"github.com/missingcomplement/mss"
)

// The views read units and tables through these accessors, so that one
// code path serves an engine built in memory (slices and maps) and one
// opened from an index's stored structures (read in place; see stored.go).
// A stored engine's units hold their id, path, lines and symbol only:
// what leaves the engine is completed from the index first (fill).

// Stored reports whether the engine was opened from an index's stored
// structures (rather than built in memory).
func (e *Engine) Stored() bool { return e.m != nil }

// Len is the number of units.
func (e *Engine) Len() int { return e.n }

// unitAt returns unit i (a stored engine's without content or names).
func (e *Engine) unitAt(i int) *mss.Unit {
	if e.m != nil {
		u := e.m.unit(i)
		return &u
	}
	return &e.units[i]
}

// factsAt returns what the views compare of unit i.
func (e *Engine) factsAt(i int) *unitInfo {
	if e.m != nil {
		in := e.m.facts(i)
		return &in
	}
	return &e.info[i]
}

// classAt is unit i's path class.
func (e *Engine) classAt(i int) PathClass {
	if e.m != nil {
		return e.m.class[e.m.pathPos(i)]
	}
	return e.info[i].class
}

// unitsOf lists the units of path in line order.
func (e *Engine) unitsOf(path string) []int {
	if e.m != nil {
		return e.m.unitsOf(path)
	}
	return e.byPath[path]
}

// hasPath reports whether the engine holds units of path.
func (e *Engine) hasPath(path string) bool {
	if e.m != nil {
		return e.m.paths.Find(path) >= 0
	}
	_, ok := e.byPath[path]
	return ok
}

// Paths lists the files the engine holds units of, sorted.
func (e *Engine) Paths() []string {
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
		return out
	}
	return e.baseName[base]
}

// idIndex finds a unit by id.
func (e *Engine) idIndex(id string) (int, bool) {
	if e.m != nil {
		if v, ok := e.m.ids.Get(id); ok && len(v) == 4 {
			return int(le.Uint32(v)), true
		}
		return 0, false
	}
	i, ok := e.byID[id]
	return i, ok
}

// defsOf lists the units defining a lower-cased name.
func (e *Engine) defsOf(name string) []int {
	if e.m != nil {
		return e.m.list(e.m.defs, name)
	}
	return e.defs[name]
}

// qualsOf lists the units whose lower-cased symbol path is qual.
func (e *Engine) qualsOf(qual string) []int {
	if e.m != nil {
		return e.m.list(e.m.quals, qual)
	}
	return e.quals[qual]
}

// refsOf lists the units referencing a lower-cased name.
func (e *Engine) refsOf(name string) []int {
	if e.m != nil {
		return e.m.list(e.m.refs, name)
	}
	return e.refsTo[name]
}

// hasEdges reports whether the engine has explicit edges.
func (e *Engine) hasEdges() bool {
	if e.m != nil {
		return e.m.edges
	}
	return e.out != nil
}

// edgesOut and edgesIn are unit a's explicit edges, in index order.
func (e *Engine) edgesOut(a int) []edgeTo {
	if e.m != nil {
		return e.m.adjacent(e.m.outOff, e.m.outRec, a)
	}
	return e.out[a]
}

func (e *Engine) edgesIn(a int) []edgeTo {
	if e.m != nil {
		return e.m.adjacent(e.m.inOff, e.m.inRec, a)
	}
	return e.in[a]
}
