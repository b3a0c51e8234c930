package runner

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/results"
)

// silentTarget never answers its hello: it waits for the context.
type silentTarget struct{}

func (silentTarget) Describe(ctx context.Context) (results.TargetInfo, error) {
	<-ctx.Done()
	return results.TargetInfo{}, ctx.Err()
}

func (silentTarget) NewExecutor(context.Context) (engine.Executor, func(), error) {
	return nil, nil, errors.New("never reached")
}

// TestSilentHelloIsBounded: a target that never answers its hello ends the
// run within the check timeout, as an unreachable target, before any check.
func TestSilentHelloIsBounded(t *testing.T) {
	done := make(chan error, 1)
	go func() {
		_, err := (&Plan{}).Run(context.Background(), Config{Target: silentTarget{}, TargetName: "stdio", Timeout: 50 * time.Millisecond})
		done <- err
	}()
	select {
	case err := <-done:
		var ue *UnreachableError
		if !errors.As(err, &ue) || ue.Target != "stdio" {
			t.Fatalf("got %v, want an UnreachableError for stdio", err)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("the error does not say the hello timed out: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the run was still waiting for the hello after 10s with --timeout 50ms")
	}
}

// TestHelloIsBoundedByTheRequestTimeout: the hello is one request, so a
// target that never answers it is given up on at the request timeout, not
// at a check's much longer limit, and the message names the flag to raise.
func TestHelloIsBoundedByTheRequestTimeout(t *testing.T) {
	done := make(chan error, 1)
	go func() {
		_, err := (&Plan{}).Run(context.Background(), Config{Target: silentTarget{}, TargetName: "http", Timeout: time.Hour, HelloTimeout: 20 * time.Millisecond})
		done <- err
	}()
	select {
	case err := <-done:
		var ue *UnreachableError
		if !errors.As(err, &ue) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("got %v, want an UnreachableError for a hello that timed out", err)
		}
		if want := "within 20ms (--request-timeout bounds the hello"; !strings.Contains(err.Error(), want) {
			t.Errorf("%v, want it to say %q", err, want)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the hello waited for the check timeout (1h), not the request timeout (20ms)")
	}
	// A check's limit shorter than the request timeout bounds the hello too.
	_, err := (&Plan{}).Run(context.Background(), Config{Target: silentTarget{}, TargetName: "http", Timeout: 20 * time.Millisecond, HelloTimeout: time.Hour})
	if err == nil || !strings.Contains(err.Error(), "within 20ms (--timeout bounds the hello") {
		t.Errorf("%v, want the hello bounded by --timeout 20ms", err)
	}
}
