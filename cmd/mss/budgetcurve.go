package main

import (
	"fmt"
	"io"
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
	// With no state of two or more groups there is no figure for them:
	// the column shows "-", not a 0.0 no answer scored.
	two := false
	for _, st := range l.States {
		two = two || len(l.Labels[st.StateID].RequiredGroups) >= 2
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
			r.all = append(r.all, 100*repobench.MeanC5(ms.States))
			r.two = append(r.two, 100*repobench.Mean2(ms.States))
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
		for _, v := range r.all {
			cols = append(cols, fmt.Sprintf("%.1f", v))
		}
		for _, v := range r.two {
			if !two {
				cols = append(cols, "-")
				continue
			}
			cols = append(cols, fmt.Sprintf("%.1f", v))
		}
		fmt.Fprintf(tw, "%s\t%s\n", m, strings.Join(cols, "\t"))
	}
	return tw.Flush()
}
