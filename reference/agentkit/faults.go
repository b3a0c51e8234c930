package agentkit

import (
	"fmt"
	"slices"
)

// Fault is a deliberate bug planted in the reference so that a check can
// show it catches what it claims to check. Select faults by name.
type Fault string

// The planted faults; each breaks one rule of the contract.
const (
	FaultEffectTwice         Fault = "effect-twice"          // a replay runs an approved effect again
	FaultSSENoDone           Fault = "sse-no-done"           // an SSE stream ends without data: [DONE]
	FaultInflightReexecuted  Fault = "inflight-reexecuted"   // a replay that finds an in-flight marker runs the effect
	FaultResumeAnySession    Fault = "resume-any-session"    // an answer on another session resumes the pending turn
	FaultWrongErrorText      Fault = "wrong-error-text"      // the 400 of /messages has another text
	FaultAcceptInvalidConfig Fault = "accept-invalid-config" // session.window below keep_recent+2 starts
	FaultApprovalText        Fault = "approval-text"         // the approval question is worded differently
	FaultA2AErrorStatus      Fault = "a2a-error-status"      // a failing A2A task answers 500, not 200 {"error"}
	FaultLenientApprove      Fault = "lenient-approve"       // any reply approves
)

// Faults lists every planted fault.
var Faults = []Fault{FaultEffectTwice, FaultSSENoDone, FaultInflightReexecuted, FaultResumeAnySession,
	FaultWrongErrorText, FaultAcceptInvalidConfig, FaultApprovalText, FaultA2AErrorStatus, FaultLenientApprove}

// ParseFaults checks fault names.
func ParseFaults(names []string) ([]Fault, error) {
	var out []Fault
	for _, n := range names {
		if !slices.Contains(Faults, Fault(n)) {
			return nil, fmt.Errorf("unknown fault %q; known: %v", n, Faults)
		}
		out = append(out, Fault(n))
	}
	return out, nil
}

func has(faults []Fault, f Fault) bool { return slices.Contains(faults, f) }

// LoadDir is Load with planted faults that weaken the assembly rules.
func LoadDir(dir string, faults []Fault) (*App, error) {
	return LoadFS(osDirFS(dir), "app.yaml", func(name string) bool {
		return name == "window" && has(faults, FaultAcceptInvalidConfig)
	})
}
