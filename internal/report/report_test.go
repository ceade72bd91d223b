package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss/internal/repobench"
	"github.com/missingcomplement/mss/internal/safefile"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// sample builds scores for two methods over four states by hand.
func sample() *Input {
	ks := []int{1, 3, 5}
	mk := func(method string, complete [][]float64) *repobench.MethodScore {
		ms := &repobench.MethodScore{Method: method, Ks: ks, Budget: 6144, Mean: map[string]float64{}, Strata: map[string]*repobench.Stratum{}}
		types := []string{"before_search", "before_search", "after_file_inspection", "before_search"}
		groups := []int{1, 2, 1, 3}
		repos := []string{"o/a", "o/a", "o/b", "o/c"}
		for i := range types {
			m := map[string]float64{}
			for j, k := range ks {
				m[repobench.Key(repobench.Complete, k)] = complete[i][j]
				m[repobench.Key(repobench.GroupRecall, k)] = complete[i][j]
				m[repobench.Key(repobench.Tokens, k)] = float64(1000 * k)
			}
			ms.States = append(ms.States, repobench.StateScore{StateID: string(rune('a' + i)), Repo: repos[i], StateType: types[i], Groups: groups[i], Metrics: m})
		}
		// Means and strata as the scorer computes them.
		sum := func(rows []repobench.StateScore) map[string]float64 {
			out := map[string]float64{}
			for _, r := range rows {
				for k, v := range r.Metrics {
					out[k] += v / float64(len(rows))
				}
			}
			return out
		}
		ms.Mean = sum(ms.States)
		by := map[string][]repobench.StateScore{}
		for _, s := range ms.States {
			for _, n := range s.Strata() {
				by[n] = append(by[n], s)
			}
		}
		for n, rows := range by {
			ms.Strata[n] = &repobench.Stratum{N: len(rows), Mean: sum(rows)}
		}
		return ms
	}
	a := mk("bm25", [][]float64{{0, 0, 1}, {0, 0, 0}, {0, 1, 1}, {0, 0, 0}})
	b := mk("complement", [][]float64{{1, 1, 1}, {0, 1, 1}, {0, 1, 1}, {0, 0, 1}})
	return &Input{
		Title: "Repository track: dev", StatesFile: "dev/states.jsonl", Predictions: []string{"out/dev-bm25.jsonl", "out/dev-complement.jsonl"},
		Metric: "complete@5", Scores: []*repobench.MethodScore{a, b},
		Latency:  map[string]Latency{"complement": {N: 4, P50: 12.5, P95: 40}},
		Baseline: "bm25",
		Paired: []repobench.Paired{
			{Baseline: "bm25", Method: "complement", Metric: "complete@5", Stratum: "all", N: 4, MeanA: 0.5, MeanB: 1, Diff: 0.5, Lo: 0, Hi: 1, Wins: 2, Ties: 2, Draws: 2000, Seed: 1},
			{Baseline: "bm25", Method: "complement", Metric: "complete@5", Stratum: "groups>=2", N: 2, MeanA: 0, MeanB: 1, Diff: 1, Lo: 1, Hi: 1, Wins: 2, Draws: 2000, Seed: 1},
		},
	}
}

func TestWriteGolden(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, sample()); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{HTMLFile, SummaryFile} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if name == SummaryFile {
			got = namedHashes(t, dir, got)
		}
		golden := filepath.Join("testdata", name+".golden")
		if *update {
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test -update)", err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("%s differs from %s (-want +got):\n%s", name, golden, diff)
		}
	}
	for _, name := range []string{CurvesFile, StrataFile, PairedFile} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if b := img.Bounds(); b.Dx() < 600 || b.Dy() < 300 {
			t.Errorf("%s: %v, want at least 600x300", name, b)
		}
	}
}

// namedHashes checks that summary, the summary.json of the report in dir,
// lists each file of the report beside it with the SHA-256 of its bytes,
// and returns it with each hash replaced by "sha256 of <file>": the
// figures' bytes are the plotting library's, which a golden file does not
// hold.
func namedHashes(t *testing.T, dir string, summary []byte) []byte {
	t.Helper()
	var s Summary
	if err := json.Unmarshal(summary, &s); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{HTMLFile, CurvesFile, StrataFile, PairedFile} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		h := sha256Hex(data)
		if !slices.Equal(s.Files[name], []string{h}) {
			t.Errorf("summary.json lists %s as %q, want %q", name, s.Files[name], h)
		}
		summary = bytes.ReplaceAll(summary, []byte(h), []byte("sha256 of "+name))
	}
	return summary
}

