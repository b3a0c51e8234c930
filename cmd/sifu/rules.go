package main

import (
	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu/internal/registry"
)

func newRulesCmd() *cobra.Command {
	var suite string
	var asJSON, axes bool
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "Print a suite's rule catalogue and the checks that cover each rule",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := registry.Lookup(suite)
			if err != nil {
				return err
			}
			plan, err := s.Plan()
			if err != nil {
				return err
			}
			if axes {
				return plan.WriteAxes(cmd.OutOrStdout(), asJSON)
			}
			return plan.WriteRules(cmd.OutOrStdout(), asJSON)
		},
	}
	cmd.Flags().StringVar(&suite, "suite", "kungfu", "suite whose catalogue to print")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of a table")
	cmd.Flags().BoolVar(&axes, "axes", false, "print the coverage table of every rule's matrix (roles, versions, deadlines): which checks cover each value, as Markdown")
	return cmd
}
