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
	"github.com/sifu-dev/sifu/internal/inputfile"
	"github.com/sifu-dev/sifu/internal/progress"
	"github.com/sifu-dev/sifu/internal/registry"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
)

// targetFlags say which implementation to drive; run, fuzz and race share
// them.
type targetFlags struct {
	suite, target, url, command, tokenEnv, tokenFile string
	startCmd, targetConfig, mutant                   string
	requestTimeout                                   time.Duration
	checks                                           []string
	faults                                           string
	faultSeed                                        uint64
}

type runFlags struct {
	targetFlags
	profiles, rules                            []string
	tags, out, declare, signKey, expect, shard string
	vectors, features, rerun                   string
	timeout                                    time.Duration
	concurrency, repeat                        int
	quiet, list                                bool
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
			if f.suite == "all" {
				return runAll(cmd.Context(), cmd.OutOrStdout(), f)
			}
			return runSuite(cmd.Context(), cmd.OutOrStdout(), f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.suite, "suite", "all", `suite to run, or "all" for every suite against its bundled reference`)
	fl.StringVar(&f.target, "target", "inproc", "implementation to check")
	fl.StringSliceVar(&f.profiles, "profile", nil, "profile(s) to check (default: those the target claims)")
	fl.StringVar(&f.tags, "tags", "", `tag expression, e.g. "@replay && ~@slow" or "@KF-5-04,@KF-5-05"`)
	fl.StringSliceVar(&f.rules, "rule", nil, "only checks evidencing these rule IDs (repeatable)")
	fl.StringVar(&f.out, "out", "", "directory for results.json, junit.xml and transcript.jsonl")
	fl.StringVar(&f.vectors, "vectors", "", "run the vectors in this directory instead of the bundled ones (the features still run; a rule catalogue in it is skipped)")
	fl.StringVar(&f.features, "features", "", "run the Gherkin features (*.feature) in this directory instead of the bundled ones (the vectors still run)")
	fl.StringVar(&f.shard, "shard", "", "run only shard i of n, e.g. 2/4 (combine with sifu merge)")
	fl.StringVar(&f.rerun, "rerun-failed", "", "run only the checks that did not pass in this results.json")
	fl.StringVar(&f.expect, "expect", "", "the implementer's expectations file (known failures, each with a reason)")
	fl.StringVar(&f.declare, "declare", "", "directory for a conformance statement (conformance.json, conformance.md) with its evidence")
	fl.StringVar(&f.signKey, "sign-key", "", "with --declare: sign the statement with this ed25519 private key (PEM), as sifu sign does")
	fl.DurationVar(&f.timeout, "timeout", 30*time.Second, "time limit for one check, whatever the target (a check tagged @timeout:Nx gets N times it)")
	fl.IntVar(&f.concurrency, "concurrency", 0, "checks run at once (default: number of CPUs)")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "print only the summary")
	fl.BoolVar(&f.list, "list", false, "print the checks the selection holds (and any preset verdict), run none")
	fl.IntVar(&f.repeat, "repeat", 1, "run every check this many times; one run that does not pass fails the check (finds flaky checks and racy implementations)")
	addTargetFlags(fl, &f.targetFlags)
	fl.StringVar(&f.faults, "faults", "", "inject transport faults and run only the @faults checks: drop-response,duplicate,delay,reset,reorder or all")
	fl.Uint64Var(&f.faultSeed, "fault-seed", 0, "seed of the injected faults (default: one is picked and printed)")
	return cmd
}

// addTargetFlags registers the flags that say how to reach the
// implementation.
func addTargetFlags(fl *pflag.FlagSet, f *targetFlags) {
	fl.StringVar(&f.url, "url", "", "base URL of the implementation (--target http)")
	fl.StringVar(&f.command, "cmd", "", "command that speaks the binding on stdin/stdout (--target stdio)")
	fl.StringVar(&f.tokenEnv, "control-token-env", "SIFU_CONTROL_TOKEN", "environment variable holding the control token (--target http)")
	fl.StringVar(&f.tokenFile, "control-token-file", "", "file holding the control token (--target http); never printed")
	fl.DurationVar(&f.requestTimeout, "request-timeout", 10*time.Second, "time limit for one request (--target http), and for any target's hello before the first check")
	fl.StringVar(&f.startCmd, "start-cmd", "", "command sifu starts (and restarts) per check, for suites that drive a server they launch")
	fl.StringVar(&f.targetConfig, "target-config", "", "file describing how to drive the implementation (suite-specific, e.g. ACP command templates)")
	fl.StringVar(&f.mutant, "mutant", "", "plant this named fault in the bundled reference (--target inproc); see sifu selftest")
	fl.StringSliceVar(&f.checks, "check", nil, "only checks whose ID matches, * standing for any characters, e.g. 'kungfu/pins/*' (repeatable)")
}