func TestWriteDeterministic(t *testing.T) {
	d1, d2 := t.TempDir(), t.TempDir()
	if err := Write(d1, sample()); err != nil {
		t.Fatal(err)
	}
	if err := Write(d2, sample()); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{HTMLFile, SummaryFile, CurvesFile, StrataFile, PairedFile} {
		a, _ := os.ReadFile(filepath.Join(d1, name))
		b, _ := os.ReadFile(filepath.Join(d2, name))
		if !bytes.Equal(a, b) || len(a) == 0 {
			t.Errorf("%s: two writes of the same input differ (%d vs %d bytes)", name, len(a), len(b))
		}
	}
}

func TestWithoutPairedRemovesStaleFigure(t *testing.T) {
	dir := t.TempDir()
	in := sample()
	if err := Write(dir, in); err != nil {
		t.Fatal(err)
	}
	in.Paired = nil
	if err := Write(dir, in); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, PairedFile)); !os.IsNotExist(err) {
		t.Errorf("paired figure left from the earlier report: %v", err)
	}
	if err := Write(dir, &Input{}); err == nil {
		t.Error("empty input: got no error")
	}
}

// A report replaces or removes only the files the earlier report wrote,
// as its summary.json lists them: a paired.png it did not write, or one
// edited since, is left as it is, and refused when the new report draws
// one.
func TestWriteKeepsFilesItDidNotWrite(t *testing.T) {
	without := sample()
	without.Paired = nil
	dir := t.TempDir()
	if err := Write(dir, without); err != nil {
		t.Fatal(err)
	}
	paired := filepath.Join(dir, PairedFile)
	mine := []byte("user's own figure\n")
	if err := os.WriteFile(paired, mine, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, without); err != nil {
		t.Fatalf("a report beside a paired.png it did not write: %v", err)
	}
	if data, _ := os.ReadFile(paired); !bytes.Equal(data, mine) {
		t.Errorf("paired.png it did not write: %q, want it left as it was", data)
	}
	summary, _ := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err := Write(dir, sample()); err == nil || !strings.Contains(err.Error(), paired+": not written by a report") {
		t.Errorf("a report drawing paired.png over one it did not write: %v, want a refusal naming it", err)
	}
	if data, _ := os.ReadFile(paired); !bytes.Equal(data, mine) {
		t.Errorf("paired.png it did not write: %q, want it left as it was", data)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, SummaryFile)); !bytes.Equal(data, summary) {
		t.Error("refused, yet summary.json changed")
	}
	// Its own paired.png, edited since, is not its own any more.
	os.Remove(paired)
	if err := Write(dir, sample()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(paired, mine, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, without); err != nil {
		t.Fatalf("a report beside an edited paired.png it does not draw: %v", err)
	}
	if data, _ := os.ReadFile(paired); !bytes.Equal(data, mine) {
		t.Errorf("edited paired.png: %q, want it left as it was", data)
	}
	page := filepath.Join(dir, HTMLFile)
	if err := os.WriteFile(page, []byte("<p>my page</p>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, without); err == nil || !strings.Contains(err.Error(), page+": not written by a report, or changed since") {
		t.Errorf("a report over an edited index.html: %v, want a refusal naming it", err)
	}
	if data, _ := os.ReadFile(page); string(data) != "<p>my page</p>\n" {
		t.Errorf("edited index.html: %q", data)
	}
}

// A report over one whose summary.json lists no files (written before
// summaries did) takes the page and figures it names for that report's:
// paired.png when it has paired rows.
func TestWriteOverSummaryWithoutFiles(t *testing.T) {
	for _, withPaired := range []bool{true, false} {
		dir := t.TempDir()
		in := sample()
		if !withPaired {
			in.Paired = nil
		}
		if err := Write(dir, in); err != nil {
			t.Fatal(err)
		}
		spath := filepath.Join(dir, SummaryFile)
		data, _ := os.ReadFile(spath)
		var s Summary
		json.Unmarshal(data, &s)
		s.Files = nil
		data, _ = s.marshal()
		os.WriteFile(spath, data, 0o644)
		paired := filepath.Join(dir, PairedFile)
		if !withPaired {
			os.WriteFile(paired, []byte("user's own figure\n"), 0o644)
		}
		without := sample()
		without.Paired = nil
		if err := Write(dir, without); err != nil {
			t.Fatalf("paired rows %v: %v", withPaired, err)
		}
		_, err := os.Stat(paired)
		if withPaired && err == nil {
			t.Error("the earlier report's paired.png was left")
		}
		if !withPaired && err != nil {
			t.Error("a paired.png the earlier report did not draw was removed")
		}
	}
}

// A report is written only over an earlier report: a directory holding
// someone's index.html is refused and left as it was.
func TestWriteKeepsForeignFiles(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, HTMLFile)
	if err := os.WriteFile(page, []byte("<p>my page</p>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, sample()); err == nil || !strings.Contains(err.Error(), "index.html but no summary.json, so a report did not write it") {
		t.Fatalf("Write over a foreign index.html = %v, want a refusal", err)
	}
	if data, _ := os.ReadFile(page); string(data) != "<p>my page</p>\n" {
		t.Errorf("index.html changed: %q", data)
	}
	for _, f := range []string{CurvesFile, StrataFile, SummaryFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s written beside a foreign page", f)
		}
	}
	// Over its own report it writes again.
	own := t.TempDir()
	for i := 0; i < 2; i++ {
		if err := Write(own, sample()); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
}

// stopAt makes the report's writes fail from the file named stop on, and
// records the files written through safefile (whole, renamed into place).
func stopAt(t *testing.T, stop string) *[]string {
	t.Helper()
	var written []string
	stopped := false
	replaceFile = func(path string, data []byte, check safefile.Check) error {
		if filepath.Base(path) == stop || stopped {
			stopped = true
			return errors.New("stopped")
		}
		written = append(written, filepath.Base(path))
		return safefile.Replace(path, data, check)
	}
	t.Cleanup(func() { replaceFile = safefile.Replace })
	return &written
}

// A report stopped before its second figure, into a fresh directory,
// leaves a summary.json that says so; the next report into that directory
// takes it for a report's and writes the whole report.
func TestWriteStoppedMidway(t *testing.T) {
	dir := t.TempDir()
	stopAt(t, StrataFile)
	if err := Write(dir, sample()); err == nil || !strings.Contains(err.Error(), StrataFile) {
		t.Fatalf("Write = %v, want the stopped figure named", err)
	}
	data, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err != nil {
		t.Fatalf("no summary.json beside the figure written: %v", err)
	}
	if !strings.Contains(string(data), `"incomplete": true`) {
		t.Errorf("summary.json of the stopped report does not say it is incomplete:\n%s", data)
	}
	written := stopAt(t, "")
	if err := Write(dir, sample()); err != nil {
		t.Fatalf("a report into the stopped report's directory: %v", err)
	}
	want := []string{SummaryFile, CurvesFile, StrataFile, PairedFile, HTMLFile, SummaryFile}
	if diff := cmp.Diff(want, *written); diff != "" {
		t.Errorf("files written whole, in order (-want +got):\n%s", diff)
	}
	fresh := t.TempDir()
	replaceFile = safefile.Replace
	if err := Write(fresh, sample()); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{SummaryFile, HTMLFile, CurvesFile, StrataFile, PairedFile} {
		a, _ := os.ReadFile(filepath.Join(dir, name))
		b, _ := os.ReadFile(filepath.Join(fresh, name))
		if !bytes.Equal(a, b) {
			t.Errorf("%s: the rewritten report differs from one written at once", name)
		}
	}
}

// A summary.json a report did not write is refused and left as it was,
// however much it resembles a report's: it must be one exactly.
func TestWriteKeepsForeignSummary(t *testing.T) {
	own := t.TempDir()
	if err := Write(own, sample()); err != nil {
		t.Fatal(err)
	}
	ours, err := os.ReadFile(filepath.Join(own, SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	text := string(ours)
	for name, summary := range map[string]string{
		"notes":      `{"metric": "latency", "methods": ["a", "b"], "my": "own notes"}` + "\n",
		"methods":    `{"metric": "latency", "methods": {}}` + "\n",
		"extra key":  strings.Replace(text, `"metric":`, `"my": "notes",`+"\n"+` "metric":`, 1),
		"case":       strings.Replace(text, `"metric":`, `"Metric":`, 1),
		"twice":      strings.Replace(text, `"metric":`, `"metric": "latency",`+"\n"+` "metric":`, 1),
		"reindented": strings.ReplaceAll(text, "\n ", "\n  "),
		"trailing":   text + "{}\n",
		"files":      strings.Replace(text, `"index.html": [`, `"notes.md": [`, 1),
		"hash":       strings.Replace(text, `"index.html": [`+"\n"+`   "`, `"index.html": [`+"\n"+`   "x`, 1),
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, SummaryFile)
		if err := os.WriteFile(path, []byte(summary), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := Write(dir, sample()); err == nil || !strings.Contains(err.Error(), "not the summary of a report") {
			t.Errorf("%s: Write over a foreign summary.json = %v, want a refusal", name, err)
		}
		if data, _ := os.ReadFile(path); string(data) != summary {
			t.Errorf("%s: summary.json changed", name)
		}
		if _, err := os.Stat(filepath.Join(dir, CurvesFile)); err == nil {
			t.Errorf("%s: a figure written beside a foreign summary.json", name)
		}
	}
}
