// Package benchbuild makes repository-track benchmarks (state cards and
// their certificates) from SWE-bench-format instances or from a
// repository's own history.
package benchbuild

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/missingcomplement/mss/internal/repobench"
	"github.com/missingcomplement/mss/internal/safefile"
)

// Instance is one issue with its fix: the base commit the fix applies to,
// the issue text and the fix as a unified diff against the base commit.
type Instance struct {
	ID, Repo, BaseCommit string
	Issue, Patch         string
	// TestOutput goes into the states' latest_test_output.
	TestOutput string
	// Where is the instance's origin for messages ("file:line").
	Where string
}

// Alternative is another fix of an instance that passed its tests.
type Alternative struct {
	InstanceID, Patch, Where string
}

// State kinds.
const (
	BeforeSearch        = "before_search"
	AfterFileInspection = "after_file_inspection"
)

// Instance-level skip reasons.
const (
	SkipNoGroups     = "no groups"
	SkipTooMany      = "more than %d groups"
	SkipNoRepository = "no git directory"
	SkipNoCommit     = "unknown base commit"
	SkipBadPatch     = "malformed patch"
	SkipNotApplying  = "patch does not apply to the base commit"
	SkipGitError     = "git could not read a file"
)

// DefaultMaxGroups is the most groups a state may need.
const DefaultMaxGroups = 8

// Builder turns instances into states and labels.
type Builder struct {
	// GitDir finds the git directory of a repository ("owner/name").
	GitDir func(repo string) (string, error)
	// MaxGroups: instances needing more are skipped (DefaultMaxGroups when 0).
	MaxGroups int

	repos map[string]*gitRepo

	// What was left out, by reason: instances, and files of kept or
	// skipped instances.
	SkippedInstances map[string]int
	SkippedFiles     map[string]int
	// Problems are the instances skipped for bad input or missing data,
	// one message each, in input order.
	Problems []string
	// Warnings name the files left out for a name no label can hold
	// (counted in SkippedFiles as the other files left out), in input
	// order.
	Warnings []string

	out      []built
	seenIDs  map[string]string
	alts     map[string][]Alternative
	allAlts  []Alternative
	altNotes []string
}

type built struct {
	inst   Instance
	groups []Group
	alts   [][]Group
}

// NewBuilder makes a builder reading repositories under mirrorRoot
// (<owner>+<name>/repo or <owner>+<name>.git, case-insensitively).
func NewBuilder(mirrorRoot string) *Builder {
	return &Builder{
		GitDir:           func(repo string) (string, error) { return repobench.FindGitDir(mirrorRoot, repo) },
		repos:            map[string]*gitRepo{},
		SkippedInstances: map[string]int{},
		SkippedFiles:     map[string]int{},
		seenIDs:          map[string]string{},
		alts:             map[string][]Alternative{},
	}
}

// Close ends the builder's git processes.
func (b *Builder) Close() error {
	var first error
	keys := make([]string, 0, len(b.repos))
	for k := range b.repos {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := b.repos[k].close(); err != nil && first == nil {
			first = err
		}
	}
	b.repos = map[string]*gitRepo{}
	return first
}

func (b *Builder) maxGroups() int {
	if b.MaxGroups > 0 {
		return b.MaxGroups
	}
	return DefaultMaxGroups
}

func (b *Builder) repo(name string) (*gitRepo, error) {
	if g, ok := b.repos[name]; ok {
		return g, nil
	}
	dir, err := b.GitDir(name)
	if err != nil {
		return nil, err
	}
	g, err := openGit(dir)
	if err != nil {
		return nil, err
	}
	b.repos[name] = g
	return g, nil
}

// AddAlternatives records other passing fixes; they become alternative
// sets of the instances built after.
func (b *Builder) AddAlternatives(alts []Alternative) {
	for _, a := range alts {
		b.alts[a.InstanceID] = append(b.alts[a.InstanceID], a)
	}
	b.allAlts = append(b.allAlts, alts...)
}

func (b *Builder) problem(in Instance, reason string, format string, args ...any) {
	b.SkippedInstances[reason]++
	msg := fmt.Sprintf(format, args...)
	if in.Where != "" {
		msg = in.Where + ": " + msg
	}
	b.Problems = append(b.Problems, fmt.Sprintf("instance %s skipped: %s", in.ID, msg))
}

