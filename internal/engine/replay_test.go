package engine

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// recordingExec answers every act with ok and the params it was given, and
// fails the step named "boom" as the implementation breaking a rule.
type recordingExec struct{}

func (recordingExec) Execute(_ context.Context, s Step) (Outcome, error) {
	if s.Name == "boom" {
		return Outcome{}, &Violation{Rule: "R-1", Msg: "answer without a reason"}
	}
	return Outcome{OK: true, Result: map[string]any{"n": s.Params["n"], "secret": "s3"}}, nil
}

func replayCheck() Check {
	return Check{ID: "c", Steps: []Step{
		{Source: "a", Op: OpAct, Agent: "x", Name: "make", Params: map[string]any{"n": 1, "token": "t0k"},
			Capture: map[string]string{"n": "/result/n"}},
		{Source: "b", Op: OpParallel, Steps: []Step{
			{Source: "b1", Op: OpAct, Agent: "x", Name: "make", Params: map[string]any{"n": "${n}"}},
			{Source: "b2", Op: OpAct, Agent: "y", Name: "make", Params: map[string]any{"n": 2}},
		}, Expect: &Expect{Match: []Match{{Pointer: "/result/ok_count", Matcher: 2}}}},
		{Source: "c", Op: OpRead, Agent: "x", Name: "look", Expect: &Expect{Outcome: "ok", Match: []Match{{Pointer: "/result/n", Matcher: nil}}}},
	}}
}

// secretVocabulary declares the secrets of replayCheck's steps: the token
// the make act is sent and the secret every answer carries.
var secretVocabulary = Vocabulary{Secrets: []Place{
	{Op: OpAct, Name: "make", Pointer: "/params/token"},
	{Op: OpAct, Pointer: "/outcome/result/secret"},
	{Op: OpRead, Pointer: "/outcome/result/secret"},
}}

// recordRedacted records the check again with its secrets redacted, and checks
// that the transcript holds no secret.
func recordRedacted(t *testing.T, check Check) []Exchange {
	t.Helper()
	v := RunRecording(context.Background(), check, recordingExec{}, secretVocabulary)
	for _, ex := range v.Transcript {
		raw, _ := json.Marshal(ex)
		if strings.Contains(string(raw), "t0k") || strings.Contains(string(raw), "s3") {
			t.Fatalf("a secret is recorded: %s", raw)
		}
	}
	return v.Transcript
}

// TestReplayRejudgesTheRecordedAnswers: a recorded transcript replays to
// the verdict it was recorded with; an answer changed so that it no longer
// satisfies the check fails the replay at that exchange; a request that is
// not the check's is a mismatch naming its index.
func TestReplayRejudgesTheRecordedAnswers(t *testing.T) {
	check := replayCheck()
	v := Run(context.Background(), check, recordingExec{})
	if v.Status != Pass {
		t.Fatalf("recording: %s %s", v.Status, v.Message)
	}
	tr := recordRedacted(t, check)
	if len(tr[0].Redacted) != 2 {
		t.Fatalf("the first exchange lists %v as redacted, want its token and secret", tr[0].Redacted)
	}
	got, err := Replay(context.Background(), check, tr)
	if err != nil || got.Verdict.Status != Pass || got.Used != 4 {
		t.Fatalf("replay of the recorded answers: %+v %v", got, err)
	}

	forged := recordRedacted(t, check)
	forged[3].Outcome = &Outcome{OK: true, Result: map[string]any{"n": 7}}
	got, err = Replay(context.Background(), check, forged)
	if err != nil || got.Verdict.Status != Fail || got.Used != 4 || got.Verdict.Step != "c" {
		t.Fatalf("a forged answer replays as %+v %v, want a failure at its step", got, err)
	}

	other := recordRedacted(t, check)
	other[2].Params, other[2].Sent = map[string]any{"n": 3}, nil // written whole, as a line that differs from its step is
	_, err = Replay(context.Background(), check, other)
	var mm *MismatchError
	if !errors.As(err, &mm) || mm.Index != 2 || !strings.Contains(mm.Msg, "params") {
		t.Fatalf("another request: %v", err)
	}
	if _, err := Replay(context.Background(), check, tr[:2]); !errors.As(err, &mm) || mm.Index != 2 {
		t.Fatalf("a truncated transcript: %v", err)
	}
	if _, err := Replay(context.Background(), check, append(tr, tr[0])); !errors.As(err, &mm) {
		t.Fatalf("a passing check with more exchanges recorded: %v", err)
	}
}

