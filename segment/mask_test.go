package segment

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestMaskTree segments every file of a tree whose grammar masks
// function bodies with and without the masks, fails on any difference
// and reports both times:
//
//	MSS_MASK_TREE=/path/to/checkout go test -run MaskTree -v ./segment/
//
// It skips when MSS_MASK_TREE is unset.
func TestMaskTree(t *testing.T) {
	root := os.Getenv("MSS_MASK_TREE")
	if root == "" {
		t.Skip("MSS_MASK_TREE not set")
	}
	var files, masked int
	var plain, fast time.Duration
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		g := grammarFor(p)
		if g == nil || g.mask == nil {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil || len(src) > 1<<20 {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		files++
		if _, ok := g.mask(src); ok {
			masked++
		}
		t0 := time.Now()
		want := segmentFile(rel, src, false)
		t1 := time.Now()
		got := segmentFile(rel, src, true)
		plain, fast = plain+t1.Sub(t0), fast+time.Since(t1)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s (-source +masked):\n%s", rel, d)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d files, %d masked; segmenting %v from the source, %v masked", files, masked, plain, fast)
}
