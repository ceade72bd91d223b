package controller

import (
	"strings"
	"testing"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/segment"
)

func TestCounterpart(t *testing.T) {
	for _, tc := range []struct{ a, b, want string }{
		{"_to_json", "_from_json", "to/from"},
		{"pytest_report_to_serializable", "pytest_report_from_serializable", "to/from"},
		{"readValue", "writeValue", "read/write"},
		{"set_index", "reset_index", "set/reset"},
		{"lock", "unlock", "lock/unlock"},
		{"registerHook", "deregisterHook", "register/deregister"},
		{"Connect", "Disconnect", "connect/disconnect"},
		{"get_item", "set_item", "get/set"},
		{"Serialize", "Deserialize", "serialize/deserialize"},
		{"from_json", "to_json", "from/to"},
		// Not one word apart, or not counterparts.
		{"to_json", "to_json", ""},
		{"to_json", "from_yaml", ""},
		{"to_json", "to_json_str", ""},
		{"get_name", "get_value", ""},
		{"fine", "define", ""},
		{"sign", "design", ""},
		{"do", "undo", ""},
		{"", "", ""},
	} {
		if got := counterpart(tc.a, tc.b); got != tc.want {
			t.Errorf("counterpart(%q, %q) = %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
}

// A counterpart ties by its weight only when the names tie no other way,
// and not when many candidates define the name.
func TestTieCounterpart(t *testing.T) {
	to := mss.Unit{Path: "reports.py", Symbol: "BaseReport._to_json"}
	from := mss.Unit{Path: "reports.py", Symbol: "BaseReport._from_json"}
	hook := mss.Unit{Path: "hooks.py", Symbol: "pytest_report_from_serializable"}
	toHook := mss.Unit{Path: "reports.py", Symbol: "pytest_report_to_serializable"}
	uses := &segment.UseCache{}
	for _, tc := range []struct {
		a, b *mss.Unit
		tw   tieWeights
		w    float64
		why  string
	}{
		{&to, &from, tieWeights{}, 0.5, "same scope BaseReport"},
		{&to, &from, tieWeights{counterpart: 1}, 1, "counterpart, to/from"},
		{&to, &from, tieWeights{counterpart: 0.25}, 0.5, "same scope BaseReport"},
		{&toHook, &hook, tieWeights{}, 0, ""},
		{&toHook, &hook, tieWeights{counterpart: 1}, 1, "counterpart, to/from"},
		{&to, &hook, tieWeights{counterpart: 1}, 0, ""},
	} {
		if w, why := tie(tc.a, tc.b, map[string]int{}, tc.tw, uses); w != tc.w || why != tc.why {
			t.Errorf("tie(%s, %s, %+v) = %g %q, want %g %q", tc.a.Symbol, tc.b.Symbol, tc.tw, w, why, tc.w, tc.why)
		}
	}
	common := map[string]int{"pytest_report_from_serializable": maxTwins + 1}
	if w, why := tie(&toHook, &hook, common, tieWeights{counterpart: 1}, uses); w != 0 || why != "" {
		t.Errorf("a counterpart many candidates define tied: %g %q", w, why)
	}
}

// counterpart_weight is a setting of complement, named in its config only
// when set, so that the default's config reads as before.
func TestCounterpartSetting(t *testing.T) {
	c, err := NewComplement(mss.MethodOptions{Settings: map[string]string{"counterpart_weight": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	if c.CounterpartWeight != 1 || !strings.Contains(c.config(), " counterpart_weight=1 ") {
		t.Errorf("counterpart_weight=1: weight %g, config %q", c.CounterpartWeight, c.config())
	}
	d, err := NewComplement(mss.MethodOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.CounterpartWeight != 0 || strings.Contains(d.config(), "counterpart") {
		t.Errorf("default: weight %g, config %q", d.CounterpartWeight, d.config())
	}
	if _, err := NewComplement(mss.MethodOptions{Settings: map[string]string{"counterpart_weight": "-1"}}); err == nil {
		t.Error("counterpart_weight=-1 accepted")
	}
}
