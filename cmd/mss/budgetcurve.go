package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/missingcomplement/mss/internal/repobench"
)

// checkBudgets refuses a budget of the curve that scores nothing; the
// command checks it before it scores or prints anything.
func checkBudgets(budgets []int) error {
	for _, b := range budgets {
		if b <= 0 {
			return fmt.Errorf("--budgets %d: want a positive budget", b)
		}
	}
	return nil
}

// percentCell is a share (0 to 1) as a percentage with one decimal, or
// "-" for NaN, a mean over no states.
func percentCell(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%.1f", 100*x)
}

// percentCells writes each of v as a tab-separated cell (percentCell).
func percentCells(w io.Writer, v []float64) {
	for _, x := range v {
		fmt.Fprintf(w, "\t%s", percentCell(x))
	}
}

// budgetCurve prints every method's complete@5, overall and on states with
// two or more groups, at each budget: a method that covers as much with
// fewer tokens is better. Each figure is score.py's C@5 at --budget B.
func budgetCurve(stderr, w io.Writer, f *trackFiles, preds []string, budgets []int) error {
	if err := checkBudgets(budgets); err != nil {
		return err
	}
	l, err := f.load()
	if err != nil {
		return err
	}
	defer l.Source.Close()
	ps, err := loadPredictions(io.Discard, preds, l)
	if err != nil {
		return err
	}
	type row struct{ all, two []float64 }
	rows := map[string]*row{}
	for _, b := range budgets {
		sc := &repobench.Scorer{Source: l.Source, Ks: []int{5}, Budget: b}
		scores, err := sc.Score(l.States, l.Labels, ps)
		if err != nil {
			return err
		}
		for _, ms := range scores {
			r := rows[ms.Method]
			if r == nil {
				r = &row{}
				rows[ms.Method] = r
			}
			r.all = append(r.all, repobench.MeanC5(ms.States))
			r.two = append(r.two, repobench.Mean2(ms.States))
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	var head []string
	for _, b := range budgets {
		head = append(head, "C@5 B="+strconv.Itoa(b))
	}
	for _, b := range budgets {
		head = append(head, "2+ groups B="+strconv.Itoa(b))
	}
	fmt.Fprintf(tw, "budget curve\t%s\n", strings.Join(head, "\t"))
	for _, m := range ps.Methods() {
		r := rows[m]
		var cols []string
		// With no state of two or more groups their columns hold no
		// figure: "-", not a 0.0 no answer scored.
		for _, v := range append(append([]float64(nil), r.all...), r.two...) {
			cols = append(cols, percentCell(v))
		}
		fmt.Fprintf(tw, "%s\t%s\n", m, strings.Join(cols, "\t"))
	}
	return tw.Flush()
}
