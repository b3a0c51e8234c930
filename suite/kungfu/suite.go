package kungfu

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sifu-dev/sifu/engine"
	"github.com/sifu-dev/sifu/results"
	"github.com/sifu-dev/sifu/runner"
	steps "github.com/sifu-dev/sifu/steps/kungfu"
)

// Suite is where the Kungfu suite's data lives in sifu's assets.
var Suite = runner.Suite{
	Name:      "kungfu",
	Catalogue: "vectors/kungfu/rules.json",
	Features:  "features/kungfu",
	Vectors:   "vectors/kungfu",
	Schemas:   "vectors/schema",
	Register:  steps.Register,
	Uses:      Uses,
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
// clock or restart it run alone.
type RunTarget struct {
	New      Factory
	IsShared bool
}

// Shared reports whether checks share one implementation.
func (rt RunTarget) Shared() bool { return rt.IsShared }

// Describe asks one target instance for its hello.
func (rt RunTarget) Describe(ctx context.Context) (results.Target, error) {
	t, release, err := rt.New(ctx)
	if err != nil {
		return results.Target{}, err
	}
	defer release()
	h, err := t.Hello(ctx)
	if err != nil {
		return results.Target{}, err
	}
	if err := preflight(ctx, t, h); err != nil {
		return results.Target{}, err
	}
	return results.Target{Implementation: h.Implementation, Version: h.Version, Commit: h.Commit,
		Spec: h.Spec, Profiles: h.Profiles, Controls: h.Controls}, nil
}

// NewExecutor makes a target instance and an executor over it for one check.
func (rt RunTarget) NewExecutor(ctx context.Context) (engine.Executor, func(), error) {
	t, release, err := rt.New(ctx)
	if err != nil {
		return nil, nil, err
	}
	h, err := t.Hello(ctx)
	if err != nil {
		release()
		return nil, nil, err
	}
	return NewExecutor(t, h), release, nil
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
