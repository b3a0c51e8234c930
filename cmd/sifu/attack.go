package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu/internal/attack/fuzz"
	"github.com/sifu-dev/sifu/internal/attack/linear"
	"github.com/sifu-dev/sifu/internal/attack/selftest"
	"github.com/sifu-dev/sifu/internal/progress"
	"github.com/sifu-dev/sifu/internal/registry"
)

func newFuzzCmd() *cobra.Command {
	var f registry.FuzzArgs
	cmd := &cobra.Command{
		Use:   "fuzz",
		Short: "Fuzz an implementation against the bundled reference, shrinking any divergence to a vector",
		Long: `Fuzz generates random, valid-looking cases and runs each against the target
and a fresh in-process reference in lockstep, comparing every answer. Kungfu:
several agents acting, reading, racing and driving the clock over every
profile, many steps meant to be refused. KCP: mutations of the corpus's
manifests, tasks and options. ACP: tool-call sequences by participants and
outsiders, hand-edited documents and event lines. The first divergence is shrunk to a minimal
case and written to --out as a vector in the suite's own format, ready to
review and commit; the seed and a reproduction command are printed.

A fault of the fuzzer itself (its model expecting what the reference did
not answer, the reference failing, a panic) is a harness_error: exit 1, with
the seed, case and step and the command line that reproduces it.

Exit status: 0 when nothing diverged, 1 when a divergence was found or the
harness failed, 2 on a usage error or a target that cannot be started.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runFuzz(cmd.Context(), cmd.OutOrStdout(), f) },
	}
	fl := cmd.Flags()
	addTargetFlags(fl, &f.TargetArgs, "kungfu", "suite to fuzz", "implementation to fuzz")
	fl.StringVar(&f.Out, "out", "fuzz-findings", "directory the shrunk finding is written to")
	fl.Uint64Var(&f.Seed, "seed", 0, "seed (0: pick one and print it)")
	fl.IntVar(&f.Runs, "runs", 100, "cases to generate")
	fl.IntVar(&f.Steps, "steps", 30, "average steps per case")
	fl.DurationVar(&f.ShrinkTime, "shrink-time", 30*time.Second, "time limit for shrinking a finding")
	return cmd
}

// fuzzSubject is what fuzz needs of an opened target.
type fuzzSubject = registry.Fuzzer

// openFuzzSubject opens the target to fuzz; tests plant a fuzzer with a
// harness fault here.
var openFuzzSubject = registry.OpenFuzzer

func runFuzz(ctx context.Context, out io.Writer, f registry.FuzzArgs) error {
	r, err := f.Open(openFuzzSubject)
	if err != nil {
		return err
	}
	defer r.Close()
	fmt.Fprintf(out, "fuzz %s against %s: seed %d, %d runs\n", r.Suite, r.Kind, r.Seed, r.Runs)
	start := time.Now()
	meter := progress.New(os.Stderr, "fuzz "+r.Suite+": cases", r.Runs)
	res, err := r.Fuzz(ctx, func() { meter.Add(1) })
	meter.Done()
	elapsed := time.Since(start)
	if ctx.Err() != nil {
		return &exitError{code: exitInterrupted, msg: fmt.Sprintf("sifu: interrupted: fuzz %s (seed %d) stopped after %d cases", r.Suite, r.Seed, res.Runs)}
	}
	var harness *fuzz.HarnessError
	if err != nil && (res.Divergence == nil || !errors.As(err, &harness)) {
		return err
	}
	if err == nil {
		fmt.Fprintf(out, "%d cases, %d steps in %s (%.0f steps/s)\n", res.Runs, res.Steps, elapsed.Round(time.Millisecond), float64(res.Steps)/elapsed.Seconds())
		if res.Divergence == nil {
			fmt.Fprintln(out, "no divergence")
			return nil
		}
	}
	// A fault met while shrinking leaves the divergence found standing, if
	// perhaps not at its smallest.
	if err := reportDivergence(out, r, res.Divergence); err != nil {
		return err
	}
	if err != nil {
		return err
	}
	return &failedError{msg: "the target diverged from the reference"}
}

// reportDivergence prints a divergence, writes its shrunk case to --out
// and says how to reproduce and replay it.
func reportDivergence(out io.Writer, r *registry.FuzzRun, d *fuzz.Divergence) error {
	fmt.Fprintf(out, "DIVERGED at step %d: %s\nrules: %s\n", d.Step+1, d.Detail, strings.Join(d.Rules, ", "))
	file, err := r.WriteFinding(d)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "wrote the shrunk case to %s\nreproduce: %s\nreplay the vector: %s\n", file, r.Reproduce(r.Runs), r.Replay())
	return nil
}

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
		RunE: func(cmd *cobra.Command, _ []string) error { return runRace(cmd.Context(), cmd.OutOrStdout(), f) },
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

func newSelftestCmd() *cobra.Command {
	var names []string
	var asJSON bool
	req := registry.SelftestRequest{}
	cmd := &cobra.Command{
		Use:   "selftest",
		Short: "Run each suite against every mutant of its reference and report the mutation score",
		Long: `Selftest proves the suites can fail. Each reference carries named planted
faults (mutants), each with the rules whose checks must catch it; selftest
runs the checks of the mutant's rules, then a short fuzz, against each
mutant and reports it killed (a check of one of its rules failed, or the
fuzzer or a race found it with one of those rules) or survived. A check
of another rule that fails, a timeout or a broken harness kills nothing;
a survivor meets every check, so that the report names the others that
fail on it (--every-check: every mutant meets every check).

Exit status: 0 when every mutant is killed, 1 when one survives (add or
sharpen a check; never delete the mutant), 2 on a usage error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSelftest(cmd.Context(), cmd.OutOrStdout(), names, asJSON, req)
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&names, "suite", nil, "suites to test (default: every suite with mutants)")
	fl.BoolVar(&asJSON, "json", false, "print the report as JSON")
	fl.DurationVar(&req.Timeout, "timeout", 30*time.Second, "time limit for one check (a check tagged @timeout:Nx gets N times it)")
	fl.IntVar(&req.Concurrency, "concurrency", 0, "checks run at once (default: number of CPUs)")
	fl.IntVar(&req.FuzzRuns, "fuzz-runs", 0, "fuzz runs per mutant after the checks (0: checks only)")
	fl.Uint64Var(&req.Seed, "seed", 1, "fuzz seed")
	fl.StringSliceVar(&req.Mutants, "mutant", nil, "only these mutants (repeatable)")
	fl.BoolVar(&req.EveryCheck, "every-check", false, "run every check against every mutant, not only the checks of its rules (slower; the JSON report then lists every other check that fails on it)")
	fl.IntVar(&req.RaceRounds, "race-rounds", 0, "rounds of every race per mutant after the fuzz, for suites with races (0: none)")
	fl.DurationVar(&req.ShrinkTime, "shrink-time", 2*time.Second, "time limit for shrinking one fuzz finding")
	return cmd
}

func runSelftest(ctx context.Context, out io.Writer, names []string, asJSON bool, req registry.SelftestRequest) error {
	meter := func(suite string, mutants int) *progress.Meter {
		return progress.New(os.Stderr, "selftest "+suite+": mutants", mutants)
	}
	reports, survivors, err := registry.SelftestEach(ctx, names, req, meter, func(r selftest.Report) {
		if !asJSON {
			r.WriteText(out)
		}
	})
	if err != nil {
		return err
	}
	if asJSON {
		raw, _ := json.MarshalIndent(reports, "", "  ")
		fmt.Fprintln(out, string(raw))
	}
	if survivors > 0 {
		return &failedError{msg: fmt.Sprintf("%d mutant(s) survived", survivors)}
	}
	return nil
}
