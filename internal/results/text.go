package results

import (
	"fmt"
	"io"
	"strings"

	"github.com/sifu-dev/sifu/internal/engine"
)

// SummaryLine is a summary's counts on one line.
func SummaryLine(s Summary) string {
	return fmt.Sprintf("%d pass, %d fail, %d warn, %d not_applicable, %d untestable, %d timeout, %d harness_error",
		s.Pass, s.Fail, s.Warn, s.NotApplicable, s.Untestable, s.Timeout, s.HarnessError)
}

// WriteSummary prints a run for people: what ran against what, every check
// that did not pass with its source, rules and message, the counts of
// checks and rules, the expectations applied, and the result.
func WriteSummary(w io.Writer, run *Run) {
	var with string
	if run.Conditions != nil {
		with = ", with " + run.Conditions.String()
	}
	fmt.Fprintf(w, "\nsifu %s: suite %s (%s), target %s (%s %s%s), profiles %s\n",
		run.Harness.Version, run.Suite, run.Spec, run.Target.Name, run.Target.Implementation, run.Target.Version, with,
		strings.Join(run.Profiles, ","))
	var problems []Test
	for _, t := range run.Tests {
		if t.Status != engine.Pass && t.Status != engine.NotApplicable {
			problems = append(problems, t)
		}
	}
	for _, t := range problems {
		label := strings.ToUpper(string(t.Status))
		switch {
		case t.Excused():
			label = "EXPECTED " + label
		case t.Unexpected():
			label = "UNEXPECTED " + label
		}
		fmt.Fprintf(w, "\n%s %s\n  source: %s\n  rules:  %s\n", label, t.ID, t.Source, strings.Join(t.Rules, " "))
		switch {
		case t.Excused():
			fmt.Fprintf(w, "  expected by %s: %s\n", t.Expected.Entry, t.Expected.Reason)
		case t.Unexpected():
			fmt.Fprintf(w, "  %s (%s)\n", t.ExpectedNote(), t.Expected.Reason)
		}
		if t.Message != "" {
			fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(t.Message, "\n", "\n  "))
		}
	}
	ruleCount := map[string]int{}
	for _, r := range run.Rules {
		ruleCount[r.Status]++
	}
	fmt.Fprintf(w, "\nchecks: %d (%s) in %dms\n", len(run.Tests), SummaryLine(run.Summary), run.DurationMS)
	fmt.Fprintf(w, "rules:  %d in scope (%s)\n", len(run.Rules), countLine(ruleCount,
		RulePass, RuleFail, RuleWarn, RuleNotEvidenced, RuleNotApplicable, RuleNotBlackBox,
		string(engine.Untestable), string(engine.Timeout), string(engine.HarnessError)))
	if ex := run.Expectations; ex != nil {
		fmt.Fprintf(w, "expectations: %s, %d entries, %d expected failure(s), %d stale, %d not as expected\n",
			ex.File, len(ex.Entries), run.Summary.ExpectedFail, len(ex.Stale), run.Summary.Unexpected)
		for _, e := range ex.Entries {
			fmt.Fprintf(w, "  excluded %s (%s of %d check(s)): %s\n", e.Entry, e.Status, len(e.Checks)+len(e.Intermittent), e.Reason)
		}
		for _, e := range ex.Stale {
			fmt.Fprintf(w, "  STALE: %s\n", ex.StaleMessage(e))
		}
	}
	if run.Interrupted {
		fmt.Fprintln(w, "result: INTERRUPTED (Ctrl-C): only the checks that ended are reported")
	} else if run.Summary.Failed() {
		fmt.Fprintln(w, "result: FAIL")
	} else {
		fmt.Fprintln(w, "result: PASS")
	}
}

func countLine(m map[string]int, order ...string) string {
	var parts []string
	for _, k := range order {
		if m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
		}
	}
	return strings.Join(parts, ", ")
}
