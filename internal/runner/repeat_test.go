package runner_test

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/kcpinproc"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/reference/kcpref"
	"github.com/sifu-dev/sifu/suite/kcp"
)

// TestRepeatFindsAVaryingOutcome: a target that is broken on every other
// executor passes one run and fails the next; repeated, the check fails,
// keeps the failing run's message and says which runs failed. A steady
// target passes every run.
func TestRepeatFindsAVaryingOutcome(t *testing.T) {
	plan, err := runner.Load(sifu.Assets, kcp.Suite)
	if err != nil {
		t.Fatal(err)
	}
	const check = "kcp/gate-cascade-first-failing"
	run := func(flaky bool, repeat int) results.Test {
		t.Helper()
		var target runner.Target = targetOf(kcpinproc.Reference{})
		if flaky {
			target = &alternating{good: target, bad: targetOf(kcpinproc.Reference{Faults: []kcpref.Fault{kcpref.FaultGatesSwapped}})}
		}
		r, err := plan.Run(context.Background(), runner.Config{Target: target, TargetName: "t", Only: []string{check}, Concurrency: 1, Repeat: repeat})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Tests) != 1 {
			t.Fatalf("%d tests, want 1", len(r.Tests))
		}
		return r.Tests[0]
	}

	got := run(true, 4)
	if got.Status != engine.Fail || got.Repeat == nil || *got.Repeat != (results.Repeat{Runs: 4, Passed: 2}) {
		t.Errorf("flaky target, 4 runs: status %s, repeat %+v; want fail, 2 of 4 passed", got.Status, got.Repeat)
	}
	if !strings.HasPrefix(got.Message, "run 1 of 4: ") || !strings.Contains(got.Message, "did not pass in run(s) 1, 3; passed 2 of 4") {
		t.Errorf("flaky target, message %q", got.Message)
	}
	if got.Transcript == nil {
		t.Error("the failing run's transcript was not kept")
	}

	got = run(true, 1)
	if got.Status != engine.Fail || got.Repeat != nil {
		t.Errorf("flaky target, one run: status %s, repeat %+v; want fail and no tally", got.Status, got.Repeat)
	}

	got = run(false, 3)
	if got.Status != engine.Pass || got.Repeat == nil || *got.Repeat != (results.Repeat{Runs: 3, Passed: 3}) || got.Message != "" {
		t.Errorf("steady target, 3 runs: status %s, repeat %+v, message %q", got.Status, got.Repeat, got.Message)
	}
}

// targetOf is the in-process reference as the registry makes it: it
// claims the MCP profile too.
func targetOf(k kcpinproc.Reference) runner.Target {
	return kcp.RunTarget{New: func(context.Context) (kcp.Target, func(), error) { return k, func() {}, nil },
		Claims: append(slices.Clone(kcp.Profiles), kcp.MCPProfile, kcp.ServeProfile)}
}

// alternating describes itself as good and hands out executors of bad and
// good in turn, starting with bad.
type alternating struct {
	good, bad runner.Target
	n         atomic.Int32
}

func (a *alternating) Describe(ctx context.Context) (results.TargetInfo, error) {
	return a.good.Describe(ctx)
}

func (a *alternating) NewExecutor(ctx context.Context) (engine.Executor, func(), error) {
	if a.n.Add(1)%2 == 1 {
		return a.bad.NewExecutor(ctx)
	}
	return a.good.NewExecutor(ctx)
}