// Add builds one instance. A bad or unusable instance, or one git cannot
// read, is skipped with its reason recorded.
func (b *Builder) Add(ctx context.Context, in Instance) {
	if prev, dup := b.seenIDs[in.ID]; dup {
		b.problem(in, "duplicate instance_id", "duplicate instance_id (first at %s)", prev)
		return
	}
	b.seenIDs[in.ID] = in.Where
	g, err := b.repo(in.Repo)
	if err != nil {
		b.problem(in, SkipNoRepository, "%v", err)
		return
	}
	if !g.hasCommit(ctx, in.BaseCommit) {
		b.problem(in, SkipNoCommit, "field base_commit: commit %s is not in %s", in.BaseCommit, g.dir)
		return
	}
	groups, notes, err := b.patchGroups(ctx, g, in.BaseCommit, in.Patch, b.SkippedFiles)
	for _, n := range notes {
		if in.Where != "" {
			n = in.Where + ": " + n
		}
		b.Warnings = append(b.Warnings, fmt.Sprintf("instance %s: %s", in.ID, n))
	}
	if err != nil {
		reason := SkipBadPatch
		var na notApplying
		var gf gitFailure
		switch {
		case errors.As(err, &na):
			reason = SkipNotApplying
		case errors.As(err, &gf):
			reason = SkipGitError
		}
		b.problem(in, reason, "field patch: %v", err)
		return
	}
	if len(groups) == 0 {
		b.SkippedInstances[SkipNoGroups]++
		return
	}
	if len(groups) > b.maxGroups() {
		b.SkippedInstances[fmt.Sprintf(SkipTooMany, b.maxGroups())]++
		return
	}
	var alts [][]Group
	for _, a := range b.alts[in.ID] {
		ag, _, err := b.patchGroups(ctx, g, in.BaseCommit, a.Patch, nil)
		if err != nil {
			b.altNotes = append(b.altNotes, fmt.Sprintf("%s: alternative of %s left out: field patch: %v", a.Where, in.ID, err))
			continue
		}
		if len(ag) == 0 || len(ag) > b.maxGroups() || sameGroups(ag, groups) {
			continue
		}
		dup := false
		for _, prev := range alts {
			dup = dup || sameGroups(prev, ag)
		}
		if !dup {
			alts = append(alts, ag)
		}
	}
	b.out = append(b.out, built{inst: in, groups: groups, alts: alts})
}

// AlternativeNotes are the alternatives left out for bad patches, then
// those of an instance id no instance added has, in the order given.
func (b *Builder) AlternativeNotes() []string {
	notes := slices.Clone(b.altNotes)
	for _, a := range b.allAlts {
		if _, ok := b.seenIDs[a.InstanceID]; !ok {
			notes = append(notes, fmt.Sprintf("%s: alternative of %s left out: no instance has that instance_id", a.Where, a.InstanceID))
		}
	}
	return notes
}

func sameGroups(a, b []Group) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Path != b[i].Path || fmt.Sprint(a[i].Lines) != fmt.Sprint(b[i].Lines) {
			return false
		}
	}
	return true
}

