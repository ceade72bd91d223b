package main

import (
	"fmt"

	"github.com/missingcomplement/mss/internal/buildinfo"
	"github.com/missingcomplement/mss/internal/cliargs"
	"github.com/spf13/cobra"
)

func init() { addCommand(newVersionCmd()) }

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the module version and source revision this binary was built from",
		Long: `Print the version the Go toolchain recorded in the binary: the module
version (a release tag, or a pseudo-version stamped from git), the commit,
its time and whether the work tree had uncommitted changes, and the Go
version. mss --version prints the same line. A binary built with
-buildvcs=false, or in a linked git worktree (which the toolchain does not
stamp), reports "devel" without a revision.`,
		Args: cliargs.None,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// The line cobra prints for --version. (No version template is
			// set: a template links text/template, whose method lookup by
			// name keeps every exported method in the binary, about 20 MB.)
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "mss version %s\n", buildinfo.Read())
			return err
		},
	}
}
