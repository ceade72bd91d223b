package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"github.com/missingcomplement/mss/internal/repobench"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Figure size: readable on a laptop screen at 100%.
const (
	figWidth  = 8 * vg.Inch
	figHeight = 4.5 * vg.Inch
	fontSize  = 12
)

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = fontSize + 2
	p.X.Label.Text = x
	p.Y.Label.Text = y
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = fontSize
		a.Tick.Label.Font.Size = fontSize - 1
	}
	p.Legend.TextStyle.Font.Size = fontSize - 1
	p.Add(plotter.NewGrid())
	p.Y.Tick.Marker = plainTicks{}
	return p
}

// pngBytes renders p as a PNG figure of the report's size.
func pngBytes(p *plot.Plot) ([]byte, error) {
	w, err := p.WriterTo(figWidth, figHeight, "png")
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// metricLabel turns "complete@5" into "complete@5 (%)" for figures.
func metricLabel(metric string) string {
	if repobench.IsCount(metric) {
		return metric
	}
	return metric + " (%)"
}

// scale is 100 for rate metrics, 1 for counts.
func scale(metric string) float64 {
	if repobench.IsCount(metric) {
		return 1
	}
	return 100
}

// curvesPNG draws complete@k against k, one line per method.
func curvesPNG(in *Input) ([]byte, error) {
	p := newPlot("complete@k: every required group in the first k units", "k (units returned, within the token budget)", "complete@k (%)")
	p.Legend.Top = true
	p.Legend.Left = true
	var args []any
	for _, ms := range in.Scores {
		xys := make(plotter.XYs, len(ms.Ks))
		for i, k := range ms.Ks {
			xys[i] = plotter.XY{X: float64(k), Y: 100 * ms.Mean[repobench.Key(repobench.Complete, k)]}
		}
		args = append(args, ms.Method, xys)
	}
	if err := plotutil.AddLinePoints(p, args...); err != nil {
		return nil, err
	}
	p.Y.Min = 0
	p.Y.Max = math.Max(p.Y.Max*1.15, 10)
	p.X.Tick.Marker = intTicks(in.Scores[0].Ks)
	return pngBytes(p)
}

type intTicks []int

// plainTicks are the default ticks labelled without trailing zeros.
type plainTicks struct{}

func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'f', -1, 64)
		}
	}
	return ts
}

func (t intTicks) Ticks(_, _ float64) []plot.Tick {
	out := make([]plot.Tick, len(t))
	for i, k := range t {
		out[i] = plot.Tick{Value: float64(k), Label: fmt.Sprint(k)}
	}
	return out
}

// strataPNG draws the headline metric per stratum, one bar per method.
func strataPNG(in *Input) ([]byte, error) {
	strata := strataOf(in)
	p := newPlot(in.Metric+" by stratum", "", metricLabel(in.Metric))
	p.Legend.Top = true
	n := len(in.Scores)
	width := vg.Points(math.Min(28, 300/float64(max(n*len(strata), 1))))
	for i, ms := range in.Scores {
		vals := make(plotter.Values, len(strata))
		for j, s := range strata {
			if st := ms.Strata[s]; st != nil {
				vals[j] = scale(in.Metric) * st.Mean[in.Metric]
			}
		}
		bars, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return nil, err
		}
		barStyle(bars, i)
		bars.Offset = vg.Length(float64(i)-float64(n-1)/2) * width
		p.Add(bars)
		p.Legend.Add(ms.Method, bars)
	}
	labels := make([]string, len(strata))
	for j, s := range strata {
		labels[j] = s
		if st := in.Scores[0].Strata[s]; st != nil {
			labels[j] = fmt.Sprintf("%s\n(n=%d)", s, st.N)
		}
	}
	p.NominalX(labels...)
	p.X.Min, p.X.Max = -0.6, float64(len(strata))-0.4
	p.Y.Min = 0
	p.Y.Max = math.Max(p.Y.Max*1.3, 10)
	return pngBytes(p)
}

// barStyle gives method i's bars their look: plotutil's colours in turn,
// and past the last of them the same colours again with a dashed outline
// of another pattern each round, so no two methods' bars look alike.
func barStyle(b *plotter.BarChart, i int) {
	b.Color = plotutil.Color(i)
	round := i / len(plotutil.DefaultColors)
	if round == 0 {
		b.LineStyle.Width = 0
		return
	}
	b.LineStyle.Width = vg.Points(1.5)
	b.LineStyle.Color = color.Black
	b.LineStyle.Dashes = plotutil.Dashes(round)
}

// errPoints is points with asymmetric vertical errors.
type errPoints struct {
	plotter.XYs
	plotter.YErrors
}

// pairedPNG draws each method's paired difference from the baseline with its
// 95% interval, per stratum.
func pairedPNG(in *Input) ([]byte, error) {
	var strata, methods []string
	seenS, seenM := map[string]bool{}, map[string]bool{}
	for _, c := range in.Paired {
		if !seenS[c.Stratum] {
			seenS[c.Stratum] = true
			strata = append(strata, c.Stratum)
		}
		if !seenM[c.Method] {
			seenM[c.Method] = true
			methods = append(methods, c.Method)
		}
	}
	sc := scale(in.Metric)
	unit := " (points)"
	if sc == 1 {
		unit = ""
	}
	p := newPlot(fmt.Sprintf("%s: method minus %s, 95%% repository-clustered bootstrap interval", in.Metric, in.Baseline), "",
		"difference in "+in.Metric+unit)
	p.Title.TextStyle.Font.Size = fontSize
	p.Legend.Top = true
	step := 0.8 / float64(max(len(methods), 1))
	for i, m := range methods {
		var pts errPoints
		for _, c := range in.Paired {
			if c.Method != m {
				continue
			}
			j := indexOf(strata, c.Stratum)
			x := float64(j) + (float64(i)-float64(len(methods)-1)/2)*step
			pts.XYs = append(pts.XYs, plotter.XY{X: x, Y: sc * c.Diff})
			pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{sc * (c.Diff - c.Lo), sc * (c.Hi - c.Diff)})
		}
		s, err := plotter.NewScatter(pts.XYs)
		if err != nil {
			return nil, err
		}
		s.GlyphStyle.Color = plotutil.Color(i)
		s.GlyphStyle.Shape = plotutil.Shape(i)
		s.GlyphStyle.Radius = vg.Points(4)
		eb, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return nil, err
		}
		eb.LineStyle.Color = plotutil.Color(i)
		eb.LineStyle.Width = vg.Points(1.5)
		p.Add(eb, s)
		p.Legend.Add(m, s)
	}
	zero := plotter.NewFunction(func(float64) float64 { return 0 })
	zero.Color = color.Gray{Y: 80}
	zero.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	zero.Width = vg.Points(1)
	p.Add(zero)
	p.NominalX(strata...)
	p.X.Min, p.X.Max = -0.6, float64(len(strata))-0.4
	pad := 0.1 * (p.Y.Max - p.Y.Min)
	p.Y.Min, p.Y.Max = math.Min(p.Y.Min-pad, -1), math.Max(p.Y.Max+3*pad, 1)
	return pngBytes(p)
}

func indexOf(xs []string, x string) int {
	for i, s := range xs {
		if s == x {
			return i
		}
	}
	return -1
}
