package engine

import (
	"errors"
	"fmt"
)

// Status is the honest verdict of a check.
type Status string

// The statuses a check can end with.
const (
	Pass          Status = "pass"
	Fail          Status = "fail"
	Warn          Status = "warn" // a SHOULD-level check that did not hold
	NotApplicable Status = "not_applicable"
	Untestable    Status = "untestable" // a prerequisite (such as a control) is missing
	Timeout       Status = "timeout"
	HarnessError  Status = "harness_error" // the harness or the adapter broke, not the implementation
)

// Statuses lists every status in report order.
var Statuses = []Status{Pass, Fail, Warn, NotApplicable, Untestable, Timeout, HarnessError}

// ErrUnsupported is returned (wrapped) by an executor when the target lacks a
// capability a step needs, such as a virtual clock. The check is untestable.
var ErrUnsupported = errors.New("unsupported by the target")

// AdapterError reports that the adapter or transport misbehaved: the answer
// could not be obtained or did not follow the binding. It becomes harness_error.
type AdapterError struct {
	Step string // what was being done
	Err  error
}

func (e *AdapterError) Error() string { return fmt.Sprintf("adapter: %s: %v", e.Step, e.Err) }
func (e *AdapterError) Unwrap() error { return e.Err }

// Violation reports an answer that is well-formed for the transport but breaks
// a rule every answer must keep (for example a rejection without a next step).
// It fails the check.
type Violation struct {
	Rule string // the rule ID broken, when known
	Msg  string
}

func (v *Violation) Error() string {
	if v.Rule == "" {
		return v.Msg
	}
	return fmt.Sprintf("%s (%s)", v.Msg, v.Rule)
}

// Verdict is the result of running one check.
type Verdict struct {
	Status  Status `json:"status"`
	Message string `json:"message,omitempty"`
	// Step is the source of the step that decided a non-pass verdict.
	Step       string     `json:"step,omitempty"`
	Transcript []Exchange `json:"transcript,omitempty"`
}
