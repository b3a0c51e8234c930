package engine

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

// gatewayExec answers model_requests as an agent gateway's stub model
// would record them: a system message the gateway wrote (prompt), the
// user's message, and every text joined (seen).
type gatewayExec struct{ prompt string }

func (e gatewayExec) Execute(_ context.Context, s Step) (Outcome, error) {
	if s.Name == "startup" {
		return Outcome{OK: true, Result: map[string]any{"stderr": "gateway: listening, " + e.prompt}}, nil
	}
	return Outcome{OK: true, Result: map[string]any{
		"requests": []any{map[string]any{"messages": []any{
			map[string]any{"role": "system", "content": e.prompt},
			map[string]any{"role": "user", "content": "hi [sifu:k1-main]"},
		}}},
		"seen": e.prompt + "\nhi [sifu:k1-main]",
	}}, nil
}

var proseVocabulary = Vocabulary{PeerText: []Place{
	{Op: OpRead, Name: "model_requests", Pointer: "/outcome/result/requests/*/messages/*/content", If: map[string]any{"role": "system"}},
	{Op: OpRead, Name: "model_requests", Pointer: "/outcome/result/seen"},
	{Op: OpControl, Name: "startup", Pointer: "/outcome/result/stderr"},
}}

func read(src string, m ...Match) Step {
	return Step{Source: src, Op: OpRead, Name: "model_requests", Expect: &Expect{Outcome: "ok", Match: m}}
}

// TestPeerTextIsHiddenAndJudgedAlike: the gateway's own prose (a system
// message, the joined texts holding it, its start-up output) is recorded
// as a marker with its digest and length, keeping only the texts the
// checks searched it for; the user's message stays; a text read in any
// other way (a pattern, by a later expect step) is kept; and every check
// judged again from the transcript gets the verdict of the run, a gateway
// that leaks another conversation into its prompt included.
func TestPeerTextIsHiddenAndJudgedAlike(t *testing.T) {
	const prompt = "You are Gateway, built by Acme; remember Ada prefers a7."
	checks := []Check{
		{ID: "saw", Steps: []Step{read("a", Match{Pointer: "/result/seen", Matcher: map[string]any{"$contains": "Ada prefers a7"}})}},
		{ID: "not-seen", Steps: []Step{read("b", Match{Pointer: "/result/seen", Matcher: map[string]any{"$not_contains": "[sifu:k2-other]"}})}},
		{ID: "isolated", Steps: []Step{read("c", Match{Pointer: "/result/requests/*/messages/*/content",
			Matcher: map[string]any{"$each": map[string]any{"$not_contains": "[sifu:k2-other]"}}})}},
		{ID: "started", Steps: []Step{{Source: "d", Op: OpControl, Name: "startup", Expect: &Expect{Outcome: "ok",
			Match: []Match{{Pointer: "/result/stderr", Matcher: map[string]any{"$contains": "listening"}}}}}}},
	}
	kept := []Check{
		{ID: "pattern", Steps: []Step{read("e", Match{Pointer: "/result/seen", Matcher: map[string]any{"$regex": "Acme"}})}},
		{ID: "later", Steps: []Step{read("f"), {Source: "g", Op: OpExpect, Expect: &Expect{Match: []Match{
			{Pointer: "/result/requests/0/messages/0/content", Matcher: prompt}}}}}},
	}
	for _, c := range append(checks, kept...) {
		v := RunRecording(context.Background(), c, gatewayExec{prompt: prompt}, proseVocabulary)
		if v.Status != Pass {
			t.Fatalf("%s: %s %s", c.ID, v.Status, v.Message)
		}
		raw, _ := json.Marshal(v.Transcript)
		hidden := !strings.Contains(string(raw), "built by Acme")
		if isKept := c.ID == "pattern" || c.ID == "later"; hidden == isKept {
			t.Errorf("%s: the gateway's prompt hidden=%v, want %v: %s", c.ID, hidden, !isKept, raw)
		}
		if hidden && !strings.Contains(string(raw), PeerTextMarker) {
			t.Errorf("%s: no marker: %s", c.ID, raw)
		}
		if c.ID != "started" && !strings.Contains(string(raw), "hi [sifu:k1-main]") {
			t.Errorf("%s: the user's message is hidden too: %s", c.ID, raw)
		}
		if got, err := Replay(context.Background(), c, v.Transcript); err != nil || got.Verdict.Status != v.Status {
			t.Errorf("%s: judged again from the transcript: %+v %v, want %s", c.ID, got.Verdict, err, v.Status)
		}
	}
	// The marker keeps what the search found, and no more.
	v := RunRecording(context.Background(), checks[0], gatewayExec{prompt: prompt}, proseVocabulary)
	seen := v.Transcript[0].Outcome.Result.(map[string]any)["seen"].(string)
	if !strings.HasPrefix(seen, PeerTextMarker) || !strings.HasSuffix(seen, " bytes]\nAda prefers a7") {
		t.Errorf("the marker is %q", seen)
	}
	// A gateway that puts another conversation into its prompt fails the
	// isolation checks, live and judged again.
	leaky := gatewayExec{prompt: prompt + " Earlier: [sifu:k2-other]"}
	for _, c := range checks[1:3] {
		v := RunRecording(context.Background(), c, leaky, proseVocabulary)
		got, err := Replay(context.Background(), c, v.Transcript)
		if v.Status != Fail || err != nil || got.Verdict.Status != Fail {
			t.Errorf("%s on a leaking gateway: run %s, judged again %+v %v; want both to fail", c.ID, v.Status, got.Verdict, err)
		}
	}
}

