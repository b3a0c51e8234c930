package main

import (
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/declaration"
	"github.com/sifu-dev/sifu/results"
	"github.com/sifu-dev/sifu/runner"
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

// mergeRuns reads shard results, checks that they belong together, and
// joins their tests with their transcript exchanges.
func mergeRuns(paths []string) (*results.Run, error) {
	var merged *results.Run
	seen := map[string]string{}
	for _, p := range paths {
		run, _, err := declaration.ReadResults(p)
		if err != nil {
			return nil, err
		}
		if c := run.Conditions; c != nil {
			return nil, fmt.Errorf("%s: the run was made with %s; a declaration needs a plain run, so such shards are not merged", p, c)
		}
		if err := results.LoadTranscript(p, run); err != nil {
			return nil, err
		}
		tests := run.Tests
		if merged == nil {
			merged = run
			merged.Tests = nil
		} else {
			for field, same := range map[string]bool{
				"/suite":           run.Suite == merged.Suite,
				"/harness/version": run.Harness.Version == merged.Harness.Version,
				"/target/name":     run.Target.Name == merged.Target.Name,
				"/profiles":        slices.Equal(run.Profiles, merged.Profiles),
			} {
				if !same {
					return nil, fmt.Errorf("%s: %s differs from the first file's; only shards of one run can be merged", p, field)
				}
			}
			merged.DurationMS = max(merged.DurationMS, run.DurationMS)
		}
		for _, t := range tests {
			if prev, dup := seen[t.ID]; dup {
				return nil, fmt.Errorf("%s: check %s is also in %s; shards must not overlap", p, t.ID, prev)
			}
			seen[t.ID] = p
			merged.Tests = append(merged.Tests, t)
		}
	}
	merged.Transcript, merged.Expectations = nil, nil
	return merged, nil
}
