package controller_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
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

// TestRepoTrackPredictions writes repository-track predictions for every
// method, for scoring with the track's score.py. It needs the fetched git
// mirrors and is skipped unless MSS_REPOTRACK_MIRRORS names their root:
//
//	MSS_REPOTRACK_MIRRORS=DIR MSS_REPOTRACK_STATES=states.jsonl \
//	MSS_REPOTRACK_OUT=preds.jsonl [MSS_REPOTRACK_CACHE=DIR] \
//	go test ./controller -run TestRepoTrackPredictions -v -timeout 60m
//
// Snapshots are materialized with git archive and segmented; with
// MSS_REPOTRACK_CACHE set, their units are kept there between runs. It
// prints per-state latency (candidates + complement) after indexing.
func TestRepoTrackPredictions(t *testing.T) {
	root := os.Getenv("MSS_REPOTRACK_MIRRORS")
	if root == "" {
		t.Skip("MSS_REPOTRACK_MIRRORS not set")
	}
	statesPath := os.Getenv("MSS_REPOTRACK_STATES")
	outPath := os.Getenv("MSS_REPOTRACK_OUT")
	if statesPath == "" || outPath == "" {
		t.Fatal("set MSS_REPOTRACK_STATES and MSS_REPOTRACK_OUT")
	}
	cache := os.Getenv("MSS_REPOTRACK_CACHE")
	if cache == "" {
		cache = t.TempDir()
	}
	methods := []string{"complement", "bm25", "rrf", "mmr", "similarity"}
	// MSS_REPOTRACK_METHODS: methods separated by ";", each a name with
	// optional settings, "complement?coverage_weight=0.3&same_file_factor=1";
	// the whole spec labels its predictions.
	if m := os.Getenv("MSS_REPOTRACK_METHODS"); m != "" {
		methods = strings.Split(m, ";")
	}
	var disable []string
	if d := os.Getenv("MSS_REPOTRACK_DISABLE"); d != "" {
		disable = strings.Split(d, ",")
	}
	// MSS_REPOTRACK_WEIGHTS overrides fusion weights: "history=0.8,semantic=0.3".
	weights := map[string]float64{}
	if ws := os.Getenv("MSS_REPOTRACK_WEIGHTS"); ws != "" {
		for _, kv := range strings.Split(ws, ",") {
			k, v, _ := strings.Cut(kv, "=")
			var f float64
			if _, err := fmt.Sscan(v, &f); err != nil {
				t.Fatalf("MSS_REPOTRACK_WEIGHTS %q: %v", kv, err)
			}
			weights[k] = f
		}
	}
	var rrfk float64
	if v := os.Getenv("MSS_REPOTRACK_RRFK"); v != "" {
		fmt.Sscan(v, &rrfk)
	}
	states := readStates(t, statesPath)
	// Group states by snapshot so each is indexed once.
	type key struct{ repo, commit string }
	groups := map[key][]*mss.State{}
	var keys []key
	for _, s := range states {
		k := key{s.Repo, s.BaseCommit}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], s)
	}
	out, err := os.Create(outPath)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	w := bufio.NewWriter(out)
	defer w.Flush()
	ctx := context.Background()
	var lat []time.Duration
	var indexTime time.Duration
	for _, k := range keys {
		gitDir := mirrorDir(t, root, k.repo)
		t0 := time.Now()
		units := snapshotUnits(t, gitDir, k.commit, cache)
		eng := retrieve.NewEngine(units, nil, retrieve.Options{GitDir: gitDir, Commit: k.commit, Disable: disable, Weights: weights, RRFK: rrfk})
		indexTime += time.Since(t0)
		for _, st := range groups[k] {
			for _, m := range methods {
				name, settings := parseSpec(m)
				ctl, err := mss.NewMethod(name, mss.MethodOptions{Settings: settings})
				if err != nil {
					t.Fatal(err)
				}
				t1 := time.Now()
				cands, err := eng.Candidates(ctx, st, 0)
				if err != nil {
					t.Fatal(err)
				}
				res, err := ctl.Select(ctx, &mss.Request{State: st, Candidates: cands})
				if err != nil {
					t.Fatal(err)
				}
				if m == methods[0] {
					lat = append(lat, time.Since(t1))
				}
				type pu struct {
					Path      string `json:"path"`
					StartLine int    `json:"start_line"`
					EndLine   int    `json:"end_line"`
				}
				var us []pu
				for _, u := range res.Units {
					us = append(us, pu{u.Path, u.StartLine, u.EndLine})
				}
				b, _ := json.Marshal(map[string]any{"state_id": st.StateID, "method": m, "units": us})
				w.Write(append(b, '\n'))
				if os.Getenv("MSS_REPOTRACK_TRACE") != "" && m == methods[0] {
					fmt.Printf("== %s\n", st.StateID)
					for _, s := range res.Trace {
						fmt.Printf("   %s %s %s\n", s.Stage, s.UnitID, s.Reason)
					}
				}
			}
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if len(lat) > 0 {
		p := func(q float64) time.Duration { return lat[min(len(lat)-1, int(q*float64(len(lat))))] }
		fmt.Printf("states=%d snapshots=%d index+history total=%v latency p50=%v p95=%v max=%v\n",
			len(lat), len(keys), indexTime.Round(time.Millisecond), p(0.5), p(0.95), lat[len(lat)-1])
	}
}

// parseSpec splits "name?k=v&k=v" into the method name and its settings.
func parseSpec(spec string) (string, map[string]string) {
	name, q, ok := strings.Cut(spec, "?")
	if !ok {
		return name, nil
	}
	settings := map[string]string{}
	for _, kv := range strings.Split(q, "&") {
		k, v, _ := strings.Cut(kv, "=")
		settings[k] = v
	}
	return name, settings
}

func readStates(t *testing.T, path string) []*mss.State {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []*mss.State
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var s mss.State
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		out = append(out, &s)
	}
	return out
}

func mirrorDir(t *testing.T, root, repo string) string {
	want := strings.ReplaceAll(repo, "/", "+")
	ents, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.EqualFold(e.Name(), want) {
			return filepath.Join(root, e.Name(), "repo")
		}
	}
	t.Fatalf("no mirror for %s under %s", repo, root)
	return ""
}

// snapshotUnits segments every file of a commit with a known language.
func snapshotUnits(t *testing.T, gitDir, commit, cache string) []mss.Unit {
	cached := filepath.Join(cache, commit+".units.json")
	if b, err := os.ReadFile(cached); err == nil {
		var us []mss.Unit
		if err := json.Unmarshal(b, &us); err == nil {
			return us
		}
	}
	dir := filepath.Join(cache, commit)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", fmt.Sprintf("git --git-dir=%q archive %s | tar -x -C %q", gitDir, commit, dir))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("archive %s: %v: %s", commit, err, b)
	}
	var units []mss.Unit
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if segment.Language(rel) == "" {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		units = append(units, segment.File(rel, src)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(dir)
	if b, err := json.Marshal(units); err == nil {
		os.WriteFile(cached, b, 0o644)
	}
	return units
}
