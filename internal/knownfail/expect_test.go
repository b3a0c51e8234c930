package knownfail

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/internal/catalogue"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/schema"
)

func load(t *testing.T, yaml string) (*File, []byte, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "sifu.expect.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return Load(p)
}

func kungfuCatalogue(t *testing.T) *catalogue.Catalogue {
	t.Helper()
	cat, err := catalogue.Load(sifu.Assets, "vectors/kungfu/rules.json", schema.NewSet(sifu.Assets, "vectors/schema"))
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// plan is the checks of the fixture: four of rule KF-12-07, one of KF-5-02.
var plan = []engine.Check{
	{ID: "kungfu/x/leaks", Rules: []string{"KF-12-07"}},
	{ID: "kungfu/x/leaks-slowly", Rules: []string{"KF-12-07"}},
	{ID: "kungfu/x/leaks-racing", Rules: []string{"KF-12-07"}},
	{ID: "kungfu/x/leaks-broken", Rules: []string{"KF-12-07"}},
	{ID: "kungfu/x/fine", Rules: []string{"KF-5-02"}},
}

// run is a run of the fixture with the given statuses (pass for the rest).
func run(status map[string]engine.Status) *results.Run {
	r := &results.Run{Suite: "kungfu"}
	for _, c := range plan {
		st, ok := status[c.ID]
		if !ok {
			st = engine.Pass
		}
		r.Tests = append(r.Tests, results.Test{ID: c.ID, Rules: c.Rules, Status: st, Message: "boom"})
		r.Summary.Add(st)
	}
	return r
}

func apply(t *testing.T, yaml string, r *results.Run) error {
	t.Helper()
	f, raw, err := load(t, yaml)
	if err != nil {
		return err
	}
	return Apply(f, raw, "sifu.expect.yaml", r, kungfuCatalogue(t), plan)
}

func test(r *results.Run, id string) results.Test {
	for _, t := range r.Tests {
		if t.ID == id {
			return t
		}
	}
	panic(id)
}

func TestExpectedFailuresAndStaleEntries(t *testing.T) {
	r := run(map[string]engine.Status{"kungfu/x/leaks": engine.Fail})
	if err := apply(t, "suite: kungfu\nexpected_failures:\n  - rule: KF-12-07\n    checks: [kungfu/x/leaks]\n    reason: our API answers 403 for private objects\n", r); err != nil {
		t.Fatal(err)
	}
	if r.Summary.Failed() || !test(r, "kungfu/x/leaks").Excused() || r.Summary.ExpectedFail != 1 {
		t.Fatalf("an expected failure must not fail the run: %+v", r.Summary)
	}
	if e := r.Expectations.Entries[0]; e.Entry != "KF-12-07" || e.Status != engine.Fail || len(e.Checks) != 1 {
		t.Fatalf("the entry is recorded as %+v", e)
	}

	r = run(map[string]engine.Status{"kungfu/x/leaks": engine.Fail})
	if err := apply(t, "expected_failures:\n  - id: kungfu/x/fine\n    reason: was broken last week\n", r); err != nil {
		t.Fatal(err)
	}
	if !r.Summary.Failed() || r.Summary.Stale != 1 || r.Expectations.Stale[0].Passed[0] != "kungfu/x/fine" {
		t.Fatalf("an entry whose check passes is stale and fails the run: %+v %+v", r.Summary, r.Expectations)
	}
}

// TestAnEntryExcusesOnlyItsChecksWithTheirStatus: an entry excuses the
// checks it lists, with the status it expects, and nothing else of its
// rule: a listed check that times out, and a check of the rule it does not
// list, fail the run, the first saying what was expected of it.
func TestAnEntryExcusesOnlyItsChecksWithTheirStatus(t *testing.T) {
	r := run(map[string]engine.Status{
		"kungfu/x/leaks":        engine.Fail,
		"kungfu/x/leaks-slowly": engine.Timeout,
		"kungfu/x/leaks-broken": engine.HarnessError,
	})
	yaml := "expected_failures:\n  - rule: KF-12-07\n    status: fail\n    checks: [kungfu/x/leaks, kungfu/x/leaks-slowly]\n    reason: a known leak\n"
	if err := apply(t, yaml, r); err != nil {
		t.Fatal(err)
	}
	if !test(r, "kungfu/x/leaks").Excused() {
		t.Errorf("the listed failure is not excused")
	}
	slow := test(r, "kungfu/x/leaks-slowly")
	if slow.Excused() || !slow.Unexpected() || !strings.Contains(slow.ExpectedNote(), "expected fail by KF-12-07, but it was timeout") {
		t.Errorf("a listed check that timed out is excused, or does not say it was expected to fail: %+v %q", slow, slow.ExpectedNote())
	}
	if broken := test(r, "kungfu/x/leaks-broken"); broken.Expected != nil {
		t.Errorf("a check of the rule the entry does not list is marked: %+v", broken)
	}
	if !r.Summary.Failed() || r.Summary.ExpectedFail != 1 || r.Summary.Unexpected != 1 {
		t.Fatalf("the run must fail on the timeout and the harness error: %+v", r.Summary)
	}

	// A warning is a status too: an entry that expects fail does not
	// excuse it, and says so by failing the run.
	r = run(map[string]engine.Status{"kungfu/x/leaks": engine.Warn})
	if err := apply(t, "expected_failures:\n  - id: kungfu/x/leaks\n    reason: a known leak\n", r); err != nil {
		t.Fatal(err)
	}
	if !r.Summary.Failed() || r.Summary.Unexpected != 1 {
		t.Fatalf("a warning where fail is expected passed the run: %+v", r.Summary)
	}
	// With the status it shows, the entry excuses it (a warning never
	// counts as an expected failure: it does not fail a run anyway).
	r = run(map[string]engine.Status{"kungfu/x/leaks": engine.Untestable})
	if err := apply(t, "expected_failures:\n  - id: kungfu/x/leaks\n    status: untestable\n    reason: no clock control\n", r); err != nil {
		t.Fatal(err)
	}
	if r.Summary.Failed() || r.Summary.ExpectedFail != 1 {
		t.Fatalf("an untestable check expected untestable fails the run: %+v", r.Summary)
	}
}

// TestARuleIDAloneIsRefused: `id: <rule ID>` would excuse every check of
// the rule: the file is refused, and the message lists the rule's checks
// and says how to write the entry.
func TestARuleIDAloneIsRefused(t *testing.T) {
	err := apply(t, "expected_failures:\n  - id: KF-12-07\n    reason: our API answers 403\n", run(map[string]engine.Status{"kungfu/x/leaks": engine.Fail}))
	for _, want := range []string{"KF-12-07 is a rule ID", "rule: KF-12-07", "checks:", "kungfu/x/leaks, kungfu/x/leaks-slowly", "sifu expect update"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want an error containing %q, got %v", want, err)
		}
	}
}

