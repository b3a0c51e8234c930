package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/sifu-dev/sifu/adapters/kungfuinproc"
	"github.com/sifu-dev/sifu/internal/attack/fuzz"
	"github.com/sifu-dev/sifu/internal/attack/kungfufuzz"
	"github.com/sifu-dev/sifu/internal/attack/selftest"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/reference/kungfuref"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

func init() {
	register("kungfu", suiteEntry{
		suite: kungfu.Suite,
		targets: map[string]func(runFlags) (runner.Target, error){
			"inproc": func(f runFlags) (runner.Target, error) {
				var opts []kungfuref.Option
				if f.mutant != "" {
					if !slices.Contains(kungfuref.Faults, kungfuref.Fault(f.mutant)) {
						return nil, &runner.UsageError{Msg: fmt.Sprintf("--mutant %q is not a planted fault of the Kungfu reference; `sifu selftest --suite kungfu` lists them", f.mutant)}
					}
					opts = append(opts, kungfuref.WithFaults(kungfuref.Fault(f.mutant)))
				}
				return faulted(f, kungfu.RunTarget{New: func(context.Context) (kungfu.Target, func(), error) {
					t, err := kungfuinproc.New(opts...)
					if err != nil {
						return nil, nil, err
					}
					return withFaults(f, t), func() {}, nil
				}}), nil
			},
			"http":  httpTarget,
			"stdio": stdioTarget,
		},
		mutants: kungfuMutants,
		fuzz:    kungfuFuzz,
	})
}

// kungfuMutants are the in-process reference with each planted fault.
func kungfuMutants() []selftest.Mutant {
	var out []selftest.Mutant
	for _, f := range kungfuref.Faults {
		out = append(out, selftest.Mutant{Name: string(f), Target: kungfu.RunTarget{New: func(context.Context) (kungfu.Target, func(), error) {
			t, err := kungfuinproc.New(kungfuref.WithFaults(f))
			return t, func() {}, err
		}}})
	}
	return out
}

// kungfuFuzz fuzzes a Kungfu target against a fresh in-process reference.
func kungfuFuzz(ctx context.Context, req fuzzRequest) (fuzz.Result, error) {
	rt, ok := req.target.(kungfu.RunTarget)
	if !ok {
		return fuzz.Result{}, fmt.Errorf("the kungfu fuzzer cannot drive a %T", req.target)
	}
	oracle := func(context.Context) (kungfu.Target, func(), error) {
		t, err := kungfuinproc.New()
		return t, func() {}, err
	}
	prop := kungfufuzz.Property(ctx, kungfufuzz.Config{Target: rt.New, Oracle: oracle, Shared: rt.IsShared})
	return fuzz.Run(fuzz.Config{Seed: req.seed, Runs: req.runs, Steps: req.steps, ShrinkTime: req.shrinkTime, Progress: req.progress}, prop)
}
