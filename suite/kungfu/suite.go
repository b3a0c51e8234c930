package kungfu

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/steps/kungfusteps"
)

// Suite is where the Kungfu suite's data lives in sifu's assets.
var Suite = runner.Suite{
	Name:      "kungfu",
	Catalogue: "vectors/kungfu/rules.json",
	Features:  "features/kungfu",
	Vectors:   "vectors/kungfu",
	Schemas:   "vectors/schema",
	Register:  kungfusteps.Register,
	Uses:      Uses,
	// Checks provision their own agents; moving the clock or restarting
	// reaches every agent of the implementation. An admission secret is a
	// bearer secret where thread.admit issues it and where thread.join
	// presents it (the adapters keep an agent's credential and the control
	// token out of every exchange themselves).
	Vocabulary: engine.Vocabulary{Provision: ControlProvision, Disturbing: []string{ControlClock, ControlRestart},
		Secrets: []engine.Place{
			{Op: engine.OpAct, Name: "thread.admit", Pointer: "/outcome/result/secret"},
			{Op: engine.OpAct, Name: "thread.join", Pointer: "/params/secret"},
		}},
}

// Uses names the profiles whose actions and views a check uses: Memory
// actions need the memory profile, thread and assignment actions the thread
// profile, Task actions the task profile, and a restricted Task or the
// opportunities view the full profile.
func Uses(c engine.Check) []string {
	used := map[string]bool{}
	var walk func([]engine.Step)
	walk = func(steps []engine.Step) {
		for _, s := range steps {
			walk(s.Steps)
			if s.Op != engine.OpAct && s.Op != engine.OpRead {
				continue
			}
			if p := profileOf(s.Name); p != "" {
				used[p] = true
			}
			if s.Name == "task.create" && s.Params["audience"] == "restricted" {
				used["full"] = true
			}
		}
	}
	walk(c.Steps)
	return slices.Sorted(maps.Keys(used))
}

func profileOf(name string) string {
	prefix, _, _ := strings.Cut(name, ".")
	switch {
	case prefix == "memory" || name == "memories":
		return "memory"
	case prefix == "thread" || prefix == "assignment" || name == "threads" || name == "entry":
		return "thread"
	case prefix == "task" || name == "tasks" || name == "engagement" || name == "engagements" || name == "adoptions":
		return "task"
	case name == "opportunities":
		return "full"
	}
	return ""
}

// Factory makes a Target for one check. An in-process factory returns a
// fresh implementation each time; a remote one may return a shared client,
// since every check provisions its own agents.
type Factory func(ctx context.Context) (Target, func(), error)

// RunTarget adapts a Factory to the runner. Set Shared when every check
// reaches the same implementation (a server), so that checks that move its
// clock or restart it run alone, unless it confines those controls to the
// check (Hello.Scoped).
type RunTarget struct {
	New      Factory
	IsShared bool
	// Own, when set, makes an implementation of the check's own for each
	// check that restarts the implementation, so that a real restart (a
	// process killed and started again) disturbs no check sharing New's.
	Own Factory
	// Done, when set, releases what New shares, once the run is over.
	Done func()
	// Concurrency, when positive, is how many checks run at once unless
	// the run says otherwise.
	Concurrency int
	// Lack, when set, says why a check cannot run on the target (an
	// action or view its interface has no counterpart for), or "".
	Lack func(engine.Check) string
	// Memo, when set, keeps the hello of the implementation every check
	// shares, so that it is asked once rather than before every check.
	Memo *HelloMemo
}

// HelloMemo keeps one implementation's hello once it has answered.
type HelloMemo struct {
	mu    sync.Mutex
	hello *Hello
}