// TestIntermittentChecks: a check that catches its fault in some runs
// only is listed as intermittent: its pass is not stale, its failure is
// excused; a pass of a check listed under checks: is stale.
func TestIntermittentChecks(t *testing.T) {
	yaml := "expected_failures:\n  - rule: KF-12-07\n    checks: [kungfu/x/leaks]\n    intermittent: [kungfu/x/leaks-racing]\n    reason: an unlocked append\n"
	for _, racing := range []engine.Status{engine.Pass, engine.Fail} {
		r := run(map[string]engine.Status{"kungfu/x/leaks": engine.Fail, "kungfu/x/leaks-racing": racing})
		if err := apply(t, yaml, r); err != nil {
			t.Fatal(err)
		}
		if r.Summary.Failed() || r.Summary.Stale != 0 {
			t.Errorf("racing %s: an intermittent check fails the run: %+v", racing, r.Summary)
		}
	}
	r := run(map[string]engine.Status{"kungfu/x/leaks-racing": engine.Fail})
	if err := apply(t, yaml, r); err != nil {
		t.Fatal(err)
	}
	if !r.Summary.Failed() || r.Summary.Stale != 1 || strings.Join(r.Expectations.Stale[0].Passed, ",") != "kungfu/x/leaks" {
		t.Fatalf("a check that fails every run passed and the entry is not stale: %+v %+v", r.Summary, r.Expectations.Stale)
	}
	// Out of the run (not_applicable, or not selected), a check is neither
	// excused nor stale.
	r = run(map[string]engine.Status{"kungfu/x/leaks": engine.NotApplicable})
	if err := apply(t, yaml, r); err != nil {
		t.Fatal(err)
	}
	if r.Summary.Failed() {
		t.Fatalf("a not_applicable check made its entry stale: %+v", r.Summary)
	}
}

