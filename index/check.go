package index

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/segment"
)

// checkSample is the stride of the units Check hashes when not checking all.
const checkSample = 16

// Check verifies the index: SQLite's own consistency, the versions, the
// counts in meta against the tables, and for every unit its hash, token
// count and id against its content, its line range, and that the units of
// a file do not overlap. It returns the first problem found, wrapping
// ErrCorrupt.
func (ix *Index) Check() error { return ix.CheckAll(true) }

// CheckAll is Check; with all false it hashes only every 16th unit.
func (ix *Index) CheckAll(all bool) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("index %s: %s: %w", ix.path, fmt.Sprintf(format, args...), ErrCorrupt)
	}
	var qc string
	if err := ix.conn().QueryRow(`PRAGMA quick_check`).Scan(&qc); err != nil {
		return fail("quick_check: %v", err)
	}
	if qc != "ok" {
		return fail("quick_check: %s", qc)
	}
	if ix.meta.FormatVersion != FormatVersion || ix.meta.FeatureVersion != FeatureVersion {
		return fail("version %d/%d, want %d/%d", ix.meta.FormatVersion, ix.meta.FeatureVersion, FormatVersion, FeatureVersion)
	}
	var nfiles, nunits, fileUnits int
	if err := ix.conn().QueryRow(`SELECT COUNT(*), COALESCE(SUM(units), 0) FROM files`).Scan(&nfiles, &fileUnits); err != nil {
		return fail("counting files: %v", err)
	}
	if err := ix.conn().QueryRow(`SELECT COUNT(*) FROM units`).Scan(&nunits); err != nil {
		return fail("counting units: %v", err)
	}
	switch {
	case nfiles != ix.meta.Files:
		return fail("meta says %d files, table has %d", ix.meta.Files, nfiles)
	case nunits != ix.meta.Units:
		return fail("meta says %d units, table has %d", ix.meta.Units, nunits)
	case fileUnits != nunits:
		return fail("files count %d units, table has %d", fileUnits, nunits)
	}
	var orphans int
	if err := ix.conn().QueryRow(`SELECT COUNT(*) FROM units WHERE path NOT IN (SELECT path FROM files)`).Scan(&orphans); err != nil {
		return fail("checking unit paths: %v", err)
	}
	if orphans > 0 {
		return fail("%d units belong to no file", orphans)
	}

	rows, err := ix.conn().Query(`SELECT id, path, start_line, end_line, content, hash, tokens FROM units ORDER BY path, start_line`)
	if err != nil {
		return fail("reading units: %v", err)
	}
	defer rows.Close()
	var prevPath string
	prevEnd, i := 0, 0
	for rows.Next() {
		var u mss.Unit
		if err := rows.Scan(&u.ID, &u.Path, &u.StartLine, &u.EndLine, &u.Content, &u.Hash, &u.Tokens); err != nil {
			return fail("reading units: %v", err)
		}
		where := fmt.Sprintf("unit %s (%s:%d-%d)", u.ID, u.Path, u.StartLine, u.EndLine)
		if u.StartLine < 1 || u.EndLine < u.StartLine {
			return fail("%s: bad line range", where)
		}
		if u.Path == prevPath && u.StartLine <= prevEnd {
			return fail("%s: overlaps the unit before, which ends at line %d", where, prevEnd)
		}
		prevPath, prevEnd = u.Path, u.EndLine
		if all || i%checkSample == 0 {
			sum := sha256.Sum256([]byte(u.Content))
			if h := hex.EncodeToString(sum[:]); h != u.Hash {
				return fail("%s: content hash %s, stored %s", where, h[:12], u.Hash)
			}
			if t := mss.TokenCost(u.Content); t != u.Tokens {
				return fail("%s: %d tokens, stored %d", where, t, u.Tokens)
			}
			if id := segment.UnitID(u.Path, u.StartLine, u.EndLine, u.Hash); id != u.ID {
				return fail("%s: id should be %s", where, id)
			}
			if lines := countLines(u.Content); lines != u.EndLine-u.StartLine+1 {
				return fail("%s: content has %d lines", where, lines)
			}
		}
		i++
	}
	if err := rows.Err(); err != nil {
		return fail("reading units: %v", err)
	}
	if err := ix.checkDerived(); err != nil {
		return err
	}
	if ix.base != nil {
		return ix.base.checkDerived()
	}
	return nil
}

// checkDerived checks the derived file the index records, if any: that it
// is the file recorded, its directory is whole and its tables decode. (Its
// contents are the Deriver's to check when it opens them.) A kept base
// (Index.Base) is checked the same way.
func (ix *Index) checkDerived() error {
	if ix.meta.DerivedID == "" {
		return nil
	}
	blobs, err := ix.loadSidecar()
	if err != nil {
		return err
	}
	for _, name := range sortedKeys(blobs) {
		if strings.HasPrefix(name, tablePrefix) {
			if _, err := ParseTable(blobs[name]); err != nil {
				return fmt.Errorf("index %s: derived table %s: %w", ix.path, strings.TrimPrefix(name, tablePrefix), err)
			}
		}
	}
	return nil
}

func countLines(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			n++
		}
	}
	return n
}
