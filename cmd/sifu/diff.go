package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu/internal/declaration"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
)

func newDiffCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "diff old/results.json new/results.json",
		Short: "List regressions and new passes between two runs; exit 1 on any regression",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			old, _, err := declaration.ReadResults(args[0])
			if err != nil {
				return &runner.UsageError{Msg: err.Error()}
			}
			cur, _, err := declaration.ReadResults(args[1])
			if err != nil {
				return &runner.UsageError{Msg: err.Error()}
			}
			d, err := results.Diff(old, cur)
			if err != nil {
				return &runner.UsageError{Msg: err.Error()}
			}
			out := cmd.OutOrStdout()
			section := func(title string, cs []results.Change) {
				for _, c := range cs {
					fmt.Fprintf(out, "%-16s %s: %s → %s\n", title, c.ID, c.From, c.To)
				}
			}
			section("REGRESSION", d.Regressions)
			section("RULE REGRESSION", d.RuleRegressions)
			section("new pass", d.NewPasses)
			section("rule new pass", d.RuleNewPasses)
			for _, id := range d.Added {
				fmt.Fprintf(out, "%-16s %s\n", "added", id)
			}
			for _, id := range d.Removed {
				fmt.Fprintf(out, "%-16s %s\n", "removed", id)
			}
			fmt.Fprintf(out, "%d regression(s), %d rule regression(s), %d new pass(es), %d added, %d removed\n",
				len(d.Regressions), len(d.RuleRegressions), len(d.NewPasses), len(d.Added), len(d.Removed))
			if d.Regressed() {
				return &failedError{msg: "regressions found"}
			}
			return nil
		},
	}
}
