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

type fuzzFlags struct {
	targetFlags
	out        string
	seed       uint64
	runs       int
	steps      int
	shrinkTime time.Duration
}

func newFuzzCmd() *cobra.Command {
	var f fuzzFlags
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
	fl.StringVar(&f.suite, "suite", "kungfu", "suite to fuzz")
	fl.StringVar(&f.target, "target", "inproc", "implementation to fuzz")
	fl.StringVar(&f.out, "out", "fuzz-findings", "directory the shrunk finding is written to")
	fl.Uint64Var(&f.seed, "seed", 0, "seed (0: pick one and print it)")
	fl.IntVar(&f.runs, "runs", 100, "cases to generate")
	fl.IntVar(&f.steps, "steps", 30, "average steps per case")
	fl.DurationVar(&f.shrinkTime, "shrink-time", 30*time.Second, "time limit for shrinking a finding")
	addTargetFlags(fl, &f.targetFlags)
	return cmd
}

// fuzzSubject is what fuzz needs of an opened target (a
// *registry.Subject).
type fuzzSubject interface {
	Fuzz(context.Context, registry.FuzzRequest) (fuzz.Result, error)
	Close() error
}

// openFuzzSubject opens the target to fuzz; tests plant a fuzzer with a
// harness fault here.
var openFuzzSubject = func(s *registry.Suite, spec registry.Spec) (fuzzSubject, error) {
	t, err := s.Open(spec)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// fuzzHarnessError is a fault of the fuzzer itself, with the command line
// that reproduces it.
type fuzzHarnessError struct {
	err       *fuzz.HarnessError
	reproduce string
}

func (e *fuzzHarnessError) Error() string {
	return fmt.Sprintf("%v\nreproduce: %s\nplease report it with that command line", e.err, e.reproduce)
}

func (e *fuzzHarnessError) Unwrap() error { return e.err }

func runFuzz(ctx context.Context, out io.Writer, f fuzzFlags) error {
	s, err := registry.Lookup(f.suite)
	if err != nil {
		return err
	}
	switch {
	case !s.Fuzzes:
		return usagef("suite %s has no fuzzer yet", f.suite)
	case len(f.checks) > 0 && !s.FuzzFromChecks:
		return usagef("the %s fuzzer generates its cases instead of starting from checks: drop --check", f.suite)
	case f.runs <= 0 || f.steps <= 0 || f.shrinkTime <= 0:
		return usagef("--runs, --steps and --shrink-time must be positive")
	}
	spec, err := f.spec()
	if err != nil {
		return err
	}
	target, err := openFuzzSubject(s, spec)
	if err != nil {
		return err
	}
	defer target.Close()
	if f.seed == 0 {
		f.seed = uint64(time.Now().UnixNano())
	}
	fmt.Fprintf(out, "fuzz %s against %s: seed %d, %d runs\n", f.suite, f.target, f.seed, f.runs)
	start := time.Now()
	meter := progress.New(os.Stderr, "fuzz "+f.suite+": cases", f.runs)
	res, err := target.Fuzz(ctx, registry.FuzzRequest{Seed: f.seed, Runs: f.runs, Steps: f.steps, ShrinkTime: f.shrinkTime, Checks: f.checks,
		Progress: func() { meter.Add(1) }})
	meter.Done()
	elapsed := time.Since(start)
	if ctx.Err() != nil {
		return &exitError{code: exitInterrupted, msg: fmt.Sprintf("sifu: interrupted: fuzz %s (seed %d) stopped after %d cases", f.suite, f.seed, res.Runs)}
	}
	var harness *fuzz.HarnessError
	if errors.As(err, &harness) {
		// Reaching the case again takes the same seed and at most its
		// number of cases.
		runs := f.runs
		if harness.Case > 0 && !harness.Shrinking {
			runs = harness.Case
		}
		harnessErr := &fuzzHarnessError{err: harness, reproduce: f.reproduce(runs)}
		if res.Divergence == nil {
			return harnessErr
		}
		// A fault met while shrinking: the divergence found stands, if
		// perhaps not at its smallest.
		if err := reportDivergence(out, f, res.Divergence); err != nil {
			return err
		}
		return harnessErr
	}
	var lost *fuzz.TargetError
	if errors.As(err, &lost) {
		return usagef("%v", err)
	}
	if err != nil {
		return fmt.Errorf("fuzz (seed %d): %w", f.seed, err)
	}
	fmt.Fprintf(out, "%d cases, %d steps in %s (%.0f steps/s)\n", res.Runs, res.Steps, elapsed.Round(time.Millisecond), float64(res.Steps)/elapsed.Seconds())
	if res.Divergence == nil {
		fmt.Fprintln(out, "no divergence")
		return nil
	}
	if err := reportDivergence(out, f, res.Divergence); err != nil {
		return err
	}
	return &failedError{msg: "the target diverged from the reference"}
}

// reportDivergence prints a divergence, writes its shrunk case to --out
// and says how to reproduce and replay it.
func reportDivergence(out io.Writer, f fuzzFlags, d *fuzz.Divergence) error {
	fmt.Fprintf(out, "DIVERGED at step %d: %s\nrules: %s\n", d.Step+1, d.Detail, strings.Join(d.Rules, ", "))
	file, err := registry.WriteFinding(f.out, f.suite, f.seed, d.Vector)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "wrote the shrunk case to %s\n", file)
	fmt.Fprintf(out, "reproduce: %s\n", f.reproduce(f.runs))
	fmt.Fprintf(out, "replay the vector: sifu run --suite %s --target %s%s --vectors %s\n", f.suite, f.target, f.targetArgs(), f.out)
	return nil
}

// targetArgs are the flags that name the target, as a command line.
func (f fuzzFlags) targetArgs() string {
	var args strings.Builder
	for _, kv := range [][2]string{{"--url", f.url}, {"--cmd", f.command}, {"--start-cmd", f.startCmd}, {"--target-config", f.targetConfig}, {"--mutant", f.mutant}} {
		if kv[1] != "" {
			fmt.Fprintf(&args, " %s %q", kv[0], kv[1])
		}
	}
	return args.String()
}

// reproduce is the fuzz command line that runs the same cases again, up to
// runs of them.
func (f fuzzFlags) reproduce(runs int) string {
	checkArgs := ""
	for _, c := range f.checks {
		checkArgs += fmt.Sprintf(" --check %q", c)
	}
	return fmt.Sprintf("sifu fuzz --suite %s --target %s%s%s --seed %d --runs %d --steps %d", f.suite, f.target, f.targetArgs(), checkArgs, f.seed, runs, f.steps)
}
