package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
)

type goldenExec struct{ lines []any }

func (g goldenExec) Execute(context.Context, Step) (Outcome, error) {
	return Outcome{OK: true, Result: map[string]any{"exit": 0, "stdout": g.lines}}, nil
}

// TestValuesAsExpectedAreWrittenOnce: the lines of an answer that equal the
// step's literal matchers are left out of the transcript (null in place,
// the matchers listed in Expected) and put back by a replay before the
// suite derives anything from them; a line that differs is written as it
// came, so a failing check's transcript still shows what was printed; and
// a transcript whose Expected names matchers the step does not have is not
// the check's.
func TestValuesAsExpectedAreWrittenOnce(t *testing.T) {
	want := []any{"{", `  "a": 1`, "}"}
	match := []Match{{Pointer: "/result/exit", Matcher: 0.0}}
	for i, l := range want {
		match = append(match, Match{Pointer: "/result/stdout/" + string(rune('0'+i)), Matcher: l})
	}
	match = append(match, Match{Pointer: "/result/stdout", Matcher: map[string]any{"$len": 3.0}})
	check := Check{ID: "g", Steps: []Step{{Source: "s", Op: OpAct, Name: "cli", Expect: &Expect{Outcome: "ok", Match: match}}}}
	derive := func(ex Exchange) map[string]any {
		r, _ := ex.Outcome.Result.(map[string]any)
		lines, _ := r["stdout"].([]any)
		var b strings.Builder
		for _, l := range lines {
			s, _ := l.(string)
			b.WriteString(s + "\\n")
		}
		return map[string]any{"text": b.String()}
	}
	v := Vocabulary{Derived: derive}

	run := RunRecording(context.Background(), check, goldenExec{want}, v)
	ex := run.Transcript[0]
	r := ex.Outcome.Result.(map[string]any)
	if run.Status != Pass || ex.Expected != "0-3" || r["exit"] != nil || r["stdout"].([]any)[1] != nil {
		t.Fatalf("recorded %+v, expected %q, verdict %+v", r, ex.Expected, run)
	}
	got, err := ReplayRecorded(context.Background(), check, run.Transcript, v)
	if err != nil || got.Verdict.Status != Pass {
		t.Fatalf("judged again: %+v %v", got.Verdict, err)
	}

	wrong := []any{"{", `  "a": 2`, "}"}
	run = RunRecording(context.Background(), check, goldenExec{wrong}, v)
	ex = run.Transcript[0]
	lines := ex.Outcome.Result.(map[string]any)["stdout"].([]any)
	if run.Status != Fail || ex.Expected != "0-1,3" || lines[1] != `  "a": 2` || lines[0] != nil {
		t.Fatalf("a differing line: recorded %v, expected %q, verdict %+v", lines, ex.Expected, run)
	}
	if got, err := ReplayRecorded(context.Background(), check, run.Transcript, v); err != nil || got.Verdict.Status != Fail {
		t.Fatalf("judged again: %+v %v", got.Verdict, err)
	}

	forged := append([]Exchange(nil), run.Transcript...)
	forged[0].Expected = "4"
	var mm *MismatchError
	if _, err := ReplayRecorded(context.Background(), check, forged, v); !errors.As(err, &mm) || !strings.Contains(mm.Msg, "no literal matcher") {
		t.Fatalf("a transcript naming matchers the step lacks: %v", err)
	}
	forged[0].Expected = "2"
	if _, err := ReplayRecorded(context.Background(), check, forged, v); !errors.As(err, &mm) || !strings.Contains(mm.Msg, "nothing left out") {
		t.Fatalf("a transcript leaving out nothing where it says: %v", err)
	}
	if ranges([]int{0, 1, 2, 5, 7, 8}) != "0-2,5,7-8" {
		t.Errorf("ranges: %s", ranges([]int{0, 1, 2, 5, 7, 8}))
	}
}
