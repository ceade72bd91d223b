package retrieve

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/missingcomplement/mss/internal/gitpath"
	"github.com/missingcomplement/mss/lexical"
)

// The history view reads the repository's own commits before the state's
// base commit (never after: that would leak the fix). Two signals come from
// them: files that changed together with files the state points at
// (co-change), and files touched by past commits whose messages match the
// state's text. File scores become unit scores through each file's units'
// lexical scores.
const (
	// DefaultHistoryCommits bounds the commits read, newest first.
	DefaultHistoryCommits = 2000
	// histMaxFiles skips commits touching more files than this (mass
	// renames, reformatting): they relate everything to everything.
	histMaxFiles = 25
	// histMessageTop is how many best-matching commit messages count.
	histMessageTop = 20
	histCoChange   = 1.0
	histMessage    = 0.7
	// Anchor files: observed, named by the state, best of other views.
	histAnchorObserved = 1.0
	histAnchorNamed    = 0.7
	histAnchorTop      = 0.3
	histAnchorTopN     = 5
)

type history struct {
	commits  [][]string // files per commit, present in the snapshot
	byFile   map[string][]int
	messages *lexical.Index
}

// historyLogs keeps the parsed logs of the snapshots opened last: the
// engines built over one snapshot (a commit's answers, a stored engine
// and its overlay) read its log once. It holds historyKeep logs at most,
// the least recently used leaving first, so that a process that moves
// from commit to commit (mss bench repo, a server following HEAD) does
// not keep every log it ever read. A log being read is waited for, not
// read twice, and readers of other snapshots do not wait for it.
var historyLogs = &logCache{m: map[string]*logEntry{}}

// historyKeep is how many logs historyLogs keeps.
const historyKeep = 8

type logCache struct {
	mu   sync.Mutex
	m    map[string]*logEntry
	used recency // keys
}

type logEntry struct {
	done chan struct{} // closed once log or err is set
	log  *historyLog
	err  error
}

// historyLog is the parsed git log of one (gitdir, commit, n), shared by
// engines built over the same snapshot.
type historyLog struct {
	files    [][]string
	messages []string
}

func historyKey(gitDir, commit string, n int) string {
	return fmt.Sprintf("%s\x00%s\x00%d", gitDir, commit, n)
}

// get returns the log of key, calling read to read it unless it is kept
// or being read; a failed read is not kept.
func (c *logCache) get(key string, read func() (*historyLog, error)) (*historyLog, error) {
	c.mu.Lock()
	if e, ok := c.m[key]; ok {
		c.touch(key)
		c.mu.Unlock()
		<-e.done
		return e.log, e.err
	}
	e := &logEntry{done: make(chan struct{})}
	c.m[key] = e
	c.touch(key)
	c.mu.Unlock()
	e.log, e.err = read()
	close(e.done)
	if e.err != nil {
		c.mu.Lock()
		if c.m[key] == e {
			delete(c.m, key)
			c.used.drop(key)
		}
		c.mu.Unlock()
	}
	return e.log, e.err
}

// put keeps log under key unless a log is kept or being read there.
func (c *logCache) put(key string, log *historyLog) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[key]; !ok {
		e := &logEntry{done: make(chan struct{}), log: log}
		close(e.done)
		c.m[key] = e
	}
	c.touch(key)
}

// touch marks key used last and lets the least recently used logs go
// past historyKeep; c.mu is held.
func (c *logCache) touch(key string) {
	c.used.use(key, historyKeep, func(k string) { delete(c.m, k) })
}

// clear drops every kept log.
func (c *logCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.m)
	c.used = nil
}

// recency orders a cache's keys, least recently used first.
type recency []string

// drop takes key out of the order.
func (r *recency) drop(key string) {
	*r = slices.DeleteFunc(*r, func(k string) bool { return k == key })
}

// use marks key used last, and drops the keys past the keep most
// recently used from the order and, by calling drop, from the cache.
func (r *recency) use(key string, keep int, drop func(string)) {
	r.drop(key)
	*r = append(*r, key)
	for len(*r) > keep {
		drop((*r)[0])
		*r = (*r)[1:]
	}
}

// prefetchHistory starts reading the git log the history view of an
// engine built with opts reads (its GitDir and Commit), so that git
// reads it while the engine is built. It does nothing when opts names no
// commit or leaves the history view off; an error is reported by the
// engine.
func prefetchHistory(opts Options) {
	if opts.GitDir == "" || opts.Commit == "" || disabled(opts, ViewHistory) {
		return
	}
	go readHistory(opts.GitDir, opts.Commit, historyCommits(opts))
}