// patchGroups parses a fix and finds its groups at the base commit. Files
// left out are counted by reason in skipped (when not nil); notes say
// which files were left out for a name no label can hold.
func (b *Builder) patchGroups(ctx context.Context, g *gitRepo, base, patch string, skipped map[string]int) (groups []Group, notes []string, err error) {
	if strings.TrimSpace(patch) == "" {
		return nil, nil, fmt.Errorf("empty")
	}
	files, err := ParsePatch(patch)
	if err != nil {
		return nil, nil, err
	}
	if len(files) == 0 {
		return nil, nil, fmt.Errorf("no file diffs")
	}
	if err := repeatedFile(files); err != nil {
		return nil, nil, err
	}
	// Files left out are counted once the whole patch is read: a patch
	// refused halfway leaves out no file.
	left := map[string]int{}
	skip := func(reason string) { left[reason]++ }
	for _, fd := range files {
		p := fd.OldPath
		r := fd.linkOrSubmodule()
		switch {
		case !utf8.ValidString(fd.OldPath) || !utf8.ValidString(fd.NewPath):
			// A label's path is JSON text: such a name would be written
			// as another file's, with U+FFFD for its bytes.
			bad := fd.OldPath
			if utf8.ValidString(bad) {
				bad = fd.NewPath
			}
			skip(SkipNameNotUTF8)
			notes = append(notes, fmt.Sprintf("file %q left out: its name is not UTF-8, which no label can hold", bad))
			continue
		case r != "":
			// A link's blob is its target's name, a submodule's entry a
			// commit of another repository: no code to point at.
			skip(r)
			continue
		case fd.Binary:
			skip(SkipBinary)
			continue
		case fd.OldPath == "":
			// A file the patch makes must be new: git does not apply
			// a patch that makes a file the base commit has. Asked of
			// the running cat-file, not a git process per new file
			// (mining history meets one or more in most commits); a
			// partial clone lacking that file's blob is not asked.
			if _, file, err := g.blob(base + ":" + fd.NewPath); err != nil {
				return nil, nil, gitFailure{err}
			} else if file {
				return nil, nil, notApplying{fmt.Errorf("patch line %d: %s does not apply: it makes the file, which the base commit has", fd.Line, fd.NewPath)}
			}
			if r := PathReason(fd.NewPath); r != "" {
				skip(r)
			} else {
				skip(SkipAdded)
			}
			continue
		}
		// Every hunk of a file the base commit has must apply to it, the
		// files left out by their path or content too.
		var src []byte
		found := false
		if len(fd.Hunks) > 0 {
			var err error
			if src, found, err = g.blob(base + ":" + p); err != nil {
				return nil, nil, gitFailure{err}
			}
			if found {
				if err := applies(fd, src); err != nil {
					return nil, nil, err
				}
			} else if file, err := g.hasFile(ctx, base, p); err != nil {
				return nil, nil, gitFailure{err}
			} else if !file {
				// Not a blob missing from a partial clone: the base
				// commit has no file there for the hunks to apply to.
				return nil, nil, notApplying{fmt.Errorf("patch line %d: %s does not apply: the base commit has no file of that name", fd.Line, p)}
			}
		}
		if r := PathReason(p); r != "" {
			skip(r)
			continue
		}
		if fd.NewPath == "" {
			skip(SkipDeleted)
			continue
		}
		changes := fd.Changes()
		if len(changes) == 0 {
			continue
		}
		if !found {
			skip(SkipMissing)
			continue
		}
		if r := ContentReason(src); r != "" {
			skip(r)
			continue
		}
		gs, imp := FileGroups(p, src, changes)
		if len(imp) > 0 {
			skip(SkipImportOnly)
		}
		groups = append(groups, gs...)
	}
	if skipped != nil {
		for r, n := range left {
			skipped[r] += n
		}
	}
	sortGroups(groups)
	return groups, notes, nil
}

// Count is how many instances and states were built.
func (b *Builder) Count() (instances, states int) {
	for _, o := range b.out {
		states++
		if len(o.groups) >= 2 {
			states++
		}
	}
	return len(b.out), states
}

// manifestName is the file in an output directory that records what
// Write wrote there (each file's SHA-256), so a later Write replaces only
// files it wrote and nobody changed since.
const manifestName = ".mss-bench-build.json"

type manifest struct {
	// Files maps a file name to the hex SHA-256 of what Write wrote: while
	// a Write is under way, of what it found and of what it writes, so a
	// run killed between two renames leaves files the next run recognises.
	Files map[string][]string `json:"files"`
	// Leftovers names the files a Write under way may leave if it is
	// killed: its temporary files, each named here before it is made, and
	// the earlier states it sets aside.
	Leftovers []string `json:"leftovers,omitempty"`
	// Next is the temporary file the next manifest is written through,
	// named here before it is made: a leftover too.
	Next string `json:"next,omitempty"`
}

