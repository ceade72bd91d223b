package main

import (
	"fmt"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/internal/cliargs"
	"github.com/spf13/cobra"
)

func init() {
	addCommand(&cobra.Command{
		Use:   "methods",
		Short: "List the evidence-selection methods this binary knows",
		Args:  cliargs.None,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, name := range mss.Methods() {
				fmt.Fprintf(cmd.OutOrStdout(), "%-24s %s\n", name, mss.MethodHelp(name))
			}
			return nil
		},
	})
}
