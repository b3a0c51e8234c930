package kcpexec

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/suite/kcp"
)

// TestBrokenPlannersNeverAnswer: planners that crash, hang, answer garbage,
// answer slowly or answer another schema end as adapter errors
// (harness_error) or deadlines (timeout) within a 200ms deadline, never as
// a plan or a refusal.
func TestBrokenPlannersNeverAnswer(t *testing.T) {
	cases := map[string]struct {
		command  string
		deadline bool
	}{
		"crash by signal":  {`kill -SEGV $$; true`, false},
		"go panic":         {`echo "panic: runtime error: index out of range" >&2; exit 2; true`, false},
		"usage error":      {`echo "Unknown option: --max-units" >&2; exit 2; true`, false},
		"killed by oom":    {`exit 137; true`, false},
		"hang":             {`sleep 30; true`, true},
		"slow":             {`sleep 3; echo '{"kind":"plan","schemaVersion":1}'; true`, true},
		"hang after plan":  {`echo '{"kind":"plan","schemaVersion":1}'; exec sleep 30; true`, true},
		"half a plan":      {`printf '{"kind":"plan","schemaVersion":1,"sel'; true`, false},
		"another schema":   {`echo '{"implementation":"x","version":"1","profiles":["memory"]}'; true`, false},
		"newer plan":       {`echo '{"kind":"plan","schemaVersion":2}'; true`, false},
		"nothing at all":   {`true`, false},
		"json, not object": {`echo '[1,2,3]'; true`, false},
	}
	req := kcp.PlanRequest{Name: "v", Manifest: "project: p\n", Task: "t", Options: map[string]any{}}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// 200ms for the ones that never answer; the others must end
			// as adapter errors however slow the machine is.
			limit := 10 * time.Second
			if c.deadline {
				limit = 200 * time.Millisecond
			}
			ctx, cancel := context.WithTimeout(context.Background(), limit)
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := (Planner{Command: c.command}).Plan(ctx, req)
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(20 * time.Second): // generous outer bound
				t.Fatalf("the plan did not return after its %s deadline", limit)
			}
			var ae *engine.AdapterError
			timedOut := errors.Is(err, context.DeadlineExceeded)
			switch {
			case c.deadline && !timedOut:
				t.Errorf("want a deadline, got %v", err)
			case !c.deadline && !errors.As(err, &ae):
				t.Errorf("want an adapter error, got %v", err)
			}
		})
	}
}
