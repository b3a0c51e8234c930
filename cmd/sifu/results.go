package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu/internal/registry"
	"github.com/sifu-dev/sifu/internal/results"
)

func newMergeCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge --out DIR shard1/results.json shard2/results.json …",
		Short: "Combine the results of shards into one results.json, transcript and declaration",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usagef("merge needs --out DIR")
			}
			at, reproducible, err := registry.Epoch()
			if err != nil {
				return err
			}
			merged, d, err := registry.Merge(out, args, at, reproducible)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "merged %d result files: %d checks (%s); profiles claimed %v; wrote %s\n",
				len(args), len(merged.Tests), results.SummaryLine(merged.Summary), d.Claimed, out)
			if merged.Summary.Failed() {
				return &failedError{msg: "the merged run does not conform"}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "directory for the merged results and declaration")
	return cmd
}

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