func readHistory(gitDir, commit string, n int) (*historyLog, error) {
	return historyLogs.get(historyKey(gitDir, commit, n), func() (*historyLog, error) {
		return gitHistory(gitDir, commit, n)
	})
}

// gitHistory reads n commits of the log of commit, newest first, with
// the files each touched. What the log says of a commit (its message and
// the files it touched) is the commit's alone, so it is kept
// (commitFacts): once a git directory's log has been read, the log of
// another commit lists its commits (git rev-list, which does not compare
// trees) and reads only those not read before.
func gitHistory(gitDir, commit string, n int) (*historyLog, error) {
	if !commitFacts.knows(gitDir) {
		order, facts, err := gitLog(gitDir, []string{fmt.Sprintf("-n%d", n), "--no-merges", commit, "--"}, "")
		if err != nil {
			return nil, fmt.Errorf("git log %s in %s: %w", commit, gitDir, err)
		}
		commitFacts.keep(gitDir, facts, 2*n)
		return assembleLog(order, facts), nil
	}
	order, err := gitRevList(gitDir, commit, n)
	if err != nil {
		return nil, fmt.Errorf("git rev-list %s in %s: %w", commit, gitDir, err)
	}
	facts, missing := commitFacts.lookup(gitDir, order)
	if len(missing) > 0 {
		_, read, err := gitLog(gitDir, []string{"--no-walk=unsorted", "--stdin"}, strings.Join(missing, "\n")+"\n")
		if err != nil {
			return nil, fmt.Errorf("git log of %d commits of %s in %s: %w", len(missing), commit, gitDir, err)
		}
		for _, h := range missing {
			f, ok := read[h]
			if !ok {
				return nil, fmt.Errorf("git log of %s in %s: commit %s not reported", commit, gitDir, h)
			}
			facts[h] = f
		}
	}
	commitFacts.keep(gitDir, facts, 2*n)
	return assembleLog(order, facts), nil
}

// commitFact is what the log says of one commit.
type commitFact struct {
	message string
	files   []string
}

// assembleLog lays out the facts of the commits in order.
func assembleLog(order []string, facts map[string]commitFact) *historyLog {
	h := &historyLog{files: make([][]string, 0, len(order)), messages: make([]string, 0, len(order))}
	for _, c := range order {
		f := facts[c]
		h.files = append(h.files, f.files)
		h.messages = append(h.messages, f.message)
	}
	return h
}

// gitLog runs git log with args (and stdin, when not empty) and returns
// the commits it reported, in its order, and what it said of each.
func gitLog(gitDir string, args []string, stdin string) ([]string, map[string]commitFact, error) {
	cmd := exec.Command("git", append([]string{"--git-dir", gitDir, "log", "--no-renames",
		"--format=%x00%H%n%s%n%b%x01", "--name-only"}, args...)...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	out, err := gitOutput(cmd)
	if err != nil {
		return nil, nil, err
	}
	var order []string
	facts := map[string]commitFact{}
	for _, rec := range strings.Split(out, "\x00") {
		head, files, ok := strings.Cut(rec, "\x01")
		if !ok {
			continue
		}
		hash, msg, _ := strings.Cut(head, "\n")
		var fs []string
		// One name a line, as git prints it: a name may start or end
		// with a space.
		for _, f := range strings.Split(files, "\n") {
			if f != "" {
				fs = append(fs, gitpath.Unquote(f))
			}
		}
		order = append(order, hash)
		facts[hash] = commitFact{message: msg, files: fs}
	}
	return order, facts, nil
}

// gitRevList lists the n commits but merges that git log of commit would
// show, in its order.
func gitRevList(gitDir, commit string, n int) ([]string, error) {
	out, err := gitOutput(exec.Command("git", "--git-dir", gitDir, "rev-list", "--no-merges",
		fmt.Sprintf("-n%d", n), commit, "--"))
	if err != nil {
		return nil, err
	}
	return strings.Fields(out), nil
}

// gitOutput runs cmd and returns its output, or an error with what git
// wrote to its standard error.
func gitOutput(cmd *exec.Cmd) (string, error) {
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// commitFacts keeps what the log said of the commits of the git
// directories read last (factsKeep of them, the least recently used
// leaving first).
var commitFacts = &factCache{dirs: map[string]map[string]commitFact{}}

// factsKeep is how many git directories commitFacts keeps: a process
// moves through one repository at a time, or a few (mss bench repo
// --concurrency), and what it read of the others is let go.
const factsKeep = 2

type factCache struct {
	mu   sync.Mutex
	dirs map[string]map[string]commitFact
	used recency // git directories
}

// knows says whether the commits of gitDir were read before.
func (c *factCache) knows(gitDir string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.dirs[gitDir]) > 0
}

// lookup returns the kept facts of the commits of order, and the commits
// it keeps none of, in order.
func (c *factCache) lookup(gitDir string, order []string) (map[string]commitFact, []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.dirs[gitDir]
	facts := make(map[string]commitFact, len(order))
	var missing []string
	for _, h := range order {
		if f, ok := m[h]; ok {
			facts[h] = f
		} else {
			missing = append(missing, h)
		}
	}
	return facts, missing
}

// keep adds facts (those of the log read last) to those of gitDir. Past
// limit commits, those kept before go, and only facts stay.
func (c *factCache) keep(gitDir string, facts map[string]commitFact, limit int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.dirs[gitDir]
	if m == nil {
		m = make(map[string]commitFact, len(facts))
	}
	for h, f := range facts {
		m[h] = f
	}
	if len(m) > limit {
		m = maps.Clone(facts)
	}
	c.dirs[gitDir] = m
	c.used.use(gitDir, factsKeep, func(d string) { delete(c.dirs, d) })
}

// clear drops every kept fact.
func (c *factCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.dirs)
	c.used = nil
}

