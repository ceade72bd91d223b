package server

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/missingcomplement/mss"
	_ "github.com/missingcomplement/mss/controller"
	"github.com/missingcomplement/mss/internal/gittest"
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
	gittest.WriteTree(t, dir, fixture)
	return dir
}

// newTestService serves a fresh fixture; scanning happens on every request.
func newTestService(t testing.TB, loader func(root string) Loader) (*Service, string) {
	t.Helper()
	dir := writeFixture(t)
	if loader == nil {
		loader = func(root string) Loader { return &IndexLoader{Repo: root} }
	}
	svc, err := New(context.Background(), Config{Repo: dir, Loader: loader(dir), ScanInterval: time.Nanosecond, FreshWait: time.Minute,
		MethodOptions: noGrow})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc, dir
}

// noGrow keeps delivered units as the index cut them, so tests of the
// serving mechanics (sessions, re-numbering after edits) can follow one
// unit by its symbol and start line; TestGrownUnitsServeFileBytes covers
// growth.
var noGrow = mss.MethodOptions{Settings: map[string]string{"grow": "false"}}

func stateFor(need string) mss.State {
	return mss.State{Issue: "parse_header drops the last field of a header line", InformationNeed: need}
}

func itoa(n int) string { return strconv.Itoa(n) }

var sortStrings = cmpopts.SortSlices(func(a, b string) bool { return a < b })
