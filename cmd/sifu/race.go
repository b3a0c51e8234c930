package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/kungfuinproc"
	"github.com/sifu-dev/sifu/internal/attack/acpfuzz"
	"github.com/sifu-dev/sifu/internal/attack/kungfufuzz"
	"github.com/sifu-dev/sifu/internal/attack/linear"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/suite/acp"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

type raceFlags struct {
	runFlags
	rounds int
}

func newRaceCmd() *cobra.Command {
	var f raceFlags
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
		RunE: func(cmd *cobra.Command, _ []string) error { return runRace(cmd.Context(), cmd.OutOrStdout(), f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.suite, "suite", "kungfu", "suite whose races to run (kungfu, acp)")
	fl.StringVar(&f.target, "target", "inproc", "implementation to check")
	fl.StringVar(&f.out, "out", "race-findings", "directory for visualisations of non-linearizable histories")
	fl.StringVar(&f.tags, "tags", "", "only races of checks matching this tag expression")
	fl.IntVar(&f.rounds, "rounds", 10, "times each race is run")
	addTargetFlags(fl, &f.runFlags)
	return cmd
}

// raceChecker checks one race against the target a suite's flags built.
type raceChecker func(ctx context.Context, r linear.Race, rounds int, outDir string) (linear.Verdict, error)

// raceCheckers builds the race checker of each suite that has races.
var raceCheckers = map[string]func(target runner.Target) (raceChecker, error){
	"kungfu": func(target runner.Target) (raceChecker, error) {
		rt, ok := target.(kungfu.RunTarget)
		if !ok {
			return nil, fmt.Errorf("sifu race cannot drive a %T", target)
		}
		c := linear.Checker{Target: rt.NewExecutor, Reference: kungfu.RunTarget{New: kungfuOracle}.NewExecutor, Agree: kungfufuzz.Compare}
		return c.Check, nil
	},
	"acp": func(target runner.Target) (raceChecker, error) {
		rt, ok := target.(acp.RunTarget)
		if !ok {
			return nil, fmt.Errorf("sifu race cannot drive a %T", target)
		}
		c := linear.Checker{Target: rt.NewExecutor, Reference: acp.RunTarget{New: acpOracle}.NewExecutor,
			Agree: acpfuzz.RaceAgree, Describe: acpfuzz.DescribeRaceCall}
		return c.Check, nil
	},
}

func runRace(ctx context.Context, out io.Writer, f raceFlags) error {
	checkerFor, ok := raceCheckers[f.suite]
	if !ok {
		return &runner.UsageError{Msg: fmt.Sprintf("sifu race checks the kungfu and acp suites; %s has no races yet", f.suite)}
	}
	if f.rounds <= 0 {
		return &runner.UsageError{Msg: "--rounds must be positive"}
	}
	entry, err := lookupSuite(f.suite)
	if err != nil {
		return err
	}
	newTarget, ok := entry.targets[f.target]
	if !ok {
		return &runner.UsageError{Msg: fmt.Sprintf("unknown target %q for suite %s", f.target, f.suite)}
	}
	target, err := newTarget(f.runFlags)
	if err != nil {
		return err
	}
	check, err := checkerFor(target)
	if err != nil {
		return err
	}
	plan, err := runner.Load(sifu.Assets, entry.suite)
	if err != nil {
		return err
	}
	checks := plan.Checks
	if f.tags != "" {
		checks = nil
		for _, c := range plan.Checks {
			if runner.MatchTags(f.tags, append(append([]string{c.Kind}, c.Tags...), c.Rules...)) {
				checks = append(checks, c)
			}
		}
	}
	races := linear.Races(checks)
	if len(races) == 0 {
		return &runner.UsageError{Msg: "no check with concurrent steps was selected"}
	}
	bad := 0
	for _, r := range races {
		v, err := check(ctx, r, f.rounds, f.out)
		if err != nil {
			return err
		}
		if v.Holds() {
			fmt.Fprintf(out, "  linearizable      %s (%d rounds)\n", r.ID, v.Rounds)
			continue
		}
		bad++
		if v.Stage != "" {
			fmt.Fprintf(out, "  STAGE FAILED      %s\n    %s\n", r.ID, v.Detail)
			continue
		}
		if v.Undecided {
			fmt.Fprintf(out, "  TIMEOUT           %s\n    %s\n", r.ID, v.Detail)
			continue
		}
		fmt.Fprintf(out, "  NOT LINEARIZABLE  %s\n    rules: %v\n    %s\n", r.ID, r.Rules, v.Detail)
		if v.Visualization != "" {
			fmt.Fprintf(out, "    visualisation: %s\n", v.Visualization)
		}
	}
	fmt.Fprintf(out, "races: %d checked, %d not linearizable or undecided\n", len(races), bad)
	if bad > 0 {
		return &failedError{msg: fmt.Sprintf("%d race(s) produced a history no serial order explains, or one the checker could not decide in time", bad)}
	}
	return nil
}

// kungfuOracle is a fresh in-process reference.
func kungfuOracle(context.Context) (kungfu.Target, func(), error) {
	t, err := kungfuinproc.New()
	return t, func() {}, err
}

// raceProbe runs every race of the plan against a target and describes the
// first history no serial order explains, or returns "".
func raceProbe(ctx context.Context, plan *runner.Plan, target runner.Target, rounds int) (string, error) {
	checkerFor, ok := raceCheckers[plan.Suite.Name]
	if !ok {
		return "", nil
	}
	check, err := checkerFor(target)
	if err != nil {
		return "", nil
	}
	for _, r := range linear.Races(plan.Checks) {
		v, err := check(ctx, r, rounds, "")
		if err != nil {
			return "", err
		}
		if v.Stage != "" {
			return "race " + r.ID + ": its stage did not hold", nil
		}
		if !v.Linearizable && !v.Undecided {
			return "race " + r.ID + " not linearizable", nil
		}
	}
	return "", nil
}
