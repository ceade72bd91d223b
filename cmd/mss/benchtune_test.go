package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss/internal/gittest"
	"github.com/missingcomplement/mss/internal/repobench"
	"github.com/missingcomplement/mss/retrieve"
)

// TestBenchTuneReplaysAsBenchRepo checks that answers replayed from the
// candidate cache are the answers a live run gives, that diagnostics and
// the budget curve are printed, and that bench repo --cache records the
// same cache.
func TestBenchTuneReplaysAsBenchRepo(t *testing.T) {
	fx := newBenchFixture(t)
	idx := filepath.Join(fx.dir, "idx")
	live := filepath.Join(fx.dir, "live.{method}.jsonl")
	cache := filepath.Join(fx.dir, "cache.jsonl")
	out, _, err := runBench(t, newBenchRepoCmd, "--states", fx.states, "--labels", fx.labels, "--mirror-root", fx.root,
		"--method", "complement,rrf-grow,bm25", "--output", live, "--index-dir", idx, "--cache", filepath.Join(fx.dir, "repo-cache.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "pool@20  pool@80  pool@200") || !strings.Contains(out, "lost to retrieval") {
		t.Errorf("bench repo --cache prints no diagnostics:\n%s", out)
	}
	// A rerun into the same cache keeps the states it holds, and says so.
	repoCache, err := os.ReadFile(filepath.Join(fx.dir, "repo-cache.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	_, stderr, err := runBench(t, newBenchRepoCmd, "--states", fx.states, "--labels", fx.labels, "--mirror-root", fx.root,
		"--method", "rrf", "--output", filepath.Join(fx.dir, "live-rrf.jsonl"), "--index-dir", idx, "--cache", filepath.Join(fx.dir, "repo-cache.jsonl"))
	if err != nil || !strings.Contains(stderr, "repo-cache.jsonl: held 2 of the states retrieved already") {
		t.Errorf("bench repo --cache again: %v\n%s", err, stderr)
	}
	if again, _ := os.ReadFile(filepath.Join(fx.dir, "repo-cache.jsonl")); !bytes.Equal(again, repoCache) {
		t.Errorf("bench repo --cache recorded the states it held again")
	}
	replayed := filepath.Join(fx.dir, "replay.{method}.jsonl")
	out, _, err = runBench(t, newBenchTuneCmd, "--states", fx.states, "--labels", fx.labels, "--mirror-root", fx.root,
		"--cache", cache, "--index-dir", idx, "--replay", "complement,rrf-grow,bm25,untied=complement:grow_tied=false,shipped=complement:fusion.lexical=1;fusion.k=20", "--output", replayed)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"complement: states=2 missing=0", "untied: states=2", "pool@200", "offered, file shown"} {
		if !strings.Contains(out, want) {
			t.Errorf("bench tune output lacks %q:\n%s", want, out)
		}
	}
	units := func(path string) string {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			// Compare the answers, not the timings.
			i := strings.Index(l, `"units":`)
			j := strings.Index(l, `],"candidates"`)
			if i < 0 || j < i {
				t.Fatalf("%s: unexpected line %s", path, l)
			}
			b.WriteString(l[i:j] + "\n")
		}
		return b.String()
	}
	for _, m := range []string{"complement", "rrf-grow", "bm25"} {
		a, b := units(strings.ReplaceAll(live, "{method}", m)), units(strings.ReplaceAll(replayed, "{method}", m))
		if a != b {
			t.Errorf("%s: replayed answers differ from the live run's:\nlive:\n%s\nreplay:\n%s", m, a, b)
		}
	}
	// The shipped fusion, named, re-fuses the candidates as they were.
	if a, b := units(strings.ReplaceAll(live, "{method}", "complement")), units(strings.ReplaceAll(replayed, "{method}", "shipped")); a != b {
		t.Errorf("re-fused with the shipped weights, the answers differ:\nlive:\n%s\nreplay:\n%s", a, b)
	}
	// A second run reads the cache and retrieves nothing.
	_, stderr, err = runBench(t, newBenchTuneCmd, "--states", fx.states, "--labels", fx.labels, "--mirror-root", fx.root,
		"--cache", cache, "--replay", "rrf")
	if err != nil || strings.Contains(stderr, "retrieving") {
		t.Errorf("second run: %v %s", err, stderr)
	}
	out, _, err = runBench(t, newBenchScoreCmd, "--states", fx.states, "--labels", fx.labels, "--mirror-root", fx.root,
		"--predictions", strings.ReplaceAll(replayed, "{method}", "complement"), "--budgets", "20,6144")
	if err != nil || !strings.Contains(out, "budget curve  C@5 B=20  C@5 B=6144") {
		t.Errorf("budget curve: %v\n%s", err, out)
	}
	if _, _, err := runBench(t, newBenchTuneCmd, "--states", fx.states, "--labels", fx.labels, "--mirror-root", fx.root,
		"--cache", cache, "--replay", "x=complement:nonsense=1"); err == nil || !strings.Contains(err.Error(), "nonsense") {
		t.Errorf("bad variant setting: %v", err)
	}
}

