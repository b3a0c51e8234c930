package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/internal/attack/faultproxy"
	"github.com/sifu-dev/sifu/internal/declaration"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/knownfail"
	"github.com/sifu-dev/sifu/internal/progress"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
)

type runFlags struct {
	suite       string
	profiles    []string
	target      string
	tags        string
	rules       []string
	out         string
	declare     string
	signKey     string
	expect      string
	shard       string
	vectors     string
	rerun       string
	timeout     time.Duration
	concurrency int
	quiet       bool

	url            string
	command        string
	tokenEnv       string
	tokenFile      string
	requestTimeout time.Duration
	startCmd       string   // command that starts the implementation per check
	targetConfig   string   // file describing how to drive the implementation
	mutant         string   // planted fault of the in-process reference
	repeat         int      // --repeat: runs per check
	checks         []string // --check: check ID patterns
	list           bool     // --list: print the selection, run nothing

	faults    string             // --faults: fault names to inject (attack/faultproxy)
	faultSeed uint64             // --fault-seed; 0 picks one and prints it
	faultCfg  *faultproxy.Config // parsed from the two above by prepareFaults
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
				if err := noEmptyValue(cmd, name); err != nil {
					return err
				}
			}
			return runSuite(cmd.Context(), cmd.OutOrStdout(), f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.suite, "suite", "all", `suite to run, or "all" for every suite against its bundled reference`)
	fl.StringSliceVar(&f.profiles, "profile", nil, "profile(s) to check (default: those the target claims)")
	fl.StringVar(&f.target, "target", "inproc", "implementation to check")
	fl.StringVar(&f.tags, "tags", "", `tag expression, e.g. "@replay && ~@slow" or "@KF-5-04,@KF-5-05"`)
	fl.StringSliceVar(&f.rules, "rule", nil, "only checks evidencing these rule IDs (repeatable)")
	fl.StringVar(&f.out, "out", "", "directory for results.json, junit.xml and transcript.jsonl")
	fl.StringVar(&f.vectors, "vectors", "", "run the vectors in this directory instead of the bundled ones (the features still run; a rule catalogue in it is skipped)")
	fl.StringVar(&f.shard, "shard", "", "run only shard i of n, e.g. 2/4 (combine with sifu merge)")
	fl.StringVar(&f.rerun, "rerun-failed", "", "run only the checks that did not pass in this results.json")
	fl.StringVar(&f.expect, "expect", "", "the implementer's expectations file (known failures, each with a reason)")
	fl.StringVar(&f.declare, "declare", "", "directory for a conformance statement (conformance.json, conformance.md) with its evidence")
	fl.StringVar(&f.signKey, "sign-key", "", "with --declare: sign the statement with this ed25519 private key (PEM), as sifu sign does")
	fl.DurationVar(&f.timeout, "timeout", 30*time.Second, "time limit for one check")
	fl.IntVar(&f.concurrency, "concurrency", 0, "checks run at once (default: number of CPUs)")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "print only the summary")
	addTargetFlags(fl, &f)
	fl.StringVar(&f.faults, "faults", "", "inject transport faults and run only the @faults checks: drop-response,duplicate,delay,reset,reorder or all")
	fl.Uint64Var(&f.faultSeed, "fault-seed", 0, "seed of the injected faults (default: one is picked and printed)")
	return cmd
}

// addTargetFlags registers the flags that say how to reach the
// implementation; run and fuzz share them.
func addTargetFlags(fl *pflag.FlagSet, f *runFlags) {
	fl.StringVar(&f.url, "url", "", "base URL of the implementation (--target http)")
	fl.StringVar(&f.command, "cmd", "", "command that speaks the binding on stdin/stdout (--target stdio)")
	fl.StringVar(&f.tokenEnv, "control-token-env", "SIFU_CONTROL_TOKEN", "environment variable holding the control token (--target http)")
	fl.StringVar(&f.tokenFile, "control-token-file", "", "file holding the control token (--target http); never printed")
	fl.DurationVar(&f.requestTimeout, "request-timeout", 10*time.Second, "time limit for one request (--target http)")
	fl.StringVar(&f.startCmd, "start-cmd", "", "command sifu starts (and restarts) per check, for suites that drive a server they launch")
	fl.StringVar(&f.targetConfig, "target-config", "", "file describing how to drive the implementation (suite-specific, e.g. ACP command templates)")
	fl.StringVar(&f.mutant, "mutant", "", "plant this named fault in the bundled reference (--target inproc); see sifu selftest")
	fl.StringSliceVar(&f.checks, "check", nil, "only checks whose ID matches, * standing for any characters, e.g. 'kungfu/pins/*' (repeatable)")
	fl.BoolVar(&f.list, "list", false, "print the checks the selection holds (and any preset verdict), run none")
	fl.IntVar(&f.repeat, "repeat", 1, "run every check this many times; one run that does not pass fails the check (finds flaky checks and racy implementations)")
}

