package retrieve

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
)

func reqCand(path, symbol string, observed bool) mss.Candidate {
	return mss.Candidate{Unit: mss.Unit{ID: path + ":" + symbol, Path: path, Symbol: symbol}, Observed: observed}
}

// entityCovers maps each entity requirement to the paths of what covers it.
func entityCovers(reqs []Requirement, cands []mss.Candidate) map[string][]string {
	out := map[string][]string{}
	for _, r := range reqs {
		if r.Kind != RequirementEntity {
			continue
		}
		for _, i := range r.Covers {
			out[r.ID] = append(out[r.ID], cands[i].Unit.Path)
		}
	}
	return out
}

func TestRequirementsEntities(t *testing.T) {
	// spawn is defined by seven candidates, too many to be a requirement;
	// select by two.
	var cands []mss.Candidate
	for i := 0; i < 7; i++ {
		cands = append(cands, reqCand(fmt.Sprintf("src/rt%d.rs", i), "Runtime.spawn", false))
	}
	cands = append(cands,
		reqCand("src/macros/select.rs", "select", false),
		reqCand("tokio-macros/src/select.rs", "select", false),
		reqCand("src/task.rs", "Task.poll", false),
		reqCand("src/join.rs", "join", true))
	state := &mss.State{Issue: "The `tokio::select!` macro and `spawn()` break; a task we poll hangs. `join` is fine."}
	got := entityCovers(Requirements(state, nil, cands), cands)
	// poll: a prose word; join: resolved by what was read.
	want := map[string][]string{"entity:select": {"src/macros/select.rs", "tokio-macros/src/select.rs"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entity requirements (-want +got):\n%s", diff)
	}
}

func TestRequirementsNamespaces(t *testing.T) {
	// fmt and lang are written only ahead of another name: namespaces.
	// Config is CamelCase, and format is written last too, so both count.
	cands := []mss.Candidate{
		reqCand("include/fmt/core.h", "fmt", false),
		reqCand("src/java/lang.java", "lang", false),
		reqCand("include/fmt/prepare.h", "prepare", false),
		reqCand("flask/config.py", "Config", false),
		reqCand("include/fmt/format.h", "format", false),
	}
	state := &mss.State{Issue: "`fmt::prepare` fails, `fmt::format` too, through `java.lang.Number` and `flask.Config.from_file()`; see `format.x`."}
	got := entityCovers(Requirements(state, nil, cands), cands)
	want := map[string][]string{
		"entity:prepare": {"include/fmt/prepare.h"},
		"entity:Config":  {"flask/config.py"},
		"entity:format":  {"include/fmt/format.h"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entity requirements (-want +got):\n%s", diff)
	}
}
