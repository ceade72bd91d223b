package retrieve

import (
	"context"
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/index"
)

// memStore stands in for an index: stored structures and units in memory.
type memStore struct {
	units  []mss.Unit
	blobs  map[string][]byte
	tables map[string][]byte // encoded
}

func (s *memStore) Path() string { return "mem.db" }
func (s *memStore) Meta() index.Meta {
	return index.Meta{Units: len(s.units), Derived: storedVersion, Commit: "c0ffee"}
}
func (s *memStore) DerivedBlob(name string) ([]byte, error) { return s.blobs[name], nil }
func (s *memStore) DerivedTable(name string) (*index.Table, error) {
	b, ok := s.tables[name]
	if !ok {
		return nil, errors.New("no table " + name)
	}
	return index.ParseTable(b)
}
func (s *memStore) UnitsByID(_ context.Context, ids []string) (map[string]mss.Unit, error) {
	out := map[string]mss.Unit{}
	for _, u := range s.units {
		for _, id := range ids {
			if u.ID == id {
				out[id] = u
			}
		}
	}
	return out, nil
}
func (s *memStore) Units() ([]mss.Unit, error) { return s.units, nil }

// storedFixture derives the stored structures of the test corpus, with a
// history log, into a memStore.
func storedFixture(t testing.TB) *memStore {
	units := corpus()
	historyLogs.put(historyKey("git", "c0ffee", DefaultHistoryCommits), &historyLog{
		files: [][]string{{"pkg/mapping.py", "tests/test_mapping.py"}, {"pkg/grid.py"}}, messages: []string{"Fix lookup", "Grid maps"}})
	d, err := derive(&index.DeriveInput{Units: units, Edges: []index.Edge{
		{From: "pkg/grid.py:5", To: "pkg/grid.py:15", Kind: index.EdgeCall},
		{From: "pkg/mapping.py:30", To: "pkg/mapping.py:10", Kind: index.EdgeRef}}, GitDir: "git", Commit: "c0ffee"})
	if err != nil {
		t.Fatal(err)
	}
	s := &memStore{units: NewEngine(units, nil, Options{}).units, blobs: d.Blobs, tables: map[string][]byte{}}
	for name, m := range d.Tables {
		s.tables[name] = index.EncodeTable(m)
	}
	for name, b := range d.Encoded {
		s.tables[name] = b
	}
	return s
}

func (s *memStore) parts() []string {
	var names []string
	for n := range s.blobs {
		names = append(names, "blob:"+n)
	}
	for n := range s.tables {
		names = append(names, "table:"+n)
	}
	sort.Strings(names)
	return names
}

// TestStoredFixtureOpens: the fuzz fixture opens and answers, so that the
// fuzzer starts from structures that work.
func TestStoredFixtureOpens(t *testing.T) {
	s := storedFixture(t)
	e, err := openStored(s, Options{GitDir: "git", Commit: "c0ffee"})
	if err != nil {
		t.Fatal(err)
	}
	cands, err := e.Candidates(context.Background(), &mss.State{Issue: "KeyError in `_lookup_single`"}, 0)
	if err != nil || len(cands) == 0 || cands[0].Unit.Content == "" {
		t.Fatalf("candidates %v, %v", cands, err)
	}
}

// FuzzStoredEngine replaces one stored structure with arbitrary bytes: the
// engine opens with an error naming the damage, or opens and answers;
// it never panics.
func FuzzStoredEngine(f *testing.F) {
	s := storedFixture(f)
	parts := s.parts()
	for k, p := range parts {
		name := p[strings.IndexByte(p, ':')+1:]
		b := s.blobs[name]
		if strings.HasPrefix(p, "table:") {
			b = s.tables[name]
		}
		f.Add(uint8(k), b)
		if len(b) > 4 {
			f.Add(uint8(k), b[:len(b)/2])
			c := append([]byte(nil), b...)
			c[len(c)/3] ^= 0x5a
			f.Add(uint8(k), c)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		d := &memStore{units: s.units, blobs: map[string][]byte{}, tables: map[string][]byte{}}
		for k, v := range s.blobs {
			d.blobs[k] = v
		}
		for k, v := range s.tables {
			d.tables[k] = v
		}
		p := parts[int(which)%len(parts)]
		name := p[strings.IndexByte(p, ':')+1:]
		if strings.HasPrefix(p, "table:") {
			d.tables[name] = data
		} else {
			d.blobs[name] = data
		}
		e, err := openStored(d, Options{GitDir: "git", Commit: "c0ffee"})
		if err != nil {
			if !strings.Contains(err.Error(), "mem.db") {
				t.Fatalf("error does not name the index: %v", err)
			}
			return
		}
		for _, st := range []*mss.State{
			{Issue: "KeyError in `_lookup_single` when hue is passed to PairGrid.map"},
			{Issue: "palette colors", ObservedSpans: []mss.Span{{Path: "pkg/mapping.py", StartLine: 10, EndLine: 13}}, ObservedEvidenceIDs: []string{"pkg/grid.py:5"}},
		} {
			if _, _, err := e.Rank(context.Background(), st, mss.ObservedOf(st), 0); err != nil && !strings.Contains(err.Error(), "retrieve") {
				t.Fatalf("rank: %v", err)
			}
		}
		e.FileUnits("pkg/mapping.py")
		e.Paths()
	})
}
