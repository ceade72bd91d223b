package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseSettings(t *testing.T) {
	tests := []struct {
		pairs     []string
		cacheOnly bool
		want      map[string]string
		err       string
	}{
		{nil, false, nil, ""},
		{[]string{"propose.model=gpt-4.1", "fast.model=mini", "propose.model=o3"}, false, map[string]string{"propose.model": "o3", "fast.model": "mini"}, ""},
		{[]string{"base_url=http://h:1/v1?x=a=b"}, true, map[string]string{"base_url": "http://h:1/v1?x=a=b", "cache_only": "true"}, ""},
		{[]string{"novalue"}, false, nil, "want key=value"},
		{[]string{"=v"}, false, nil, "want key=value"},
		{[]string{"api_key=sk-secret"}, false, nil, "environment only"},
		{[]string{"finalize.api_key=sk-secret"}, false, nil, "environment only"},
	}
	for _, tc := range tests {
		got, err := parseSettings(tc.pairs, tc.cacheOnly)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "sk-secret") {
				t.Errorf("parseSettings(%q) err = %v, want %q without the value", tc.pairs, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tc.want, got.Settings); d != "" {
			t.Errorf("parseSettings(%q) (-want +got):\n%s", tc.pairs, d)
		}
	}
}
