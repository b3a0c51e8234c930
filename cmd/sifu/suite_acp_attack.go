package main

import (
	"context"
	"fmt"
	"io"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/inproc"
	"github.com/sifu-dev/sifu/attack/fuzz"
	"github.com/sifu-dev/sifu/attack/fuzz/acpfuzz"
	"github.com/sifu-dev/sifu/attack/linear/acplinear"
	"github.com/sifu-dev/sifu/runner"
	"github.com/sifu-dev/sifu/suite/acp"
)

// acpOracle is a fresh in-process ACP reference.
func acpOracle(context.Context) (acp.Target, func(), error) { return inproc.ACP{}, func() {}, nil }

// acpFuzz fuzzes an ACP implementation with tool-call sequences, a fresh
// in-process reference answering each call alongside.
func acpFuzz(ctx context.Context, req fuzzRequest) (fuzz.Result, error) {
	rt, ok := req.target.(acp.RunTarget)
	if !ok {
		return fuzz.Result{}, fmt.Errorf("the acp fuzzer cannot drive a %T", req.target)
	}
	prop := acpfuzz.Property(ctx, acpfuzz.Config{Target: rt.New, Oracle: acpOracle, Name: fmt.Sprintf("fuzz-acp-%d", req.seed)})
	return fuzz.Run(fuzz.Config{Seed: req.seed, Runs: req.runs, Steps: req.steps, ShrinkTime: req.shrinkTime}, prop)
}

// runACPRace checks every parallel step of the ACP checks for
// linearizability against the target.
func runACPRace(ctx context.Context, out io.Writer, f raceFlags) error {
	entry, err := lookupSuite(f.suite)
	if err != nil {
		return err
	}
	newTarget, ok := entry.targets[f.target]
	if !ok {
		return &runner.UsageError{Msg: fmt.Sprintf("unknown target %q for suite %s", f.target, f.suite)}
	}
	target, err := newTarget(f.runFlags)
	if err != nil {
		return err
	}
	rt, ok := target.(acp.RunTarget)
	if !ok {
		return fmt.Errorf("sifu race cannot drive a %T", target)
	}
	plan, err := runner.Load(sifu.Assets, entry.suite)
	if err != nil {
		return err
	}
	checks := plan.Checks
	if f.tags != "" {
		checks = nil
		for _, c := range plan.Checks {
			if runner.MatchTags(f.tags, append(append([]string{c.Kind}, c.Tags...), c.Rules...)) {
				checks = append(checks, c)
			}
		}
	}
	races := acplinear.Races(checks)
	if len(races) == 0 {
		return &runner.UsageError{Msg: "no check with concurrent steps was selected"}
	}
	bad := 0
	for _, r := range races {
		v, err := acplinear.Check(ctx, r, rt.New, acpOracle, f.rounds, f.out)
		if err != nil {
			return err
		}
		if v.Linearizable {
			fmt.Fprintf(out, "  linearizable      %s (%d rounds)\n", r.ID, v.Rounds)
			continue
		}
		bad++
		fmt.Fprintf(out, "  NOT LINEARIZABLE  %s\n    rules: %v\n    %s\n", r.ID, r.Rules, v.Detail)
		if v.Visualization != "" {
			fmt.Fprintf(out, "    visualisation: %s\n", v.Visualization)
		}
	}
	fmt.Fprintf(out, "races: %d checked, %d not linearizable\n", len(races), bad)
	if bad > 0 {
		return &failedError{msg: fmt.Sprintf("%d race(s) produced a history no serial order explains", bad)}
	}
	return nil
}
