package report

import (
	"fmt"
	"testing"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
)

// No two methods' bars look alike, past the palette's last colour too.
func TestBarStylesDiffer(t *testing.T) {
	seen := map[string]int{}
	for i := range 3 * len(plotutil.DefaultColors) {
		b, err := plotter.NewBarChart(plotter.Values{1}, 10)
		if err != nil {
			t.Fatal(err)
		}
		barStyle(b, i)
		look := fmt.Sprint(b.Color, b.LineStyle.Width, b.LineStyle.Dashes)
		if j, dup := seen[look]; dup {
			t.Fatalf("methods %d and %d have bars alike: %s", j, i, look)
		}
		seen[look] = i
	}
}
