package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// fakeExec answers act steps with a counter and reads with the last params.
type fakeExec struct {
	mu sync.Mutex
	n  int
}

func (f *fakeExec) Execute(_ context.Context, s Step) (Outcome, error) {
	switch s.Name {
	case "unsupported":
		return Outcome{}, fmt.Errorf("no clock: %w", ErrUnsupported)
	case "garbage":
		return Outcome{}, &AdapterError{Step: s.Source, Err: errors.New("invalid JSON")}
	case "refuse":
		return Outcome{Rejection: &Rejection{Reason: "forbidden", NextStep: "stop"}}, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	return Outcome{OK: true, Result: map[string]any{"n": f.n, "echo": s.Params}}, nil
}

func TestRunCapturesAndResolves(t *testing.T) {
	c := Check{ID: "t", Rules: []string{"R-1"}, Steps: []Step{
		{Source: "s1", Op: OpAct, Name: "x", Capture: map[string]string{"first": "/result/n"}},
		{Source: "s2", Op: OpAct, Name: "x", Params: map[string]any{"ref": "${first}", "text": "n=${first}"}},
		{Source: "s3", Op: OpExpect, Expect: &Expect{Outcome: "ok", Match: []Match{
			{Pointer: "/result/echo/ref", Matcher: 1.0}, {Pointer: "/result/echo/text", Matcher: "n=1"}}}},
	}}
	v := Run(context.Background(), c, &fakeExec{})
	if v.Status != Pass {
		t.Fatalf("want pass, got %s: %s", v.Status, v.Message)
	}
	if len(v.Transcript) != 2 {
		t.Errorf("transcript has %d exchanges, want 2", len(v.Transcript))
	}
}

func TestRunStatuses(t *testing.T) {
	cases := map[string]Status{"unsupported": Untestable, "garbage": HarnessError}
	for name, want := range cases {
		v := Run(context.Background(), Check{Steps: []Step{{Source: "s", Op: OpControl, Name: name}}}, &fakeExec{})
		if v.Status != want {
			t.Errorf("%s: got %s, want %s", name, v.Status, want)
		}
	}
	v := Run(context.Background(), Check{Steps: []Step{
		{Source: "s", Op: OpAct, Name: "refuse", Expect: &Expect{Outcome: "ok"}}}}, &fakeExec{})
	if v.Status != Fail || v.Step != "s" {
		t.Errorf("a refused step expected to succeed must fail at its source, got %s at %q", v.Status, v.Step)
	}
}

func TestParallelCombinesOutcomes(t *testing.T) {
	c := Check{Steps: []Step{{Source: "p", Op: OpParallel, Steps: []Step{
		{Source: "a", Op: OpAct, Name: "x"}, {Source: "b", Op: OpAct, Name: "refuse"}, {Source: "c", Op: OpAct, Name: "x"},
	}, Expect: &Expect{Match: []Match{
		{Pointer: "/result/ok_count", Matcher: 2.0},
		{Pointer: "/result/rejected_count", Matcher: 1.0},
		{Pointer: "/result/outcomes/*/ok", Matcher: map[string]any{"$len": 3.0}},
	}}}}}
	if v := Run(context.Background(), c, &fakeExec{}); v.Status != Pass {
		t.Fatalf("got %s: %s", v.Status, v.Message)
	}
}

func TestLint(t *testing.T) {
	bad := []Check{
		{ID: "no-rules", Steps: []Step{{Op: OpControl, Name: "clock"}}},
		{ID: "unprovisioned", Rules: []string{"R"}, Steps: []Step{{Source: "x:1", Op: OpAct, Agent: "bob", Name: "a"}}},
		{ID: "uncaptured", Rules: []string{"R"}, Steps: []Step{
			{Op: OpControl, Name: "provision", Agent: "a"},
			{Source: "x:2", Op: OpAct, Agent: "a", Name: "a", Params: map[string]any{"m": "${nope}"}}}},
		{ID: "bad-operator", Rules: []string{"R"}, Steps: []Step{
			{Op: OpExpect, Expect: &Expect{Match: []Match{{Pointer: "/x", Matcher: map[string]any{"$lenght": 1.0}}}}}}},
	}
	for _, c := range bad {
		if err := Lint(c, Vocabulary{Provision: "provision"}); err == nil {
			t.Errorf("%s: lint accepted a broken check", c.ID)
		}
	}
}

// TestTimeFactor: a check's @timeout:Nx tag gives its factor; one without
// it has 1; a malformed or repeated one is an authoring mistake.
func TestTimeFactor(t *testing.T) {
	check := func(tags ...string) Check {
		return Check{ID: "c", Source: "f.feature:3", Rules: []string{"R"}, Tags: tags, Steps: []Step{{Op: OpAct, Name: "x"}}}
	}
	for tags, want := range map[string]int{"": 1, "slow": 1, "timeout:4x": 4, "slow timeout:100x": 100} {
		c := check(strings.Fields(tags)...)
		if err := Lint(c, Vocabulary{}); err != nil {
			t.Errorf("%q: %v", tags, err)
		}
		if got := c.TimeFactor(); got != want {
			t.Errorf("%q: factor %d, want %d", tags, got, want)
		}
	}
	for _, tags := range []string{"timeout:4", "timeout:x", "timeout:1x", "timeout:0x", "timeout:-2x", "timeout:101x", "timeout:04x", "timeout:2.5x", "timeout:30s", "timeout:2x timeout:3x"} {
		err := Lint(check(strings.Fields(tags)...), Vocabulary{})
		if err == nil || !strings.Contains(err.Error(), "f.feature:3") || !strings.Contains(err.Error(), "@timeout:") {
			t.Errorf("%q: lint said %v; want a problem naming the source and the tag", tags, err)
		}
	}
}

// TestRunStopsWhenTheTimeRunsOut: an executor that does not heed its
// context gets no further step once the context is done.
func TestRunStopsWhenTheTimeRunsOut(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	exec := &cancelling{cancel: cancel}
	c := Check{ID: "t", Rules: []string{"R"}, Steps: []Step{{Source: "s1", Op: OpAct, Name: "x"}, {Source: "s2", Op: OpAct, Name: "x"}}}
	v := Run(ctx, c, exec)
	if v.Status != Timeout || v.Step != "s2" || exec.calls != 1 {
		t.Errorf("got %s at %q after %d call(s); want a timeout at s2 after one call", v.Status, v.Step, exec.calls)
	}
}

// cancelling answers every step and ends its context after the first.
type cancelling struct {
	cancel func()
	calls  int
}

func (c *cancelling) Execute(context.Context, Step) (Outcome, error) {
	c.calls++
	c.cancel()
	return Outcome{OK: true}, nil
}

// TestLintKnowsTheSuitesVocabulary: agents are checked against the suite's
// provision control, and a suite without one names no agent.
func TestLintKnowsTheSuitesVocabulary(t *testing.T) {
	check := Check{ID: "c", Rules: []string{"R"}, Steps: []Step{
		{Op: OpControl, Name: "make-agent", Agent: "a"}, {Source: "x:2", Op: OpAct, Agent: "a", Name: "x"}}}
	if err := Lint(check, Vocabulary{Provision: "make-agent"}); err != nil {
		t.Errorf("an agent made by the suite's provision control: %v", err)
	}
	if err := Lint(check, Vocabulary{Provision: "provision"}); err == nil {
		t.Error("an agent made by another control was accepted")
	}
	if err := Lint(check, Vocabulary{}); err == nil || !strings.Contains(err.Error(), "name no agent") {
		t.Errorf("a suite without agents: %v", err)
	}
}

// TestSessionStepIsTheOneLoop: a session resolves, executes, records,
// judges and captures each step; a fork knows the variables and not the
// transcript.
func TestSessionStepIsTheOneLoop(t *testing.T) {
	s := NewSession(&fakeExec{})
	ctx := context.Background()
	if _, err := s.Step(ctx, Step{Source: "s1", Op: OpAct, Name: "x", Capture: map[string]string{"n": "/result/n"}}); err != nil {
		t.Fatal(err)
	}
	_, err := s.Step(ctx, Step{Source: "s2", Op: OpAct, Name: "x", Params: map[string]any{"ref": "${n}"},
		Expect: &Expect{Match: []Match{{Pointer: "/result/echo/ref", Matcher: 2.0}}}})
	if err == nil || !strings.Contains(err.Error(), "s2") {
		t.Errorf("a step whose expectation fails: %v", err)
	}
	if len(s.Transcript()) != 2 {
		t.Errorf("%d exchanges recorded, want 2", len(s.Transcript()))
	}
	f := s.Fork(&fakeExec{})
	if f.Vars()["n"] != 1.0 || len(f.Transcript()) != 0 {
		t.Errorf("fork: vars %v, %d exchanges", f.Vars(), len(f.Transcript()))
	}
}

// TestAgree: two answers agree when Exactly the first holds for the
// second; a difference is reported at its own pointer.
func TestAgree(t *testing.T) {
	a := Outcome{OK: true, Result: map[string]any{"x": map[string]any{"v": 1.0}, "l": []any{"a"}}}
	if d := Agree(a, a); d != "" {
		t.Errorf("an answer disagrees with itself: %s", d)
	}
	b := Outcome{OK: true, Result: map[string]any{"x": map[string]any{"v": 2.0}, "l": []any{"a"}}}
	if d := Agree(a, b); !strings.Contains(d, "/result/x/v") {
		t.Errorf("difference reported as %q", d)
	}
	c := Outcome{OK: true, Result: map[string]any{"x": map[string]any{"v": 1.0}, "l": []any{"a"}, "extra": true}}
	if d := Agree(a, c); d == "" {
		t.Error("an answer with a field more agrees")
	}
	r := Outcome{Rejection: &Rejection{Reason: "forbidden", NextStep: "stop"}}
	if d := Agree(r, Outcome{Rejection: &Rejection{Reason: "forbidden", NextStep: "stop", Message: "other words"}}); d != "" {
		t.Errorf("rejections differing only in message: %s", d)
	}
	if d := Agree(r, a); d == "" {
		t.Error("a success agrees with a rejection")
	}
}
