package registry

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/sifu-dev/sifu/internal/attack/faultproxy"
	"github.com/sifu-dev/sifu/internal/attack/linear"
	"github.com/sifu-dev/sifu/internal/declaration"
	"github.com/sifu-dev/sifu/internal/knownfail"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
)

// RunRequest is one run of a suite, as sifu run asks for it.
type RunRequest struct {
	Suite  *Suite
	Spec   Spec
	Select Selection
	// Vectors, when set, is a directory whose vectors replace the bundled
	// ones (the features still run); Features, one whose features replace
	// the bundled ones (the vectors still run).
	Vectors, Features string
	// Rerun, when set, is a results.json whose checks that did not pass
	// are the only ones run.
	Rerun string
	// Expect, when set, is the implementer's expectations file.
	Expect string
	// Out and Declare, when set, are the directories results and a
	// statement are written to; SignKey signs the statement.
	Out, Declare string
	SignKey      []byte
	Timeout      time.Duration
	Concurrency  int
	Repeat       int
	// Progress gets one line per finished check; Ended, when set, is told
	// how many checks have ended.
	Progress io.Writer
	Ended    func(done, total int)
	// At dates the evidence; Reproducible strips the run of durations and
	// dates it by At (SOURCE_DATE_EPOCH).
	At           time.Time
	Reproducible bool
}

// Selection is what a run selects of a suite's checks.
type Selection struct {
	Profiles []string
	Tags     string
	Rules    []string
	Checks   []string
	Shard    runner.Shard
}

// RunResult is what a run did.
type RunResult struct {
	Run *results.Run
	// Target is the kind the target was opened as.
	Target string
	// NothingToRerun is set when every check of the Rerun file passed, so
	// nothing ran.
	NothingToRerun bool
	// Declared is the statement written to Declare; SignedBy the key that
	// signed it.
	Declared *declaration.Declaration
	SignedBy string
}

// config is the runner's configuration of a request over target t.
func (req RunRequest) config(t *Subject, only []string) runner.Config {
	tags := req.Select.Tags
	if req.Spec.Faults != nil {
		tags = faultproxy.Tagged(tags)
	}
	return runner.Config{Shard: req.Select.Shard, Only: only, Rerun: req.Rerun,
		Target: t, TargetName: t.Kind, Profiles: req.Select.Profiles, Tags: tags, Rules: req.Select.Rules, Checks: req.Select.Checks,
		Timeout: req.Timeout, HelloTimeout: req.Spec.RequestTimeout, Concurrency: req.Concurrency, Harness: Harness(), Conditions: req.Spec.Conditions(), Repeat: req.Repeat,
		Progress: req.Progress, Ended: req.Ended}
}

// plan loads the request's checks.
func (req RunRequest) plan() (*runner.Plan, error) {
	var opts []runner.LoadOption
	if req.Vectors != "" {
		if st, err := os.Stat(req.Vectors); err != nil || !st.IsDir() {
			return nil, usagef("--vectors %s: not a directory", req.Vectors)
		}
		opts = append(opts, runner.WithVectorsDir(req.Vectors))
	}
	if req.Features != "" {
		if st, err := os.Stat(req.Features); err != nil || !st.IsDir() {
			return nil, usagef("--features %s: not a directory", req.Features)
		}
		opts = append(opts, runner.WithFeaturesDir(req.Features))
	}
	return req.Suite.Plan(opts...)
}

