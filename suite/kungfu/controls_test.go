package kungfu_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/kungfuinproc"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

// withoutControls hides some controls of a target, as an implementation
// without a virtual clock or deactivation would.
type withoutControls struct {
	kungfu.Target
	keep []string
}

func (w withoutControls) Hello(ctx context.Context) (kungfu.Hello, error) {
	h, err := w.Target.Hello(ctx)
	h.Controls = w.keep
	return h, err
}

// TestMissingControlIsUntestable: a check that needs a control the target
// lacks is reported untestable, never pass, and fails the run.
func TestMissingControlIsUntestable(t *testing.T) {
	plan, err := runner.Load(sifu.Assets, kungfu.Suite)
	if err != nil {
		t.Fatal(err)
	}
	target := kungfu.RunTarget{New: func(context.Context) (kungfu.Target, func(), error) {
		k, err := kungfuinproc.New()
		return withoutControls{Target: k, keep: []string{kungfu.ControlProvision}}, func() {}, err
	}}
	run, err := plan.Run(context.Background(), runner.Config{Target: target, TargetName: "limited", Profiles: []string{"memory"}})
	if err != nil {
		t.Fatal(err)
	}
	needing := 0
	for _, tc := range run.Tests {
		var c engine.Check
		for _, pc := range plan.Checks {
			if pc.ID == tc.ID {
				c = pc
			}
		}
		needs := false
		for _, ctl := range c.Controls() {
			if ctl != kungfu.ControlProvision {
				needs = true
			}
		}
		if needs {
			needing++
			if tc.Status != engine.Untestable {
				t.Errorf("%s needs %v but ended %s", tc.ID, c.Controls(), tc.Status)
			}
		}
	}
	if needing > 0 && !run.Summary.Failed() {
		t.Error("a run with untestable checks must not count as passing")
	}
	if needing == 0 {
		t.Skip("no check uses a control beyond provisioning yet")
	}
}

// memoryOnly claims only the Memory profile, as a Memory-only implementation
// would (its thread and task actions stay reachable, to prove that the
// runner, not the target, decides what is checked).
type memoryOnly struct{ kungfu.Target }

func (m memoryOnly) Hello(ctx context.Context) (kungfu.Hello, error) {
	h, err := m.Target.Hello(ctx)
	h.Profiles = []string{"memory"}
	return h, err
}

// TestChecksNeedTheProfilesTheyUse: against a Memory-only target, checks
// that use thread or task actions are not_applicable, never run, and the
// rules observed only through them are not_applicable too.
func TestChecksNeedTheProfilesTheyUse(t *testing.T) {
	plan, err := runner.Load(sifu.Assets, kungfu.Suite)
	if err != nil {
		t.Fatal(err)
	}
	target := kungfu.RunTarget{New: func(context.Context) (kungfu.Target, func(), error) {
		k, err := kungfuinproc.New()
		return memoryOnly{k}, func() {}, err
	}}
	run, err := plan.Run(context.Background(), runner.Config{Target: target, TargetName: "memory-only"})
	if err != nil {
		t.Fatal(err)
	}
	if run.Summary.Failed() || run.Summary.Pass == 0 {
		t.Fatalf("summary %+v", run.Summary)
	}
	for _, tc := range run.Tests {
		var c engine.Check
		for _, pc := range plan.Checks {
			if pc.ID == tc.ID {
				c = pc
			}
		}
		uses := kungfu.Uses(c)
		onlyMemory := len(uses) == 0 || len(uses) == 1 && uses[0] == "memory"
		if !onlyMemory && tc.Status != engine.NotApplicable {
			t.Errorf("%s uses %v but ended %s against a Memory-only target", tc.ID, uses, tc.Status)
		}
		if onlyMemory && tc.Status != engine.Pass {
			t.Errorf("%s uses only Memory actions but ended %s: %s", tc.ID, tc.Status, tc.Message)
		}
	}
	for _, r := range run.Rules {
		if r.ID == "KF-5-14" && r.Status != "not_applicable" {
			t.Errorf("KF-5-14 is observed through thread pins; against a Memory-only target it is %s", r.Status)
		}
	}
}

// lockedControls refuses every control, as a server does to a harness that
// lacks its control token.
type lockedControls struct{ kungfu.Target }

func (lockedControls) Control(context.Context, kungfu.Control) (kungfu.Response, error) {
	return kungfu.Response{Rejection: &kungfu.Rejection{Reason: "unauthenticated", NextStep: "stop", Message: "control token needed"}}, nil
}

// TestRefusedControlPlaneStopsTheRunBeforeAnyCheck: a target whose hello
// offers provision but refuses it ends the run before any check, as an
// unreachable target whose message names the control token, instead of
// a harness error in every check.
func TestRefusedControlPlaneStopsTheRunBeforeAnyCheck(t *testing.T) {
	plan, err := runner.Load(sifu.Assets, kungfu.Suite)
	if err != nil {
		t.Fatal(err)
	}
	target := kungfu.RunTarget{New: func(context.Context) (kungfu.Target, func(), error) {
		k, err := kungfuinproc.New()
		return lockedControls{Target: k}, func() {}, err
	}}
	run, err := plan.Run(context.Background(), runner.Config{Target: target, TargetName: "http"})
	var ue *runner.UnreachableError
	if !errors.As(err, &ue) {
		t.Fatalf("got run %v, error %v; want an UnreachableError", run != nil, err)
	}
	for _, want := range []string{"unauthenticated", "control token needed", "--control-token-file"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the message does not say %q: %v", want, err)
		}
	}
}

// cancelAfter cancels a context once n checks have ended.
type cancelAfter struct {
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Write(p []byte) (int, error) {
	if c.n--; c.n == 0 {
		c.cancel()
	}
	return len(p), nil
}

// TestInterruptedRunIsMarked: a run whose context ends part way (Ctrl-C)
// is marked interrupted and reports only the checks that ended, none of
// them a verdict decided by the interruption.
func TestInterruptedRunIsMarked(t *testing.T) {
	plan, err := runner.Load(sifu.Assets, kungfu.Suite)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	target := kungfu.RunTarget{New: func(context.Context) (kungfu.Target, func(), error) {
		k, err := kungfuinproc.New()
		return k, func() {}, err
	}}
	run, err := plan.Run(ctx, runner.Config{Target: target, TargetName: "inproc", Concurrency: 1, Progress: &cancelAfter{n: 5, cancel: cancel}})
	if err != nil {
		t.Fatal(err)
	}
	if !run.Interrupted || len(run.Tests) == 0 || len(run.Tests) >= len(plan.Checks) {
		t.Fatalf("interrupted=%v, %d of %d checks reported", run.Interrupted, len(run.Tests), len(plan.Checks))
	}
	for _, tc := range run.Tests {
		if tc.Status == engine.Fail || tc.Status == engine.Timeout {
			t.Errorf("%s: %s after the interruption: %s", tc.ID, tc.Status, tc.Message)
		}
	}
}
