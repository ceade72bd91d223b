// Package cliargs checks the positional arguments of mss's commands.
package cliargs

import (
	"fmt"

	"github.com/spf13/cobra"
)

// None refuses positional arguments to a command that takes only flags,
// saying so: cobra's NoArgs calls a stray file name ("mss recover
// state.json") an unknown command. A command with subcommands keeps
// cobra's word, since a stray word there is most likely a mistyped one.
func None(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if cmd.HasAvailableSubCommands() {
		return cobra.NoArgs(cmd, args)
	}
	return fmt.Errorf("unexpected argument %q: %s takes flags only; name files and values with them (%s --help)", args[0], cmd.CommandPath(), cmd.CommandPath())
}
