package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

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

Exit status: 0 when nothing diverged, 1 when a divergence was found, 2 on a
usage error.`,
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
	target, err := s.Open(spec)
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
	if err != nil {
		return fmt.Errorf("fuzz (seed %d): %w", f.seed, err)
	}
	fmt.Fprintf(out, "%d cases, %d steps in %s (%.0f steps/s)\n", res.Runs, res.Steps, elapsed.Round(time.Millisecond), float64(res.Steps)/elapsed.Seconds())
	d := res.Divergence
	if d == nil {
		fmt.Fprintln(out, "no divergence")
		return nil
	}
	fmt.Fprintf(out, "DIVERGED at step %d: %s\nrules: %s\n", d.Step+1, d.Detail, strings.Join(d.Rules, ", "))
	file, err := registry.WriteFinding(f.out, f.suite, f.seed, d.Vector)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "wrote the shrunk case to %s\n", file)
	var args strings.Builder
	for _, kv := range [][2]string{{"--url", f.url}, {"--cmd", f.command}, {"--start-cmd", f.startCmd}, {"--target-config", f.targetConfig}, {"--mutant", f.mutant}} {
		if kv[1] != "" {
			fmt.Fprintf(&args, " %s %q", kv[0], kv[1])
		}
	}
	checkArgs := ""
	for _, c := range f.checks {
		checkArgs += fmt.Sprintf(" --check %q", c)
	}
	fmt.Fprintf(out, "reproduce: sifu fuzz --suite %s --target %s%s%s --seed %d --runs %d --steps %d\n", f.suite, f.target, args.String(), checkArgs, f.seed, f.runs, f.steps)
	fmt.Fprintf(out, "replay the vector: sifu run --suite %s --target %s%s --vectors %s\n", f.suite, f.target, args.String(), f.out)
	return &failedError{msg: "the target diverged from the reference"}
}
