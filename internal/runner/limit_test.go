package runner_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/kcpinproc"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/suite/kcp"
)

// oneStep is a KCP check of a single plan call: its verdict is decided by
// the one answer, so a late answer reaches the runner as a verdict.
const oneStep = "kcp/gate-cascade-first-failing"

// property is the KCP check that declares a larger time limit.
const property = "kcp/planner_properties/invariants-hold-on-generated-manifests-and-options"

// stalling is the bundled KCP reference behind executors that wait before
// every answer, as stall says, without heeding their context for the
// answer itself; released is told each time an executor is released.
type stalling struct {
	runner.Target
	stall    func(ctx context.Context)
	released chan string
}

func (s *stalling) NewExecutor(ctx context.Context) (engine.Executor, func(), error) {
	exec, release, err := s.Target.NewExecutor(ctx)
	if err != nil {
		return nil, nil, err
	}
	return stallingExec{exec, s.stall}, func() {
		release()
		if s.released != nil {
			s.released <- "released"
		}
	}, nil
}

type stallingExec struct {
	inner engine.Executor
	stall func(ctx context.Context)
}

func (e stallingExec) Execute(ctx context.Context, step engine.Step) (engine.Outcome, error) {
	e.stall(ctx)
	return e.inner.Execute(context.Background(), step)
}

// ended runs plan against target in the background and returns its run,
// failing the test when the run has not returned long after its limit.
func ended(t *testing.T, plan *runner.Plan, cfg runner.Config) (*results.Run, error) {
	t.Helper()
	type res struct {
		run *results.Run
		err error
	}
	done := make(chan res, 1)
	go func() {
		r, err := plan.Run(context.Background(), cfg)
		done <- res{r, err}
	}()
	select {
	case r := <-done:
		return r.run, r.err
	case <-time.After(20 * time.Second):
		t.Fatalf("the run had not returned 20s after its checks' %s limit", cfg.Timeout)
		return nil, nil
	}
}

// TestNoVerdictAfterTheLimit: whatever a target does, no check is judged
// after its time limit. An answer that comes only after the limit, pass or
// not, makes the check a timeout, and the run's evidence re-judges so; an
// executor that never returns is abandoned at the limit (the run goes on,
// and the executor is released once it ends); --repeat counts every run
// that ran out of time; a hello that never comes ends the run as an
// unreachable target.
func TestNoVerdictAfterTheLimit(t *testing.T) {
	plan, err := runner.Load(sifu.Assets, kcp.Suite)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range plan.Checks {
		if c.ID == oneStep && (len(c.Steps) != 1 || c.Steps[0].Op != engine.OpAct) {
			t.Fatalf("%s is no longer one act step; pick another check of one call", oneStep)
		}
	}
	reference := targetOf(kcpinproc.Reference{})
	// Each answer comes only once the check's time is over. The limit is
	// long enough that a loaded machine still starts the step within it.
	afterTheLimit := func(ctx context.Context) { <-ctx.Done() }
	cfg := func(target runner.Target, repeat int) runner.Config {
		return runner.Config{Target: target, TargetName: "t", Only: []string{oneStep}, Rerun: "earlier/results.json", Concurrency: 1, Timeout: 100 * time.Millisecond, Repeat: repeat}
	}

	if r, _ := ended(t, plan, runner.Config{Target: reference, TargetName: "t", Only: []string{oneStep}}); r.Tests[0].Status != engine.Pass {
		t.Fatalf("the reference answers %s on %s in time: %s", r.Tests[0].Status, oneStep, r.Tests[0].Message)
	}

	t.Run("a pass after the limit", func(t *testing.T) {
		r, err := ended(t, plan, cfg(&stalling{Target: reference, stall: afterTheLimit}, 1))
		if err != nil {
			t.Fatal(err)
		}
		got := r.Tests[0]
		if got.Status != engine.Timeout || !strings.Contains(got.Message, "no verdict within 100ms: the check ended pass only after its time ran out") {
			t.Errorf("a pass that came after the limit: %s, %q; want a timeout that says so", got.Status, got.Message)
		}
		if len(got.Transcript) != 1 {
			t.Errorf("the late answer's exchange was not kept: %d exchange(s)", len(got.Transcript))
		}
		if problems := plan.Rejudge(context.Background(), r); len(problems) > 0 {
			t.Errorf("the run's own evidence does not re-judge: %v", problems)
		}
	})

	t.Run("a harness error after the limit", func(t *testing.T) {
		broken := &stalling{Target: reference, stall: afterTheLimit}
		target := &failing{broken}
		r, err := ended(t, plan, cfg(target, 1))
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Tests[0]; got.Status != engine.Timeout || !strings.Contains(got.Message, "ended harness_error only after its time ran out") {
			t.Errorf("a harness error that came after the limit: %s, %q; want a timeout", got.Status, got.Message)
		}
	})

	t.Run("repeated", func(t *testing.T) {
		r, err := ended(t, plan, cfg(&stalling{Target: reference, stall: afterTheLimit}, 3))
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Tests[0]; got.Status != engine.Timeout || got.Repeat == nil || *got.Repeat != (results.Repeat{Runs: 3, Passed: 0}) {
			t.Errorf("three runs past the limit: %s, %+v; want a timeout that passed none", got.Status, got.Repeat)
		}
	})

	t.Run("an executor that never returns", func(t *testing.T) {
		unblock := make(chan struct{})
		deaf := &stalling{Target: reference, stall: func(context.Context) { <-unblock }, released: make(chan string, 1)}
		r, err := ended(t, plan, cfg(deaf, 1))
		close(unblock)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Tests[0]; got.Status != engine.Timeout || !strings.Contains(got.Message, "abandoned") {
			t.Errorf("an executor that never returns: %s, %q; want a timeout that says the check was abandoned", got.Status, got.Message)
		}
		select {
		case <-deaf.released:
		case <-time.After(20 * time.Second):
			t.Error("the abandoned executor was not released once it returned")
		}
	})

	t.Run("a hello that never comes", func(t *testing.T) {
		never := make(chan struct{})
		defer close(never)
		_, err := ended(t, plan, cfg(deafHello{reference, never}, 1))
		var ue *runner.UnreachableError
		if !errors.As(err, &ue) || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("a hello that ignores its context and never comes: %v; want an unreachable target that timed out", err)
		}
	})
}