// TestSecretHeadersAreRedacted: a header map declared as a secret place
// loses the values of its credential headers, whatever their case, and
// keeps the others.
func TestSecretHeadersAreRedacted(t *testing.T) {
	doc := map[string]any{"outcome": map[string]any{"result": map[string]any{"headers": map[string]any{
		"authorization": "Bearer x", "X-Api-Key": "k", "Cookie": "c", "Accept": "*/*"}}}}
	got := locate(doc, Place{Pointer: "/outcome/result/headers", Headers: true})
	want := []string{"/outcome/result/headers/Cookie", "/outcome/result/headers/X-Api-Key", "/outcome/result/headers/authorization"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("credential headers located at %v, want %v", got, want)
	}
}

type linesExec struct{}

func (linesExec) Execute(context.Context, Step) (Outcome, error) {
	return Outcome{OK: true, Result: map[string]any{"lines": []any{"a", "b"}, "count": 2, "odd": true}}, nil
}

// TestDerivedMembersAreLeftOutAndRebuilt: a member of a result that the
// suite rebuilds exactly from the others is left out of the transcript and
// rebuilt on replay; one it would rebuild otherwise is kept; a transcript
// that leaves out members a replay cannot rebuild is not the check's.
func TestDerivedMembersAreLeftOutAndRebuilt(t *testing.T) {
	derive := func(ex Exchange) map[string]any {
		r, _ := ex.Outcome.Result.(map[string]any)
		lines, _ := r["lines"].([]any)
		return map[string]any{"count": len(lines), "odd": false}
	}
	v := Vocabulary{Derived: derive}
	check := Check{ID: "d", Steps: []Step{{Source: "s", Op: OpRead, Name: "log", Expect: &Expect{Match: []Match{
		{Pointer: "/result/count", Matcher: 2.0}, {Pointer: "/result/odd", Matcher: true}}}}}}
	run := RunRecording(context.Background(), check, linesExec{}, v)
	ex := run.Transcript[0]
	r := ex.Outcome.Result.(map[string]any)
	// odd is not derived (derive would rebuild it otherwise); its value is
	// the one its literal matcher expects, so the line leaves it out as
	// expected (matcher 1) instead.
	if _, has := r["count"]; has || len(ex.Derived) != 1 || ex.Derived[0] != "count" || r["odd"] != nil || ex.Expected != "1" {
		t.Fatalf("recorded %+v (derived %v, expected %q)", r, ex.Derived, ex.Expected)
	}
	if got, err := ReplayRecorded(context.Background(), check, run.Transcript, v); err != nil || got.Verdict.Status != Pass {
		t.Fatalf("judged again: %+v %v", got.Verdict, err)
	}
	var mm *MismatchError
	if _, err := Replay(context.Background(), check, run.Transcript); !errors.As(err, &mm) || !strings.Contains(mm.Msg, "leaves out [count]") {
		t.Fatalf("a replay that cannot rebuild the member: %v", err)
	}
}

// TestEveryDerivedMemberIsWrittenShort: when every member the suite
// derives is left out, the exchange says so with DerivedAll, and a replay
// rebuilds them all.
func TestEveryDerivedMemberIsWrittenShort(t *testing.T) {
	derive := func(ex Exchange) map[string]any {
		r, _ := ex.Outcome.Result.(map[string]any)
		lines, _ := r["lines"].([]any)
		return map[string]any{"count": len(lines), "odd": len(lines)%2 == 1}
	}
	v := Vocabulary{Derived: derive}
	check := Check{ID: "d", Steps: []Step{{Source: "s", Op: OpRead, Name: "log", Expect: &Expect{Match: []Match{
		{Pointer: "/result/count", Matcher: 2.0}, {Pointer: "/result/odd", Matcher: false}}}}}}
	run := RunRecording(context.Background(), check, evenLines{}, v)
	ex := run.Transcript[0]
	r := ex.Outcome.Result.(map[string]any)
	if len(r) != 1 || !slices.Equal(ex.Derived, []string{DerivedAll}) {
		t.Fatalf("recorded %+v (derived %v)", r, ex.Derived)
	}
	if got, err := ReplayRecorded(context.Background(), check, run.Transcript, v); err != nil || got.Verdict.Status != Pass {
		t.Fatalf("judged again: %+v %v", got.Verdict, err)
	}
}

// evenLines answers every step with two lines and what follows from them.
type evenLines struct{}

func (evenLines) Execute(context.Context, Step) (Outcome, error) {
	return Outcome{OK: true, Result: map[string]any{"lines": []any{"a", "b"}, "count": 2, "odd": false}}, nil
}
