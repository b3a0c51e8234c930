// Package kungfuinproc drives the bundled Kungfu reference in process,
// through the suite's seam (kungfu.Target), without any transport.
package kungfuinproc

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/sifu-dev/sifu/reference/kungfuref"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

// Reference adapts the reference Kungfu service (reference/kungfuref) to kungfu.Target. It offers the
// whole control plane: provisioning, deactivation, a virtual clock and a
// restart that rebuilds the service from its fact log.
type Reference struct {
	// mu is held for reading by every call and for writing by a restart,
	// so no call runs on a service that a restart has replaced.
	mu    sync.RWMutex
	svc   *kungfuref.Service
	clock *kungfuref.ManualClock
	opts  []kungfuref.Option
}

// New starts a reference service with a virtual clock and an
// in-memory fact store. Extra options (a durable store, planted faults)
// override the defaults and are kept across restarts.
func New(opts ...kungfuref.Option) (*Reference, error) {
	return newAt(kungfuref.Epoch, opts...)
}

// newAt is New with the virtual clock starting at start.
func newAt(start time.Time, opts ...kungfuref.Option) (*Reference, error) {
	clock := kungfuref.NewManualClock(start)
	all := append([]kungfuref.Option{kungfuref.WithClock(clock), kungfuref.WithStore(&kungfuref.MemoryStore{})}, opts...)
	svc, err := kungfuref.New(all...)
	if err != nil {
		return nil, err
	}
	// A durable store may hold facts from an earlier run: virtual time
	// resumes where they left it, never before.
	if facts, err := svc.Store().Facts(); err == nil && len(facts) > 0 {
		if last := facts[len(facts)-1].At; last.After(clock.Now()) {
			clock.Advance(last.Sub(clock.Now()))
		}
	}
	return &Reference{svc: svc, clock: clock, opts: all}, nil
}

// Profiles the reference claims today.
var Profiles = []string{"memory", "thread", "task", "full"}

// Hello describes the reference.
func (k *Reference) Hello(context.Context) (kungfu.Hello, error) {
	return kungfu.Hello{
		Implementation: "sifu-reference-kungfu",
		Version:        "0.1.0",
		Spec:           "Kungfu Protocol 1.0-rc1",
		Profiles:       Profiles,
		Controls:       kungfu.Controls,
	}, nil
}

// Act performs an action.
func (k *Reference) Act(_ context.Context, a kungfu.Action) (kungfu.Response, error) {
	k.mu.RLock()
	defer k.mu.RUnlock()
	return response(k.svc.Act(kungfuref.Request{Agent: a.Agent, Action: a.Name, Key: a.Key, Params: a.Params})), nil
}

// Read answers a view.
func (k *Reference) Read(_ context.Context, r kungfu.Read) (kungfu.Response, error) {
	k.mu.RLock()
	defer k.mu.RUnlock()
	return response(k.svc.Read(r.Agent, r.View, r.Params)), nil
}

// Control runs a control-plane operation.
func (k *Reference) Control(ctx context.Context, c kungfu.Control) (kungfu.Response, error) {
	if c.Name == kungfu.ControlRestart {
		return k.restart()
	}
	k.mu.RLock()
	defer k.mu.RUnlock()
	switch c.Name {
	case kungfu.ControlProvision:
		name, _ := c.Params["name"].(string)
		id, err := k.svc.Provision(name)
		if err != nil {
			return kungfu.Response{}, err
		}
		return ok(map[string]any{"agent": id}), nil
	case kungfu.ControlDeactivate:
		id, _ := c.Params["agent"].(string)
		if err := k.svc.Deactivate(id); err != nil {
			return refused("invalid_params", err.Error()), nil
		}
		return ok(map[string]any{"agent": id, "state": "deactivated"}), nil
	case kungfu.ControlClock:
		d, err := duration(c.Params["advance"])
		if err != nil {
			return refused("invalid_params", err.Error()), nil
		}
		k.clock.Advance(d)
		return ok(map[string]any{"now": k.clock.Now().UTC().Format(time.RFC3339Nano)}), nil
	}
	return refused("unknown_action", fmt.Sprintf("no control %q", c.Name)), nil
}

// restart drops the live service and rebuilds one from the fact store, as a
// process restart would; no call is in flight meanwhile.
func (k *Reference) restart() (kungfu.Response, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	svc, err := kungfuref.New(k.opts...)
	if err != nil {
		return kungfu.Response{}, fmt.Errorf("restart: %w", err)
	}
	k.svc = svc
	return ok(map[string]any{"restarted": true}), nil
}

func duration(v any) (time.Duration, error) {
	switch t := v.(type) {
	case string:
		d, err := time.ParseDuration(t)
		if err != nil || d < 0 {
			return 0, fmt.Errorf("advance must be a non-negative duration such as \"90s\", got %q", t)
		}
		return d, nil
	case float64:
		if t < 0 {
			return 0, fmt.Errorf("advance must not be negative")
		}
		return time.Duration(t * float64(time.Second)), nil
	}
	return 0, fmt.Errorf("advance must be a duration such as \"90s\" or a number of seconds")
}

func ok(result map[string]any) kungfu.Response { return kungfu.Response{OK: true, Result: result} }

func refused(reason, msg string) kungfu.Response {
	return kungfu.Response{Rejection: &kungfu.Rejection{Reason: reason, NextStep: "stop", Message: msg}}
}

func response(r kungfuref.Response) kungfu.Response {
	if r.Rejection != nil {
		return kungfu.Response{Rejection: &kungfu.Rejection{Reason: r.Rejection.Reason, NextStep: r.Rejection.NextStep, Message: r.Rejection.Message}}
	}
	return ok(r.Result)
}