func runSuite(ctx context.Context, stdout io.Writer, f runFlags) error {
	if f.suite == "all" {
		return runAll(ctx, stdout, f)
	}
	entry, err := lookupSuite(f.suite)
	if err != nil {
		return err
	}
	if _, ok := entry.targets["process"]; ok && f.startCmd != "" && f.target == "inproc" {
		f.target = "process" // --start-cmd names the implementation: results say so
	}
	newTarget, ok := entry.targets[f.target]
	if !ok {
		return &runner.UsageError{Msg: fmt.Sprintf("unknown target %q for suite %s; available: %v", f.target, f.suite, slices.Sorted(maps.Keys(entry.targets)))}
	}
	if err := prepareFaults(&f, stdout); err != nil {
		return err
	}
	target, err := newTarget(f)
	if err != nil {
		return err
	}
	if c, ok := target.(io.Closer); ok {
		defer c.Close() // a long-lived process the target started (a stdio process the checks share, a planner runner)
	}
	if err := checkFaulted(f, target); err != nil {
		return err
	}
	if f.mutant != "" && f.declare != "" {
		return &runner.UsageError{Msg: "--declare describes an implementation, and a reference with a planted fault is not one: drop --declare, or --mutant"}
	}
	if f.timeout <= 0 {
		return &runner.UsageError{Msg: "--timeout must be positive, e.g. 30s"}
	}
	if f.signKey != "" && f.declare == "" {
		return &runner.UsageError{Msg: "--sign-key signs a statement: add --declare DIR"}
	}
	if f.rerun != "" && f.declare != "" {
		return &runner.UsageError{Msg: "--declare needs the evidence of every selected check, and --rerun-failed runs only those that failed before: run the whole selection to declare"}
	}
	var signKey []byte
	if f.signKey != "" {
		var err error
		if signKey, err = os.ReadFile(f.signKey); err != nil {
			return &runner.UsageError{Msg: "--sign-key: " + err.Error()}
		}
	}
	if f.list && (f.out != "" || f.declare != "") {
		return &runner.UsageError{Msg: "--list runs nothing, so there is nothing to write: drop --out and --declare, or --list"}
	}
	for flag, dir := range map[string]string{"--out": f.out, "--declare": f.declare} {
		if err := writableDir(flag, dir); err != nil {
			return err
		}
	}
	at, reproducible, err := sourceDateEpoch()
	if err != nil {
		return err
	}
	if f.repeat < 1 {
		return &runner.UsageError{Msg: fmt.Sprintf("--repeat %d: give how many times to run each check, 1 or more", f.repeat)}
	}
	if f.concurrency < 0 {
		return &runner.UsageError{Msg: "--concurrency must be 0 (one per CPU) or more"}
	}
	var loadOpts []runner.LoadOption
	if f.vectors != "" {
		if st, err := os.Stat(f.vectors); err != nil || !st.IsDir() {
			return &runner.UsageError{Msg: fmt.Sprintf("--vectors %s: not a directory", f.vectors)}
		}
		loadOpts = append(loadOpts, runner.WithVectors(os.DirFS(f.vectors), "."))
	}
	plan, err := runner.Load(sifu.Assets, entry.suite, loadOpts...)
	if err != nil {
		return err
	}
	var shard runner.Shard
	if f.shard != "" {
		if shard, err = runner.ParseShard(f.shard); err != nil {
			return err
		}
	}
	var only []string
	if f.rerun != "" {
		prev, _, err := declaration.ReadResults(f.rerun)
		if err != nil {
			return &runner.UsageError{Msg: "--rerun-failed: " + err.Error()}
		}
		for _, t := range prev.Tests {
			if t.Status != engine.Pass && t.Status != engine.NotApplicable {
				only = append(only, t.ID)
			}
		}
		if len(only) == 0 {
			fmt.Fprintf(stdout, "nothing to rerun: every check in %s passed\n", f.rerun)
			return nil
		}
	}
	cfg := runner.Config{Shard: shard, Only: only, Rerun: f.rerun,
		Target: target, TargetName: f.target, Profiles: f.profiles, Tags: f.tags, Rules: f.rules,
		Timeout: f.timeout, Concurrency: f.concurrency, Harness: harness(), Conditions: runConditions(f), Repeat: f.repeat, Checks: f.checks,
	}
	if !f.quiet {
		cfg.Progress = stdout
	} else {
		var meter *progress.Meter // on a terminal only; made once the total is known
		cfg.Ended = func(done, total int) {
			if done == 1 {
				meter = progress.New(os.Stderr, "suite "+f.suite+": checks", total)
			}
			meter.Add(1)
			if done == total {
				meter.Done()
			}
		}
	}
	if f.list {
		chosen, err := plan.Choose(ctx, cfg)
		if err != nil {
			return err
		}
		printChosen(stdout, plan.Suite.Name, chosen)
		return nil
	}
	var expectations *knownfail.File
	var expectRaw []byte
	if f.expect != "" {
		if expectations, expectRaw, err = knownfail.Load(f.expect); err != nil {
			return &runner.UsageError{Msg: err.Error()}
		}
	}
	run, err := plan.Run(ctx, cfg)
	if err != nil {
		return err
	}
	if expectations != nil {
		ids := make([]string, len(plan.Checks))
		for i, c := range plan.Checks {
			ids[i] = c.ID
		}
		if err := knownfail.Apply(expectations, expectRaw, f.expect, run, plan.Catalogue, ids); err != nil {
			return &runner.UsageError{Msg: err.Error()}
		}
	}
	printSummary(stdout, run)
	if reproducible {
		run.Reproducible(at)
	}
	if f.out != "" {
		if err := results.WriteDir(f.out, run); err != nil {
			return err
		}
		if err := results.WriteCucumberFile(f.out, run, plan.Checks); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote results.json, junit.xml, cucumber.json and transcript.jsonl in %s\n", f.out)
	}
	if run.Interrupted {
		return &exitError{code: exitInterrupted, msg: fmt.Sprintf("sifu: interrupted: %d check(s) ended before the run was stopped; nothing was declared, and results.json (if written) is marked interrupted", len(run.Tests))}
	}
	if f.declare != "" {
		d, err := declaration.Declare(f.declare, plan, sources(entry.suite), run, expectRaw, at)
		if err != nil {
			return err
		}
		if d.Partial {
			fmt.Fprintf(stdout, "declared a partial statement (%d unmet rule(s); profiles claimed: %v) in %s/conformance.md\n", len(d.Unmet), d.Claimed, f.declare)
		} else {
			fmt.Fprintf(stdout, "declared complete conformance (profiles claimed: %v) in %s/conformance.md\n", d.Claimed, f.declare)
		}
		if signKey != nil {
			id, err := declaration.Sign(ctx, f.declare, signKey)
			if err != nil {
				return &runner.UsageError{Msg: "--sign-key: " + err.Error()}
			}
			fmt.Fprintf(stdout, "signed %s/%s with key %s\n", f.declare, declaration.AttestationFile, id)
		}
	}
	if run.Summary.Failed() {
		return &failedError{msg: fmt.Sprintf("%s does not conform: %s", f.target, summaryLine(run.Summary))}
	}
	return nil
}