// Validate refuses a request whose parts do not go together, before
// anything runs.
func (req RunRequest) Validate(list bool) error {
	switch {
	case req.Spec.Faults != nil && req.Declare != "":
		return usagef("--declare cannot be combined with --faults: a fault run checks only the @faults checks and is no conformance statement; run without --faults to declare")
	case req.Spec.Mutant != "" && req.Declare != "":
		return usagef("--declare describes an implementation, and a reference with a planted fault is not one: drop --declare, or --mutant")
	case req.Timeout <= 0:
		return usagef("--timeout must be positive, e.g. 30s")
	case req.SignKey != nil && req.Declare == "":
		return usagef("--sign-key signs a statement: add --declare DIR")
	case req.Features != "" && req.Declare != "":
		return usagef("--declare binds a statement to the bundled features, and --features runs others: drop one of them")
	case req.Vectors != "" && req.Declare != "":
		return usagef("--declare binds a statement to the bundled vectors, and --vectors runs others: drop one of them")
	case req.Rerun != "" && req.Declare != "":
		return usagef("--declare needs the evidence of every selected check, and --rerun-failed runs only those that failed before: run the whole selection to declare")
	case list && (req.Out != "" || req.Declare != ""):
		return usagef("--list runs nothing, so there is nothing to write: drop --out and --declare, or --list")
	case req.Repeat < 1:
		return usagef("--repeat %d: give how many times to run each check, 1 or more", req.Repeat)
	case req.Concurrency < 0:
		return usagef("--concurrency must be 0 (one per CPU) or more")
	}
	for flag, dir := range map[string]string{"--out": req.Out, "--declare": req.Declare} {
		if err := writableDir(flag, dir); err != nil {
			return err
		}
	}
	return nil
}

// writableDir makes dir (when set) and checks that files can be written in
// it, so that a bad --out or --declare is a usage error before the run and
// not after it.
func writableDir(flag, dir string) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usagef("%s %s: %v", flag, dir, err)
	}
	f, err := os.CreateTemp(dir, ".sifu-probe-*")
	if err != nil {
		return usagef("%s %s: cannot write there: %v", flag, dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// Listed is what a run would check: the checks it would choose, or
// NothingToRerun when every check of the Rerun file passed.
type Listed struct {
	Chosen         *runner.Chosen
	NothingToRerun bool
}

// List chooses what Run would check, as Run chooses it (a rerun's
// results file included), running nothing.
func List(ctx context.Context, req RunRequest) (*Listed, error) {
	if err := req.Validate(true); err != nil {
		return nil, err
	}
	req.Spec.NoProbe = true
	t, err := req.Suite.Open(req.Spec)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	plan, err := req.plan()
	if err != nil {
		return nil, err
	}
	only, nothing, err := req.rerunOnly()
	if err != nil || nothing {
		return &Listed{NothingToRerun: nothing}, err
	}
	chosen, err := plan.Choose(ctx, req.config(t, only))
	if err != nil {
		return nil, err
	}
	return &Listed{Chosen: chosen}, nil
}

// rerunOnly is the checks a rerun keeps: those that did not pass in the
// Rerun file (nil when there is none); nothing is set when every check of
// it passed.
func (req RunRequest) rerunOnly() (only []string, nothing bool, err error) {
	if req.Rerun == "" {
		return nil, false, nil
	}
	prev, _, err := declaration.ReadResults(req.Rerun)
	if err != nil {
		return nil, false, usagef("--rerun-failed: %v", err)
	}
	only = results.NotPassed(prev)
	return only, len(only) == 0, nil
}

// Run runs a suite against the spec's target and writes what the request
// asks for: results, the expectations applied, a statement and its
// signature.
func Run(ctx context.Context, req RunRequest) (*RunResult, error) {
	if err := req.Validate(false); err != nil {
		return nil, err
	}
	t, err := req.Suite.Open(req.Spec)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	res := &RunResult{Target: t.Kind}
	plan, err := req.plan()
	if err != nil {
		return nil, err
	}
	only, nothing, err := req.rerunOnly()
	if err != nil {
		return nil, err
	}
	if nothing {
		res.NothingToRerun = true
		return res, nil
	}
	var expectations *knownfail.File
	var expectRaw []byte
	if req.Expect != "" {
		if expectations, expectRaw, err = knownfail.Load(req.Expect); err != nil {
			return nil, usagef("%v", err)
		}
	}
	run, err := plan.Run(ctx, req.config(t, only))
	if err != nil {
		return nil, err
	}
	res.Run = run
	if expectations != nil {
		if err := knownfail.Apply(expectations, expectRaw, req.Expect, run, plan.Catalogue, plan.Checks); err != nil {
			return nil, usagef("%v", err)
		}
	}
	if req.Reproducible {
		run.Reproducible(req.At)
	}
	if req.Out != "" {
		if err := results.WriteDir(req.Out, run); err != nil {
			return nil, err
		}
		if err := results.WriteCucumberFile(req.Out, run, plan.Checks); err != nil {
			return nil, err
		}
	}
	if run.Interrupted || req.Declare == "" {
		return res, nil
	}
	if res.Declared, err = declaration.Declare(req.Declare, plan, req.Suite.Sources(), run, expectRaw, req.At); err != nil {
		return nil, err
	}
	if req.SignKey != nil {
		if res.SignedBy, err = declaration.Sign(ctx, req.Declare, req.SignKey); err != nil {
			return nil, usagef("--sign-key: %v", err)
		}
	}
	return res, nil
}

// Merge reads the results of shards with their transcripts, merges them
// (results.Merge), folds the rule verdicts again with the suite's checks
// and writes the merged results and statement to out.
func Merge(out string, paths []string, at time.Time, reproducible bool) (*results.Run, *declaration.Declaration, error) {
	var runs []*results.Run
	for _, p := range paths {
		run, _, err := declaration.ReadResults(p)
		if err == nil {
			err = results.LoadTranscript(p, run)
		}
		if err != nil {
			return nil, nil, usagef("%v", err)
		}
		runs = append(runs, run)
	}
	merged, err := results.Merge(paths, runs)
	if err != nil {
		return nil, nil, usagef("%v", err)
	}
	if reproducible {
		merged.Reproducible(at)
	}
	s, plan, err := planOf(merged.Suite)
	if err != nil {
		return nil, nil, err
	}
	if err := plan.Fold(merged); err != nil {
		return nil, nil, err
	}
	d, err := declaration.Declare(out, plan, s.Sources(), merged, nil, at)
	return merged, d, err
}

// Verify checks a statement offline with its suite's checks
// (declaration.Verify).
func Verify(ctx context.Context, path string, opts declaration.VerifyOptions) (*declaration.Declaration, []string, error) {
	d, err := declaration.Read(path)
	if err != nil {
		return nil, nil, usagef("%v", err)
	}
	s, plan, err := planOf(d.Suite)
	if err != nil {
		return nil, nil, err
	}
	problems, err := declaration.Verify(ctx, path, plan, s.Sources(), opts)
	if err != nil {
		return nil, nil, usagef("%v", err)
	}
	return d, problems, nil
}

// Suites gives the report the plan and sources of a suite by name.
func Suites(name string) (*runner.Plan, declaration.Sources, error) {
	s, plan, err := planOf(name)
	if err != nil {
		return nil, declaration.Sources{}, err
	}
	return plan, s.Sources(), nil
}

// AllOut is the directory of one suite's results or statement when every
// suite runs at once (sifu run with no --suite): dir/<suite>.
func AllOut(dir, suite string) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, suite)
}

