package semantic

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/render"
)

// The oracles are diagnostics: they read gold labels and show what a
// perfect set (oracle-mss) and a set one necessary unit short of it
// (oracle-minus-one) score under the same candidates and budget. They are
// upper and necessity references for a benchmark, never deployable.
//
// Labels come in either benchmark's form, detected per line:
//
//   - pool track (SERBench): required_evidence_groups with
//     acceptable_evidence_ids and minimum_required, optional
//     alternative_minimal_sets, possibly nested under graded_labels;
//   - repository track: required_groups with path and lines ranges, and
//     optional alternative_sets of such groups; a unit covers a group when
//     it is on the group's path and overlaps one of its line ranges.

// lineGroup is a repository-track group.
type lineGroup struct {
	Path            string   `json:"path"`
	Lines           [][2]int `json:"lines"`
	GroupID         string   `json:"group_id"`
	NecessityWeight *float64 `json:"necessity_weight"`
}

// oracleLabel is one state's certificate in either form.
type oracleLabel struct {
	pool     *mss.Certificate
	repo     []lineGroup
	repoAlts [][]lineGroup
}

// loadLabels reads a labels file (.jsonl or .jsonl.gz).
func loadLabels(name string) (map[string]*oracleLabel, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(name, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		defer gz.Close()
		r = gz
	}
	out := map[string]*oracleLabel{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		id, l, err := parseLabel([]byte(line))
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		if _, dup := out[id]; dup {
			return nil, fmt.Errorf("%s:%d: field state_id: %q labelled twice", name, n, id)
		}
		out[id] = l
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, n+1, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no labels", name)
	}
	return out, nil
}

func parseLabel(b []byte) (string, *oracleLabel, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return "", nil, fmt.Errorf("not a JSON object: %v", err)
	}
	obj, prefix := top, ""
	if g, ok := top["graded_labels"]; ok && string(g) != "null" {
		if err := json.Unmarshal(g, &obj); err != nil {
			return "", nil, fmt.Errorf("field graded_labels: %v", err)
		}
		prefix = "graded_labels."
	}
	var id string
	for _, o := range []map[string]json.RawMessage{obj, top} {
		if raw, ok := o["state_id"]; ok {
			if err := json.Unmarshal(raw, &id); err != nil {
				return "", nil, fmt.Errorf("field state_id: %v", err)
			}
			break
		}
	}
	if id == "" {
		return "", nil, errors.New("field state_id: missing or empty")
	}
	switch {
	case obj["required_evidence_groups"] != nil:
		var c mss.Certificate
		if err := json.Unmarshal(mustJSON(obj), &c); err != nil {
			return "", nil, fmt.Errorf("field %srequired_evidence_groups: %v", prefix, err)
		}
		c.StateID = id
		if len(c.Groups) == 0 {
			return "", nil, fmt.Errorf("field %srequired_evidence_groups: empty", prefix)
		}
		for i, g := range c.Groups {
			if len(g.AcceptableIDs) == 0 {
				return "", nil, fmt.Errorf("field %srequired_evidence_groups[%d].acceptable_evidence_ids: empty", prefix, i)
			}
			if g.MinimumRequired <= 0 {
				c.Groups[i].MinimumRequired = 1
			}
		}
		return id, &oracleLabel{pool: &c}, nil
	case obj["required_groups"] != nil:
		var l struct {
			Groups []lineGroup   `json:"required_groups"`
			Alts   [][]lineGroup `json:"alternative_sets"`
		}
		if err := json.Unmarshal(mustJSON(obj), &l); err != nil {
			return "", nil, fmt.Errorf("field required_groups: %v", err)
		}
		if len(l.Groups) == 0 {
			return "", nil, errors.New("field required_groups: empty")
		}
		for i, g := range l.Groups {
			if g.Path == "" || len(g.Lines) == 0 {
				return "", nil, fmt.Errorf("field required_groups[%d]: needs path and lines", i)
			}
		}
		return id, &oracleLabel{repo: l.Groups, repoAlts: l.Alts}, nil
	}
	return "", nil, fmt.Errorf("neither required_evidence_groups (pool track) nor required_groups (repository track) present")
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// Oracle builds the gold set from labels; minusOne drops one necessary unit.
type Oracle struct {
	name     string
	minusOne bool
	labels   map[string]*oracleLabel
	file     string
}

var (
	labelCacheMu sync.Mutex
	labelCache   = map[string]map[string]*oracleLabel{}
)

// NewOracle builds oracle-mss (minusOne false) or oracle-minus-one from
// the labels setting.
func NewOracle(opts mss.MethodOptions, minusOne bool) (*Oracle, error) {
	name := NameOracle
	if minusOne {
		name = NameOracleMinusOne
	}
	file := opts.Settings["labels"]
	if file == "" {
		return nil, fmt.Errorf("%s: needs --set labels=FILE (a labels .jsonl of the pool or repository track)", name)
	}
	labelCacheMu.Lock()
	defer labelCacheMu.Unlock()
	l, ok := labelCache[file]
	if !ok {
		var err error
		if l, err = loadLabels(file); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		labelCache[file] = l
	}
	return &Oracle{name: name, minusOne: minusOne, labels: l, file: file}, nil
}

// Name implements mss.Controller.
func (o *Oracle) Name() string { return o.name }

// need is one group to satisfy: the candidates that satisfy it, how many,
// and its weight.
type need struct {
	group  string
	weight float64
	count  int
	ok     []ranked
}

