package kungfu

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/sifu-dev/sifu/internal/engine"
)

// Executor runs compiled Kungfu steps against a Target. It maps the agent
// aliases of one check to the agents the target provisioned for it.
type Executor struct {
	target Target
	hello  Hello
	scope  string // this check's scope, when the target confines controls to one

	mu     sync.Mutex
	agents map[string]string // alias → agent id
}

// NewExecutor returns an executor for one check. When the target confines
// controls to a scope (Hello.Scoped), the check gets a scope of its own: its
// agents are provisioned into it, and its clock and restart controls name
// it, so that it disturbs no other check sharing the implementation.
func NewExecutor(t Target, h Hello) *Executor {
	e := &Executor{target: t, hello: h, agents: map[string]string{}}
	if len(h.Scoped) > 0 {
		e.scope = fmt.Sprintf("%s-%d", runNonce, scopes.Add(1))
	}
	return e
}

// Scope names are unique to this process (a random nonce) and to the check
// (a counter), so that runs sharing one server never share a scope.
var (
	runNonce = func() string {
		var b [4]byte
		_, _ = rand.Read(b[:])
		return "s" + hex.EncodeToString(b[:])
	}()
	scopes atomic.Int64
)

// Execute performs one act, read or control step.
func (e *Executor) Execute(ctx context.Context, step engine.Step) (engine.Outcome, error) {
	switch step.Op {
	case engine.OpControl:
		return e.control(ctx, step)
	case engine.OpAct:
		id, err := e.agent(step)
		if err != nil {
			return engine.Outcome{}, err
		}
		resp, err := e.target.Act(ctx, Action{Agent: id, Name: step.Name, Key: step.Key, Params: step.Params})
		return e.outcome(step, resp, err)
	case engine.OpRead:
		id, err := e.agent(step)
		if err != nil {
			return engine.Outcome{}, err
		}
		resp, err := e.target.Read(ctx, Read{Agent: id, View: step.Name, Params: step.Params})
		return e.outcome(step, resp, err)
	}
	return engine.Outcome{}, &engine.AdapterError{Step: step.Source, Err: fmt.Errorf("the kungfu suite cannot execute op %q", step.Op)}
}

func (e *Executor) agent(step engine.Step) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	id, ok := e.agents[step.Agent]
	if !ok {
		return "", &engine.AdapterError{Step: step.Source,
			Err: fmt.Errorf("agent %q was never provisioned in this check; add a step that provisions it first", step.Agent)}
	}
	return id, nil
}

func (e *Executor) control(ctx context.Context, step engine.Step) (engine.Outcome, error) {
	if !e.hello.Supports(step.Name) {
		return engine.Outcome{}, fmt.Errorf("%s: the target offers no %q control: %w", step.Source, step.Name, engine.ErrUnsupported)
	}
	params := map[string]any{}
	for k, v := range step.Params {
		params[k] = v
	}
	if e.scope != "" && (step.Name == ControlProvision || e.hello.Confines(step.Name)) {
		params[ScopeParam] = e.scope
	}
	switch step.Name {
	case ControlProvision:
		params["name"] = step.Agent
	case ControlDeactivate:
		id, err := e.agent(step)
		if err != nil {
			return engine.Outcome{}, err
		}
		params["agent"] = id
	}
	resp, err := e.target.Control(ctx, Control{Name: step.Name, Params: params})
	out, err := e.outcome(step, resp, err)
	if err != nil || !out.OK {
		if err == nil {
			err = &engine.AdapterError{Step: step.Source, Err: fmt.Errorf("control %q was refused: %s", step.Name, resp.Rejection)}
		}
		return out, err
	}
	if step.Name == ControlProvision {
		id, _ := resp.Result["agent"].(string)
		if id == "" {
			return out, &engine.AdapterError{Step: step.Source, Err: errors.New("provision answered without an agent id at /result/agent")}
		}
		e.mu.Lock()
		e.agents[step.Agent] = id
		e.mu.Unlock()
	}
	return out, nil
}

// outcome checks the answer against the rules every answer keeps and turns it
// into an engine outcome.
func (e *Executor) outcome(step engine.Step, resp Response, err error) (engine.Outcome, error) {
	if err != nil {
		var adapterErr *engine.AdapterError
		if errors.As(err, &adapterErr) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			return engine.Outcome{}, err
		}
		return engine.Outcome{}, &engine.AdapterError{Step: step.Source, Err: err}
	}
	if resp.OK {
		if resp.Rejection != nil {
			return engine.Outcome{}, &engine.AdapterError{Step: step.Source, Err: errors.New("answer is both ok and rejected")}
		}
		result := resp.Result
		if result == nil {
			result = map[string]any{}
		}
		return engine.Outcome{OK: true, Result: result}, nil
	}
	r := resp.Rejection
	if r == nil || r.Reason == "" {
		return engine.Outcome{}, &engine.Violation{Rule: "KF-L2-04", Msg: fmt.Sprintf("%s: a rejection must state its reason; got %+v", step.Source, r)}
	}
	if !IsNextStep(r.NextStep) {
		return engine.Outcome{}, &engine.Violation{Rule: "KF-8-14",
			Msg: fmt.Sprintf("%s: rejection %q carries next step %q, which is not in the closed set %v", step.Source, r.Reason, r.NextStep, NextSteps)}
	}
	return engine.Outcome{Rejection: &engine.Rejection{Reason: r.Reason, NextStep: r.NextStep, Message: r.Message}}, nil
}
