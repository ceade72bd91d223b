package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/missingcomplement/mss/internal/repobench"
	"github.com/missingcomplement/mss/internal/safefile"
)

// Latency is a method's per-state retrieval+selection time.
type Latency struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50_ms"`
	P95 float64 `json:"p95_ms"`
}

// Input is everything a report shows.
type Input struct {
	Title       string
	StatesFile  string   // as given on the command line
	Predictions []string // predictions files
	Metric      string   // the headline metric of strata and paired figures, e.g. complete@5
	Scores      []*repobench.MethodScore
	// Latency by method, for methods whose predictions carry timings.
	Latency  map[string]Latency
	Baseline string
	Paired   []repobench.Paired
}

// Files written into the output directory.
const (
	HTMLFile      = "index.html"
	SummaryFile   = "summary.json"
	CurvesFile    = "complete_at_k.png"
	StrataFile    = "strata.png"
	PairedFile    = "paired.png"
	summaryIndent = " "
)

// Write renders the report into dir, creating it if needed.
//
// Every file is written whole, through a temporary file renamed into
// place. summary.json is written first, marked incomplete, and last
// without the mark: a run stopped midway leaves a directory whose
// summary.json says the report is unfinished (its other files may be this
// run's or an earlier report's), and which the next report into dir
// recognises as a report's and replaces.
//
// A report replaces or removes only the files an earlier report wrote,
// as its summary.json lists them (each with its SHA-256, so a file edited
// since is not the report's). A file it did not write is left as it is,
// and when the new report needs its name, nothing is written.
func Write(dir string, in *Input) error {
	if len(in.Scores) == 0 {
		return fmt.Errorf("report: no scores")
	}
	if in.Metric == "" {
		in.Metric = "complete@5"
	}
	type file struct {
		name   string
		render func(*Input) ([]byte, error)
		data   []byte
	}
	files := []*file{{name: CurvesFile, render: curvesPNG}, {name: StrataFile, render: strataPNG}}
	if len(in.Paired) > 0 {
		files = append(files, &file{name: PairedFile, render: pairedPNG})
	}
	files = append(files, &file{name: HTMLFile, render: renderHTML})
	var names []string
	for _, f := range files {
		data, err := f.render(in)
		if err != nil {
			return fmt.Errorf("report: %s: %w", f.name, err)
		}
		f.data = data
		names = append(names, f.name)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	earlier, err := checkDir(dir, names)
	if err != nil {
		return err
	}
	sum := Summarize(in)
	sum.Incomplete = true
	sum.Files = map[string][]string{}
	final := map[string][]string{}
	for _, f := range files {
		final[f.name] = []string{sha256Hex(f.data)}
	}
	for _, n := range reportFiles {
		h := slices.Clone(final[n])
		for _, e := range earlier[n] {
			if !slices.Contains(h, e) {
				h = append(h, e)
			}
		}
		if len(h) > 0 {
			sum.Files[n] = h
		}
	}
	if err := writeFile(dir, SummaryFile, sum.marshal); err != nil {
		return err
	}
	for _, f := range files {
		if f.name == HTMLFile {
			// A figure of an earlier report the page no longer shows
			// would contradict it.
			if err := removeStale(dir, names, earlier); err != nil {
				return err
			}
		}
		if err := writeFile(dir, f.name, func() ([]byte, error) { return f.data, nil }); err != nil {
			return err
		}
	}
	sum.Incomplete = false
	sum.Files = final
	return writeFile(dir, SummaryFile, sum.marshal)
}

// reportFiles are the files a report writes beside summary.json.
var reportFiles = []string{HTMLFile, CurvesFile, StrataFile, PairedFile}

// removeStale removes the files in dir an earlier report wrote (earlier
// lists them, checkDir) that this one, writing names, does not.
func removeStale(dir string, names []string, earlier map[string][]string) error {
	for _, n := range reportFiles {
		if slices.Contains(names, n) || earlier[n] == nil {
			continue
		}
		p := filepath.Join(dir, n)
		if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if !ownFile(earlier[n], data) {
			continue
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// ownFile says whether data, a file's bytes, has one of hashes (those an
// earlier report wrote at its name).
func ownFile(hashes []string, data []byte) bool {
	return slices.Contains(hashes, sha256Hex(data))
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Summary is summary.json.
type Summary struct {
	Title       string                   `json:"title"`
	StatesFile  string                   `json:"states_file"`
	Predictions []string                 `json:"predictions"`
	Budget      int                      `json:"budget"`
	Ks          []int                    `json:"ks"`
	Methods     map[string]MethodSummary `json:"methods"`
	Baseline    string                   `json:"baseline,omitempty"`
	Metric      string                   `json:"metric"`
	Paired      []repobench.Paired       `json:"paired,omitempty"`
	// Incomplete marks the summary of a report being written (Write).
	Incomplete bool `json:"incomplete,omitempty"`
	// Files maps each file the report wrote beside summary.json to the
	// hex SHA-256 of its bytes; while it is being written, to that of
	// what it writes and of what an earlier report left there, so that a
	// report stopped midway leaves files the next one recognises.
	Files map[string][]string `json:"files,omitempty"`
}

// marshal is summary.json's text.
func (s *Summary) marshal() ([]byte, error) {
	data, err := json.MarshalIndent(s, "", summaryIndent)
	return append(data, '\n'), err
}

// MethodSummary is one method's figures in summary.json.
type MethodSummary struct {
	States  int                       `json:"states"`
	Missing int                       `json:"missing_predictions"`
	Mean    map[string]float64        `json:"mean"`
	Strata  map[string]StratumSummary `json:"strata"`
	Latency *Latency                  `json:"latency,omitempty"`
}

// StratumSummary is one stratum's figures.
type StratumSummary struct {
	N    int                `json:"n"`
	Mean map[string]float64 `json:"mean"`
}

// Summarize builds summary.json's content.
func Summarize(in *Input) *Summary {
	s := &Summary{
		Title: in.Title, StatesFile: in.StatesFile, Predictions: in.Predictions,
		Budget: in.Scores[0].Budget, Ks: in.Scores[0].Ks,
		Methods: map[string]MethodSummary{}, Baseline: in.Baseline, Metric: in.Metric, Paired: in.Paired,
	}
	for _, ms := range in.Scores {
		m := MethodSummary{States: len(ms.States), Missing: ms.Missing, Mean: ms.Mean, Strata: map[string]StratumSummary{}}
		for name, st := range ms.Strata {
			m.Strata[name] = StratumSummary{N: st.N, Mean: st.Mean}
		}
		if l, ok := in.Latency[ms.Method]; ok {
			m.Latency = &l
		}
		s.Methods[ms.Method] = m
	}
	return s
}

// strataOf lists the strata of the scores: state types first, then group
// buckets, each sorted.
func strataOf(in *Input) []string {
	seen := map[string]bool{}
	for _, ms := range in.Scores {
		for n := range ms.Strata {
			seen[n] = true
		}
	}
	var types, groups []string
	for n := range seen {
		if n == repobench.OneGroup || n == repobench.TwoGroups {
			groups = append(groups, n)
		} else {
			types = append(types, n)
		}
	}
	sort.Strings(types)
	sort.Strings(groups)
	return append(types, groups...)
}

// replaceFile writes a report's file (safefile.Replace; a test stops a
// report midway through it).
var replaceFile = safefile.Replace

// writeFile renders the report's file name and writes it into dir whole.
func writeFile(dir, name string, render func() ([]byte, error)) error {
	data, err := render()
	if err == nil {
		err = replaceFile(filepath.Join(dir, name), data, nil)
	}
	if err != nil {
		return fmt.Errorf("report: %s: %w", name, err)
	}
	return nil
}

// checkDir returns the files in dir an earlier report wrote, each with
// the SHA-256 of the bytes it wrote, as its summary.json says;
// summary.json must be a report's exactly (ownSummary). It refuses a directory where a file of names,
// the files this report writes, is in the way: one that is not regular,
// or that no earlier report wrote, or that was changed since. Other files
// a report did not write are left to be.
func checkDir(dir string, names []string) (map[string][]string, error) {
	spath := filepath.Join(dir, SummaryFile)
	var earlier *Summary
	if _, err := os.Lstat(spath); err == nil {
		err := safefile.Writable(spath, func(data []byte) error {
			if earlier = ownSummary(data); earlier == nil {
				return fmt.Errorf("not the summary of a report (so %s holds files a report did not write)", dir)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	files := map[string][]string{}
	if earlier != nil {
		files = earlier.Files
		if files == nil {
			// A summary that lists no files, of a report written
			// before summaries did: the report wrote the page and its
			// figures, the paired one with paired rows, whatever they
			// hold now.
			files = map[string][]string{}
			for _, n := range reportFiles {
				if n == PairedFile && len(earlier.Paired) == 0 {
					continue
				}
				p := filepath.Join(dir, n)
				if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
					data, err := os.ReadFile(p)
					if err != nil {
						return nil, err
					}
					files[n] = []string{sha256Hex(data)}
				}
			}
		}
	}
	for _, n := range reportFiles {
		p := filepath.Join(dir, n)
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		if err := safefile.Writable(p, nil); err != nil {
			if !slices.Contains(names, n) {
				continue
			}
			return nil, fmt.Errorf("report: %w", err)
		}
		if !slices.Contains(names, n) {
			continue
		}
		if earlier == nil {
			return nil, fmt.Errorf("report: %s holds %s but no %s, so a report did not write it; refusing to replace it (remove it or choose another directory)", dir, n, SummaryFile)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		if !ownFile(files[n], data) {
			return nil, fmt.Errorf("report: %s: not written by a report, or changed since; refusing to replace it (remove it or choose another directory)", p)
		}
	}
	return files, nil
}

// ownSummary returns data decoded when it is a summary.json as Write
// writes it: it decodes into a Summary that, written again, is the same
// text byte for byte, and lists only a report's files, each with SHA-256
// hashes; else nil. A file that only resembles one (a key of
// its own, a key given twice or in another case, other spacing) is not.
func ownSummary(data []byte) *Summary {
	var s Summary
	if json.Unmarshal(data, &s) != nil || s.Metric == "" || s.Methods == nil {
		return nil
	}
	if again, err := s.marshal(); err != nil || !bytes.Equal(again, data) {
		return nil
	}
	for n, hashes := range s.Files {
		if !slices.Contains(reportFiles, n) {
			return nil
		}
		for _, h := range hashes {
			if len(h) != 64 || strings.Trim(h, "0123456789abcdef") != "" {
				return nil
			}
		}
	}
	return &s
}
