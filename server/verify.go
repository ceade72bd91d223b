package server

import (
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/pipeline"
	"github.com/missingcomplement/mss/render"
)

// Reads of repository content on the answer path go through os.Root
// (pipeline.TreeFiles), which refuses a path any component of which is a
// symbolic link leading out of the repository, so nothing outside it is
// ever shown.

// Quote makes a path safe for one line of text output (render.Name).
func Quote(p string) string { return render.Name(p) }

// ErrPathNotUTF8 refuses a unit whose path JSON cannot carry faithfully:
// encoding/json would replace its bytes with U+FFFD and name another file.
var ErrPathNotUTF8 = errors.New("its path is not UTF-8, so no answer can name it faithfully")

// verifyUnits checks units against their files, read through the
// repository root (pipeline.Verify over pipeline.TreeFiles, the check every
// answer passes): a unit whose text moved is re-numbered, one the file no
// longer holds, or that cannot be read inside the root, is left out with a
// warning naming it.
func (s *Service) verifyUnits(units []mss.Unit) ([]mss.Unit, []string) {
	units, warn := DropUnnamable(units)
	where := make(map[string]mss.Unit, len(units))
	for _, u := range units {
		where[u.ID] = u
	}
	var recorded pipeline.Recorded
	if r, ok := s.snap.(interface{ Recorded() pipeline.Recorded }); ok {
		recorded = r.Recorded()
	}
	keep, trace := pipeline.VerifyRecorded(s.files, recorded, units, mss.ObservedOf(nil))
	for _, t := range trace {
		why, dropped := strings.CutPrefix(t.Reason, "dropped: ")
		if !dropped {
			continue
		}
		u := where[t.UnitID]
		warn = append(warn, pipeline.LeftOutWarning(u, why))
	}
	return keep, warn
}

// DropUnnamable leaves out units whose path is not UTF-8, with a warning:
// a JSON answer cannot name them faithfully (U+FFFD would name another
// file).
func DropUnnamable(units []mss.Unit) ([]mss.Unit, []string) {
	var warn []string
	keep := units[:0]
	for _, u := range units {
		if !utf8.ValidString(u.Path) {
			warn = append(warn, pipeline.LeftOutWarning(u, ErrPathNotUTF8.Error()))
			continue
		}
		keep = append(keep, u)
	}
	return keep, warn
}
