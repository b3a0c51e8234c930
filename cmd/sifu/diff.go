package main

import (
	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu/internal/declaration"
	"github.com/sifu-dev/sifu/internal/results"
)

func newDiffCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "diff old/results.json new/results.json",
		Short: "List regressions and new passes between two runs; exit 1 on any regression",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			old, _, err := declaration.ReadResults(args[0])
			if err != nil {
				return usagef("%v", err)
			}
			cur, _, err := declaration.ReadResults(args[1])
			if err != nil {
				return usagef("%v", err)
			}
			d, err := results.Diff(old, cur)
			if err != nil {
				return usagef("%v", err)
			}
			d.WriteText(cmd.OutOrStdout())
			if d.Regressed() {
				return &failedError{msg: "regressions found"}
			}
			return nil
		},
	}
}
