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
