package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sifu-dev/sifu/internal/attack/faultproxy"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

// faultsTag marks the checks that are meant to hold under injected faults;
// a run with --faults selects only them (docs/attack.md).
const faultsTag = "@faults"

// prepareFaults reads --faults and --fault-seed into f.faultCfg, prints the
// seed, and narrows the selection to the checks tagged @faults.
func prepareFaults(f *runFlags, stdout io.Writer) error {
	if strings.TrimSpace(f.faults) == "" {
		if f.faultSeed != 0 {
			return &runner.UsageError{Msg: "--fault-seed needs --faults, e.g. --faults all --fault-seed 7"}
		}
		return nil
	}
	faults, err := faultproxy.Parse(f.faults)
	if err != nil {
		return &runner.UsageError{Msg: "--faults: " + err.Error()}
	}
	if f.declare != "" {
		return &runner.UsageError{Msg: "--declare cannot be combined with --faults: a fault run checks only the @faults checks and is no conformance statement; run without --faults to declare"}
	}
	seed := f.faultSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	f.faultCfg = &faultproxy.Config{Faults: faults, Seed: seed}
	f.tags = withFaultsTag(f.tags)
	fmt.Fprintf(stdout, "injecting %s (repeat with --fault-seed %d); checks: %s\n", f.faultCfg, seed, f.tags)
	return nil
}

// withFaultsTag adds @faults to every alternative of a tag expression.
func withFaultsTag(expr string) string {
	if strings.TrimSpace(expr) == "" {
		return faultsTag
	}
	alts := strings.Split(expr, ",")
	for i, a := range alts {
		alts[i] = strings.TrimSpace(a) + " && " + faultsTag
	}
	return strings.Join(alts, ",")
}

// withFaults puts the fault proxy in front of a Kungfu target when the run
// asked for faults.
func withFaults(f runFlags, t kungfu.Target) kungfu.Target {
	if f.faultCfg == nil {
		return t
	}
	return faultproxy.Wrap(t, *f.faultCfg)
}

// faultedTarget marks a runner target whose builder put the fault proxy in
// place; a target that cannot take faults is a usage error under --faults.
type faultedTarget struct{ runner.Target }

// Shared forwards the wrapped target's answer.
func (t faultedTarget) Shared() bool {
	s, ok := t.Target.(runner.SharedTarget)
	return ok && s.Shared()
}

// NewExecutorFor forwards to a wrapped target that prepares per check.
func (t faultedTarget) NewExecutorFor(ctx context.Context, c engine.Check) (engine.Executor, func(), error) {
	if ct, ok := t.Target.(runner.CheckTarget); ok {
		return ct.NewExecutorFor(ctx, c)
	}
	return t.Target.NewExecutor(ctx)
}

// Workers forwards the wrapped target's default concurrency.
func (t faultedTarget) Workers() int {
	if w, ok := t.Target.(runner.WorkersTarget); ok {
		return w.Workers()
	}
	return 0
}

// Close forwards to a wrapped target that holds something for the run.
func (t faultedTarget) Close() error {
	if c, ok := t.Target.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// faulted marks t when the run injects faults.
func faulted(f runFlags, t runner.Target) runner.Target {
	if f.faultCfg == nil {
		return t
	}
	return faultedTarget{t}
}

// checkFaulted refuses a fault run whose target builder ignored the faults.
func checkFaulted(f runFlags, t runner.Target) error {
	if f.faultCfg == nil {
		return nil
	}
	if _, ok := t.(faultedTarget); !ok {
		return &runner.UsageError{Msg: fmt.Sprintf("--faults: suite %s cannot inject faults into target %s; faults exist for the kungfu suite's inproc, http and stdio targets", f.suite, f.target)}
	}
	return nil
}
