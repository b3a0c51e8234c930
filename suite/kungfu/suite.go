package kungfu

import (
	"context"

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
}

// Factory makes a Target for one check. An in-process factory returns a
// fresh implementation each time; a remote one may return a shared client,
// since every check provisions its own agents.
type Factory func(ctx context.Context) (Target, func(), error)

// RunTarget adapts a Factory to the runner.
type RunTarget struct{ New Factory }

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
