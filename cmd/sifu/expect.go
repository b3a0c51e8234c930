package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu/internal/registry"
)

func newExpectCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "expect", Short: "Maintain an expectations file (known failures, each with a reason)"}
	var file string
	update := &cobra.Command{
		Use:   "update results.json",
		Short: "Write the expectations file from a run: every check that did not pass, with its status, keeping existing reasons",
		Long: `Update writes the expectations file from a run's results.json. Every check
that did not pass is named, with the status it ended with, in an entry of
its rule: a check an entry already names stays there with its reason (and
intermittent if it was); the checks of a rule an older ` + "`id: <rule ID>`" + ` entry
names go to an entry of that rule with its reason; the rest go to new
entries with a TODO reason, which a run refuses until it is replaced. Checks
listed under checks: that pass now are left out; intermittent ones stay.
Which checks catch their fault in some runs only, update cannot know from
one run: move them under intermittent: by hand.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			entries, checks, err := registry.UpdateExpectations(args[0], file)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %d entries naming %d check(s); replace every TODO with the reason\n", file, entries, checks)
			return nil
		},
	}
	update.Flags().StringVar(&file, "file", "sifu.expect.yaml", "the expectations file to write")
	cmd.AddCommand(update)
	return cmd
}
