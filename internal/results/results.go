// Package results is sifu's one result and evidence model. Every report
// (results.json, JUnit, the console summary, and later declarations) reads
// a Run; none computes verdicts of its own.
package results

import (
	"fmt"
	"strings"
	"time"

	"github.com/sifu-dev/sifu/internal/engine"
)

// Harness names the harness that produced a run.
type Harness struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Commit  string `json:"commit,omitempty"`
}

// TargetInfo describes the implementation that was checked, as it said.
type TargetInfo struct {
	Name           string   `json:"name"`
	Implementation string   `json:"implementation,omitempty"`
	Version        string   `json:"version,omitempty"`
	Commit         string   `json:"commit,omitempty"`
	Spec           string   `json:"spec,omitempty"`
	Profiles       []string `json:"profiles,omitempty"`
	Controls       []string `json:"controls,omitempty"`
	// Scoped lists the controls whose effect this target confines to the
	// check that uses it, so that such a check need not run alone on an
	// implementation every check shares.
	Scoped []string `json:"scoped,omitempty"`
}

// Conditions records what the harness changed about the target for a
// run, so that such a result is never taken for a plain one and the run
// can be repeated exactly. Nil for a plain run.
type Conditions struct {
	// Mutant is the planted fault the bundled reference ran with (--mutant).
	Mutant string `json:"mutant,omitempty"`
	// Faults are the transport faults injected between harness and target
	// (--faults), and FaultSeed the seed that decided each one.
	Faults    []string `json:"faults,omitempty"`
	FaultSeed uint64   `json:"fault_seed,omitempty"`
}

// String is the conditions for a console line, e.g. "planted fault x" or
// "faults drop-response,delay (seed 7)".
func (c *Conditions) String() string {
	if c == nil {
		return ""
	}
	var parts []string
	if c.Mutant != "" {
		parts = append(parts, "planted fault "+c.Mutant)
	}
	if len(c.Faults) > 0 {
		parts = append(parts, fmt.Sprintf("faults %s (seed %d)", strings.Join(c.Faults, ","), c.FaultSeed))
	}
	return strings.Join(parts, ", ")
}

// Reproducible makes the run's evidence depend only on what the target
// did: it starts at at, and every duration and elapsed time is zero. sifu
// does this when SOURCE_DATE_EPOCH is set (the reproducible-builds
// convention), so that evidence regenerated for unchanged behaviour is
// byte-identical and a committed statement changes only where behaviour
// did.
func (r *Run) Reproducible(at time.Time) {
	r.StartedAt, r.DurationMS = at.UTC().Format(time.RFC3339), 0
	for i := range r.Tests {
		t := &r.Tests[i]
		t.DurationMS = 0
		for j := range t.Transcript {
			t.Transcript[j].Elapsed = 0
		}
	}
}

// Run is the outcome of one `sifu run`.
type Run struct {
	Harness    Harness     `json:"harness"`
	Suite      string      `json:"suite"`
	Spec       string      `json:"spec"`
	Target     TargetInfo  `json:"target"`
	Conditions *Conditions `json:"conditions,omitempty"`
	Profiles   []string    `json:"profiles"`
	Selection  Selection   `json:"selection"`
	StartedAt  string      `json:"started_at"`
	DurationMS int64       `json:"duration_ms"`
	// Interrupted is set when the run was stopped (Ctrl-C) before every
	// selected check had a verdict: its tests are only those that ended.
	Interrupted  bool            `json:"interrupted,omitempty"`
	Summary      Summary         `json:"summary"`
	Tests        []Test          `json:"tests"`
	Transcript   *TranscriptFile `json:"transcript,omitempty"`
	Expectations *Expectations   `json:"expectations,omitempty"`
	Rules        []Rule          `json:"rules"`
}

// Selection records how checks were chosen, so a run can be reproduced.
type Selection struct {
	Tags   string   `json:"tags,omitempty"`
	Rules  []string `json:"rules,omitempty"`
	Checks []string `json:"checks,omitempty"` // check ID patterns (--check)
	// Shard is "i/n" when the run is one shard of n (--shard); a merged
	// run has none.
	Shard string `json:"shard,omitempty"`
	// Rerun is set when the run repeated only the checks that had not
	// passed in an earlier results file (--rerun-failed).
	Rerun string `json:"rerun,omitempty"`
}

