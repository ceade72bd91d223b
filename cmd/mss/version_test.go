package main

import (
	"bytes"
	"runtime"
	"strings"
	"testing"

	"github.com/missingcomplement/mss/internal/buildinfo"
)

func TestVersion(t *testing.T) {
	run := func(args ...string) string {
		t.Helper()
		var out bytes.Buffer
		rootCmd.SetOut(&out)
		rootCmd.SetArgs(args)
		defer rootCmd.SetOut(nil)
		defer rootCmd.SetArgs(nil)
		if err := rootCmd.Execute(); err != nil {
			t.Fatalf("mss %v: %v", args, err)
		}
		return out.String()
	}
	want := "mss " + buildinfo.Read().String() + "\n"
	if got := run("version"); got != want {
		t.Errorf("mss version = %q, want %q", got, want)
	}
	if got := run("--version"); got != want {
		t.Errorf("mss --version = %q, want %q", got, want)
	}
	if !strings.HasSuffix(want, ", "+runtime.Version()+"\n") {
		t.Errorf("version line %q does not name the toolchain %s", want, runtime.Version())
	}
	if version != buildinfo.Version() || version == "" || version == "dev" {
		t.Errorf("the version servers announce is %q", version)
	}
}
