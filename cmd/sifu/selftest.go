package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu/internal/attack/selftest"
	"github.com/sifu-dev/sifu/internal/progress"
	"github.com/sifu-dev/sifu/internal/registry"
)

func newSelftestCmd() *cobra.Command {
	var names []string
	var asJSON bool
	req := registry.SelftestRequest{}
	cmd := &cobra.Command{
		Use:   "selftest",
		Short: "Run each suite against every mutant of its reference and report the mutation score",
		Long: `Selftest proves the suites can fail. Each reference carries named planted
faults (mutants), each with the rules whose checks must catch it; selftest
runs the suite's checks, then a short fuzz, against each mutant and reports
it killed (a check of one of its rules failed, or the fuzzer or a race
found it with one of those rules) or survived. A check of another rule
that fails, a timeout or a broken harness kills nothing.

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
