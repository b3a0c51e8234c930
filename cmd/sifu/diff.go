package main

import (
	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu/internal/registry"
)

func newDiffCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "diff old/results.json new/results.json",
		Short: "List regressions and new passes between two runs; exit 1 on any regression",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := registry.Diff(args[0], args[1])
			if err != nil {
				return err
			}
			d.WriteText(cmd.OutOrStdout())
			if d.Regressed() {
				return &failedError{msg: "regressions found"}
			}
			return nil
		},
	}
}
