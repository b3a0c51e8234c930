package kcpref

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"
)

// Signal is one confidence signal: a self-report extracted from (or given
// with) the answer, or an evaluator's judgement.
type Signal struct {
	Source    string  `json:"source"` // "self" or "evaluator"
	Score     float64 `json:"score"`
	Reasoning string  `json:"reasoning"`
}

// Judgement is what an evaluator returns.
type Judgement struct {
	Score     float64 `json:"score"`
	Reasoning string  `json:"reasoning"`
}

// Evaluator is an independent judge of an answer. An error fails the gate
// closed.
type Evaluator func(task, answer string, units []Unit) (Judgement, error)

// AssessOptions configure the confidence gate. The JSON names are those of
// an assess vector's `options` object.
type AssessOptions struct {
	// Threshold is required and must lie in [0,1]; it is caller policy,
	// never manifest data.
	Threshold *float64 `json:"threshold"`
	// AsOf is echoed in the verdict; the gate reads no clock.
	AsOf     string `json:"asOf,omitempty"`
	Severity string `json:"severity,omitempty"`
	// Aggregate is "min" (the default) or "mean".
	Aggregate string `json:"aggregate,omitempty"`
	// IncludeSelfReport defaults to true: extract "confidence: x" from the
	// answer when no SelfReport is given.
	IncludeSelfReport *bool     `json:"includeSelfReport,omitempty"`
	SelfReport        *Signal   `json:"selfReport,omitempty"`
	Evaluator         Evaluator `json:"-"`
	// Faults plant deliberate bugs (faults.go), for sifu's mutation
	// self-test.
	Faults []Fault `json:"-"`
}

// Verdict is the gate's decision.
type Verdict struct {
	Gate      string   `json:"gate"` // "confidence"
	Passed    bool     `json:"passed"`
	Score     float64  `json:"score"` // rounded to 6 decimals
	Threshold float64  `json:"threshold"`
	Severity  string   `json:"severity,omitempty"`
	Signals   []Signal `json:"signals"`
	Detail    string   `json:"detail"`
	AsOf      string   `json:"asOf,omitempty"`
}

// selfReportPattern is the reference's global, case-insensitive
// `confidence[:\s]+([0-9]*\.?[0-9]+)\s*(%)?`, with JavaScript's \s.
var selfReportPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)confidence[:` + jsSpaceClass + `]+([0-9]*\.?[0-9]+)[` + jsSpaceClass + `]*(%)?`)
})

const jsSpaceClass = `\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`

// ExtractSelfReport finds the last "confidence: x" in an answer. x is a
// fraction, or a percentage when followed by % or greater than 1 (so
// "confidence: 1.5" is 0.015); the result is clamped to [0,1]. The
// reasoning quotes the whole line(s) of the match, trimmed.
func ExtractSelfReport(answer string) (Signal, bool) {
	matches := selfReportPattern().FindAllStringSubmatchIndex(answer, -1)
	if len(matches) == 0 {
		return Signal{}, false
	}
	m := matches[len(matches)-1]
	score := jsNumberFromString(answer[m[2]:m[3]])
	if m[4] >= 0 || score > 1 {
		score /= 100
	}
	score = math.Min(math.Max(score, 0), 1)
	start := strings.LastIndexByte(answer[:m[0]], '\n') + 1
	end := len(answer)
	if i := strings.IndexByte(answer[m[1]:], '\n'); i >= 0 {
		end = m[1] + i
	}
	return Signal{Source: "self", Score: score, Reasoning: `self-reported: "` + jsTrim(answer[start:end]) + `"`}, true
}

// Assess is the post-synthesis confidence gate: it adjudicates the
// self-reported and/or evaluator confidence of an answer against a
// caller-supplied threshold, failing closed on anything it cannot measure.
// Only an invalid threshold is an error; every other failure is a verdict
// with score 0.
func Assess(task, answer string, units []Unit, opts AssessOptions) (Verdict, error) {
	if opts.Threshold == nil || !(*opts.Threshold >= 0 && *opts.Threshold <= 1) {
		shown := "undefined"
		if opts.Threshold != nil {
			shown = formatJSNumber(*opts.Threshold)
		}
		return Verdict{}, fmt.Errorf("invalid threshold %s — expected 0..1", shown)
	}
	threshold := *opts.Threshold
	v := Verdict{Gate: "confidence", Threshold: threshold, Severity: opts.Severity, AsOf: opts.AsOf, Signals: []Signal{}}
	failClosed := func(detail string) (Verdict, error) {
		v.Passed, v.Score, v.Detail = false, 0, detail
		return v, nil
	}
	inRange := func(s float64) bool { return s >= 0 && s <= 1 }

	var self *Signal
	switch {
	case opts.SelfReport != nil:
		s := *opts.SelfReport
		self = &s
	case opts.IncludeSelfReport == nil || *opts.IncludeSelfReport:
		if s, ok := ExtractSelfReport(answer); ok {
			if s.Score == 1 && hasFault(opts.Faults, FaultSelfReportOneDivided) {
				s.Score = 0.01
			}
			self = &s
		}
	}
	if self != nil {
		v.Signals = append(v.Signals, *self)
		if !inRange(self.Score) {
			return failClosed(fmt.Sprintf("self-report score %s out of range — fail-closed", formatJSNumber(self.Score)))
		}
	}
	if opts.Evaluator != nil {
		j, err := opts.Evaluator(task, answer, units)
		if err != nil {
			return failClosed(fmt.Sprintf("evaluator failed: %s — fail-closed", err.Error()))
		}
		v.Signals = append(v.Signals, Signal{Source: "evaluator", Score: j.Score, Reasoning: j.Reasoning})
		if !inRange(j.Score) {
			return failClosed(fmt.Sprintf("evaluator score %s out of range — fail-closed", formatJSNumber(j.Score)))
		}
	}
	if len(v.Signals) == 0 {
		return failClosed("no confidence signal obtainable (no self-report in answer, no evaluator) — fail-closed")
	}

	aggregate := "min"
	if opts.Aggregate == "mean" {
		aggregate = "mean"
	}
	lowest := v.Signals[0]
	sum := 0.0
	for _, s := range v.Signals {
		sum += s.Score
		if s.Score < lowest.Score {
			lowest = s
		}
	}
	score := lowest.Score
	if aggregate == "mean" {
		score = sum / float64(len(v.Signals))
	}
	v.Passed = score >= threshold
	v.Score = round6(score)
	if v.Passed {
		plural := "s"
		if len(v.Signals) == 1 {
			plural = ""
		}
		v.Detail = fmt.Sprintf("confidence %s >= threshold %s (%s of %d signal%s)",
			formatJSNumber(v.Score), formatJSNumber(threshold), aggregate, len(v.Signals), plural)
		return v, nil
	}
	v.Detail = fmt.Sprintf("confidence %s < threshold %s", formatJSNumber(v.Score), formatJSNumber(threshold))
	if opts.Severity != "" {
		v.Detail += fmt.Sprintf(" on %s task", opts.Severity)
	}
	v.Detail += fmt.Sprintf(" — %s: %s", lowest.Source, lowest.Reasoning)
	return v, nil
}
