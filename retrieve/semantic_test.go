package retrieve

import (
	"math"
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

// TestSemTermEntry: a term's entry gives back its idf and every bit of
// its vector, stored sparse while few of its entries are not zero (a −0
// among them) and dense past that.
func TestSemTermEntry(t *testing.T) {
	for _, k := range []int{0, 1, 8, semSparseMax - 1, semSparseMax, semDim} {
		v := make([]float32, semDim)
		for j := range k {
			v[(j*7)%semDim] = float32(j+1) / 3
		}
		if k > 1 {
			v[(1*7)%semDim] = float32(math.Copysign(0, -1))
		}
		b := make([]byte, semTermLen(v))
		if dense := len(b) == semTermSize; dense != (k >= semSparseMax) {
			t.Errorf("%d entries not zero: %d bytes", k, len(b))
		}
		putSemTerm(b, 1.5, v)
		got, idf, err := decodeSemTerm(b)
		if err != nil || idf != 1.5 {
			t.Fatalf("%d entries: idf %v, %v", k, idf, err)
		}
		for i := range v {
			if math.Float32bits(got[i]) != math.Float32bits(v[i]) {
				t.Fatalf("%d entries: [%d] = %v, want %v", k, i, got[i], v[i])
			}
		}
	}
	for _, n := range []int{7, 12, 8 + 5*semSparseMax, semTermSize - 1} {
		if _, _, err := decodeSemTerm(make([]byte, n)); err == nil {
			t.Errorf("%d bytes decoded", n)
		}
	}
	// Indexes must rise.
	b := make([]byte, 8+5*2)
	b[8], b[9] = 3, 3
	if _, _, err := decodeSemTerm(b); err == nil {
		t.Error("repeated index decoded")
	}
}
