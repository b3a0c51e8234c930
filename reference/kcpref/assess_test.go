package kcpref

import (
	"errors"
	"math"
	"reflect"
	"testing"
)

func judge(score float64, reasoning string) Evaluator {
	return func(string, string, []Unit) (Judgement, error) { return Judgement{score, reasoning}, nil }
}

func TestAssess(t *testing.T) {
	tests := []struct {
		name   string
		answer string
		opts   AssessOptions
		want   Verdict
	}{
		{"decimal self-report", "The award went north.\n  Confidence: 0.82  \n", AssessOptions{Threshold: ptr(0.7), AsOf: asOf},
			Verdict{Passed: true, Score: 0.82, Threshold: 0.7, AsOf: asOf, Detail: "confidence 0.82 >= threshold 0.7 (min of 1 signal)",
				Signals: []Signal{{"self", 0.82, `self-reported: "Confidence: 0.82"`}}}},
		{"percent", "I am fairly sure (CONFIDENCE 82 %).", AssessOptions{Threshold: ptr(0.9)},
			Verdict{Passed: false, Score: 0.82, Threshold: 0.9,
				Detail:  `confidence 0.82 < threshold 0.9 — self: self-reported: "I am fairly sure (CONFIDENCE 82 %)."`,
				Signals: []Signal{{"self", 0.82, `self-reported: "I am fairly sure (CONFIDENCE 82 %)."`}}}},
		{"last match wins", "confidence: 0.9\nthen again\nconfidence: .4", AssessOptions{Threshold: ptr(0.5), Severity: "critical"},
			Verdict{Passed: false, Score: 0.4, Threshold: 0.5, Severity: "critical",
				Detail:  `confidence 0.4 < threshold 0.5 on critical task — self: self-reported: "confidence: .4"`,
				Signals: []Signal{{"self", 0.4, `self-reported: "confidence: .4"`}}}},
		{"above 1 is a percentage, then clamped", "confidence: 150", AssessOptions{Threshold: ptr(1.0)},
			Verdict{Passed: true, Score: 1, Threshold: 1, Detail: "confidence 1 >= threshold 1 (min of 1 signal)",
				Signals: []Signal{{"self", 1, `self-reported: "confidence: 150"`}}}},
		{"1.5 is 1.5%", "confidence: 1.5", AssessOptions{Threshold: ptr(0.0)},
			Verdict{Passed: true, Score: 0.015, Threshold: 0, Detail: "confidence 0.015 >= threshold 0 (min of 1 signal)",
				Signals: []Signal{{"self", 0.015, `self-reported: "confidence: 1.5"`}}}},
		{"explicit self-report beats extraction", "confidence: 0.99", AssessOptions{Threshold: ptr(0.5), SelfReport: &Signal{"self", 0.3, "told"}},
			Verdict{Passed: false, Score: 0.3, Threshold: 0.5, Detail: "confidence 0.3 < threshold 0.5 — self: told",
				Signals: []Signal{{"self", 0.3, "told"}}}},
		{"extraction disabled: no signal", "confidence: 0.99", AssessOptions{Threshold: ptr(0.5), IncludeSelfReport: ptr(false)},
			Verdict{Passed: false, Score: 0, Threshold: 0.5, Signals: []Signal{},
				Detail: "no confidence signal obtainable (no self-report in answer, no evaluator) — fail-closed"}},
		{"threshold boundary passes", "", AssessOptions{Threshold: ptr(0.7), Evaluator: judge(0.7, "ok")},
			Verdict{Passed: true, Score: 0.7, Threshold: 0.7, Detail: "confidence 0.7 >= threshold 0.7 (min of 1 signal)",
				Signals: []Signal{{"evaluator", 0.7, "ok"}}}},
		{"min is the default", "confidence: 0.75", AssessOptions{Threshold: ptr(0.5), Evaluator: judge(0.25, "weak sources")},
			Verdict{Passed: false, Score: 0.25, Threshold: 0.5, Detail: "confidence 0.25 < threshold 0.5 — evaluator: weak sources",
				Signals: []Signal{{"self", 0.75, `self-reported: "confidence: 0.75"`}, {"evaluator", 0.25, "weak sources"}}}},
		{"mean", "confidence: 0.75", AssessOptions{Threshold: ptr(0.5), Aggregate: "mean", Evaluator: judge(0.25, "weak sources")},
			Verdict{Passed: true, Score: 0.5, Threshold: 0.5, Detail: "confidence 0.5 >= threshold 0.5 (mean of 2 signals)",
				Signals: []Signal{{"self", 0.75, `self-reported: "confidence: 0.75"`}, {"evaluator", 0.25, "weak sources"}}}},
		{"a tie names the self-report", "confidence: 0.5", AssessOptions{Threshold: ptr(0.6), Evaluator: judge(0.5, "same")},
			Verdict{Passed: false, Score: 0.5, Threshold: 0.6, Detail: `confidence 0.5 < threshold 0.6 — self: self-reported: "confidence: 0.5"`,
				Signals: []Signal{{"self", 0.5, `self-reported: "confidence: 0.5"`}, {"evaluator", 0.5, "same"}}}},
		{"score rounded to 6 decimals", "", AssessOptions{Threshold: ptr(0.3), Evaluator: judge(1.0/3, "third")},
			Verdict{Passed: true, Score: 0.333333, Threshold: 0.3, Detail: "confidence 0.333333 >= threshold 0.3 (min of 1 signal)",
				Signals: []Signal{{"evaluator", 1.0 / 3, "third"}}}},
		{"self-report out of range", "", AssessOptions{Threshold: ptr(0.5), SelfReport: &Signal{"self", 1.2, "very"}},
			Verdict{Passed: false, Score: 0, Threshold: 0.5, Detail: "self-report score 1.2 out of range — fail-closed",
				Signals: []Signal{{"self", 1.2, "very"}}}},
		{"evaluator out of range", "confidence: 0.9", AssessOptions{Threshold: ptr(0.5), Evaluator: judge(-0.1, "broken")},
			Verdict{Passed: false, Score: 0, Threshold: 0.5, Detail: "evaluator score -0.1 out of range — fail-closed",
				Signals: []Signal{{"self", 0.9, `self-reported: "confidence: 0.9"`}, {"evaluator", -0.1, "broken"}}}},
		{"evaluator error", "confidence: 0.9", AssessOptions{Threshold: ptr(0.5),
			Evaluator: func(string, string, []Unit) (Judgement, error) { return Judgement{}, errors.New("judge offline") }},
			Verdict{Passed: false, Score: 0, Threshold: 0.5, Detail: "evaluator failed: judge offline — fail-closed",
				Signals: []Signal{{"self", 0.9, `self-reported: "confidence: 0.9"`}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Assess("task", tt.answer, nil, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			tt.want.Gate = "confidence"
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("verdict\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestAssessInvalidThreshold(t *testing.T) {
	for _, tc := range []struct {
		th   *float64
		want string
	}{
		{ptr(1.5), "invalid threshold 1.5 — expected 0..1"},
		{ptr(-0.1), "invalid threshold -0.1 — expected 0..1"},
		{ptr(math.NaN()), "invalid threshold NaN — expected 0..1"},
		{nil, "invalid threshold undefined — expected 0..1"},
	} {
		if _, err := Assess("t", "confidence: 0.9", nil, AssessOptions{Threshold: tc.th}); err == nil || err.Error() != tc.want {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
}
