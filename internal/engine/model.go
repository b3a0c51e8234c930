// Package engine is sifu's one execution core: the step model that Gherkin
// scenarios and JSON vectors both compile to, and the interpreter that runs a
// compiled check against a suite's executor.
//
// The engine knows nothing about any protocol. A suite supplies an Executor
// that turns act, read and control steps into calls on its adapter seam; the
// engine resolves variables, records the transcript and judges expectations.
package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Op says what a step does.
type Op string

// The step operations.
const (
	// OpControl drives the test control plane: what a suite offers to set
	// a check's stage (make an agent, move a virtual clock, restart the
	// implementation, edit a folder).
	OpControl Op = "control"
	// OpAct performs a protocol action as an agent.
	OpAct Op = "act"
	// OpRead reads a view as an agent.
	OpRead Op = "read"
	// OpExpect judges an earlier outcome without contacting the implementation.
	OpExpect Op = "expect"
	// OpParallel issues its sub-steps concurrently and observes them together.
	OpParallel Op = "parallel"
)

// Step is one instruction of a check.
type Step struct {
	// Source locates the step for people: "file.feature:12" or "file.json#/checks/0/steps/3".
	Source string `json:"source"`
	// Text is the step as its author wrote it (Gherkin text or a generated line).
	Text string `json:"text,omitempty"`
	// Keyword is the Gherkin keyword of the step's line ("Given ", "And "…);
	// empty for vector steps.
	Keyword string `json:"keyword,omitempty"`
	Op      Op     `json:"op"`
	// Agent is the alias of the acting agent, local to the check.
	Agent string `json:"agent,omitempty"`
	// Name is the action, view or control.
	Name string `json:"name,omitempty"`
	// Key is the idempotency key of an action.
	Key string `json:"key,omitempty"`
	// Params are the action, read or control parameters; strings may hold ${var}.
	Params map[string]any `json:"params,omitempty"`
	// Steps are the concurrent sub-steps of an OpParallel step.
	Steps []Step `json:"steps,omitempty"`
	// Capture names variables to fill from this step's outcome: variable → JSON pointer.
	Capture map[string]string `json:"capture,omitempty"`
	// Expect is judged against this step's outcome (or, for OpExpect, the subject).
	Expect *Expect `json:"expect,omitempty"`
	// Subject names the variable an OpExpect step judges; empty means the last outcome.
	Subject string `json:"subject,omitempty"`
}

// Expect describes what an outcome must look like.
type Expect struct {
	// Outcome is "ok", "rejected" or empty for either.
	Outcome string `json:"outcome,omitempty"`
	// Reason and NextStep constrain a rejection; empty means any value.
	Reason   string `json:"reason,omitempty"`
	NextStep string `json:"next_step,omitempty"`
	// Match holds pointer matchers over the outcome document, judged in order.
	Match []Match `json:"match,omitempty"`
	// SameAs names a variable holding an earlier outcome from which this one
	// must be indistinguishable, after the Mask strings are blanked in both.
	SameAs string   `json:"same_as,omitempty"`
	Mask   []string `json:"mask,omitempty"`
}

// Match applies one matcher at a JSON pointer of the outcome document
// {"ok":…, "result":…, "rejection":{…}}. A "*" segment fans out over an array.
type Match struct {
	Pointer string `json:"pointer"`
	// Matcher is a literal (deep equality) or an operator object, see Judge.
	Matcher any `json:"matcher"`
}

// Check is one compiled scenario or vector: the unit sifu reports on.
type Check struct {
	// ID is stable across runs: "<suite>/<file stem>/<slug>".
	ID    string `json:"id"`
	Kind  string `json:"kind"` // "scenario" or "vector"
	Title string `json:"title"`
	// Source is "file:line" of the scenario, or the vector file and pointer.
	Source string   `json:"source"`
	Rules  []string `json:"rules"`
	Tags   []string `json:"tags,omitempty"`
	Steps  []Step   `json:"steps"`
}

// TimeTag begins the tag by which a check declares that it needs more time
// than an ordinary check: a check tagged "timeout:4x" (@timeout:4x in
// Gherkin) may take four times the run's per-check limit (--timeout).
const TimeTag = "timeout:"

// MaxTimeFactor is the largest factor a check may declare with TimeTag.
const MaxTimeFactor = 100

// TimeFactor is how many times the run's per-check limit the check may
// take: the N of its tag timeout:Nx, or 1 when it declares none (or a
// malformed one, which Lint refuses).
func (c Check) TimeFactor() int {
	n, _ := timeFactor(c.Tags)
	return n
}