func (m *HelloMemo) get(ctx context.Context, t Target) (Hello, error) {
	if m == nil {
		return t.Hello(ctx)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.hello != nil {
		return *m.hello, nil
	}
	h, err := t.Hello(ctx)
	if err == nil {
		m.hello = &h
	}
	return h, err
}

// Workers is the target's default number of checks at once (0: the
// runner's default).
func (rt RunTarget) Workers() int { return rt.Concurrency }

// Lacking says why a check cannot run on the target (Lack), or "".
func (rt RunTarget) Lacking(c engine.Check) string {
	if rt.Lack == nil {
		return ""
	}
	return rt.Lack(c)
}

// Close releases what the target shares across checks.
func (rt RunTarget) Close() error {
	if rt.Done != nil {
		rt.Done()
	}
	return nil
}

// restarts reports whether a check uses the restart control.
func restarts(c engine.Check) bool { return slices.Contains(c.Controls(), ControlRestart) }

// Shared reports whether checks share one implementation.
func (rt RunTarget) Shared() bool { return rt.IsShared }

func (rt RunTarget) seam() runner.Seam[Target] {
	return runner.Seam[Target]{New: rt.New, Hello: rt.hello, Executor: func(ctx context.Context, t Target) (engine.Executor, func(), error) {
		h, err := rt.Memo.get(ctx, t)
		if err != nil {
			return nil, nil, err
		}
		return NewExecutor(t, h), runner.Nothing, nil
	}}
}

// Describe asks one target instance for its hello.
func (rt RunTarget) Describe(ctx context.Context) (results.TargetInfo, error) {
	return rt.seam().Describe(ctx)
}

// hello is what the runner records of an implementation: its hello, once
// a provisioned agent showed the control plane works, with the restart
// control counted as confined when a restarting check gets an
// implementation of its own (Own).
func (rt RunTarget) hello(ctx context.Context, t Target) (results.TargetInfo, error) {
	h, err := rt.Memo.get(ctx, t)
	if err != nil {
		return results.TargetInfo{}, err
	}
	if err := preflight(ctx, t, h); err != nil {
		return results.TargetInfo{}, err
	}
	scoped := h.Scoped
	if rt.Own != nil && !h.Confines(ControlRestart) {
		scoped = append(slices.Clone(scoped), ControlRestart) // a restarting check gets its own
	}
	return results.TargetInfo{Implementation: h.Implementation, Version: h.Version, Commit: h.Commit,
		Spec: h.Spec, Profiles: h.Profiles, Controls: h.Controls, Scoped: scoped}, nil
}

// NewExecutorFor makes the executor of one check: over an implementation of
// its own when the check restarts, the shared implementation cannot
// confine a restart to the check's scope, and the target makes such (Own).
func (rt RunTarget) NewExecutorFor(ctx context.Context, c engine.Check) (engine.Executor, func(), error) {
	if rt.Own == nil || !restarts(c) {
		return rt.NewExecutor(ctx)
	}
	t, release, err := rt.New(ctx)
	if err != nil {
		return nil, nil, err
	}
	h, err := rt.Memo.get(ctx, t)
	if err != nil {
		release()
		return nil, nil, err
	}
	if h.Confines(ControlRestart) {
		return NewExecutor(t, h), release, nil
	}
	release()
	return RunTarget{New: rt.Own}.NewExecutor(ctx)
}

// NewExecutor makes a target instance and an executor over it for one check.
func (rt RunTarget) NewExecutor(ctx context.Context) (engine.Executor, func(), error) {
	return rt.seam().NewExecutor(ctx)
}

// preflight provisions one agent when the target offers the control, so that
// a control plane sifu cannot use (a missing or wrong control token, say) is
// found once, before any check, instead of as every check's harness error.
// The agent it leaves is like any check's: no check sees another's agents.
func preflight(ctx context.Context, t Target, h Hello) error {
	if !h.Supports(ControlProvision) {
		return nil
	}
	resp, err := t.Control(ctx, Control{Name: ControlProvision, Params: map[string]any{"name": "sifu-preflight"}})
	if err != nil {
		return fmt.Errorf("provision an agent before the checks: %w", err)
	}
	if !resp.OK {
		hint := ""
		if resp.Rejection != nil && resp.Rejection.Reason == "unauthenticated" {
			hint = "; give sifu the control token (--control-token-file F, or $SIFU_CONTROL_TOKEN)"
		}
		return fmt.Errorf("the hello offers the provision control, but provisioning an agent was refused: %s%s", resp.Rejection, hint)
	}
	return nil
}