// Write writes states.jsonl and labels.jsonl into dir (created if
// missing). It never replaces a file it did not write: an existing
// non-empty states.jsonl or labels.jsonl must be the one an earlier Write
// left there, unchanged (the manifest it keeps beside them says so), or
// nothing is written.
//
// The two files are one track, put in place in an order that a run killed
// at any point leaves the earlier pair, the new pair, or labels.jsonl
// without states.jsonl, which every reader refuses (the earlier states
// are kept aside as .states.jsonl.old until the new ones are in place):
// never the states of one run beside the labels of another. The files a
// run killed before left are removed by the next when the manifest names
// them (its temporary files have names it chose and recorded before
// making them); a file of such a name that the manifest does not name is
// left as it is, and a .states.jsonl.old it does not name, or whose
// content is not the states it lists, is refused.
func (b *Builder) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var states, labels strings.Builder
	if err := b.WriteTo(&states, &labels); err != nil {
		return err
	}
	files := []struct {
		name, text string
	}{{"states.jsonl", states.String()}, {"labels.jsonl", labels.String()}}
	mpath := filepath.Join(dir, manifestName)
	var old manifest
	if data, err := os.ReadFile(mpath); err == nil {
		if err := checkManifest(data); err != nil {
			return fmt.Errorf("%s: %w; refusing to replace it (remove it or choose another --out)", mpath, err)
		}
		json.Unmarshal(data, &old)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := safefile.Writable(p, nil); err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) || (err == nil && len(data) == 0) {
			continue
		}
		if err != nil {
			return err
		}
		if !slices.Contains(old.Files[f.name], sha256Hex(data)) {
			return fmt.Errorf("%s: not written by mss bench build, or changed since it was; refusing to replace it (remove it or choose another --out)", p)
		}
	}
	aside := filepath.Join(dir, statesAside)
	if err := checkAside(aside, old); err != nil {
		return err
	}
	if err := removeLeftovers(dir, old); err != nil {
		return err
	}
	statesPath, labelsPath := filepath.Join(dir, "states.jsonl"), filepath.Join(dir, "labels.jsonl")
	statesTmp, labelsTmp := safefile.TempName(statesPath), safefile.TempName(labelsPath)
	during, after := manifest{Files: map[string][]string{}}, manifest{Files: map[string][]string{}}
	for _, f := range files {
		h := sha256Hex([]byte(f.text))
		during.Files[f.name] = append([]string{h}, old.Files[f.name]...)
		after.Files[f.name] = []string{h}
	}
	during.Leftovers = []string{filepath.Base(statesTmp), filepath.Base(labelsTmp), statesAside}
	during.Next = filepath.Base(safefile.TempName(mpath))
	after.Next = filepath.Base(safefile.TempName(mpath))
	// A directory without a manifest names no file to write the first
	// through: a run killed while writing it leaves a temporary file no
	// later run can tell for its own, and so leaves.
	via := safefile.TempName(mpath)
	if old.Next != "" {
		via = filepath.Join(dir, old.Next)
	}
	if err := writeManifest(mpath, via, during); err != nil {
		return err
	}
	if err := writeStep("manifest of the run"); err != nil {
		return err
	}
	if err := safefile.WriteNew(statesTmp, []byte(files[0].text)); err != nil {
		return err
	}
	if err := safefile.WriteNew(labelsTmp, []byte(files[1].text)); err != nil {
		os.Remove(statesTmp)
		return err
	}
	if err := writeStep("temporary files"); err != nil {
		return err
	}
	steps := []struct {
		what     string
		from, to string
	}{
		{"earlier states aside", statesPath, aside},
		{"labels in place", labelsTmp, labelsPath},
		{"states in place", statesTmp, statesPath},
	}
	for _, st := range steps {
		err := os.Rename(st.from, st.to)
		if err != nil && !(st.from == statesPath && errors.Is(err, fs.ErrNotExist)) {
			os.Remove(statesTmp)
			os.Remove(labelsTmp)
			return err
		}
		if err := writeStep(st.what); err != nil {
			return err
		}
	}
	if err := os.Remove(aside); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := writeStep("earlier states removed"); err != nil {
		return err
	}
	return writeManifest(mpath, filepath.Join(dir, during.Next), after)
}

// statesAside is where Write keeps the earlier states.jsonl while it puts
// the new pair in place.
const statesAside = ".states.jsonl.old"

// writeStep is called after each step of Write; an error stops Write
// there, as a killed run stops (tests).
var writeStep = func(string) error { return nil }

// checkAside refuses a file at aside, where Write sets the earlier states
// aside, unless the manifest m names it and it holds states m lists (or
// nothing): the earlier states of a run killed before it removed them.
func checkAside(aside string, m manifest) error {
	fi, err := os.Lstat(aside)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	refuse := fmt.Errorf("%s: not left by mss bench build; refusing to replace it (remove it or choose another --out)", aside)
	if !fi.Mode().IsRegular() || !slices.Contains(m.Leftovers, statesAside) {
		return refuse
	}
	data, err := os.ReadFile(aside)
	if err != nil {
		return err
	}
	if len(data) > 0 && !slices.Contains(m.Files["states.jsonl"], sha256Hex(data)) {
		return refuse
	}
	return nil
}

// removeLeftovers removes what a Write killed halfway left in dir, as the
// manifest m names it: its temporary files and the states it had set
// aside (which checkAside accepted). Only regular files are removed.
func removeLeftovers(dir string, m manifest) error {
	names := m.Leftovers
	if m.Next != "" {
		names = append(slices.Clone(names), m.Next)
	}
	for _, n := range names {
		p := filepath.Join(dir, n)
		if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if err := os.Remove(p); err != nil {
			return err
		}
	}
	return nil
}