// Races checks every race of the suite's checks that match tags (all
// when tags is empty) against the target, telling each verdict to each;
// it returns how many races were checked and how many did not hold.
func Races(ctx context.Context, s *Suite, t *Subject, tags string, rounds int, outDir string, each func(linear.Race, linear.Verdict)) (checked, bad int, err error) {
	plan, err := s.Plan()
	if err != nil {
		return 0, 0, err
	}
	checks := plan.Checks
	if tags != "" {
		checks = nil
		for _, c := range plan.Checks {
			if runner.MatchTags(tags, append(append([]string{c.Kind}, c.Tags...), c.Rules...)) {
				checks = append(checks, c)
			}
		}
	}
	races := linear.Races(checks)
	if len(races) == 0 {
		return 0, 0, usagef("no check with concurrent steps was selected")
	}
	if err := t.probe(ctx); err != nil {
		return 0, 0, err
	}
	for _, r := range races {
		v, err := t.Race(ctx, r, rounds, outDir)
		if err != nil {
			return 0, 0, err
		}
		if !v.Holds() {
			bad++
		}
		each(r, v)
	}
	return len(races), bad, nil
}

// planOf is the named suite and its bundled checks.
func planOf(name string) (*Suite, *runner.Plan, error) {
	s, err := Lookup(name)
	if err != nil {
		return nil, nil, err
	}
	plan, err := s.Plan()
	return s, plan, err
}
