package engine

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestWhatTheStepSendsIsWrittenOnce: a line leaves out its source and the
// params its resolved step sends (Sent lists them, "*" for all), keeps a
// member that differs (a redacted secret) as it went, and a replay puts
// them back from the step, so a passing and a failing check each judge
// again to their verdict, a transcript written whole (as before) still
// replays, and Rebuild gives every reader the exchanges whole. A Sent that
// names a param the step does not send, or one the line writes too, is
// not the check's.
func TestWhatTheStepSendsIsWrittenOnce(t *testing.T) {
	check := replayCheck()
	tr := recordRedacted(t, check)
	if tr[0].Source != "" || !slices.Equal(tr[0].Sent, []string{"n"}) || !reflect.DeepEqual(tr[0].Params, map[string]any{"token": Redacted}) {
		t.Fatalf("the first line: source %q, sent %v, params %v", tr[0].Source, tr[0].Sent, tr[0].Params)
	}
	for i, ex := range tr[1:3] {
		if ex.Source != "" || ex.Params != nil || !slices.Equal(ex.Sent, []string{SentAll}) {
			t.Fatalf("line %d: source %q, sent %v, params %v", i+1, ex.Source, ex.Sent, ex.Params)
		}
	}
	if got, err := ReplayRecorded(context.Background(), check, tr, secretVocabulary); err != nil || got.Verdict.Status != Pass || got.Used != 4 {
		t.Fatalf("judged again: %+v %v", got, err)
	}
	whole, err := Rebuild(context.Background(), check, tr, secretVocabulary)
	if err != nil || len(whole) != 4 {
		t.Fatalf("rebuilt: %d exchange(s), %v", len(whole), err)
	}
	want := []struct {
		source string
		params map[string]any
	}{{"a", map[string]any{"n": 1.0, "token": Redacted}}, {"b1", map[string]any{"n": 1.0}}, {"b2", map[string]any{"n": 2.0}}, {"c", nil}}
	for i, w := range want {
		if ex := whole[i]; ex.Source != w.source || len(ex.Sent) != 0 || !reflect.DeepEqual(Normalize(ex.Params), Normalize(w.params)) {
			t.Errorf("rebuilt line %d: source %q, sent %v, params %v; want %q, %v", i, ex.Source, ex.Sent, ex.Params, w.source, w.params)
		}
	}
	// The old layout: source and params written whole.
	old := slices.Clone(tr)
	for i := range old {
		old[i].Source, old[i].Params, old[i].Sent = whole[i].Source, whole[i].Params, nil
	}
	if got, err := ReplayRecorded(context.Background(), check, old, secretVocabulary); err != nil || got.Verdict.Status != Pass {
		t.Fatalf("a transcript written whole judged again: %+v %v", got.Verdict, err)
	}

	// A failing check: the read's answer no longer has n null.
	failing := replayCheck()
	failing.Steps[2].Params = map[string]any{"depth": 2}
	failing.Steps[2].Expect.Match[0].Matcher = 5.0
	run := RunRecording(context.Background(), failing, recordingExec{}, secretVocabulary)
	if last := run.Transcript[3]; run.Status != Fail || last.Source != "" || !slices.Equal(last.Sent, []string{SentAll}) {
		t.Fatalf("a failing check: %s, its last line %+v", run.Status, last)
	}
	if got, err := ReplayRecorded(context.Background(), failing, run.Transcript, secretVocabulary); err != nil || got.Verdict.Status != Fail || got.Verdict.Step != "c" {
		t.Fatalf("a failing check judged again: %+v %v", got.Verdict, err)
	}

	var mm *MismatchError
	for _, f := range []struct {
		sent   []string
		params map[string]any
		why    string
	}{
		{[]string{"depth"}, nil, `no param "depth"`},
		{[]string{SentAll}, map[string]any{"n": 1.0}, `writes param "n" too`},
		{[]string{SentAll, "n"}, nil, "sends no such params"},
	} {
		forged := slices.Clone(tr)
		forged[1].Sent, forged[1].Params = f.sent, f.params
		if _, err := ReplayRecorded(context.Background(), check, forged, secretVocabulary); !errors.As(err, &mm) || mm.Index != 1 || !strings.Contains(mm.Msg, f.why) {
			t.Errorf("sent %v with params %v: %v, want a mismatch at 1 saying %q", f.sent, f.params, err, f.why)
		}
	}
	forged := slices.Clone(tr)
	forged[3].Sent = []string{SentAll} // the read sends no params
	if _, err := ReplayRecorded(context.Background(), check, forged, secretVocabulary); !errors.As(err, &mm) || mm.Index != 3 {
		t.Errorf("sent * on a step without params: %v", err)
	}
	if got, err := Rebuild(context.Background(), check, forged, secretVocabulary); !errors.As(err, &mm) || len(got) != 4 || !slices.Equal(got[3].Sent, []string{SentAll}) {
		t.Errorf("Rebuild of a forged line: %v, %+v; want the mismatch and the line as recorded", err, got)
	}
}
