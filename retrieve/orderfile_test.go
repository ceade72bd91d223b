package retrieve

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOrderFileRoundTrip: a boosted model written and read back is the
// same model and orders candidates the same; the shipped order too.
func TestOrderFileRoundTrip(t *testing.T) {
	m := FitOrderTrees(xorSamples(), 100, 5, 2, 0.3)
	for _, model := range []*OrderModel{m, LearnedOrder} {
		data, err := model.MarshalOrder()
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseOrderModel(data)
		if err != nil {
			t.Fatalf("%v\n%s", err, data)
		}
		if diff := cmp.Diff(model, got); diff != "" {
			t.Errorf("read back differs:\n%s", diff)
		}
		if a, b := ids(model.Reorder(orderCands(), nil)), ids(got.Reorder(orderCands(), nil)); !cmp.Equal(a, b) {
			t.Errorf("orders %v, read back %v", a, b)
		}
	}
	if _, err := (&OrderModel{Weights: []float64{1}}).MarshalOrder(); err == nil {
		t.Error("a model of one weight written")
	}
}

// TestOrderFileErrors: a file that is not an order model of this build's
// features is refused, naming the line or the field.
func TestOrderFileErrors(t *testing.T) {
	data, err := FitOrderTrees(xorSamples(), 100, 2, 2, 0.3).MarshalOrder()
	if err != nil {
		t.Fatal(err)
	}
	good := string(data)
	if !strings.Contains(good, `"left": 1`) {
		t.Fatalf("the fixture's trees do not split:\n%s", good)
	}
	weightsLine := 1 + strings.Count(good[:strings.Index(good, `"weights":`)], "\n")
	for _, c := range []struct{ name, text, want string }{
		{"empty", "", "empty"},
		{"syntax", strings.Replace(good, `"bias":`, `"bias"`, 1), "line 3"},
		{"type", strings.Replace(good, `"format": "mss-order-1"`, `"format": 1`, 1), `line 2: "format": number`},
		{"unknown field", strings.Replace(good, `"bias":`, `"bais": 0, "bias":`, 1), fmt.Sprintf(`line %d: unknown field "bais"`, 1+strings.Count(good[:strings.Index(good, `"bias":`)], "\n"))},
		{"cut short", good[:len(good)/2], fmt.Sprintf("line %d: the text ends inside the model's object", 1+strings.Count(good[:len(good)/2], "\n"))},
		{"trailing", good + "{}", "more after"},
		{"format", strings.Replace(good, OrderFormat, "mss-order-0", 1), `"format": "mss-order-0"`},
		{"feature renamed", strings.Replace(good, `"raw:title"`, `"title"`, 1), `"features"[26]: "title", want "raw:title"`},
		{"feature missing", strings.Replace(good, `"test",`, "", 1), `"features": 27 names`},
		{"weights", strings.Replace(good, `"weights": [`, `"weights": [1,`, 1), `"weights": 29 values`},
		{"child before", strings.Replace(good, `"left": 1`, `"left": 0`, 1), `"trees"[0]."nodes"[0]."left": 0, want a later node`},
		{"child past", strings.Replace(good, `"right": 2`, `"right": 99`, 1), `"right": 99, want a later node`},
		{"leaf", strings.Replace(good, `"left": -1`, `"left": -2`, 1), `a leaf has both -1`},
		{"weights twice", strings.Replace(good, "{\n", "{\n  \"weights\": [],\n", 1), fmt.Sprintf(`line %d: "weights" given twice`, weightsLine+1)},
		{"weights in another case", strings.Replace(good, `"format":`, `"Weights": [], "format":`, 1), `line 2: unknown field "Weights" (keys are case-sensitive; did you mean "weights"?)`},
		{"node key twice", strings.Replace(good, `"left": 1,`, `"left": 1, "left": 2,`, 1), `"trees[0].nodes[0].left" given twice`},
		{"node key in another case", strings.Replace(good, `"left": 1,`, `"Left": 1,`, 1), `unknown field "Left"`},
		{"bias null", replaceFirst(good, `"bias": [^,\n]+`, `"bias": null`), `"bias": missing or null; want a number`},
		{"bias missing", replaceFirst(good, `"bias": [^,\n]+,`, ``), `"bias": missing or null`},
		{"weight null", replaceFirst(good, `("weights": \[\s*)[^,\s]+`, `${1}null`), `"weights"[0]: missing or null`},
		{"weight past the bound", replaceFirst(good, `("weights": \[\s*)[^,\s]+`, `${1}1e308`), `"weights"[0]: 1e+308, want a magnitude of at most 1e+06`},
		{"node null", strings.Replace(good, `"nodes": [`, `"nodes": [null,`, 1), `"trees"[0]."nodes"[0]: null; want a node's object`},
		{"tree null", strings.Replace(good, `"trees": [`, `"trees": [null,`, 1), `"trees"[0]: null; want a tree's object`},
		{"threshold missing", replaceFirst(good, `"threshold": [^,\n]+,`, ``), `"trees"[0]."nodes"[0]."threshold": missing or null`},
		{"left null", replaceFirst(good, `"left": 1`, `"left": null`), `"trees"[0]."nodes"[0]."left": missing or null`},
		{"value past the bound", replaceFirst(good, `"value": [^,\n]+`, `"value": -2e6`), `"value": -2e+06, want a magnitude of at most 1e+06`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseOrderModel([]byte(c.text))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error with %q", err, c.want)
			}
		})
	}
}

// FuzzParseOrderModel: no input makes the parser or an accepted model's
// order panic, and an accepted model reads back as itself once written.
func FuzzParseOrderModel(f *testing.F) {
	data, err := FitOrderTrees(xorSamples(), 100, 2, 2, 0.3).MarshalOrder()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(strings.Replace(string(data), `"right": 2`, `"right": 1`, 1)))
	f.Add([]byte(`{"format": "mss-order-1"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseOrderModel(data)
		if err != nil {
			return
		}
		m.Reorder(orderCands(), nil)
		again, err := m.MarshalOrder()
		if err != nil {
			t.Fatalf("an accepted model is not written: %v", err)
		}
		back, err := ParseOrderModel(again)
		if err != nil || !cmp.Equal(m, back) {
			t.Fatalf("written and read back: %v, %v", back, err)
		}
	})
}

// replaceFirst replaces the first match of the regular expression expr in
// s with repl (as regexp's ReplaceAllString expands it).
func replaceFirst(s, expr, repl string) string {
	re := regexp.MustCompile(expr)
	loc := re.FindStringSubmatchIndex(s)
	if loc == nil {
		panic("no match for " + expr)
	}
	return s[:loc[0]] + string(re.ExpandString(nil, repl, s, loc)) + s[loc[1]:]
}
