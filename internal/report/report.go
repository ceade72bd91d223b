package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

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
func Write(dir string, in *Input) error {
	if len(in.Scores) == 0 {
		return fmt.Errorf("report: no scores")
	}
	if in.Metric == "" {
		in.Metric = "complete@5"
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := checkDir(dir); err != nil {
		return err
	}
	sum := Summarize(in)
	sum.Incomplete = true
	if err := writeFile(dir, SummaryFile, sum.marshal); err != nil {
		return err
	}
	type figure struct {
		name   string
		render func(*Input) ([]byte, error)
	}
	figures := []figure{{CurvesFile, curvesPNG}, {StrataFile, strataPNG}}
	if len(in.Paired) > 0 {
		figures = append(figures, figure{PairedFile, pairedPNG})
	} else {
		// A stale figure from an earlier report would contradict the page.
		if err := os.Remove(filepath.Join(dir, PairedFile)); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	for _, f := range figures {
		if err := writeFile(dir, f.name, func() ([]byte, error) { return f.render(in) }); err != nil {
			return err
		}
	}
	if err := writeFile(dir, HTMLFile, func() ([]byte, error) { return renderHTML(in) }); err != nil {
		return err
	}
	sum.Incomplete = false
	return writeFile(dir, SummaryFile, sum.marshal)
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

// checkDir refuses a directory holding files of a report's names that an
// earlier report did not write: the files must be regular, and
// summary.json must be a report's summary exactly (ownSummary). A report
// is only ever written over an earlier report.
func checkDir(dir string) error {
	names := []string{SummaryFile, HTMLFile, CurvesFile, StrataFile, PairedFile}
	found := false
	for _, n := range names {
		p := filepath.Join(dir, n)
		if _, err := os.Lstat(p); err == nil {
			found = true
		}
		if err := safefile.Writable(p, nil); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	if !found {
		return nil
	}
	if _, err := os.Lstat(filepath.Join(dir, SummaryFile)); err != nil {
		return fmt.Errorf("report: %s holds files named like a report's but no %s, so a report did not write them; choose another directory", dir, SummaryFile)
	}
	return safefile.Writable(filepath.Join(dir, SummaryFile), func(data []byte) error {
		if !ownSummary(data) {
			return fmt.Errorf("not the summary of a report (so %s holds files a report did not write)", dir)
		}
		return nil
	})
}

// ownSummary says whether data is a summary.json as Write writes it: it
// decodes into a Summary that, written again, is the same text byte for
// byte. A file that only resembles one (a key of its own, a key given
// twice or in another case, other spacing) is not.
func ownSummary(data []byte) bool {
	var s Summary
	if json.Unmarshal(data, &s) != nil || s.Metric == "" || s.Methods == nil {
		return false
	}
	again, err := s.marshal()
	return err == nil && bytes.Equal(again, data)
}