// Filtered reports whether the selection narrowed the run by tags, rules
// or check patterns, so that rules no check evidenced are left out of its
// rule verdicts rather than reported not evidenced.
func (s Selection) Filtered() bool {
	return s.Tags != "" || len(s.Rules) > 0 || len(s.Checks) > 0
}

// Summary counts tests by status.
type Summary struct {
	Pass          int `json:"pass"`
	Fail          int `json:"fail"`
	Warn          int `json:"warn"`
	NotApplicable int `json:"not_applicable"`
	Untestable    int `json:"untestable"`
	Timeout       int `json:"timeout"`
	HarnessError  int `json:"harness_error"`
	// ExpectedFail counts the checks above that did not pass, ended with
	// the status the implementer's expectations file expects of them, and
	// so do not fail the run (warnings, which never do, are not counted);
	// Stale counts its entries with a check that passes now.
	ExpectedFail int `json:"expected_fail"`
	Stale        int `json:"stale"`
	// Unexpected counts the checks an entry names that ended with another
	// status than it expects (a warning included): each fails the run.
	Unexpected int `json:"unexpected,omitempty"`
}

// Add counts one status.
func (s *Summary) Add(st engine.Status) {
	switch st {
	case engine.Pass:
		s.Pass++
	case engine.Fail:
		s.Fail++
	case engine.Warn:
		s.Warn++
	case engine.NotApplicable:
		s.NotApplicable++
	case engine.Untestable:
		s.Untestable++
	case engine.Timeout:
		s.Timeout++
	case engine.HarnessError:
		s.HarnessError++
	}
}

// Failed reports whether the run must not be taken as conformant: any check
// failed, timed out, broke the harness or could not be tested, and the
// expectations file does not excuse it; or an expectation is stale, or a
// check it names ended otherwise than it expects.
func (s Summary) Failed() bool {
	return s.Fail+s.Untestable+s.Timeout+s.HarnessError-s.ExpectedFail > 0 || s.Stale > 0 || s.Unexpected > 0
}

// Test is the verdict of one check.
type Test struct {
	ID         string        `json:"id"`
	Kind       string        `json:"kind"`
	Title      string        `json:"title"`
	Source     string        `json:"source"`
	Rules      []string      `json:"rules"`
	Tags       []string      `json:"tags,omitempty"`
	Status     engine.Status `json:"status"`
	DurationMS int64         `json:"duration_ms"`
	Message    string        `json:"message,omitempty"`
	Step       string        `json:"step,omitempty"`
	// Transcript is held in memory; reports write it to transcript.jsonl
	// and keep only the line range here.
	Transcript []engine.Exchange `json:"-"`
	Lines      *LineRange        `json:"transcript,omitempty"`
	// Expected is set when the check did not pass and an entry of the
	// implementer's expectations file names it. It excuses the check only
	// when the check ended with the status the entry expects (Excused).
	Expected *Expected `json:"expected,omitempty"`
	// Repeat is set when the check ran more than once (--repeat).
	Repeat *Repeat `json:"repeat,omitempty"`
}

// Repeat tallies the runs of a repeated check. Its status, message and
// transcript are those of the first run that did not pass, or of the last
// run when all passed: one failing run out of many fails the check.
type Repeat struct {
	Runs   int `json:"runs"`
	Passed int `json:"passed"`
}

// Excused reports whether the expectations file excuses the check: an
// entry names it and it ended with the status the entry expects.
func (t Test) Excused() bool {
	return t.Expected != nil && t.Expected.Status == t.Status
}

// Unexpected reports whether an entry names the check but the check ended
// with another status than the entry expects: it fails the run as any
// failure does.
func (t Test) Unexpected() bool {
	return t.Expected != nil && t.Expected.Status != t.Status
}

// ExpectedNote says what the expectations file expected of a check named
// by an entry, for reports: "expected fail (ACP-EVT-08: reason)", or, for
// a check that ended otherwise, that it is not excused.
func (t Test) ExpectedNote() string {
	if t.Expected == nil {
		return ""
	}
	e := t.Expected
	if t.Excused() {
		return fmt.Sprintf("expected %s (%s: %s)", t.Status, e.Entry, e.Reason)
	}
	return fmt.Sprintf("expected %s by %s, but it was %s, which the entry does not excuse", e.Status, e.Entry, t.Status)
}

