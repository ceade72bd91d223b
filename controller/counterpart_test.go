package controller

import (
	"strings"
	"testing"

	"github.com/missingcomplement/mss"
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