// historyCommits is how many commits the history view reads.
func historyCommits(opts Options) int {
	if opts.HistoryCommits <= 0 {
		return DefaultHistoryCommits
	}
	return opts.HistoryCommits
}

func loadHistory(gitDir, commit, prefix string, n int, e *Engine) (*history, error) {
	log, err := readHistory(gitDir, commit, n)
	if err != nil {
		return nil, err
	}
	h := &history{byFile: map[string][]int{}}
	b := lexical.NewBuilder(lexical.Field{Name: "message", Weight: 1})
	for i, fs := range log.files {
		var keep []string
		if len(fs) <= histMaxFiles {
			for _, f := range fs {
				if f, ok := strings.CutPrefix(f, prefix); ok && e.hasPath(f) {
					keep = append(keep, f)
				}
			}
		}
		sort.Strings(keep)
		c := len(h.commits)
		h.commits = append(h.commits, keep)
		for _, f := range keep {
			h.byFile[f] = append(h.byFile[f], c)
		}
		b.Add(log.messages[i])
	}
	h.messages = b.Build()
	return h, nil
}

// historyView scores files by co-change with the state's anchor files and
// by matching commit messages, then spreads file scores over their units.
func (e *Engine) historyView(q *query, views map[string][]hit) []hit {
	h := e.hist
	anchors := map[string]float64{}
	for _, i := range q.obsOrder {
		p := e.unitAt(i).Path
		anchors[p] = max(anchors[p], histAnchorObserved)
	}
	for p, s := range q.files {
		anchors[p] = max(anchors[p], histAnchorNamed*s)
	}
	for _, v := range []string{ViewEntity, ViewLexical} {
		for k, hh := range views[v] {
			if k >= histAnchorTopN {
				break
			}
			p := e.unitAt(hh.idx).Path
			anchors[p] = max(anchors[p], histAnchorTop)
		}
	}
	file := map[string]float64{}
	for _, a := range sortedKeys(anchors) {
		w := anchors[a]
		cs := h.byFile[a]
		if len(cs) == 0 {
			continue
		}
		co := map[string]int{}
		for _, c := range cs {
			for _, f := range h.commits[c] {
				if f != a {
					co[f]++
				}
			}
		}
		for _, f := range sortedKeys(co) {
			file[f] += w * histCoChange * float64(co[f]) / math.Sqrt(float64(len(cs)*len(h.byFile[f])))
		}
	}
	if h.messages.Len() > 0 {
		hits := h.messages.Search(q.terms, histMessageTop)
		if len(hits) > 0 && hits[0].Score > 0 {
			top := hits[0].Score
			for _, hh := range hits {
				fs := h.commits[hh.Doc]
				for _, f := range fs {
					file[f] += histMessage * hh.Score / top / float64(len(fs))
				}
			}
		}
	}
	if len(file) == 0 {
		return nil
	}
	lex := map[int]float64{}
	top := 0.0
	for _, hh := range q.lexHits {
		lex[hh.idx] = hh.score
		top = max(top, hh.score)
	}
	score := map[int]float64{}
	for f, s := range file {
		for _, i := range e.unitsOf(f) {
			if q.observed[i] {
				continue
			}
			l := 0.0
			if top > 0 {
				l = lex[i] / top
			}
			score[i] = s * (0.1 + 0.9*l)
		}
	}
	return e.mapHits(score)
}
