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
	out := make([]mss.Unit, len(idx))
	for i, j := range idx {
		out[i] = *e.unitAt(j)
	}
	if e.src != nil {
		cands := make([]mss.Candidate, len(out))
		for i := range out {
			cands[i].Unit = out[i]
		}
		cands, err := e.fill(context.Background(), cands)
		if err != nil || len(cands) != len(out) {
			// Growth needs every neighbour as it is now, or none.
			return nil
		}
		for i := range out {
			out[i] = cands[i].Unit
		}
	}
	return out
}