// failing answers every step with an adapter error, after its stall.
type failing struct{ *stalling }

func (f *failing) NewExecutor(ctx context.Context) (engine.Executor, func(), error) {
	return failingExec{f.stall}, func() {}, nil
}

type failingExec struct{ stall func(context.Context) }

func (e failingExec) Execute(ctx context.Context, step engine.Step) (engine.Outcome, error) {
	e.stall(ctx)
	return engine.Outcome{}, &engine.AdapterError{Step: step.Source, Err: errors.New("the wire broke")}
}

// deafHello's hello waits for never, whatever its context says.
type deafHello struct {
	runner.Target
	never chan struct{}
}

func (d deafHello) Describe(context.Context) (results.TargetInfo, error) {
	<-d.never
	return results.TargetInfo{}, errors.New("too late")
}

// TestDeclaredTimeFactor: a check that declares @timeout:Nx gets N times
// the per-check limit, in the selection (what --list shows) and in the
// context its executor runs under; every other check gets the limit.
// KCP's property check, hundreds of plans, declares one.
func TestDeclaredTimeFactor(t *testing.T) {
	plan, err := runner.Load(sifu.Assets, kcp.Suite)
	if err != nil {
		t.Fatal(err)
	}
	const limit = time.Hour
	deadlines := map[string]time.Time{}
	target := &recording{Target: targetOf(kcpinproc.Reference{}), deadlines: deadlines}
	cfg := runner.Config{Target: target, TargetName: "t", Only: []string{oneStep, property}, Concurrency: 1, Timeout: limit}
	chosen, err := plan.Choose(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]time.Duration{oneStep: limit, property: 4 * limit}
	for _, sel := range chosen.Checks {
		if sel.Limit != want[sel.Check.ID] {
			t.Errorf("%s is selected with a limit of %s, want %s", sel.Check.ID, sel.Limit, want[sel.Check.ID])
		}
	}
	before := time.Now()
	r, err := plan.Run(context.Background(), cfg)
	after := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Tests) != 2 {
		t.Fatalf("%d tests, want 2", len(r.Tests))
	}
	for id, l := range want {
		d, ok := deadlines[id]
		if !ok || d.Before(before.Add(l)) || d.After(after.Add(l)) {
			t.Errorf("%s ran with deadline %v; want %s after it started (between %v and %v)", id, d, l, before.Add(l), after.Add(l))
		}
	}
	for _, c := range plan.Checks {
		if c.ID != property && c.TimeFactor() != 1 {
			t.Errorf("%s declares a time factor of %d; only the property check needs one in the KCP suite", c.ID, c.TimeFactor())
		}
	}
}

// recording notes the deadline of each check's context.
type recording struct {
	runner.Target
	deadlines map[string]time.Time
}

func (r *recording) NewExecutorFor(ctx context.Context, c engine.Check) (engine.Executor, func(), error) {
	r.deadlines[c.ID], _ = ctx.Deadline()
	return r.Target.NewExecutor(ctx)
}
