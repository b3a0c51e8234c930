package runner

import (
	"context"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/results"
)

// Seam is the runner's view of a suite's own adapter seam: a factory of
// implementations of the suite's Target interface (T), and what the runner
// needs of one implementation: what it says about itself, and an executor
// for one check. Each suite's RunTarget describes and prepares through a
// Seam, so the making and releasing of implementations is written once.
type Seam[T any] struct {
	// New makes an implementation for one check (or a client of one that
	// every check shares) and the function that releases it.
	New func(ctx context.Context) (T, func(), error)
	// Hello asks an implementation what it is and offers.
	Hello func(ctx context.Context, t T) (results.TargetInfo, error)
	// Executor makes one check's executor over an implementation, and the
	// function that releases what the executor holds.
	Executor func(ctx context.Context, t T) (engine.Executor, func(), error)
}

// Describe makes one implementation and asks it for its hello.
func (s Seam[T]) Describe(ctx context.Context) (results.TargetInfo, error) {
	t, release, err := s.New(ctx)
	if err != nil {
		return results.TargetInfo{}, err
	}
	defer release()
	return s.Hello(ctx, t)
}

// NewExecutor makes an implementation and an executor over it for one
// check; the function it returns releases both.
func (s Seam[T]) NewExecutor(ctx context.Context) (engine.Executor, func(), error) {
	t, release, err := s.New(ctx)
	if err != nil {
		return nil, nil, err
	}
	exec, done, err := s.Executor(ctx, t)
	if err != nil {
		release()
		return nil, nil, err
	}
	return exec, func() { done(); release() }, nil
}

// Nothing is a release function that releases nothing.
func Nothing() {}