// timeFactor reads the TimeTag among tags: 1 when there is none, an error
// when it is malformed or given twice.
func timeFactor(tags []string) (int, error) {
	factor, seen := 1, ""
	for _, tag := range tags {
		value, ok := strings.CutPrefix(tag, TimeTag)
		if !ok {
			continue
		}
		if seen != "" {
			return 1, fmt.Errorf("it declares its time limit twice (@%s and @%s); keep one", seen, tag)
		}
		seen = tag
		digits, x := strings.CutSuffix(value, "x")
		n, err := strconv.Atoi(digits)
		if !x || err != nil || n < 2 || n > MaxTimeFactor || digits != strconv.Itoa(n) {
			return 1, fmt.Errorf("tag @%s: write @%sNx with a whole N from 2 to %d, the times --timeout the check may take (e.g. @%s4x)", tag, TimeTag, MaxTimeFactor, TimeTag)
		}
		factor = n
	}
	return factor, nil
}

// Controls lists the control-plane operations a check uses, sorted and unique.
func (c Check) Controls() []string {
	seen := map[string]bool{}
	var walk func([]Step)
	walk = func(steps []Step) {
		for _, s := range steps {
			if s.Op == OpControl {
				seen[s.Name] = true
			}
			walk(s.Steps)
		}
	}
	walk(c.Steps)
	return slices.Sorted(maps.Keys(seen))
}

// Outcome is what the implementation answered to one step.
type Outcome struct {
	OK        bool       `json:"ok"`
	Result    any        `json:"result,omitempty"`
	Rejection *Rejection `json:"rejection,omitempty"`
}

// Rejection is a refused step: a reason code, the next step the agent
// should take where the suite's protocol names one (Kungfu's does; a
// command's exit status or a planner's refusal has none), and a free
// message.
type Rejection struct {
	Reason   string `json:"reason"`
	NextStep string `json:"next_step,omitempty"`
	Message  string `json:"message,omitempty"`
}

// Executor performs act, read and control steps against one target. The
// engine hands it steps whose parameters are already resolved. A new Executor
// is made for every check, so agents and objects never leak between checks.
//
// Execute returns the observed outcome; a rejection by the implementation is
// an outcome, not an error. Errors are reserved for ErrUnsupported,
// *AdapterError and *Violation.
type Executor interface {
	Execute(ctx context.Context, step Step) (Outcome, error)
}

// Exchange is one transcript line: what was sent and what came back.
type Exchange struct {
	// Source is the step's place in the check. A transcript leaves it out
	// where it is the step's own, as it is on every line sifu records; a
	// replay (and Rebuild) takes it from the step.
	Source string         `json:"source,omitempty"`
	Op     Op             `json:"op"`
	Agent  string         `json:"agent,omitempty"`
	Name   string         `json:"name,omitempty"`
	Key    string         `json:"key,omitempty"`
	Params map[string]any `json:"params,omitempty"`
	// Sent lists the members of Params the exchange leaves out because
	// they are what the check's resolved step sends (SentAll, "*", when
	// that is every member the step has); a member that differs (a
	// redacted secret) is written in Params as it went. A replay puts them
	// back from the step before it compares the request.
	Sent    []string `json:"sent,omitempty"`
	Outcome *Outcome `json:"outcome,omitempty"`
	Error   string   `json:"error,omitempty"`
	// ErrorKind says what Error was, so that a verdict can be judged again
	// from the transcript alone: "unsupported", "timeout", "adapter",
	// "violation", or "error" (anything else, which fails the check).
	ErrorKind string `json:"error_kind,omitempty"`
	// Elapsed is how long the step took; a reproducible run
	// (SOURCE_DATE_EPOCH) keeps no time, and a zero is not written.
	Elapsed time.Duration `json:"elapsed_ns,omitempty"`
	// Redacted lists the JSON pointers (into this exchange as written:
	// "/params/secret", "/outcome/result/secret") whose secrets the
	// transcript replaced by Redacted (Vocabulary.Secrets).
	Redacted []string `json:"redacted,omitempty"`
	// Derived lists the members of the result this exchange leaves out
	// because they follow from the others (Vocabulary.Derived).
	Derived []string `json:"derived,omitempty"`
	// Expected lists (as "0-41,43") the step's literal matchers that held,
	// whose values the result leaves out, null in their place: a replay
	// puts them back from the check.
	Expected string `json:"expected,omitempty"`
}
