package repobench

import (
	"encoding/json"
	"io"
)

// ScorePyJSON is the shape of score.py --json: per method, the mean of every
// metric, complete@5 per stratum, the state count and the missing count.
func ScorePyJSON(scores []*MethodScore) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, ms := range scores {
		m := map[string]any{}
		for k, v := range ms.Mean {
			m[k] = v
		}
		strata := map[string]any{}
		if hasK(ms.Ks, 5) {
			for name, st := range ms.Strata {
				strata[name] = map[string]any{"n": st.N, "complete@5": st.Mean[Key(Complete, 5)]}
			}
		}
		m["strata"] = strata
		m["states"] = len(ms.States)
		m["missing_predictions"] = ms.Missing
		out[ms.Method] = m
	}
	return out
}

// WriteJSON prints ScorePyJSON indented, keys sorted.
func WriteJSON(w io.Writer, scores []*MethodScore) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(ScorePyJSON(scores))
}
