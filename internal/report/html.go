package report

import (
	"bytes"
	"fmt"
	"html/template"
	"math"

	"github.com/missingcomplement/mss/internal/repobench"
)

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"pct":    func(v float64) string { return format("%.1f", 100*v) },
	"num":    func(v float64) string { return format("%.0f", v) },
	"dec":    func(v float64) string { return format("%.2f", v) },
	"ms":     func(v float64) string { return format("%.1f", v) },
	"key":    repobench.Key,
	"signed": func(v float64, sc float64) string { return fmt.Sprintf("%+.1f", sc*v) },
	"scaled": func(v float64, sc float64) string { return fmt.Sprintf("%.1f", sc*v) },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
<style>
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 70em; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { padding: .25em .6em; border-bottom: 1px solid #ddd; text-align: right; }
th:first-child, td:first-child { text-align: left; }
th { background: #f4f4f4; }
td.best { font-weight: bold; }
img { max-width: 100%; border: 1px solid #eee; margin: .5em 0; }
code { background: #f4f4f4; padding: 0 .2em; }
.note { color: #555; font-size: 90%; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p>States: <code>{{.StatesFile}}</code>. Budget {{.Budget}} source tokens (a unit costs ceil(bytes/4) of its lines at the base commit); the answer at k is the longest prefix of at most k units within the budget.
Predictions: {{range $i, $p := .Predictions}}{{if $i}}, {{end}}<code>{{$p}}</code>{{end}}.</p>

<h2>Overall</h2>
<table>
<tr><th>method</th><th>states</th><th>missing</th>{{range .Ks}}<th>C@{{.}}</th>{{end}}<th>G@5</th><th>G@8</th><th>N@5</th><th>tokens@8</th><th>observed@8</th><th>latency p50 ms</th><th>p95 ms</th></tr>
{{range .Rows}}<tr><td>{{.Method}}</td><td>{{.States}}</td><td>{{.Missing}}</td>{{range .Complete}}<td>{{pct .}}</td>{{end}}<td>{{pct .G5}}</td><td>{{pct .G8}}</td><td>{{pct .N5}}</td><td>{{num .Tok8}}</td><td>{{dec .Obs8}}</td><td>{{ms .P50}}</td><td>{{ms .P95}}</td></tr>
{{end}}</table>
<p class="note">C@k complete@k, G@k group recall, N@k necessity-weighted recall, in percent; tokens@8 and observed@8 (answer units overlapping a span the agent already read) are means per state. Latency is retrieval plus selection per state, index building excluded.</p>
<img src="{{.CurvesFile}}" alt="complete@k against k per method">

<h2>Strata: {{.Metric}}</h2>
<table>
<tr><th>method</th>{{range .Strata}}<th>{{.}}</th>{{end}}</tr>
{{range .StrataRows}}<tr><td>{{.Method}}</td>{{range .Cells}}<td>{{.}}</td>{{end}}</tr>
{{end}}<tr><td class="note">n</td>{{range .StrataN}}<td class="note">{{.}}</td>{{end}}</tr>
</table>
<img src="{{.StrataFile}}" alt="{{.Metric}} per stratum and method">

{{if .Paired}}<h2>Paired differences against {{.Baseline}}: {{.Metric}}</h2>
<table>
<tr><th>method</th><th>stratum</th><th>n</th><th>{{.Baseline}}</th><th>method</th><th>difference</th><th>95% interval</th><th>win / tie / loss</th></tr>
{{range .Paired}}<tr><td>{{.Method}}</td><td>{{.Stratum}}</td><td>{{.N}}</td><td>{{scaled .MeanA $.Scale}}</td><td>{{scaled .MeanB $.Scale}}</td><td>{{signed .Diff $.Scale}}</td><td>[{{signed .Lo $.Scale}}, {{signed .Hi $.Scale}}]</td><td>{{.Wins}} / {{.Ties}} / {{.Losses}}</td></tr>
{{end}}</table>
<p class="note">Differences are method minus {{.Baseline}}{{if eq .Scale 100.0}}, in percentage points{{end}}. Intervals: {{.Draws}} bootstrap draws resampling repositories (states of one repository move together), seed {{.Seed}}.</p>
<img src="{{.PairedFile}}" alt="paired differences with intervals">
{{end}}
</body>
</html>
`))

// format prints v, or a dash for a figure not measured (NaN).
func format(f string, v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf(f, v)
}

// get is a mean, NaN when the metric was not scored.
func get(m map[string]float64, metric string, k int) float64 {
	v, ok := m[repobench.Key(metric, k)]
	if !ok {
		return math.NaN()
	}
	return v
}

type pageRow struct {
	Method          string
	States, Missing int
	Complete        []float64
	G5, G8, N5      float64
	Tok8, Obs8      float64
	P50, P95        float64
}

type strataRow struct {
	Method string
	Cells  []string
}

type pageData struct {
	*Input
	Budget                             int
	Ks                                 []int
	Rows                               []pageRow
	Strata                             []string
	StrataRows                         []strataRow
	StrataN                            []string
	Scale                              float64
	Draws                              int
	Seed                               int64
	CurvesFile, StrataFile, PairedFile string
}

func renderHTML(in *Input) ([]byte, error) {
	d := &pageData{Input: in, Budget: in.Scores[0].Budget, Ks: in.Scores[0].Ks, Scale: scale(in.Metric),
		CurvesFile: CurvesFile, StrataFile: StrataFile, PairedFile: PairedFile}
	for _, ms := range in.Scores {
		r := pageRow{Method: ms.Method, States: len(ms.States), Missing: ms.Missing,
			G5: get(ms.Mean, repobench.GroupRecall, 5), G8: get(ms.Mean, repobench.GroupRecall, 8),
			N5: get(ms.Mean, repobench.Necessity, 5), Tok8: get(ms.Mean, repobench.Tokens, 8),
			Obs8: get(ms.Mean, repobench.ObservedUnits, 8), P50: math.NaN(), P95: math.NaN()}
		for _, k := range ms.Ks {
			r.Complete = append(r.Complete, ms.Mean[repobench.Key(repobench.Complete, k)])
		}
		if l, ok := in.Latency[ms.Method]; ok {
			r.P50, r.P95 = l.P50, l.P95
		}
		d.Rows = append(d.Rows, r)
	}
	d.Strata = strataOf(in)
	for _, ms := range in.Scores {
		row := strataRow{Method: ms.Method}
		for _, s := range d.Strata {
			cell := "–"
			if st := ms.Strata[s]; st != nil {
				cell = fmt.Sprintf("%.1f", d.Scale*st.Mean[in.Metric])
			}
			row.Cells = append(row.Cells, cell)
		}
		d.StrataRows = append(d.StrataRows, row)
	}
	for _, s := range d.Strata {
		n := "–"
		if st := in.Scores[0].Strata[s]; st != nil {
			n = fmt.Sprint(st.N)
		}
		d.StrataN = append(d.StrataN, n)
	}
	if len(in.Paired) > 0 {
		d.Draws, d.Seed = in.Paired[0].Draws, in.Paired[0].Seed
	}
	var buf bytes.Buffer
	if err := page.Execute(&buf, d); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