// spec turns the target flags into a target spec; the control token comes
// from a file or an environment variable and is never printed.
func (f targetFlags) spec() (registry.Spec, error) {
	s := registry.Spec{Kind: f.target, URL: f.url, Command: f.command, StartCommand: f.startCmd, Config: f.targetConfig,
		Mutant: f.mutant, RequestTimeout: f.requestTimeout, ControlToken: os.Getenv(f.tokenEnv)}
	if f.tokenFile != "" {
		raw, err := inputfile.Read(f.tokenFile)
		if err != nil {
			return s, usagef("--control-token-file: %v", err)
		}
		s.ControlToken = strings.TrimSpace(string(raw))
	}
	if strings.TrimSpace(f.faults) == "" {
		if f.faultSeed != 0 {
			return s, usagef("--fault-seed needs --faults, e.g. --faults all --fault-seed 7")
		}
		return s, nil
	}
	var err error
	if s.Faults, err = faultproxy.Configure(f.faults, f.faultSeed); err != nil {
		return s, usagef("--faults: %v", err)
	}
	return s, nil
}

func runSuite(ctx context.Context, stdout io.Writer, f runFlags) error {
	s, err := registry.Lookup(f.suite)
	if err != nil {
		return err
	}
	spec, err := f.spec()
	if err != nil {
		return err
	}
	if fc := spec.Faults; fc != nil {
		fmt.Fprintf(stdout, "injecting %s (repeat with --fault-seed %d); checks: %s\n", fc, fc.Seed, faultproxy.Tagged(f.tags))
	}
	req := registry.RunRequest{Suite: s, Spec: spec, Vectors: f.vectors, Features: f.features, Rerun: f.rerun, Expect: f.expect, Out: f.out, Declare: f.declare,
		Timeout: f.timeout, Concurrency: f.concurrency, Repeat: f.repeat,
		Select: registry.Selection{Profiles: f.profiles, Tags: f.tags, Rules: f.rules, Checks: f.checks}}
	if f.shard != "" {
		if req.Select.Shard, err = runner.ParseShard(f.shard); err != nil {
			return err
		}
	}
	if f.signKey != "" {
		if req.SignKey, err = inputfile.Read(f.signKey); err != nil {
			return usagef("--sign-key: %v", err)
		}
	}
	if f.list {
		listed, err := registry.List(ctx, req)
		if err != nil {
			return err
		}
		if listed.NothingToRerun {
			fmt.Fprintf(stdout, "nothing to rerun: every check in %s passed\n", f.rerun)
			return nil
		}
		runner.WriteChosen(stdout, s.Name, listed.Chosen)
		return nil
	}
	if req.At, req.Reproducible, err = epoch(); err != nil {
		return err
	}
	if !f.quiet {
		req.Progress = stdout
	} else {
		var meter *progress.Meter // on a terminal only; made once the total is known
		req.Ended = func(done, total int) {
			if done == 1 {
				meter = progress.New(os.Stderr, "suite "+f.suite+": checks", total)
			}
			meter.Add(1)
			if done == total {
				meter.Done()
			}
		}
	}
	res, err := registry.Run(ctx, req)
	if err != nil {
		return err
	}
	if res.NothingToRerun {
		fmt.Fprintf(stdout, "nothing to rerun: every check in %s passed\n", f.rerun)
		return nil
	}
	run := res.Run
	results.WriteSummary(stdout, run)
	if f.out != "" {
		fmt.Fprintf(stdout, "wrote results.json, junit.xml, cucumber.json and transcript.jsonl in %s\n", f.out)
	}
	if run.Interrupted {
		return &exitError{code: exitInterrupted, msg: fmt.Sprintf("sifu: interrupted: %d check(s) ended before the run was stopped; nothing was declared, and results.json (if written) is marked interrupted", len(run.Tests))}
	}
	if d := res.Declared; d != nil {
		fmt.Fprintln(stdout, d.Said(f.declare))
		if res.SignedBy != "" {
			fmt.Fprintf(stdout, "signed %s/%s with key %s\n", f.declare, declaration.AttestationFile, res.SignedBy)
		}
	}
	if run.Summary.Failed() {
		return &failedError{msg: fmt.Sprintf("%s does not conform: %s", res.Target, results.SummaryLine(run.Summary))}
	}
	return nil
}

// runAll runs every suite against its bundled reference, one after the
// other; --out and --declare get a subdirectory per suite.
func runAll(ctx context.Context, stdout io.Writer, f runFlags) error {
	if f.target != "inproc" || f.expect != "" || f.vectors != "" || f.features != "" || f.rerun != "" || len(f.profiles) > 0 || len(f.rules) > 0 || len(f.checks) > 0 ||
		f.mutant != "" || f.url != "" || f.command != "" || f.startCmd != "" || f.targetConfig != "" || f.faults != "" {
		return usagef("--suite all runs every suite against its bundled reference; to check another implementation, or with --expect, --vectors, --features, --rerun-failed, --profile, --rule, --check, --mutant or --faults, pick one suite with --suite")
	}
	var failed []string
	for _, name := range registry.Names() {
		one := f
		one.suite, one.out, one.declare = name, registry.AllOut(f.out, name), registry.AllOut(f.declare, name)
		err := runSuite(ctx, stdout, one)
		var fe *failedError
		switch {
		case errors.As(err, &fe):
			failed = append(failed, name)
		case err != nil:
			return fmt.Errorf("suite %s: %w", name, err)
		}
	}
	if len(failed) > 0 {
		return &failedError{msg: fmt.Sprintf("suites that did not pass: %s", strings.Join(failed, ", "))}
	}
	fmt.Fprintf(stdout, "\nall %d suites passed against their bundled references\n", len(registry.Names()))
	return nil
}
