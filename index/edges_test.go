package index

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEdgesOfAnySplit: the edges of many rows are the same whether they
// are resolved in one part or in several.
func TestEdgesOfAnySplit(t *testing.T) {
	var rows []nameRow
	for i := range 5000 {
		p := fmt.Sprintf("pkg/m%d.py", i/10)
		rows = append(rows, nameRow{id: fmt.Sprintf("u%d", i), path: p,
			defines: []string{fmt.Sprintf("f%d", i)},
			refs:    []string{fmt.Sprintf("f%d", (i*7)%5000), fmt.Sprintf("f%d", i/10*10), "common"},
			calls:   []string{fmt.Sprintf("f%d", (i*7)%5000)},
			imports: []string{fmt.Sprintf("pkg.m%d", (i+3)/10%500)}})
	}
	rows[0].defines = append(rows[0].defines, "common")
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	one := edgesOf(rows)
	runtime.GOMAXPROCS(4)
	four := edgesOf(rows)
	if len(one) < len(rows) {
		t.Fatalf("%d edges of %d rows", len(one), len(rows))
	}
	if d := cmp.Diff(one, four); d != "" {
		t.Errorf("edges in four parts differ from one part's:\n%s", d)
	}
}