// runAll runs every suite against its bundled reference, one after the
// other; --out and --declare get a subdirectory per suite.
func runAll(ctx context.Context, stdout io.Writer, f runFlags) error {
	if f.target != "inproc" || f.expect != "" || f.vectors != "" || f.rerun != "" || len(f.profiles) > 0 || len(f.rules) > 0 || len(f.checks) > 0 ||
		f.mutant != "" || f.url != "" || f.command != "" || f.startCmd != "" || f.targetConfig != "" || f.faults != "" {
		return &runner.UsageError{Msg: "--suite all runs every suite against its bundled reference; to check another implementation, or with --expect, --vectors, --rerun-failed, --profile, --rule, --check, --mutant or --faults, pick one suite with --suite"}
	}
	var failed []string
	for _, name := range slices.Sorted(maps.Keys(suites())) {
		one := f
		one.suite = name
		if f.out != "" {
			one.out = filepath.Join(f.out, name)
		}
		if f.declare != "" {
			one.declare = filepath.Join(f.declare, name)
		}
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
	fmt.Fprintf(stdout, "\nall %d suites passed against their bundled references\n", len(suites()))
	return nil
}

func summaryLine(s results.Summary) string {
	return fmt.Sprintf("%d pass, %d fail, %d warn, %d not_applicable, %d untestable, %d timeout, %d harness_error",
		s.Pass, s.Fail, s.Warn, s.NotApplicable, s.Untestable, s.Timeout, s.HarnessError)
}

// printChosen lists a selection: a header, then one check ID per line,
// with its preset verdict when it will not run.
func printChosen(w io.Writer, suite string, c *runner.Chosen) {
	fmt.Fprintf(w, "suite %s, target %s (%s %s), profiles %s: %d check(s)\n",
		suite, c.Target.Name, c.Target.Implementation, c.Target.Version, strings.Join(c.Profiles, ","), len(c.Checks))
	for _, s := range c.Checks {
		if s.Preset != "" {
			fmt.Fprintf(w, "%s  (%s: %s)\n", s.Check.ID, s.Preset, s.Reason)
			continue
		}
		fmt.Fprintln(w, s.Check.ID)
	}
}

// runConditions records --mutant and --faults in the run; nil without them.
func runConditions(f runFlags) *results.Conditions {
	if f.mutant == "" && f.faultCfg == nil {
		return nil
	}
	c := &results.Conditions{Mutant: f.mutant}
	if fc := f.faultCfg; fc != nil {
		for _, k := range fc.Faults {
			c.Faults = append(c.Faults, string(k))
		}
		c.FaultSeed = fc.Seed
	}
	return c
}

func printSummary(w io.Writer, run *results.Run) {
	var with string
	if run.Conditions != nil {
		with = ", with " + run.Conditions.String()
	}
	fmt.Fprintf(w, "\nsifu %s: suite %s (%s), target %s (%s %s%s), profiles %s\n",
		run.Harness.Version, run.Suite, run.Spec, run.Target.Name, run.Target.Implementation, run.Target.Version, with,
		strings.Join(run.Profiles, ","))
	var problems []results.Test
	for _, t := range run.Tests {
		if t.Status != engine.Pass && t.Status != engine.NotApplicable {
			problems = append(problems, t)
		}
	}
	for _, t := range problems {
		label := strings.ToUpper(string(t.Status))
		if t.Expected != nil {
			label = "EXPECTED " + label
		}
		fmt.Fprintf(w, "\n%s %s\n  source: %s\n  rules:  %s\n", label, t.ID, t.Source, strings.Join(t.Rules, " "))
		if t.Expected != nil {
			fmt.Fprintf(w, "  expected by %s: %s\n", t.Expected.Entry, t.Expected.Reason)
		}
		if t.Message != "" {
			fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(t.Message, "\n", "\n  "))
		}
	}
	ruleCount := map[string]int{}
	for _, r := range run.Rules {
		ruleCount[r.Status]++
	}
	fmt.Fprintf(w, "\nchecks: %d (%s) in %dms\n", len(run.Tests), summaryLine(run.Summary), run.DurationMS)
	fmt.Fprintf(w, "rules:  %d in scope (%s)\n", len(run.Rules), countLine(ruleCount,
		results.RulePass, results.RuleFail, results.RuleWarn, results.RuleNotEvidenced, results.RuleNotApplicable, results.RuleNotBlackBox,
		string(engine.Untestable), string(engine.Timeout), string(engine.HarnessError)))
	if ex := run.Expectations; ex != nil {
		fmt.Fprintf(w, "expectations: %s, %d entries, %d expected failure(s), %d stale\n", ex.File, len(ex.Entries), run.Summary.ExpectedFail, len(ex.Stale))
		for _, e := range ex.Entries {
			fmt.Fprintf(w, "  excluded %s: %s\n", e.Entry, e.Reason)
		}
		for _, e := range ex.Stale {
			fmt.Fprintf(w, "  STALE %s: its checks pass now; remove the entry\n", e.Entry)
		}
	}
	if run.Interrupted {
		fmt.Fprintln(w, "result: INTERRUPTED (Ctrl-C): only the checks that ended are reported")
	} else if run.Summary.Failed() {
		fmt.Fprintln(w, "result: FAIL")
	} else {
		fmt.Fprintln(w, "result: PASS")
	}
}

