package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/declaration"
	"github.com/sifu-dev/sifu/results"
	"github.com/sifu-dev/sifu/runner"
)

func sources(s runner.Suite) declaration.Sources {
	return declaration.Sources{FS: sifu.Assets, Catalogue: s.Catalogue, Features: s.Features, Vectors: s.Vectors}
}

// declare writes the run's evidence and its conformance statement into dir.
// A copy of the expectations file (expectRaw, if any) is kept beside the
// statement, so that verify can check its hash. The statement is dated at.
func declare(dir string, plan *runner.Plan, suite runner.Suite, run *results.Run, expectRaw []byte, at time.Time) (*declaration.Declaration, error) {
	if err := results.WriteDir(dir, run); err != nil {
		return nil, err
	}
	if err := writeCucumber(dir, run, plan); err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		return nil, err
	}
	var deviations []declaration.Deviation
	var expectations *declaration.Digest
	if ex := run.Expectations; ex != nil {
		if err := os.WriteFile(filepath.Join(dir, "sifu.expect.yaml"), expectRaw, 0o644); err != nil {
			return nil, err
		}
		expectations = &declaration.Digest{Path: "sifu.expect.yaml", SHA256: declaration.Sum(expectRaw)}
		for _, e := range ex.Entries {
			deviations = append(deviations, declaration.Deviation{ID: e.Entry, Reason: e.Reason, Link: e.Link})
		}
	}
	d, err := declaration.Build(plan.Catalogue, sources(suite), run, raw, deviations, expectations, at)
	if err != nil {
		return nil, err
	}
	return d, declaration.Write(dir, d)
}

func newVerifyCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "verify conformance.json",
		Short: "Re-check a conformance statement offline against its evidence",
		Long: `Verify recomputes the SHA-256 of the results and transcript beside the
declaration and of this harness's suite files, recomputes the profile claims
from the results, and compares every rule and its evidence. It exits 0 when
the statement holds, 1 with the reasons when it does not, 2 when the file
cannot be read as a declaration.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := declaration.Read(args[0])
			if err != nil {
				return &runner.UsageError{Msg: err.Error()}
			}
			entry, err := lookupSuite(d.Suite)
			if err != nil {
				return err
			}
			plan, err := runner.Load(sifu.Assets, entry.suite)
			if err != nil {
				return err
			}
			problems, err := declaration.Verify(args[0], plan.Catalogue, sources(entry.suite))
			if err != nil {
				return &runner.UsageError{Msg: err.Error()}
			}
			out := cmd.OutOrStdout()
			if len(problems) > 0 {
				for _, p := range problems {
					fmt.Fprintln(out, "FAIL", p)
				}
				return &failedError{msg: fmt.Sprintf("%s does not hold: %d problem(s)", args[0], len(problems))}
			}
			fmt.Fprintf(out, "OK %s: %s %s, profiles claimed %v, %d rules, evidence hashes match\n",
				args[0], d.Spec.Name, d.Spec.Version, d.Claimed, len(d.Rules))
			return nil
		},
	}
}
