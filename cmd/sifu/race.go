package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu/internal/attack/linear"
	"github.com/sifu-dev/sifu/internal/registry"
)

func newRaceCmd() *cobra.Command {
	var f registry.RaceArgs
	cmd := &cobra.Command{
		Use:   "race",
		Short: "Check that concurrent actions are linearizable, with the reference as the sequential specification",
		Long: `Race takes every check of the suite that issues steps at once, sets its stage on
a fresh target, fires the concurrent operations from separate clients and
records when each was invoked and answered. porcupine then looks for one
serial order that explains every answer, replaying orders on the bundled
reference. A history no order explains fails; its visualisation (HTML) is
written to --out. Races are nondeterministic: --rounds repeats each one.

Exit status: 0 when every history was linearizable, 1 when one was not, 2 on
a usage error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRace(cmd.Context(), cmd.OutOrStdout(), f)
		},
	}
	fl := cmd.Flags()
	addTargetFlags(fl, &f.TargetArgs, "kungfu", "suite whose races to run", "implementation to check")
	fl.StringVar(&f.Out, "out", "race-findings", "directory for visualisations of non-linearizable histories")
	fl.StringVar(&f.Tags, "tags", "", "only races of checks matching this tag expression")
	fl.IntVar(&f.Rounds, "rounds", 10, "times each race is run")
	return cmd
}

func runRace(ctx context.Context, w io.Writer, f registry.RaceArgs) error {
	checked, bad, err := f.Run(ctx, func(r linear.Race, v linear.Verdict) {
		switch {
		case v.Holds():
			fmt.Fprintf(w, "  linearizable      %s (%d rounds)\n", r.ID, v.Rounds)
		case v.Stage != "":
			fmt.Fprintf(w, "  STAGE FAILED      %s\n    %s\n", r.ID, v.Detail)
		case v.Undecided:
			fmt.Fprintf(w, "  TIMEOUT           %s\n    %s\n", r.ID, v.Detail)
		default:
			fmt.Fprintf(w, "  NOT LINEARIZABLE  %s\n    rules: %v\n    %s\n", r.ID, r.Rules, v.Detail)
			if v.Visualization != "" {
				fmt.Fprintf(w, "    visualisation: %s\n", v.Visualization)
			}
		}
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "races: %d checked, %d not linearizable or undecided\n", checked, bad)
	if bad > 0 {
		return &failedError{msg: fmt.Sprintf("%d race(s) produced a history no serial order explains, or one the checker could not decide in time", bad)}
	}
	return nil
}
