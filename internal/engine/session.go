package engine

import (
	"context"
	"fmt"
)

// Session interprets act, read and control steps one at a time, keeping
// captured variables between them. The fuzzer drives a target and an
// oracle in lockstep through one session each, with the same steps.
type Session struct{ in *interp }

// NewSession starts a session over an executor.
func NewSession(exec Executor) *Session {
	return &Session{in: &interp{exec: exec, vars: map[string]any{}}}
}

// Do resolves the step's variables and executes it. Neither its
// expectation nor its captures are applied: comparing is the caller's
// business, and it captures (Capture) once it knows the step succeeded.
func (s *Session) Do(ctx context.Context, step Step) (Outcome, error) {
	switch step.Op {
	case OpAct, OpRead, OpControl:
	default:
		return Outcome{}, &AdapterError{Step: step.Source, Err: fmt.Errorf("a session runs act, read and control steps, not %q", step.Op)}
	}
	out, err := s.in.call(ctx, step)
	if err != nil {
		return out, err
	}
	s.in.last = &out
	return out, nil
}

// Capture fills the step's captures from its outcome; it fails when a
// pointer finds nothing.
func (s *Session) Capture(step Step, out Outcome) error { return s.in.capture(step, out) }

// Vars are the variables captured so far (read-only).
func (s *Session) Vars() map[string]any { return s.in.vars }

// Transcript is every exchange of the session so far.
func (s *Session) Transcript() []Exchange { return s.in.transcript }
