package registry

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sifu-dev/sifu/internal/attack/fuzz"
	"github.com/sifu-dev/sifu/internal/attack/linear"
	"github.com/sifu-dev/sifu/internal/runner"
)

// Fuzzer is what a fuzz run needs of an opened target (a *Subject).
type Fuzzer interface {
	Fuzz(context.Context, FuzzRequest) (fuzz.Result, error)
	Close() error
}

// OpenFuzzer opens the target a spec names, as a Fuzzer.
func OpenFuzzer(s *Suite, spec Spec) (Fuzzer, error) {
	t, err := s.Open(spec)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// FuzzArgs are sifu fuzz's flags as given.
type FuzzArgs struct {
	TargetArgs
	// Out is the directory a shrunk finding is written to.
	Out         string
	Seed        uint64 // 0: one is picked
	Runs, Steps int
	ShrinkTime  time.Duration
}

// FuzzRun is a fuzz run ready to start: its target open and its seed
// picked.
type FuzzRun struct {
	FuzzArgs
	target Fuzzer
}

// Open checks the args, opens the target with open and picks a seed when
// none was given.
func (a FuzzArgs) Open(open func(*Suite, Spec) (Fuzzer, error)) (*FuzzRun, error) {
	s, err := Lookup(a.Suite)
	if err != nil {
		return nil, err
	}
	switch {
	case !s.Fuzzes:
		return nil, usagef("suite %s has no fuzzer yet", a.Suite)
	case len(a.Checks) > 0 && !s.FuzzFromChecks:
		return nil, usagef("the %s fuzzer generates its cases instead of starting from checks: drop --check", a.Suite)
	case a.Runs <= 0 || a.Steps <= 0 || a.ShrinkTime <= 0:
		return nil, usagef("--runs, --steps and --shrink-time must be positive")
	}
	spec, err := a.Spec()
	if err != nil {
		return nil, err
	}
	target, err := open(s, spec)
	if err != nil {
		return nil, err
	}
	if a.Seed == 0 {
		a.Seed = uint64(time.Now().UnixNano())
	}
	return &FuzzRun{FuzzArgs: a, target: target}, nil
}

// Close releases the target.
func (r *FuzzRun) Close() error { return r.target.Close() }

// FuzzHarnessError is a fault of the fuzzer itself, with the command line
// that reproduces it.
type FuzzHarnessError struct {
	Err       *fuzz.HarnessError
	Reproduce string
}

func (e *FuzzHarnessError) Error() string {
	return fmt.Sprintf("%v\nreproduce: %s\nplease report it with that command line", e.Err, e.Reproduce)
}

func (e *FuzzHarnessError) Unwrap() error { return e.Err }

// Fuzz runs the cases, progress called as each starts. A fault of the
// fuzzer is a *FuzzHarnessError (the result may still hold a divergence,
// found before the fault met while shrinking it); a target that was lost
// is a usage error; when ctx ends, the error is ctx's.
func (r *FuzzRun) Fuzz(ctx context.Context, progress func()) (fuzz.Result, error) {
	res, err := r.target.Fuzz(ctx, FuzzRequest{Seed: r.Seed, Runs: r.Runs, Steps: r.Steps, ShrinkTime: r.ShrinkTime, Checks: r.Checks, Progress: progress})
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	var harness *fuzz.HarnessError
	if errors.As(err, &harness) {
		// Reaching the case again takes the same seed and at most its
		// number of cases.
		runs := r.Runs
		if harness.Case > 0 && !harness.Shrinking {
			runs = harness.Case
		}
		return res, &FuzzHarnessError{Err: harness, Reproduce: r.Reproduce(runs)}
	}
	var lost *fuzz.TargetError
	var unreachable *runner.UnreachableError
	if errors.As(err, &lost) || errors.As(err, &unreachable) {
		return res, usagef("%v", err)
	}
	if err != nil {
		return res, fmt.Errorf("fuzz (seed %d): %w", r.Seed, err)
	}
	return res, nil
}

// WriteFinding writes a divergence's shrunk case to Out and returns its
// path.
func (r *FuzzRun) WriteFinding(d *fuzz.Divergence) (string, error) {
	return WriteFinding(r.Out, r.Suite, r.Seed, d.Vector)
}

// Reproduce is the fuzz command line that runs the same cases again, up
// to runs of them.
func (r *FuzzRun) Reproduce(runs int) string {
	checkArgs := ""
	for _, c := range r.Checks {
		checkArgs += fmt.Sprintf(" --check %q", c)
	}
	return fmt.Sprintf("sifu fuzz --suite %s --target %s%s%s --seed %d --runs %d --steps %d", r.Suite, r.Kind, r.flags(), checkArgs, r.Seed, runs, r.Steps)
}

// Replay is the run command line that replays the findings in Out as
// vectors.
func (r *FuzzRun) Replay() string {
	return fmt.Sprintf("sifu run --suite %s --target %s%s --vectors %s", r.Suite, r.Kind, r.flags(), r.Out)
}

// RaceArgs are sifu race's flags as given.
type RaceArgs struct {
	TargetArgs
	// Out is the directory for visualisations of histories that do not
	// hold; Tags, when set, selects the checks whose races run.
	Out, Tags string
	Rounds    int
}

// Run checks every selected race of the suite against the target (Races),
// telling each verdict to each.
func (a RaceArgs) Run(ctx context.Context, each func(linear.Race, linear.Verdict)) (checked, bad int, err error) {
	s, err := Lookup(a.Suite)
	if err != nil {
		return 0, 0, err
	}
	if !s.Races {
		return 0, 0, usagef("suite %s has no races yet", a.Suite)
	}
	if a.Rounds <= 0 {
		return 0, 0, usagef("--rounds must be positive")
	}
	spec, err := a.Spec()
	if err != nil {
		return 0, 0, err
	}
	target, err := s.Open(spec)
	if err != nil {
		return 0, 0, err
	}
	defer target.Close()
	return Races(ctx, s, target, a.Tags, a.Rounds, a.Out, each)
}
