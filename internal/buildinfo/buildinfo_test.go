package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	settings := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i+1 < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	rev := "8b0f5fe068cf3d2e25240e4724ed8d9d16411606"
	tests := []struct {
		name          string
		bi            debug.BuildInfo
		short, long   string
		modified      bool
		revision, ver string
	}{
		{"go install of a tag",
			debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.0"}},
			"v1.2.0", "v1.2.0, go1.26.8", false, "", "v1.2.0"},
		{"clone with a clean tree",
			debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261130114229-8b0f5fe068cf"},
				Settings: settings("vcs", "git", "vcs.revision", rev, "vcs.time", "2026-11-30T11:42:29Z", "vcs.modified", "false")},
			"v0.0.0-20261130114229-8b0f5fe068cf",
			"v0.0.0-20261130114229-8b0f5fe068cf, revision 8b0f5fe068cf (2026-11-30T11:42:29Z), go1.26.8", false, rev, "v0.0.0-20261130114229-8b0f5fe068cf"},
		{"revision recorded, no module version",
			debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
				Settings: settings("vcs.revision", rev, "vcs.modified", "true")},
			"devel+8b0f5fe068cf+dirty", "devel, revision 8b0f5fe068cf, modified, go1.26.8", true, rev, "devel"},
		{"nothing recorded",
			debug.BuildInfo{},
			"devel", "devel", false, "", "devel"},
	}
	for _, tc := range tests {
		in := fromBuildInfo(&tc.bi)
		if got := in.Short(); got != tc.short {
			t.Errorf("%s: Short() = %q, want %q", tc.name, got, tc.short)
		}
		if got := in.String(); got != tc.long {
			t.Errorf("%s: String() = %q, want %q", tc.name, got, tc.long)
		}
		if in.Modified != tc.modified || in.Revision != tc.revision || in.Version != tc.ver {
			t.Errorf("%s: %+v", tc.name, in)
		}
	}
}

func TestReadRunningBinary(t *testing.T) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Skip("no build information in the test binary")
	}
	in := Read()
	if in.GoVersion != bi.GoVersion || in.Version == "" || Version() != in.Short() {
		t.Errorf("Read() = %+v, Version() = %q, from %+v", in, Version(), bi.Main)
	}
}
