// Command mss recovers the missing complement of evidence for a coding
// agent: the few intact source units that, together with what the agent has
// already read, cover its next decision. Each subcommand lives in its own
// file of this package and only parses flags and calls library packages.
package main

import (
	"fmt"
	"os"

	"github.com/missingcomplement/mss/internal/buildinfo"
	"github.com/spf13/cobra"
)

// version is the one-word version servers announce (MCP serverInfo): the
// module version and revision the toolchain recorded in the binary.
var version = buildinfo.Version()

var rootCmd = &cobra.Command{
	Use:           "mss",
	Short:         "State-conditioned minimal sufficient evidence for coding agents",
	Version:       buildinfo.Read().String(),
	SilenceUsage:  true,
	SilenceErrors: true,
}

func init() { rootCmd.SetVersionTemplate("mss {{.Version}}\n") }

// addCommand registers a subcommand; every command file calls it from init.
func addCommand(c *cobra.Command) { rootCmd.AddCommand(c) }

func main() {
	if err := rootCmd.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "mss:", err)
		os.Exit(1)
	}
}
