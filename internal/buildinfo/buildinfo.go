// Package buildinfo reports which build of mss is running: the module
// version and the version-control revision the Go toolchain recorded in the
// binary (runtime/debug.ReadBuildInfo). Nothing is set by hand or with
// -ldflags, so go install, go build and a packager's release build all
// report what they were built from.
package buildinfo

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// Info is what the toolchain recorded about a build.
type Info struct {
	// Version is the main module's version: a release tag (v1.2.3), a
	// pseudo-version stamped from version control (v0.0.0-20261130...-abcdef
	// or with +dirty), or "devel" when none was recorded (go run, go test,
	// or a build with -buildvcs=false).
	Version string
	// Revision is the version-control commit, empty when not recorded.
	Revision string
	// Time is the commit time (RFC 3339), empty when not recorded.
	Time string
	// Modified reports uncommitted changes in the work tree at build time.
	Modified bool
	// GoVersion is the toolchain that built the binary.
	GoVersion string
}

// Read returns the running binary's build information.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{Version: "devel"}
	}
	return fromBuildInfo(bi)
}

func fromBuildInfo(bi *debug.BuildInfo) Info {
	in := Info{Version: bi.Main.Version, GoVersion: bi.GoVersion}
	if in.Version == "" || in.Version == "(devel)" {
		in.Version = "devel"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			in.Revision = s.Value
		case "vcs.time":
			in.Time = s.Value
		case "vcs.modified":
			in.Modified = s.Value == "true"
		}
	}
	return in
}

// Version is the one-word version of the running binary, for protocol
// fields such as MCP's serverInfo.version: the module version, and when
// that is "devel" but a revision was recorded, "devel+" and its first 12
// characters (with "+dirty" for a modified work tree).
func Version() string { return Read().Short() }

// Short is the one-word form Version returns.
func (in Info) Short() string {
	if in.Version != "devel" || in.Revision == "" {
		return in.Version
	}
	v := "devel+" + shortRev(in.Revision)
	if in.Modified {
		v += "+dirty"
	}
	return v
}

// String is the one-line form mss version prints: the version, then the
// revision, its time and whether the tree was modified when recorded, then
// the toolchain.
func (in Info) String() string {
	var parts []string
	if in.Revision != "" {
		r := "revision " + shortRev(in.Revision)
		if in.Time != "" {
			r += " (" + in.Time + ")"
		}
		if in.Modified {
			r += ", modified"
		}
		parts = append(parts, r)
	}
	if in.GoVersion != "" {
		parts = append(parts, in.GoVersion)
	}
	if len(parts) == 0 {
		return in.Version
	}
	return fmt.Sprintf("%s, %s", in.Version, strings.Join(parts, ", "))
}

func shortRev(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}
