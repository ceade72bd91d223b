package semantic

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
)

func writeLabels(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "labels.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestOracles(t *testing.T) {
	pool := writeLabels(t,
		// G1 needs two of c01,c03,c07 (c02 is observed); G2 one of c09.
		`{"state_id":"s1","required_evidence_groups":[{"group_id":"G1","acceptable_evidence_ids":["c02","c07","c03","c01"],"minimum_required":2,"necessity_weight":1,"role":"x"},{"group_id":"G2","acceptable_evidence_ids":["c09"],"minimum_required":1,"necessity_weight":3,"role":"y"}]}`,
		`{"graded_labels":{"state_id":"s2","required_evidence_groups":[{"group_id":"G1","acceptable_evidence_ids":["c02"],"minimum_required":1,"necessity_weight":1,"role":"x"}],"alternative_minimal_sets":[["c04","c06"]]}}`,
	)
	repo := writeLabels(t,
		// c01 is pkg/f1.py:10-19, c04 pkg/f0.py:40-49, c08 pkg/f0.py:80-89.
		`{"state_id":"s1","required_groups":[{"path":"pkg/f0.py","lines":[[85,85]],"group_id":"G1","necessity_weight":2},{"path":"pkg/f1.py","lines":[[12,13]],"group_id":"G2"}],"alternative_sets":[]}`,
	)
	tests := []struct {
		method, labels, state string
		want                  []string
	}{
		{NameOracle, pool, "s1", []string{"c01", "c03", "c09"}},
		{NameOracleMinusOne, pool, "s1", []string{"c01", "c03"}}, // G2 weighs most
		{NameOracle, pool, "s2", []string{"c04", "c06"}},         // G1 only observed: the alternative
		{NameOracle, repo, "s1", []string{"c08", "c01"}},
		{NameOracleMinusOne, repo, "s1", []string{"c01"}},
	}
	for _, tc := range tests {
		req := request(12)
		req.State.StateID = tc.state
		// Settings of other methods (a shared --set list) are ignored.
		res := selectWith(t, tc.method, map[string]string{"labels": tc.labels, "propose.model": "ignored"}, req)
		if d := cmp.Diff(tc.want, unitIDs(res.Units)); d != "" {
			t.Errorf("%s %s %s (-want +got):\n%s", tc.method, filepath.Base(filepath.Dir(tc.labels)), tc.state, d)
		}
	}
	if !strings.Contains(mss.MethodHelp(NameOracle), "never deployable") || !strings.Contains(mss.MethodHelp(NameOracleMinusOne), "DIAGNOSTIC") {
		t.Error("oracle help does not mark it a diagnostic")
	}
}

func TestOracleErrors(t *testing.T) {
	bad := writeLabels(t, `{"state_id":"s1","required_groups":[{"path":"a.py","lines":[[1,2]]}]}`, `{"state_id":"s2","groups":[]}`)
	tests := []struct {
		settings map[string]string
		want     string
	}{
		{nil, "needs --set labels=FILE"},
		{map[string]string{"labels": bad}, "labels.jsonl:2: neither required_evidence_groups"},
		{map[string]string{"labels": filepath.Join(t.TempDir(), "absent.jsonl")}, "absent.jsonl"},
	}
	for _, tc := range tests {
		_, err := mss.NewMethod(NameOracle, mss.MethodOptions{Settings: tc.settings})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want %q", tc.settings, err, tc.want)
		}
	}
	good := writeLabels(t, `{"state_id":"other","required_groups":[{"path":"a.py","lines":[[1,2]]}]}`)
	ctl, err := mss.NewMethod(NameOracle, mss.MethodOptions{Settings: map[string]string{"labels": good}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ctl.Select(t.Context(), request(3)); err == nil || !strings.Contains(err.Error(), `state "s1" has no label`) {
		t.Errorf("unlabelled state: %v", err)
	}
}