// A count that makes no sense is refused before any work, not repaired.
func TestBenchTuneBadCounts(t *testing.T) {
	fx := newBenchFixture(t)
	for _, a := range [][2]string{
		{"--max-units", "0"}, {"--candidates", "-1"}, {"--concurrency", "0"},
		{"--folds", "1"}, {"--workers", "0"}, {"--rounds", "0"},
	} {
		cache := filepath.Join(t.TempDir(), "cache.jsonl")
		_, _, err := runBench(t, newBenchTuneCmd, "--states", fx.states, "--labels", fx.labels, "--mirror-root", fx.root,
			"--cache", cache, "--fit", a[0], a[1])
		if err == nil || !strings.Contains(err.Error(), a[0]+" "+a[1]+": want") {
			t.Errorf("%s %s: %v, want a refusal naming the flag", a[0], a[1], err)
		}
		if _, err := os.Stat(cache); err == nil {
			t.Errorf("%s %s: the cache was built", a[0], a[1])
		}
	}
}

// A label given to two replayed methods is refused before any work: their
// rows would share a name and the second's predictions would replace the
// first's.
func TestBenchTuneReplayLabelTwice(t *testing.T) {
	fx := newBenchFixture(t)
	for _, spec := range []string{"a=complement,a=bm25", "bm25,bm25", "complement,complement=bm25"} {
		cache := filepath.Join(t.TempDir(), "cache.jsonl")
		_, _, err := runBench(t, newBenchTuneCmd, "--states", fx.states, "--labels", fx.labels, "--mirror-root", fx.root,
			"--cache", cache, "--replay", spec, "--output", filepath.Join(fx.dir, "d-{method}.jsonl"))
		label, _, _ := strings.Cut(strings.Split(spec, ",")[1], "=")
		if err == nil || !strings.Contains(err.Error(), "label "+strconv.Quote(label)+" given twice") {
			t.Errorf("--replay %s: %v, want a refusal naming the label %s", spec, err, label)
		}
		if _, err := os.Stat(cache); err == nil {
			t.Errorf("--replay %s: the cache was built", spec)
		}
	}
}

// A replay's --output replaces only an earlier replay's output of the same
// label: a live run's predictions (with their timings), of another method
// or its own, are refused before any work and left as they were.
func TestBenchTuneReplayOutputOwnership(t *testing.T) {
	fx := newBenchFixture(t)
	live := filepath.Join(fx.dir, "live-complement.jsonl")
	benchJSONL(t, live,
		map[string]any{"state_id": "w-1:before_search", "method": "complement", "units": []any{}, "candidates": 4, "retrieve_ms": 12.5, "select_ms": 0.4},
		map[string]any{"state_id": "w-1:after_file_inspection", "method": "complement", "units": []any{}, "candidates": 4, "retrieve_ms": 10.1, "select_ms": 0.3})
	before, err := os.ReadFile(live)
	if err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(fx.dir, "cache.jsonl")
	args := []string{"--states", fx.states, "--labels", fx.labels, "--mirror-root", fx.root, "--cache", cache}
	for spec, want := range map[string]string{
		"bm25":       `line 1: field method: "complement", but this replay writes "bm25"`,
		"complement": "line 1: field retrieve_ms: a live run's record",
	} {
		_, _, err := runBench(t, newBenchTuneCmd, append(args, "--replay", spec, "--output", live)...)
		if err == nil || !strings.Contains(err.Error(), live+": "+want) {
			t.Errorf("--replay %s over a live run's output: %v, want a refusal with %q", spec, err, want)
		}
		if _, err := os.Stat(cache); err == nil {
			t.Fatalf("--replay %s: the cache was built before the refusal", spec)
		}
	}
	if after, _ := os.ReadFile(live); !bytes.Equal(before, after) {
		t.Errorf("the live run's output changed:\n%s", after)
	}
	// Over its own earlier output a replay writes again.
	own := filepath.Join(fx.dir, "replay-{method}.jsonl")
	for i := 0; i < 2; i++ {
		if _, _, err := runBench(t, newBenchTuneCmd, append(args, "--replay", "bm25,x=complement", "--output", own)...); err != nil {
			t.Fatalf("replay %d: %v", i+1, err)
		}
	}
}