// TestReplayKeepsErrorKinds: a violation, a timeout and an adapter error
// replay to fail, timeout and harness_error.
func TestReplayKeepsErrorKinds(t *testing.T) {
	check := Check{ID: "v", Steps: []Step{{Source: "s", Op: OpAct, Agent: "x", Name: "boom"}}}
	v := Run(context.Background(), check, recordingExec{})
	if v.Status != Fail || v.Transcript[0].ErrorKind != "violation" {
		t.Fatalf("recording: %+v", v)
	}
	for kind, want := range map[string]Status{"violation": Fail, "timeout": Timeout, "adapter": HarnessError, "unsupported": Untestable, "error": Fail} {
		tr := []Exchange{v.Transcript[0]}
		tr[0].ErrorKind = kind
		got, err := Replay(context.Background(), check, tr)
		if err != nil || got.Verdict.Status != want {
			t.Errorf("%s: %+v %v, want %s", kind, got.Verdict, err, want)
		}
	}
	got, _ := Replay(context.Background(), check, v.Transcript)
	if got.Verdict.Message != v.Message {
		t.Errorf("the replayed message %q differs from the recorded %q", got.Verdict.Message, v.Message)
	}
}

// panicExec panics on the second sub-step of an at-once step.
type panicExec struct{}

func (panicExec) Execute(_ context.Context, s Step) (Outcome, error) {
	if s.Source == "p2" {
		panic("adapter bug")
	}
	return Outcome{OK: true}, nil
}

// TestParallelPanicIsAHarnessError: a panic in one goroutine of an at-once
// step ends the check as a harness error instead of killing the process.
func TestParallelPanicIsAHarnessError(t *testing.T) {
	check := Check{ID: "p", Steps: []Step{{Source: "p", Op: OpParallel, Steps: []Step{
		{Source: "p1", Op: OpAct, Agent: "x", Name: "a"}, {Source: "p2", Op: OpAct, Agent: "x", Name: "a"}}}}}
	v := Run(context.Background(), check, panicExec{})
	if v.Status != HarnessError || !strings.Contains(v.Message, "adapter bug") {
		t.Fatalf("got %+v", v)
	}
}

// TestReplayTakesRedactedValuesAsUnknown: an answer whose secret the
// transcript redacted (and lists as redacted) still satisfies a check that
// expected a value there (the value is not in the transcript to compare),
// while every other field is judged as recorded; a "[redacted]" the
// exchange does not list is a value like any other, which a check
// expecting another value fails on.
func TestReplayTakesRedactedValuesAsUnknown(t *testing.T) {
	check := Check{ID: "r", Steps: []Step{{Source: "s", Op: OpAct, Agent: "x", Name: "plan",
		Expect: &Expect{Match: []Match{{Pointer: "/result", Matcher: map[string]any{"token": "p-1", "step": "a"}}}}}}}
	recorded := []Exchange{{Source: "s", Op: OpAct, Agent: "x", Name: "plan", Redacted: []string{"/outcome/result/token"},
		Outcome: &Outcome{OK: true, Result: map[string]any{"token": Redacted, "step": "a"}}}}
	if got, err := Replay(context.Background(), check, recorded); err != nil || got.Verdict.Status != Pass {
		t.Fatalf("a redacted field failed the replay: %+v %v", got.Verdict, err)
	}
	recorded[0].Outcome = &Outcome{OK: true, Result: map[string]any{"token": Redacted, "step": "b"}}
	if got, _ := Replay(context.Background(), check, recorded); got.Verdict.Status != Fail {
		t.Fatalf("a wrong field beside a redacted one passed: %+v", got.Verdict)
	}
	recorded[0].Redacted = nil
	recorded[0].Outcome = &Outcome{OK: true, Result: map[string]any{"token": Redacted, "step": "a"}}
	if got, _ := Replay(context.Background(), check, recorded); got.Verdict.Status != Fail {
		t.Fatalf("a \"[redacted]\" the exchange does not list as redacted matched another value: %+v", got.Verdict)
	}
	// A live judgment never takes the redaction marker for a match.
	if msg := Judge(*check.Steps[0].Expect, Outcome{OK: true, Result: map[string]any{"token": Redacted, "step": "a"}}, nil, nil, func(v any) (any, error) { return v, nil }); msg == "" {
		t.Fatal("a live answer holding the redaction marker matched a literal")
	}
}
