package retrieve

import "github.com/missingcomplement/mss"

// FileUnits returns the units of path in line order (nil for a path the
// engine does not hold). It makes an Engine an mss.UnitSource, so policies
// can grow a chosen unit into its intact surroundings.
func (e *Engine) FileUnits(path string) []mss.Unit {
	idx := e.byPath[path]
	if len(idx) == 0 {
		return nil
	}
	out := make([]mss.Unit, len(idx))
	for i, j := range idx {
		out[i] = e.units[j]
	}
	return out
}