// Select implements mss.Controller.
func (o *Oracle) Select(ctx context.Context, req *mss.Request) (*mss.Result, error) {
	if err := checkRequest(req); err != nil {
		return nil, fmt.Errorf("%s: %w", o.name, err)
	}
	l := o.labels[req.State.StateID]
	if l == nil {
		return nil, fmt.Errorf("%s: state %q has no label in %s", o.name, req.State.StateID, o.file)
	}
	budget, _, maxUnits := req.Limits()
	ac := newAccounting()
	el := eligible(req)

	var options [][]need // the required groups, then each alternative set
	if c := l.pool; c != nil {
		byID := map[string]ranked{}
		for _, r := range el {
			byID[r.c.Unit.ID] = r
		}
		var req []need
		for _, g := range c.Groups {
			n := need{group: g.GroupID, weight: g.NecessityWeight, count: g.MinimumRequired}
			for _, id := range g.AcceptableIDs {
				if r, ok := byID[id]; ok {
					n.ok = append(n.ok, r)
				}
			}
			req = append(req, n)
		}
		options = append(options, req)
		for i, set := range c.AlternativeSets {
			var alt []need
			for j, id := range set {
				n := need{group: fmt.Sprintf("A%d.%d", i+1, j+1), weight: 1, count: 1}
				if r, ok := byID[id]; ok {
					n.ok = append(n.ok, r)
				}
				alt = append(alt, n)
			}
			options = append(options, alt)
		}
	} else {
		cover := func(groups []lineGroup, prefix string) []need {
			var out []need
			for i, g := range groups {
				w := 1.0
				if g.NecessityWeight != nil {
					w = *g.NecessityWeight
				}
				id := g.GroupID
				if id == "" {
					id = fmt.Sprintf("%s%d", prefix, i+1)
				}
				n := need{group: id, weight: w, count: 1}
				for _, r := range el {
					if covers(&r.c.Unit, g) {
						n.ok = append(n.ok, r)
					}
				}
				out = append(out, n)
			}
			return out
		}
		options = append(options, cover(l.repo, "G"))
		for i, alt := range l.repoAlts {
			options = append(options, cover(alt, fmt.Sprintf("A%d.", i+1)))
		}
	}

	// The cheapest satisfiable option wins (ties: the required groups, then
	// alternatives in order); with none satisfiable, the required groups
	// are delivered as far as the candidates allow.
	best, bestCost := -1, 0
	var bestSet []ranked
	for i, opt := range options {
		set, short := choose(opt)
		if short != "" {
			ac.trace("oracle", "", fmt.Sprintf("option %d not satisfiable from the candidates: %s", i, short))
			continue
		}
		cost := 0
		for _, r := range set {
			cost += unitTokens(&r.c.Unit)
		}
		if best < 0 || cost < bestCost {
			best, bestCost, bestSet = i, cost, set
		}
	}
	if best < 0 {
		bestSet, _ = choose(options[0])
		ac.trace("oracle", "", "no option satisfiable; delivering what the candidates cover")
	} else {
		ac.trace("oracle", "", fmt.Sprintf("option %d chosen (0 = required groups), %d tokens", best, bestCost))
	}
	if o.minusOne && len(bestSet) > 0 {
		drop := heaviest(bestSet, options[max(best, 0)])
		ac.trace("oracle", bestSet[drop].c.Unit.ID, "removed: the one necessary unit oracle-minus-one leaves out")
		bestSet = append(bestSet[:drop:drop], bestSet[drop+1:]...)
	}
	var units []mss.Unit
	for _, r := range bestSet {
		ac.trace("oracle", r.c.Unit.ID, fmt.Sprintf("gold, fused rank %d", r.rank))
		units = append(units, r.c.Unit)
	}
	out, steps := render.Fit(units, budget, maxUnits)
	return &mss.Result{Units: out, Method: o.name, Config: "labels=" + o.file, Trace: append(ac.steps, steps...)}, nil
}

// choose picks, per group, its count cheapest satisfying candidates not
// already picked (ties by fused rank). It names the first short group.
func choose(groups []need) ([]ranked, string) {
	taken := map[string]bool{}
	var set []ranked
	for _, g := range groups {
		ok := append([]ranked(nil), g.ok...)
		sort.SliceStable(ok, func(i, j int) bool {
			a, b := unitTokens(&ok[i].c.Unit), unitTokens(&ok[j].c.Unit)
			if a != b {
				return a < b
			}
			return ok[i].rank < ok[j].rank
		})
		got := 0
		for _, r := range ok {
			if got >= g.count {
				break
			}
			if taken[r.c.Unit.ID] {
				got++ // one unit may serve two groups
				continue
			}
			taken[r.c.Unit.ID] = true
			set = append(set, r)
			got++
		}
		if got < g.count {
			return set, fmt.Sprintf("group %s has %d of %d", g.group, got, g.count)
		}
	}
	return set, ""
}

// heaviest returns the index in set of the unit serving the group of
// greatest necessity weight (ties: the first such group).
func heaviest(set []ranked, groups []need) int {
	bestW, best := -1.0, len(set)-1
	for _, g := range groups {
		for _, r := range g.ok {
			for i, s := range set {
				if s.c.Unit.ID == r.c.Unit.ID && g.weight > bestW {
					bestW, best = g.weight, i
				}
			}
		}
	}
	return best
}

func covers(u *mss.Unit, g lineGroup) bool {
	if u.Path != g.Path {
		return false
	}
	for _, ln := range g.Lines {
		if u.StartLine <= ln[1] && u.EndLine >= ln[0] {
			return true
		}
	}
	return false
}