func countLine(m map[string]int, order ...string) string {
	var parts []string
	for _, k := range order {
		if m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
		}
	}
	return strings.Join(parts, ", ")
}

// writableDir makes dir (when set) and checks that files can be written in
// it, so that a bad --out or --declare is a usage error before the run and
// not after it.
func writableDir(flag, dir string) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return &runner.UsageError{Msg: fmt.Sprintf("%s %s: %v", flag, dir, err)}
	}
	f, err := os.CreateTemp(dir, ".sifu-probe-*")
	if err != nil {
		return &runner.UsageError{Msg: fmt.Sprintf("%s %s: cannot write there: %v", flag, dir, err)}
	}
	f.Close()
	return os.Remove(f.Name())
}

// noEmptyValue refuses a list flag given an empty value (--profile ”),
// which would otherwise quietly mean "no constraint".
func noEmptyValue(cmd *cobra.Command, name string) error {
	fl := cmd.Flags().Lookup(name)
	if fl == nil || !fl.Changed {
		return nil
	}
	vals, _ := cmd.Flags().GetStringSlice(name)
	if len(vals) == 0 || slices.Contains(vals, "") {
		return &runner.UsageError{Msg: fmt.Sprintf("--%s was given an empty value; name one, or leave the flag out", name)}
	}
	return nil
}