func TestTheFileIsStrict(t *testing.T) {
	for yaml, want := range map[string]string{
		"expected_failures:\n  - id: kungfu/x/leaks\n":                                                             "no reason",
		"expected_failures:\n  - id: kungfu/x/leaks\n    reason: x\n    why: y\n":                                  "field why not found",
		"expected_failures:\n  - id: KF-99\n    reason: x\n":                                                       "KF-99 is not a check ID of the kungfu suite",
		"expected_failures:\n  - rule: KF-12-07\n    reason: x\n":                                                  "names rule KF-12-07 but no checks",
		"expected_failures:\n  - reason: x\n":                                                                      "names no check",
		"expected_failures:\n  - rule: KF-99\n    checks: [kungfu/x/leaks]\n    reason: x\n":                       "rule KF-99 is not a rule",
		"expected_failures:\n  - rule: KF-12-07\n    checks: [kungfu/x/fine]\n    reason: x\n":                     "check kungfu/x/fine does not evidence rule KF-12-07",
		"expected_failures:\n  - rule: KF-12-07\n    checks: [kungfu/x/nope]\n    reason: x\n":                     "kungfu/x/nope is not a check ID",
		"expected_failures:\n  - id: kungfu/x/leaks\n    status: harness_error\n    reason: x\n":                   "a harness_error is sifu's fault",
		"expected_failures:\n  - id: kungfu/x/leaks\n    status: pass\n    reason: x\n":                            "expects status \"pass\"",
		"expected_failures:\n  - rule: KF-12-07\n    intermittent: [kungfu/x/leaks]\n    reason: x\n":              "only intermittent checks",
		"expected_failures:\n  - id: kungfu/x/leaks\n    checks: [kungfu/x/leaks]\n    reason: x\n":                "gives id: and rule:/checks: together",
		"expected_failures:\n  - id: kungfu/x/leaks\n    reason: x\n  - checks: [kungfu/x/leaks]\n    reason: y\n": "which expected_failures[0] names already",
		"expected_failures:\n  - checks: [kungfu/x/leaks]\n    intermittent: [kungfu/x/leaks]\n    reason: y\n":    "names check kungfu/x/leaks twice",
		"expected_failures:\n  - id: kungfu/x/leaks\n    reason: \"TODO: say why\"\n":                              "TODO",
	} {
		err := apply(t, yaml, run(nil))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: want an error containing %q, got %v", yaml, want, err)
		}
	}
}

func TestUpdateKeepsReasons(t *testing.T) {
	r := run(map[string]engine.Status{"kungfu/x/leaks": engine.Fail})
	f := Update(r, &File{ExpectedFailures: []Entry{{ID: "kungfu/x/leaks", Reason: "known"}}})
	if len(f.ExpectedFailures) != 1 || f.ExpectedFailures[0].Reason != "known" || f.ExpectedFailures[0].Status != engine.Fail {
		t.Fatalf("%+v", f)
	}
	if f = Update(r, nil); !strings.HasPrefix(f.ExpectedFailures[0].Reason, "TODO") {
		t.Fatalf("%+v", f)
	}
}

// TestUpdateRewritesARuleEntry: `sifu expect update` turns an older
// `id: <rule ID>` entry into one that names the checks of the rule that
// did not pass, each group with the status it ended with, the reason
// kept; an intermittent check stays intermittent, passing or not; the
// file it writes applies to the run it was written from with nothing
// stale.
func TestUpdateRewritesARuleEntry(t *testing.T) {
	r := run(map[string]engine.Status{"kungfu/x/leaks": engine.Fail, "kungfu/x/leaks-slowly": engine.Timeout})
	f := Update(r, &File{Suite: "kungfu", ExpectedFailures: []Entry{{ID: "KF-12-07", Reason: "a known leak"}}})
	raw, err := Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	want := "expected_failures:\n  - rule: KF-12-07\n    status: fail\n    checks:\n      - kungfu/x/leaks\n    reason: a known leak\n" +
		"  - rule: KF-12-07\n    status: timeout\n    checks:\n      - kungfu/x/leaks-slowly\n    reason: a known leak\n"
	if !strings.Contains(string(raw), want) {
		t.Fatalf("update wrote\n%s\nwant it to hold\n%s", raw, want)
	}
	if err := apply(t, string(raw), r); err != nil || r.Summary.Failed() {
		t.Fatalf("the file update wrote does not apply to its run: %v %+v", err, r.Summary)
	}

	old := &File{ExpectedFailures: []Entry{{Rule: "KF-12-07", Checks: []string{"kungfu/x/leaks", "kungfu/x/leaks-slowly"},
		Intermittent: []string{"kungfu/x/leaks-racing"}, Reason: "an unlocked append"}}}
	f = Update(run(map[string]engine.Status{"kungfu/x/leaks": engine.Fail}), old)
	if len(f.ExpectedFailures) != 1 {
		t.Fatalf("%+v", f)
	}
	if e := f.ExpectedFailures[0]; strings.Join(e.Checks, ",") != "kungfu/x/leaks" || strings.Join(e.Intermittent, ",") != "kungfu/x/leaks-racing" || e.Reason != "an unlocked append" {
		t.Fatalf("update dropped the intermittent check or kept the passing one: %+v", e)
	}
}

// TestTodoReasonIsRefused: the TODO reason that `expect update` writes for
// a new entry is not a reason: loading the file fails until it is replaced.
func TestTodoReasonIsRefused(t *testing.T) {
	raw, err := Marshal(Update(run(map[string]engine.Status{"kungfu/x/leaks": engine.Fail}), nil))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := load(t, string(raw)); err == nil || !strings.Contains(err.Error(), "TODO") {
		t.Fatalf("a file with a TODO reason loaded: %v", err)
	}
}
