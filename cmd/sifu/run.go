package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sifu-dev/sifu/internal/attack/faultproxy"
	"github.com/sifu-dev/sifu/internal/declaration"
	"github.com/sifu-dev/sifu/internal/progress"
	"github.com/sifu-dev/sifu/internal/registry"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
)

// runFlags are sifu run's flags: the run's and how it prints.
type runFlags struct {
	registry.RunArgs
	quiet, list bool
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run a suite's checks against an implementation",
		Long: `Run compiles the suite's Gherkin scenarios and JSON vectors, runs every
selected check against the target and prints a summary.

Exit status: 0 when every selected check passed (warnings and not_applicable
allowed), 1 when any check failed, timed out, was untestable or broke the
harness, 2 when the request or an input file is malformed or nothing was
selected.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, name := range []string{"profile", "rule"} {
				fl := cmd.Flags().Lookup(name)
				if vals, _ := cmd.Flags().GetStringSlice(name); fl.Changed && (len(vals) == 0 || slices.Contains(vals, "")) {
					return usagef("--%s was given an empty value; name one, or leave the flag out", name)
				}
			}
			if f.Suite == "all" {
				return runAll(cmd.Context(), cmd.OutOrStdout(), f)
			}
			return runSuite(cmd.Context(), cmd.OutOrStdout(), f)
		},
	}
	fl := cmd.Flags()
	addTargetFlags(fl, &f.TargetArgs, "all", `suite to run, or "all" for every suite against its bundled reference`, "implementation to check")
	fl.StringSliceVar(&f.Profiles, "profile", nil, "profile(s) to check (default: those the target claims)")
	fl.StringVar(&f.Tags, "tags", "", `tag expression, e.g. "@replay && ~@slow" or "@KF-5-04,@KF-5-05"`)
	fl.StringSliceVar(&f.Rules, "rule", nil, "only checks evidencing these rule IDs (repeatable)")
	fl.StringVar(&f.Out, "out", "", "directory for results.json, junit.xml and transcript.jsonl")
	fl.StringVar(&f.Vectors, "vectors", "", "run the vectors in this directory instead of the bundled ones (the features still run; a rule catalogue in it is skipped)")
	fl.StringVar(&f.Features, "features", "", "run the Gherkin features (*.feature) in this directory instead of the bundled ones (the vectors still run)")
	fl.StringVar(&f.Shard, "shard", "", "run only shard i of n, e.g. 2/4 (combine with sifu merge)")
	fl.StringVar(&f.Rerun, "rerun-failed", "", "run only the checks that did not pass in this results.json")
	fl.StringVar(&f.Expect, "expect", "", "the implementer's expectations file (known failures, each with a reason)")
	fl.StringVar(&f.Declare, "declare", "", "directory for a conformance statement (conformance.json, conformance.md) with its evidence")
	fl.StringVar(&f.SignKey, "sign-key", "", "with --declare: sign the statement with this ed25519 private key (PEM), as sifu sign does")
	fl.DurationVar(&f.Timeout, "timeout", 30*time.Second, "time limit for one check, whatever the target (a check tagged @timeout:Nx gets N times it)")
	fl.IntVar(&f.Concurrency, "concurrency", 0, "checks run at once (default: number of CPUs)")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "print only the summary")
	fl.BoolVar(&f.list, "list", false, "print the checks the selection holds (and any preset verdict), run none")
	fl.IntVar(&f.Repeat, "repeat", 1, "run every check this many times; one run that does not pass fails the check (finds flaky checks and racy implementations)")
	fl.StringVar(&f.Faults, "faults", "", "inject transport faults and run only the @faults checks: drop-response,duplicate,delay,reset,reorder or all")
	fl.Uint64Var(&f.FaultSeed, "fault-seed", 0, "seed of the injected faults (default: one is picked and printed)")
	return cmd
}

// addTargetFlags registers the flags that say which suite to drive and
// how to reach the implementation.
func addTargetFlags(fl *pflag.FlagSet, f *registry.TargetArgs, suite, suiteUsage, targetUsage string) {
	fl.StringVar(&f.Suite, "suite", suite, suiteUsage)
	fl.StringVar(&f.Kind, "target", "inproc", targetUsage)
	fl.StringVar(&f.URL, "url", "", "base URL of the implementation (--target http)")
	fl.StringVar(&f.Command, "cmd", "", "command that speaks the binding on stdin/stdout (--target stdio)")
	fl.StringVar(&f.TokenEnv, "control-token-env", "SIFU_CONTROL_TOKEN", "environment variable holding the control token (--target http)")
	fl.StringVar(&f.TokenFile, "control-token-file", "", "file holding the control token (--target http); never printed")
	fl.DurationVar(&f.RequestTimeout, "request-timeout", 10*time.Second, "time limit for one request (--target http), and for any target's hello before the first check")
	fl.StringVar(&f.StartCommand, "start-cmd", "", "command sifu starts (and restarts) per check, for suites that drive a server they launch")
	fl.StringVar(&f.Config, "target-config", "", "file describing how to drive the implementation (suite-specific, e.g. ACP command templates)")
	fl.StringVar(&f.Map, "map", "", "surface map: which MCP tool stands for each Kungfu action and view (--target mcp; default the bundled Kungfu 3.0 map)")
	fl.StringVar(&f.Mutant, "mutant", "", "plant this named fault in the bundled reference (--target inproc); see sifu selftest")
	fl.StringSliceVar(&f.Checks, "check", nil, "only checks whose ID matches, * standing for any characters, e.g. 'kungfu/pins/*' (repeatable)")
}

func runSuite(ctx context.Context, stdout io.Writer, f runFlags) error {
	req, err := f.Request()
	if err != nil {
		return err
	}
	if fc := req.Spec.Faults; fc != nil {
		fmt.Fprintf(stdout, "injecting %s (repeat with --fault-seed %d); checks: %s\n", fc, fc.Seed, faultproxy.Tagged(f.Tags))
	}
	if f.list {
		listed, err := registry.List(ctx, req)
		if err != nil || listed.NothingToRerun {
			return nothingToRerun(stdout, f.Rerun, err)
		}
		runner.WriteChosen(stdout, req.Suite.Name, listed.Chosen)
		return nil
	}
	if req.At, req.Reproducible, err = registry.Epoch(); err != nil {
		return err
	}
	if !f.quiet {
		req.Progress = stdout
	} else {
		req.Ended = progress.Ended(os.Stderr, "suite "+f.Suite+": checks") // on a terminal only
	}
	res, err := registry.Run(ctx, req)
	if err != nil || res.NothingToRerun {
		return nothingToRerun(stdout, f.Rerun, err)
	}
	run := res.Run
	results.WriteSummary(stdout, run)
	if f.Out != "" {
		fmt.Fprintf(stdout, "wrote results.json, junit.xml, cucumber.json and transcript.jsonl in %s\n", f.Out)
	}
	if run.Interrupted {
		return &exitError{code: exitInterrupted, msg: fmt.Sprintf("sifu: interrupted: %d check(s) ended before the run was stopped; nothing was declared, and results.json (if written) is marked interrupted", len(run.Tests))}
	}
	if d := res.Declared; d != nil {
		fmt.Fprintln(stdout, d.Said(f.Declare))
		if res.SignedBy != "" {
			fmt.Fprintf(stdout, "signed %s/%s with key %s\n", f.Declare, declaration.AttestationFile, res.SignedBy)
		}
	}
	if run.Summary.Failed() {
		return &failedError{msg: fmt.Sprintf("%s does not conform: %s", res.Target, results.SummaryLine(run.Summary))}
	}
	return nil
}

// nothingToRerun returns err, or says that every check of the rerun file
// passed.
func nothingToRerun(stdout io.Writer, rerun string, err error) error {
	if err == nil {
		fmt.Fprintf(stdout, "nothing to rerun: every check in %s passed\n", rerun)
	}
	return err
}

// runAll runs every suite against its bundled reference, one after the
// other.
func runAll(ctx context.Context, stdout io.Writer, f runFlags) error {
	each, err := f.Each()
	if err != nil {
		return err
	}
	var failed []string
	for _, one := range each {
		err := runSuite(ctx, stdout, runFlags{RunArgs: one, quiet: f.quiet, list: f.list})
		var fe *failedError
		switch {
		case errors.As(err, &fe):
			failed = append(failed, one.Suite)
		case err != nil:
			return fmt.Errorf("suite %s: %w", one.Suite, err)
		}
	}
	if len(failed) > 0 {
		return &failedError{msg: fmt.Sprintf("suites that did not pass: %s", strings.Join(failed, ", "))}
	}
	fmt.Fprintf(stdout, "\nall %d suites passed against their bundled references\n", len(each))
	return nil
}