// Expected is the expectations entry that names a check, and the status it
// expects of the check.
type Expected struct {
	Entry  string        `json:"entry"`
	Status engine.Status `json:"status"`
	Reason string        `json:"reason"`
	Link   string        `json:"link,omitempty"`
}

// ExpectEntry is one entry of the expectations file a run applied: the
// checks it excuses (Checks fail in every run; Intermittent ones may also
// pass) with the status it expects of them.
type ExpectEntry struct {
	Entry        string        `json:"entry"`
	Status       engine.Status `json:"status"`
	Checks       []string      `json:"checks"`
	Intermittent []string      `json:"intermittent,omitempty"`
	Reason       string        `json:"reason"`
	Link         string        `json:"link,omitempty"`
}

// StaleEntry is an entry of the expectations file with checks, not
// intermittent, that pass now (Passed): it fails the run until they are
// taken out of it.
type StaleEntry struct {
	Entry  string   `json:"entry"`
	Reason string   `json:"reason"`
	Passed []string `json:"passed"`
}

// Expectations records the expectations file a run applied.
type Expectations struct {
	File    string        `json:"file"`
	SHA256  string        `json:"sha256"`
	Entries []ExpectEntry `json:"entries"`
	Stale   []StaleEntry  `json:"stale"`
}

// StaleMessage says what is wrong with a stale entry and what to do.
func (ex *Expectations) StaleMessage(e StaleEntry) string {
	return fmt.Sprintf("stale expectation %s: %s pass(es) now; take %s out of the entry in %s (or list %s under intermittent: if %s in some runs only)",
		e.Entry, strings.Join(e.Passed, ", "), plural(e.Passed, "it", "them"), ex.File, plural(e.Passed, "it", "them"), plural(e.Passed, "it fails", "they fail"))
}

func plural(s []string, one, many string) string {
	if len(s) == 1 {
		return one
	}
	return many
}

// LineRange locates a test's exchanges in transcript.jsonl (1-based, inclusive).
type LineRange struct {
	From int `json:"from"`
	To   int `json:"to"`
}

// TranscriptFile names the transcript written beside results.json and its
// SHA-256, so the evidence can be verified offline.
type TranscriptFile struct {
	File   string `json:"file"`
	SHA256 string `json:"sha256"`
	Lines  int    `json:"lines"`
}

// Rule statuses, beyond the check statuses a rule can inherit.
const (
	RulePass          = "pass"
	RuleFail          = "fail"
	RuleWarn          = "warn"
	RuleNotEvidenced  = "not_evidenced"  // no selected check covers it
	RuleNotBlackBox   = "not_black_box"  // cannot be observed from outside
	RuleNotApplicable = "not_applicable" // observable only with a profile outside this run
)

// Rule is the verdict on one catalogue rule, with the checks behind it.
// results.json leaves Evidence out: it is every test of the run that names
// the rule, in the run's order (RebuildEvidence), so the file says it once,
// in each test's rules.
type Rule struct {
	ID       string   `json:"id"`
	Level    string   `json:"level"`
	Profile  []string `json:"profile"`
	Status   string   `json:"status"`
	Evidence []string `json:"evidence,omitempty"`
	Note     string   `json:"note,omitempty"`
}

// RebuildEvidence fills the Evidence of each rule read without it: the
// tests that name the rule, in the run's order.
func (r *Run) RebuildEvidence() {
	byRule := map[string][]string{}
	for _, t := range r.Tests {
		for _, id := range t.Rules {
			byRule[id] = append(byRule[id], t.ID)
		}
	}
	for i := range r.Rules {
		if r.Rules[i].Evidence == nil {
			r.Rules[i].Evidence = append([]string{}, byRule[r.Rules[i].ID]...)
		}
	}
}

// NotPassed are the IDs of a run's checks that did not pass and were not
// out of its scope (not_applicable): what a rerun of its failures runs.
func NotPassed(r *Run) []string {
	var ids []string
	for _, t := range r.Tests {
		if t.Status != engine.Pass && t.Status != engine.NotApplicable {
			ids = append(ids, t.ID)
		}
	}
	return ids
}
