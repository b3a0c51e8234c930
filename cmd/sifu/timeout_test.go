package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
)

// readRun reads the results.json a run wrote in dir.
func readRun(t *testing.T, dir string) *results.Run {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r results.Run
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// TestTimeoutBindsInProcess: --timeout binds the bundled reference in
// process as it binds any target. With a limit no check can keep, nothing
// passes and the run fails (exit 1): every check that ran is a timeout.
// A check that declares @timeout:4x gets four times the limit and no more:
// KCP's property check (hundreds of plans) outlasts 4 × 1ms in process.
func TestTimeoutBindsInProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, err := sifuCLI(t, "run", "-q", "--suite", "kungfu", "--timeout", "1ns", "--out", dir)
	var failed *failedError
	if !errors.As(err, &failed) {
		t.Fatalf("--timeout 1ns in process: %v; want a failed run (exit 1)\n%s", err, lastLines(out, 5))
	}
	r := readRun(t, dir)
	if r.Summary.Pass != 0 || r.Summary.Timeout == 0 {
		t.Errorf("--timeout 1ns in process: %s; want no pass, and timeouts", results.SummaryLine(r.Summary))
	}
	for _, tc := range r.Tests {
		if tc.Status != engine.Timeout && tc.Status != engine.NotApplicable && tc.Status != engine.Untestable {
			t.Errorf("%s ended %s (%s) under a 1ns limit; only a timeout (or a verdict given without running) is possible", tc.ID, tc.Status, tc.Message)
		}
	}

	const property = "kcp/planner_properties/invariants-hold-on-generated-manifests-and-options"
	dir = t.TempDir()
	out, err = sifuCLI(t, "run", "-q", "--suite", "kcp", "--check", property, "--timeout", "1ms", "--out", dir)
	if !errors.As(err, &failed) {
		t.Fatalf("the property check under a 1ms limit: %v; want a failed run\n%s", err, lastLines(out, 5))
	}
	r = readRun(t, dir)
	if len(r.Tests) != 1 || r.Tests[0].Status != engine.Timeout || !strings.HasPrefix(r.Tests[0].Message, "no verdict within 4ms (4× --timeout, as its @timeout:4x tag declares)") {
		t.Errorf("the property check under a 1ms limit: %+v; want a timeout after 4ms, naming its declared factor", r.Tests)
	}
}

// TestTimeoutMustBePositive: a limit of zero or less is a usage error, for
// a run and for the self-test alike.
func TestTimeoutMustBePositive(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"run", "--suite", "kcp", "--timeout", "0"},
		{"run", "--suite", "kcp", "--timeout", "-1s"},
		{"selftest", "--suite", "kcp", "--mutant", "budget-unchecked", "--timeout", "0"},
	} {
		out, err := sifuCLI(t, args...)
		var usage *runner.UsageError
		if !errors.As(err, &usage) || !strings.Contains(err.Error(), "--timeout") {
			t.Errorf("sifu %v: %v; want a usage error naming --timeout\n%s", args, err, lastLines(out, 3))
		}
	}
}

// TestListFollowsTheRerun: --list with --rerun-failed lists exactly the
// checks the rerun runs (those that did not pass), and nothing when every
// check passed.
func TestListFollowsTheRerun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := func(parts ...string) string { return filepath.Join(append([]string{dir}, parts...)...) }
	mutant := []string{"run", "-q", "--suite", "kcp", "--mutant", "budget-unchecked"}
	if _, err := sifuCLI(t, append(mutant, "--out", p("first"))...); err == nil {
		t.Fatal("the planted fault failed no check: this test has no failures to rerun")
	}
	failedBefore := results.NotPassed(readRun(t, p("first")))

	out, err := sifuCLI(t, append(mutant, "--rerun-failed", p("first", "results.json"), "--list")...)
	if err != nil {
		t.Fatalf("--rerun-failed --list: %v\n%s", err, out)
	}
	var listed []string // each line is a check ID, and maybe a note after it
	for _, l := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		listed = append(listed, strings.Fields(l)[0])
	}
	slices.Sort(listed)
	slices.Sort(failedBefore)
	if !slices.Equal(listed, failedBefore) {
		t.Errorf("--rerun-failed --list lists %d check(s) %v; the rerun runs the %d that did not pass: %v", len(listed), listed, len(failedBefore), failedBefore)
	}

	if _, err := sifuCLI(t, append(mutant, "--rerun-failed", p("first", "results.json"), "--out", p("rerun"))...); err == nil {
		t.Fatal("the rerun of failed checks passed")
	}
	var ran []string
	for _, tc := range readRun(t, p("rerun")).Tests {
		ran = append(ran, tc.ID)
	}
	slices.Sort(ran)
	if !slices.Equal(listed, ran) {
		t.Errorf("--list showed %v, the rerun ran %v", listed, ran)
	}

	if _, err := sifuCLI(t, "run", "-q", "--suite", "kcp", "--out", p("green")); err != nil {
		t.Fatal(err)
	}
	out, err = sifuCLI(t, "run", "--suite", "kcp", "--rerun-failed", p("green", "results.json"), "--list")
	if err != nil || !strings.HasPrefix(out, "nothing to rerun: every check in ") {
		t.Errorf("--list of a rerun of a passing run: %v, %q; want nothing to rerun", err, out)
	}
}

// lastLines is the end of a command's output, for a failure message.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
