package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"testing/fstest"
	"time"

	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/internal/attack/selftest"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/progress"
	"github.com/sifu-dev/sifu/internal/runner"
)

type selftestFlags struct {
	suites      []string
	asJSON      bool
	timeout     time.Duration
	concurrency int
	fuzzRuns    int
	seed        uint64
	shrinkTime  time.Duration
	only        []string
	raceRounds  int
}

func newSelftestCmd() *cobra.Command {
	var f selftestFlags
	cmd := &cobra.Command{
		Use:   "selftest",
		Short: "Run each suite against every mutant of its reference and report the mutation score",
		Long: `Selftest proves the suites can fail. Each reference carries named planted
faults (mutants); selftest runs the suite's checks, then a short fuzz, against
each mutant and reports it killed (some check failed, the fuzzer found a
divergence or a race history was not linearizable) or survived.

Exit status: 0 when every mutant is killed, 1 when one survives (add or
sharpen a check; never delete the mutant), 2 on a usage error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runSelftest(cmd.Context(), cmd.OutOrStdout(), f) },
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&f.suites, "suite", nil, "suites to test (default: every suite with mutants)")
	fl.BoolVar(&f.asJSON, "json", false, "print the report as JSON")
	fl.DurationVar(&f.timeout, "timeout", 30*time.Second, "time limit for one check")
	fl.IntVar(&f.concurrency, "concurrency", 0, "checks run at once (default: number of CPUs)")
	fl.IntVar(&f.fuzzRuns, "fuzz-runs", 0, "fuzz runs per mutant after the checks (0: checks only)")
	fl.Uint64Var(&f.seed, "seed", 1, "fuzz seed")
	fl.StringSliceVar(&f.only, "mutant", nil, "only these mutants (repeatable)")
	fl.IntVar(&f.raceRounds, "race-rounds", 0, "rounds of every race per mutant after the fuzz (kungfu, acp; 0: none)")
	fl.DurationVar(&f.shrinkTime, "shrink-time", 2*time.Second, "time limit for shrinking one fuzz finding")
	return cmd
}

func runSelftest(ctx context.Context, out io.Writer, f selftestFlags) error {
	names := f.suites
	if len(names) == 0 {
		for _, n := range slices.Sorted(maps.Keys(suites())) {
			if suites()[n].mutants != nil {
				names = append(names, n)
			}
		}
	}
	var reports []selftest.Report
	survivors := 0
	for _, name := range names {
		entry, err := lookupSuite(name)
		if err != nil {
			return err
		}
		if entry.mutants == nil {
			return &runner.UsageError{Msg: fmt.Sprintf("suite %s has no mutants yet", name)}
		}
		plan, err := runner.Load(sifu.Assets, entry.suite)
		if err != nil {
			return err
		}
		reference, err := entry.targets["inproc"](runFlags{})
		if err != nil {
			return err
		}
		var probe selftest.Prober
		if (f.fuzzRuns > 0 && entry.fuzz != nil) || (f.raceRounds > 0 && raceCheckers[name] != nil) {
			probe = func(ctx context.Context, m selftest.Mutant) (string, error) {
				if f.fuzzRuns > 0 && entry.fuzz != nil {
					res, err := entry.fuzz(ctx, fuzzRequest{target: m.Target, seed: f.seed, runs: f.fuzzRuns, shrinkTime: f.shrinkTime})
					if err != nil {
						return "", err
					}
					if d := res.Divergence; d != nil {
						verdict, err := replayFinding(ctx, entry, name, f.seed, d.Vector, reference, m.Target)
						if err != nil {
							return "", err
						}
						return fmt.Sprintf("fuzz step %d: %s [%s]", d.Step+1, d.Detail, verdict), nil
					}
				}
				if f.raceRounds > 0 && raceCheckers[name] != nil {
					return raceProbe(ctx, plan, m.Target, f.raceRounds)
				}
				return "", nil
			}
		}
		cfg := runner.Config{Timeout: f.timeout, Concurrency: f.concurrency, Harness: harness()}
		mutants := entry.mutants()
		if len(f.only) > 0 {
			var kept []selftest.Mutant
			for _, m := range mutants {
				if slices.Contains(f.only, m.Name) {
					kept = append(kept, m)
				}
			}
			if len(kept) != len(f.only) {
				return &runner.UsageError{Msg: fmt.Sprintf("--mutant %v: not all are mutants of suite %s", f.only, name)}
			}
			mutants = kept
		}
		meter := progress.New(os.Stderr, "selftest "+name+": mutants", len(mutants))
		r, err := selftest.Run(ctx, plan, reference, mutants, cfg, probe, func(int, int) { meter.Add(1) })
		meter.Done()
		if err != nil {
			return err
		}
		reports = append(reports, r)
		survivors += len(r.Survivors())
		if !f.asJSON {
			printSelftest(out, r)
		}
	}
	if f.asJSON {
		raw, _ := json.MarshalIndent(reports, "", "  ")
		fmt.Fprintln(out, string(raw))
	}
	if survivors > 0 {
		return &failedError{msg: fmt.Sprintf("%d mutant(s) survived", survivors)}
	}
	return nil
}

func printSelftest(out io.Writer, r selftest.Report) {
	fmt.Fprintf(out, "selftest %s: %d checks against %d mutants\n", r.Suite, r.Checks, len(r.Outcomes))
	for _, o := range r.Outcomes {
		if !o.Killed {
			fmt.Fprintf(out, "  SURVIVED %s\n", o.Mutant)
			continue
		}
		var by []string
		if n := len(o.KilledBy); n > 0 {
			first := o.KilledBy[0]
			if n > 1 {
				first += fmt.Sprintf(" (+%d more)", n-1)
			}
			by = append(by, first)
		}
		if o.Probe != "" {
			by = append(by, o.Probe)
		}
		if len(o.Broken) > 0 {
			by = append(by, fmt.Sprintf("%d check(s) broke the harness", len(o.Broken)))
		}
		fmt.Fprintf(out, "  killed   %-32s by %s\n", o.Mutant, strings.Join(by, "; "))
	}
	fmt.Fprintf(out, "mutation score %s: %d/%d killed (%.0f%%)\n", r.Suite, r.Killed, len(r.Outcomes), 100*r.Score())
}

// replayFinding compiles a fuzz finding as the suite compiles any vector and
// runs it against the reference and the mutant: a finding is only as good
// as the check it becomes.
func replayFinding(ctx context.Context, entry suiteEntry, suite string, seed uint64, vec []byte, reference, mutant runner.Target) (string, error) {
	if vec == nil {
		return "no vector written", nil
	}
	file := fmt.Sprintf("fuzz-%s-%d.json", suite, seed)
	plan, err := runner.Load(sifu.Assets, entry.suite, runner.WithVectors(fstest.MapFS{file: {Data: vec}}, "."))
	if err != nil {
		return "", fmt.Errorf("the finding does not compile: %w", err)
	}
	var only []string
	for _, c := range plan.Checks {
		if strings.HasPrefix(c.Source, file) {
			only = append(only, c.ID)
		}
	}
	status := func(t runner.Target) (engine.Status, error) {
		run, err := plan.Run(ctx, runner.Config{Target: t, TargetName: "replay", Only: only, Harness: harness()})
		if err != nil || len(run.Tests) == 0 {
			return "", err
		}
		return run.Tests[0].Status, nil
	}
	onRef, err := status(reference)
	if err != nil {
		return "", err
	}
	onMutant, err := status(mutant)
	if err != nil {
		return "", err
	}
	if onRef == engine.Pass && onMutant == engine.Fail {
		return "its vector passes on the reference and fails on the mutant", nil
	}
	return fmt.Sprintf("its vector is %s on the reference and %s on the mutant", onRef, onMutant), nil
}
