package retrieve

import (
	"context"

	"github.com/missingcomplement/mss"
)

// FileUnits returns the units of path in line order (nil for a path the
// engine does not hold, or whose units a stored engine could not read).
// It makes an Engine an mss.UnitSource, so policies can grow a chosen unit
// into its intact surroundings.
func (e *Engine) FileUnits(path string) []mss.Unit {
	idx := e.unitsOf(path)
	if len(idx) == 0 {
		return nil
	}
	if e.src == nil {
		out := make([]mss.Unit, len(idx))
		for i, j := range idx {
			out[i] = e.units[j]
		}
		return out
	}
	ids := make([]string, len(idx))
	for i, j := range idx {
		ids[i] = e.unitAt(j).ID
	}
	full, err := e.src.UnitsByID(context.Background(), ids)
	if err != nil {
		return nil
	}
	out := make([]mss.Unit, len(ids))
	for i, id := range ids {
		u, ok := full[id]
		if !ok {
			// Growth needs every neighbour as it is now, or none.
			return nil
		}
		out[i] = u
	}
	return out
}
