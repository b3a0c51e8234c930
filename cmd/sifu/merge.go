package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/internal/declaration"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
)

func newMergeCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge --out DIR shard1/results.json shard2/results.json …",
		Short: "Combine the results of shards into one results.json, transcript and declaration",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return &runner.UsageError{Msg: "merge needs --out DIR"}
			}
			at, reproducible, err := sourceDateEpoch()
			if err != nil {
				return err
			}
			merged, err := mergeRuns(args)
			if err != nil {
				return &runner.UsageError{Msg: err.Error()}
			}
			if reproducible {
				merged.Reproducible(at)
			}
			entry, err := lookupSuite(merged.Suite)
			if err != nil {
				return err
			}
			plan, err := runner.Load(sifu.Assets, entry.suite)
			if err != nil {
				return err
			}
			if err := plan.Fold(merged); err != nil {
				return err
			}
			d, err := declaration.Declare(out, plan, sources(entry.suite), merged, nil, at)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "merged %d result files: %d checks (%s); profiles claimed %v; wrote %s\n",
				len(args), len(merged.Tests), summaryLine(merged.Summary), d.Claimed, out)
			if merged.Summary.Failed() {
				return &failedError{msg: "the merged run does not conform"}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "directory for the merged results and declaration")
	return cmd
}

// mergeRuns reads the results of shards with their transcripts and
// merges them (results.Merge).
func mergeRuns(paths []string) (*results.Run, error) {
	var runs []*results.Run
	for _, p := range paths {
		run, _, err := declaration.ReadResults(p)
		if err != nil {
			return nil, err
		}
		if err := results.LoadTranscript(p, run); err != nil {
			return nil, err
		}
		runs = append(runs, run)
	}
	return results.Merge(paths, runs)
}
