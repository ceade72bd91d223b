package retrieve

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSignature: a unit's random signature has semNonZero entries of ±1
// at distinct positions below semDim, in increasing order, the same for
// the same id, and is pinned for one id: the stored semantic structures
// of every index are built from these.
func TestSignature(t *testing.T) {
	want := []sigEntry{{4, -1}, {40, 1}, {141, 1}, {143, 1}, {144, 1}, {170, 1}, {224, -1}, {244, 1}}
	if diff := cmp.Diff(want, signature("pkg/colors.py:1"), cmp.AllowUnexported(sigEntry{})); diff != "" {
		t.Errorf("signature (-want +got):\n%s", diff)
	}
	for _, id := range []string{"", "a", "src/x.go:10", "tokio/src/lib.rs:1"} {
		s := signature(id)
		if len(s) != semNonZero {
			t.Errorf("%q: %d entries, want %d", id, len(s), semNonZero)
		}
		for k, e := range s {
			if e.pos < 0 || e.pos >= semDim || e.sign != 1 && e.sign != -1 || k > 0 && e.pos <= s[k-1].pos {
				t.Errorf("%q: entry %d is %+v after %+v", id, k, e, s[max(k-1, 0)])
			}
		}
		if !slices.Equal(s, signature(id)) {
			t.Errorf("%q: two signatures differ", id)
		}
	}
}