// secondRepository adds a second repository with the fixture's states,
// so that each of two folds holds one repository out.
func (fx *benchFixture) secondRepository(t *testing.T) {
	t.Helper()
	gittest.Run(t, fx.dir, "clone", "-q", "--bare", filepath.Join(fx.root, "acme+widget", "repo"), filepath.Join(fx.root, "acme+gadget", "repo"))
	for _, f := range []string{fx.states, fx.labels} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		other := strings.ReplaceAll(strings.ReplaceAll(string(data), "acme/widget", "acme/gadget"), `"w-1:`, `"g-1:`)
		if err := os.WriteFile(f, append(data, other...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBenchTuneFoldsNeedRepositories: folds are whole repositories, so a
// fit over the fixture's one repository is refused before any work, for
// --fit and --fit-order alike, rather than fitted on no states.
func TestBenchTuneFoldsNeedRepositories(t *testing.T) {
	fx := newBenchFixture(t)
	for _, mode := range []string{"--fit", "--fit-order"} {
		cache := filepath.Join(t.TempDir(), "cache.jsonl")
		_, _, err := runBench(t, newBenchTuneCmd, "--states", fx.states, "--labels", fx.labels, "--mirror-root", fx.root,
			"--cache", cache, mode, "--folds", "3")
		if err == nil || !strings.Contains(err.Error(), "--folds 3: the states hold 1 repository") {
			t.Errorf("%s --folds 3 over one repository: %v, want a refusal", mode, err)
		}
		if _, err := os.Stat(cache); err == nil {
			t.Errorf("%s: the cache was built", mode)
		}
	}
}

// TestBenchTuneFitOrderOutput: --fit-order --output writes every state's
// held-out answer, a file per method and order, each row named for both
// so that score.py tells them apart; an --output that cannot name them
// is refused before any work.
func TestBenchTuneFitOrderOutput(t *testing.T) {
	fx := newBenchFixture(t)
	fx.secondRepository(t)
	cache := filepath.Join(fx.dir, "cache.jsonl")
	args := []string{"--states", fx.states, "--labels", fx.labels, "--mirror-root", fx.root, "--cache", cache, "--fit-order", "--folds", "2"}
	if _, _, err := runBench(t, newBenchTuneCmd, append(args, "--output", filepath.Join(fx.dir, "held.jsonl"))...); err == nil ||
		!strings.Contains(err.Error(), "{method}") {
		t.Errorf("--output without {method}: %v, want a refusal", err)
	}
	if _, _, err := runBench(t, newBenchTuneCmd, append(args, "--order-loss", "pairs")...); err == nil ||
		!strings.Contains(err.Error(), `--order-loss "pairs"`) {
		t.Errorf("an unknown order loss: %v, want a refusal naming it", err)
	}
	if _, _, err := runBench(t, newBenchTuneCmd, append(args, "--order-trees", "-1")...); err == nil ||
		!strings.Contains(err.Error(), "--order-trees -1") {
		t.Errorf("a negative number of trees: %v, want a refusal naming it", err)
	}
	noFit := []string{"--states", fx.states, "--labels", fx.labels, "--mirror-root", fx.root, "--cache", cache, "--order-loss", "groups"}
	if _, _, err := runBench(t, newBenchTuneCmd, noFit...); err == nil || !strings.Contains(err.Error(), "--order-loss goes with --fit-order") {
		t.Errorf("--order-loss without --fit-order: %v, want a refusal", err)
	}
	// A replayed label that names a fitted order's file would have its
	// predictions replaced by the fit's held-out answers.
	clash := filepath.Join(fx.dir, "clash.{method}.jsonl")
	if _, _, err := runBench(t, newBenchTuneCmd, append(args, "--replay", "complement-learned=bm25", "--output", clash)...); err == nil ||
		!strings.Contains(err.Error(), "--replay and --fit-order both write "+strings.ReplaceAll(clash, "{method}", "complement-learned")) {
		t.Errorf("a replayed label named as a fitted order's file: %v, want a refusal naming the file", err)
	}
	if _, err := os.Stat(cache); err == nil {
		t.Error("a refused run built the cache")
	}
	held := filepath.Join(fx.dir, "held.{method}.jsonl")
	out, _, err := runBench(t, newBenchTuneCmd, append(args, "--output", held)...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "var LearnedOrder") {
		t.Errorf("no fitted order printed:\n%s", out)
	}
	// With trees, they are printed after the weights, a tree a line.
	trees, _, err := runBench(t, newBenchTuneCmd, append(args, "--order-trees", "3")...)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(trees, "\t{Nodes: []OrderNode{{"); !strings.Contains(trees, "}, Trees: []OrderTree{") || n != 3 {
		t.Errorf("fitted with 3 trees, %d printed:\n%s", n, trees)
	}
	lin, _, err := runBench(t, newBenchTuneCmd, append(args, "--order-trees", "0")...)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(lin, "Trees:") {
		t.Errorf("fitted with no trees, trees printed:\n%s", lin)
	}
	// --order-out writes the model fitted on every state; --order reads it.
	model := filepath.Join(fx.dir, "order.json")
	if _, _, err := runBench(t, newBenchTuneCmd, append(args, "--order-trees", "2", "--order-out", model)...); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := retrieve.ParseOrderModel(data); err != nil || len(m.Trees) != 2 {
		t.Fatalf("--order-out wrote %v (%v):\n%s", m, err, data)
	}
	replay := []string{"--states", fx.states, "--labels", fx.labels, "--mirror-root", fx.root, "--cache", cache, "--replay", "complement"}
	if _, _, err := runBench(t, newBenchTuneCmd, append(replay, "--order", model)...); err != nil {
		t.Errorf("a replay in the written order: %v", err)
	}
	bad := filepath.Join(fx.dir, "bad.json")
	if err := os.WriteFile(bad, []byte(strings.Replace(string(data), `"raw:title"`, `"title"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runBench(t, newBenchTuneCmd, append(replay, "--order", bad)...); err == nil ||
		!strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), `"features"[26]`) {
		t.Errorf("an order of other features: %v, want a refusal naming the file and the field", err)
	}
	notes := filepath.Join(fx.dir, "notes.json")
	if err := os.WriteFile(notes, []byte(`{"keep": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ out, want string }{{notes, "refusing to replace"}, {filepath.Join(fx.dir, "order.txt"), "want a FILE.json"}} {
		if _, _, err := runBench(t, newBenchTuneCmd, append(args, "--order-out", c.out)...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--order-out %s: %v, want an error with %q", c.out, err, c.want)
		}
	}
	if got, _ := os.ReadFile(notes); string(got) != `{"keep": true}` {
		t.Errorf("a file mss did not write was replaced: %s", got)
	}
	// Fitted over groups (the default), the model has no bias (a softmax
	// over each state's candidates has no use for one); over samples it
	// has one.
	samples, _, err := runBench(t, newBenchTuneCmd, append(args, "--order-loss", "samples")...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "var LearnedOrder = &OrderModel{Bias: 0, ") || strings.Contains(samples, "Bias: 0, ") {
		t.Errorf("the fits over groups and over samples:\n%s\n%s", out, samples)
	}
	for _, m := range []string{"complement-learned", "complement-fused", "rrf-grow-learned", "rrf-grow-fused"} {
		data, err := os.ReadFile(strings.ReplaceAll(held, "{method}", m))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(lines) != 4 {
			t.Fatalf("%s: %d answers, want 4 (every state once):\n%s", m, len(lines), data)
		}
		for _, l := range lines {
			if !strings.Contains(l, `"method":"`+m+`"`) {
				t.Errorf("%s: row not named for it: %s", m, l)
			}
		}
	}
}

// TestParseVariantFusion: fusion.<view> and fusion.k settings of a
// replayed variant become its fusion, not the method's settings; a view
// no fusion knows, or a weight that is no number, is refused by name.
func TestParseVariantFusion(t *testing.T) {
	v, err := parseVariant("lex=complement:coverage_weight=0;fusion.lexical=2;fusion.k=10", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := repobench.Fusion{Weights: map[string]float64{"lexical": 2}, K: 10}
	if diff := cmp.Diff(want, v.fusion); diff != "" {
		t.Errorf("fusion (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"coverage_weight": "0"}, v.settings); diff != "" {
		t.Errorf("settings (-want +got):\n%s", diff)
	}
	if v, err := parseVariant("complement", nil); err != nil || v.fusion.Weights != nil || v.fusion.K != 0 {
		t.Errorf("a plain method: fusion %+v, %v", v.fusion, err)
	}
	for spec, want := range map[string]string{
		"x=complement:fusion.lexcal=2":                     `no view "lexcal"`,
		"x=complement:fusion.lexical=-1":                   "fusion.lexical=\"-1\"",
		"x=complement:fusion.entity=many":                  "fusion.entity=\"many\"",
		"x=complement:fusion.k=0":                          "fusion.k=\"0\"",
		"x=complement:coverage_weight=1;coverage_weight=2": `setting "coverage_weight" given twice`,
		"x=complement:fusion.k=10;fusion.k=10":             `setting "fusion.k" given twice`,
	} {
		if _, err := parseVariant(spec, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error naming %s", spec, err, want)
		}
	}
}

// TestOrderModelArg: --order takes learned, fused or an order model's
// file; anything else, or a file that cannot be read, is refused by name.
func TestOrderModelArg(t *testing.T) {
	for name, want := range map[string]*retrieve.OrderModel{"": nil, "learned": retrieve.LearnedOrder, "fused": retrieve.Fused} {
		if got, err := orderModel(name); err != nil || got != want {
			t.Errorf("--order %q: %p, %v", name, got, err)
		}
	}
	dir := t.TempDir()
	data, err := retrieve.LearnedOrder.MarshalOrder()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "order.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := orderModel(file); err != nil || !cmp.Equal(got, retrieve.LearnedOrder) {
		t.Errorf("--order %s: %v, %v; want the learned order", file, got, err)
	}
	twice := filepath.Join(dir, "twice.json")
	if err := os.WriteFile(twice, bytes.Replace(data, []byte(`"format":`), []byte(`"Weights": [], "format":`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ arg, want string }{
		{"random", `want fused, learned or an order model's file`},
		{filepath.Join(dir, "missing.json"), "missing.json"},
		{twice, "--order " + twice + `: line 2: unknown field "Weights"`},
	} {
		if _, err := orderModel(c.arg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--order %s: %v, want an error with %q", c.arg, err, c.want)
		}
	}
}

// --fit --params fits only the parameters it names; a name --fit does not
// know, a budget to cut to above --budget, or --params or --fit-budgets
// without --fit, is refused before any work.
func TestBenchTuneFitParams(t *testing.T) {
	fx := newBenchFixture(t)
	fx.secondRepository(t)
	cache := filepath.Join(fx.dir, "cache.jsonl")
	args := []string{"--states", fx.states, "--labels", fx.labels, "--mirror-root", fx.root, "--cache", cache, "--folds", "2", "--rounds", "1"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--fit", "--params", "reach_weight,reach_width"}, `--params "reach_width": not a parameter`},
		{[]string{"--params", "reach_weight"}, "--params goes with --fit"},
		{[]string{"--fit", "--fit-budgets", "2048,9000"}, "--fit-budgets 9000: want a budget from 1 to --budget (6144)"},
		{[]string{"--fit-budgets", "2048"}, "--fit-budgets goes with --fit"},
	} {
		if _, _, err := runBench(t, newBenchTuneCmd, append(args, tc.args...)...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
	if _, err := os.Stat(cache); err == nil {
		t.Error("a refused run built the cache")
	}
	out, log, err := runBench(t, newBenchTuneCmd, append(args, "--fit", "--params", "reach_share,reach_weight", "--fit-budgets", "2048,6144")...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "fitted on all") {
		t.Errorf("no fitted values printed:\n%s", out)
	}
	tried := map[string]bool{}
	for _, l := range strings.Split(log, "\n") {
		if _, rest, ok := strings.Cut(l, ": "); ok && strings.HasPrefix(l, "round ") {
			name, _, _ := strings.Cut(rest, "=")
			tried[name] = true
		}
	}
	if len(tried) != 2 || !tried["reach_weight"] || !tried["reach_share"] {
		t.Errorf("parameters tried %v, want reach_weight and reach_share alone; log:\n%s", tried, log)
	}
}

// A fold whose states all have one group has no figure for states with
// two or more: its cells show "-", and the mean of those columns is over
// the folds that have them, not pulled down by a 0.
func TestBenchTuneFoldWithoutTwoGroups(t *testing.T) {
	fx := newBenchFixture(t)
	fx.secondRepository(t)
	data, err := os.ReadFile(fx.labels)
	if err != nil {
		t.Fatal(err)
	}
	// g-1:before_search keeps its first group only.
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	for i, l := range lines {
		if strings.Contains(l, `"g-1:before_search"`) {
			lines[i] = strings.Replace(l, `,{"lines":[[6,6]],"path":"grid.py"}`, "", 1)
		}
	}
	if !strings.Contains(strings.Join(lines, "\n"), `{"required_groups":[{"lines":[[11,11]],"path":"lookup.py"}],"state_id":"g-1:before_search"}`) {
		t.Fatalf("labels not cut to one group:\n%s", strings.Join(lines, "\n"))
	}
	benchWrite(t, fx.labels, strings.Join(lines, "\n")+"\n")
	cache := filepath.Join(fx.dir, "cache.jsonl")
	args := []string{"--states", fx.states, "--labels", fx.labels, "--mirror-root", fx.root, "--cache", cache, "--folds", "2"}
	for _, mode := range [][]string{{"--fit-order", "--order-trees", "0"}, {"--fit", "--rounds", "1", "--params", "reach_weight"}} {
		out, _, err := runBench(t, newBenchTuneCmd, append(args, mode...)...)
		if err != nil {
			t.Fatal(err)
		}
		rows := map[string][]string{}
		for _, l := range strings.Split(out, "\n") {
			f := strings.Fields(l)
			switch {
			case len(f) > 3 && f[2] == "acme/gadget":
				rows["gadget"] = f[3:]
			case len(f) > 3 && f[2] == "acme/widget":
				rows["widget"] = f[3:]
			case len(f) > 1 && f[0] == "mean":
				rows["mean"] = f[1:]
			}
		}
		g, w, m := rows["gadget"], rows["widget"], rows["mean"]
		if len(g) == 0 || len(g) != len(w) || len(w) != len(m) {
			t.Fatalf("%v: fold rows not found:\n%s", mode, out)
		}
		for i := range g {
			two := strings.Contains(columnName(t, out, i), "2+")
			switch {
			case two && g[i] != "-":
				t.Errorf("%v: column %d of the fold without two groups: %q, want -\n%s", mode, i, g[i], out)
			case two && m[i] != w[i]:
				t.Errorf("%v: mean of column %d: %q, want the other fold's %q\n%s", mode, i, m[i], w[i], out)
			case !two && g[i] == "-":
				t.Errorf("%v: column %d: -, want a figure\n%s", mode, i, out)
			}
		}
	}
}

// columnName is the header of the i-th figure column of a fold table
// (after fold, states and repositories).
func columnName(t *testing.T, out string, i int) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "fold ") {
			cols := regexp.MustCompile(`\S+(?: \S+)*`).FindAllString(l, -1)
			if i+3 < len(cols) {
				return cols[i+3]
			}
		}
	}
	t.Fatalf("no header with a column %d:\n%s", i, out)
	return ""
}

// An --order that names no order is refused before any work, not after
// the cache is built.
func TestBenchTuneBadOrderBeforeCache(t *testing.T) {
	fx := newBenchFixture(t)
	for _, order := range []string{"bogus", filepath.Join(fx.dir, "absent.json")} {
		cache := filepath.Join(t.TempDir(), "cache.jsonl")
		_, _, err := runBench(t, newBenchTuneCmd, "--states", fx.states, "--labels", fx.labels, "--mirror-root", fx.root,
			"--cache", cache, "--replay", "bm25", "--order", order)
		if err == nil || !strings.Contains(err.Error(), "--order") {
			t.Errorf("--order %s: %v, want a refusal naming the flag", order, err)
		}
		if _, err := os.Stat(cache); err == nil {
			t.Errorf("--order %s: the cache was built", order)
		}
	}
}