// writeManifest writes m to path through the new temporary file via.
func writeManifest(path, via string, m manifest) error {
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := safefile.Writable(path, checkManifest); err != nil {
		return err
	}
	if err := safefile.WriteNew(via, append(data, '\n')); err != nil {
		return err
	}
	if err := os.Rename(via, path); err != nil {
		os.Remove(via)
		return err
	}
	return nil
}

// checkManifest accepts an earlier manifest of Write: one whose leftovers
// are names Write gives its temporary files and the states it sets aside,
// in the manifest's directory.
func checkManifest(data []byte) error {
	var m manifest
	if json.Unmarshal(data, &m) != nil || m.Files == nil {
		return errors.New("not a manifest mss bench build wrote")
	}
	for _, n := range append(slices.Clone(m.Leftovers), m.Next) {
		if n != "" && !leftoverName(n) {
			return fmt.Errorf("names %q, not a file mss bench build leaves; not a manifest it wrote", n)
		}
	}
	return nil
}

// leftoverName says whether n is a name Write gives a file it may leave:
// a temporary file of one of its outputs (safefile.TempName) or the
// states it sets aside.
func leftoverName(n string) bool {
	if n == statesAside {
		return true
	}
	for _, out := range []string{"states.jsonl", "labels.jsonl", manifestName} {
		suffix, ok := strings.CutPrefix(n, "."+out+".tmp")
		if ok && len(suffix) == 16 && strings.Trim(suffix, "0123456789abcdef") == "" {
			return true
		}
	}
	return false
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// WriteTo writes the states and labels lines to two writers.
func (b *Builder) WriteTo(states, labels io.Writer) error {
	var s, l strings.Builder
	for _, o := range b.out {
		writeState(&s, o, BeforeSearch)
		writeLabel(&l, o, BeforeSearch)
		if len(o.groups) >= 2 {
			writeState(&s, o, AfterFileInspection)
			writeLabel(&l, o, AfterFileInspection)
		}
	}
	if _, err := io.WriteString(states, s.String()); err != nil {
		return err
	}
	_, err := io.WriteString(labels, l.String())
	return err
}

const (
	needBefore = "Find the code that must change to resolve this issue."
	needAfter  = "%s in %s has been read. Find the other code that must change together with it to resolve the issue."
	observed   = "FILE %s:%d-%d (%s): read in full; its text is in the repository at these lines"
)

func writeState(b *strings.Builder, o built, kind string) {
	in := o.inst
	need, observation := needBefore, ""
	opened := []any{}
	spans := []any{}
	if kind == AfterFileInspection {
		g := o.groups[0]
		need = fmt.Sprintf(needAfter, g.Symbol, g.Path)
		observation = fmt.Sprintf(observed, g.Path, g.Span[0], g.Span[1], g.Symbol)
		opened = append(opened, g.Path)
		spans = append(spans, obj{{"path", g.Path}, {"start_line", g.Span[0]}, {"end_line", g.Span[1]}, {"symbol", g.Symbol}})
	}
	writeJSON(b, obj{
		{"instance_id", in.ID},
		{"repo", in.Repo},
		{"base_commit", in.BaseCommit},
		{"issue", in.Issue},
		{"current_hypothesis", ""},
		{"current_subgoal", ""},
		{"search_queries", []any{}},
		{"latest_test_output", in.TestOutput},
		{"state_id", in.ID + ":" + kind},
		{"state_type", kind},
		{"information_need", need},
		{"current_observation", observation},
		{"opened_files", opened},
		{"observed_spans", spans},
	})
	b.WriteByte('\n')
}

func writeLabel(b *strings.Builder, o built, kind string) {
	groups := []any{}
	for i, g := range o.groups {
		if kind == AfterFileInspection && i == 0 {
			continue
		}
		groups = append(groups, obj{
			{"path", g.Path}, {"symbol", g.Symbol}, {"span", g.Span}, {"lines", g.Lines},
			{"group_id", fmt.Sprintf("G%d", i+1)}, {"minimum_required", 1}, {"necessity_weight", 1.0}, {"role", "edit_site"},
		})
	}
	alts := []any{}
	if kind == BeforeSearch {
		for _, set := range o.alts {
			gs := []any{}
			for _, g := range set {
				gs = append(gs, obj{{"path", g.Path}, {"symbol", g.Symbol}, {"span", g.Span}, {"lines", g.Lines}})
			}
			alts = append(alts, gs)
		}
	}
	writeJSON(b, obj{{"state_id", o.inst.ID + ":" + kind}, {"required_groups", groups}, {"alternative_sets", alts}})
	b.WriteByte('\n')
}
