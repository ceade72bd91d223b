package cliargs

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func TestNone(t *testing.T) {
	root := &cobra.Command{Use: "mss"}
	leaf := &cobra.Command{Use: "recover", Args: None, RunE: func(*cobra.Command, []string) error { return nil }}
	parent := &cobra.Command{Use: "index", Args: None, RunE: func(*cobra.Command, []string) error { return nil }}
	parent.AddCommand(&cobra.Command{Use: "ls", Run: func(*cobra.Command, []string) {}})
	root.AddCommand(leaf, parent)
	for args, want := range map[string]string{
		"recover":            "",
		"recover state.json": `unexpected argument "state.json": mss recover takes flags only; name files and values with them (mss recover --help)`,
		"index foo":          `unknown command "foo" for "mss index"`,
	} {
		root.SetArgs(strings.Fields(args))
		root.SilenceErrors, root.SilenceUsage = true, true
		err := root.Execute()
		if got := ""; err != nil {
			got = err.Error()
			if got != want {
				t.Errorf("%s: %q, want %q", args, got, want)
			}
		} else if want != "" {
			t.Errorf("%s: no error, want %q", args, want)
		}
	}
}
