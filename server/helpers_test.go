package server

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/missingcomplement/mss"
	_ "github.com/missingcomplement/mss/controller"
	"github.com/missingcomplement/mss/retrieve"
	"github.com/missingcomplement/mss/segment"
)

// fixture files: a small Python and Go repository.
var fixture = map[string]string{
	"widgets/header.py": `"""Header parsing."""
import csv

from widgets.util import SEP


def parse_header(line):
    """Split a header line into its fields."""
    fields = line.split(SEP)
    return fields[:-1]


def emit_header(fields):
    """Join fields back into a header line."""
    return SEP.join(fields)
`,
	"widgets/util.py": `SEP = ","


def split_fields(text):
    return [f.strip() for f in text.split(SEP)]


class Reader:
    def __init__(self, path):
        self.path = path

    def read_header(self):
        with open(self.path) as f:
            return f.readline()
`,
	"widgets/__init__.py": "from widgets.header import parse_header, emit_header\n",
	"cmd/tool/main.go": `package main

import "fmt"

// Version is printed by -version.
const Version = "1.0"

func main() {
	fmt.Println(parseArgs([]string{"a"}))
}

// parseArgs returns the arguments that are not flags.
func parseArgs(args []string) []string {
	var out []string
	for _, a := range args {
		if a == "" || a[0] != '-' {
			out = append(out, a)
		}
	}
	return out
}
`,
	"README.md": "# widgets\n\nParses header lines: parse_header splits, emit_header joins.\n",
}

func writeFixture(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	for p, src := range fixture {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// walkLoader segments every file of a tree and builds an engine over the
// units: a snapshot that needs no index database.
type walkLoader struct{ root string }

func (l walkLoader) Load(ctx context.Context) (Snapshot, error) {
	var units []mss.Unit
	files := 0
	err := filepath.WalkDir(l.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != l.root && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(l.root, p)
		files++
		units = append(units, segment.File(filepath.ToSlash(rel), src)...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &walkSnapshot{units: units, eng: retrieve.NewEngineUnits(units, nil, retrieve.Options{}), files: files}, nil
}

type walkSnapshot struct {
	units []mss.Unit
	eng   *retrieve.Engine
	files int
}

func (s *walkSnapshot) Candidates(ctx context.Context, st *mss.State, limit int) ([]mss.Candidate, error) {
	return s.eng.Candidates(ctx, st, limit)
}

func (s *walkSnapshot) Search(query string, limit int) ([]mss.Unit, error) {
	var out []mss.Unit
	for _, u := range s.units {
		if strings.Contains(u.Content, query) || strings.Contains(u.Symbol, query) {
			out = append(out, u)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

func (s *walkSnapshot) Info() IndexInfo {
	return IndexInfo{Units: len(s.units), Files: s.files, Built: time.Now()}
}

func (s *walkSnapshot) Close() error { return nil }

// newTestService serves a fresh fixture; scanning happens on every request.
func newTestService(t testing.TB, loader func(root string) Loader) (*Service, string) {
	t.Helper()
	dir := writeFixture(t)
	if loader == nil {
		loader = func(root string) Loader { return walkLoader{root} }
	}
	svc, err := New(context.Background(), Config{Repo: dir, Loader: loader(dir), ScanInterval: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc, dir
}
