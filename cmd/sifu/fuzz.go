package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu/internal/attack/fuzz"
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
