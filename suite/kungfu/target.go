// Package kungfu is the Kungfu suite of sifu: the adapter seam every Kungfu
// implementation is driven through, and the executor that turns compiled
// steps into calls on that seam.
package kungfu

import "context"

// Target is one Kungfu implementation as sifu sees it: actions, reads and a
// test control plane. Adapters (in-process, HTTP, stdio) implement it; they
// translate, they never judge.
//
// Act, Read and Control return an error only when no answer could be
// obtained or the answer broke the binding; a rejection is a Response.
type Target interface {
	Hello(ctx context.Context) (Hello, error)
	Act(ctx context.Context, a Action) (Response, error)
	Read(ctx context.Context, r Read) (Response, error)
	Control(ctx context.Context, c Control) (Response, error)
}

// Hello is what an implementation says about itself.
type Hello struct {
	Implementation string   `json:"implementation"`
	Version        string   `json:"version"`
	Commit         string   `json:"commit,omitempty"`
	Spec           string   `json:"spec"`
	Profiles       []string `json:"profiles"`
	// Controls lists the control-plane operations the target supports,
	// from Controls.
	Controls []string `json:"controls"`
	// Scoped lists the controls (clock, restart) that take a scope and
	// act only on the agents provisioned into that scope and on what they
	// made. An implementation that lists any accepts a scope on provision.
	Scoped []string `json:"scoped,omitempty"`
}

// Confines reports whether the target confines a control to one scope.
func (h Hello) Confines(control string) bool {
	for _, c := range h.Scoped {
		if c == control {
			return true
		}
	}
	return false
}

// Supports reports whether the target offers a control.
func (h Hello) Supports(control string) bool {
	for _, c := range h.Controls {
		if c == control {
			return true
		}
	}
	return false
}

// The control-plane operations.
const (
	ControlProvision  = "provision"  // create an active agent: {name, scope?} → {agent}
	ControlDeactivate = "deactivate" // deactivate an agent: {agent}
	ControlClock      = "clock"      // advance the virtual clock: {advance: "90s", scope?} → {now}
	ControlRestart    = "restart"    // stop and start the implementation (or one scope), keeping its durable state
)

// ScopeParam is the parameter that names a scope on provision and on the
// controls a target confines to one scope (Hello.Scoped).
const ScopeParam = "scope"

// Controls lists every control-plane operation.
var Controls = []string{ControlProvision, ControlDeactivate, ControlClock, ControlRestart}

// Action is one protocol action.
type Action struct {
	Agent  string         `json:"agent"`
	Name   string         `json:"action"`
	Key    string         `json:"idempotency_key,omitempty"`
	Params map[string]any `json:"params,omitempty"`
}

// Read asks for one view.
type Read struct {
	Agent  string         `json:"agent"`
	View   string         `json:"view"`
	Params map[string]any `json:"params,omitempty"`
}

// Control is one control-plane operation.
type Control struct {
	Name   string         `json:"control"`
	Params map[string]any `json:"params,omitempty"`
}

// Response is a result or a rejection.
type Response struct {
	OK        bool           `json:"ok"`
	Result    map[string]any `json:"result,omitempty"`
	Rejection *Rejection     `json:"rejection,omitempty"`
}

// Rejection carries the reason code and the next step (§3 L2, §8).
type Rejection struct {
	Reason   string `json:"reason"`
	NextStep string `json:"next_step"`
	Message  string `json:"message,omitempty"`
}

// String is the rejection for people: reason, message and next step.
func (r *Rejection) String() string {
	if r == nil {
		return "no rejection given"
	}
	s := r.Reason
	if r.Message != "" {
		s += ": " + r.Message
	}
	return s + " (next step " + r.NextStep + ")"
}

// NextSteps is the spec's closed set of next steps (§8).
var NextSteps = []string{"respond", "deliver", "judge", "revise", "retry", "wait", "done", "stop"}

// IsNextStep reports whether s belongs to the closed set.
func IsNextStep(s string) bool {
	for _, n := range NextSteps {
		if n == s {
			return true
		}
	}
	return false
}
