package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu/internal/runner"
)

func TestExitCodes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want int
	}{
		{[]string{"run", "-q", "--suite", "kungfu", "--profile", "memory"}, exitOK},
		{[]string{"run", "-q"}, exitOK},                           // every suite against its reference
		{[]string{"run", "-q", "--profile", "memory"}, exitUsage}, // a profile needs one suite
		{[]string{"run", "--suite", "nope"}, exitUsage},
		{[]string{"run", "--frobnicate"}, exitUsage},
		{[]string{"run", "--suite", "kcp", "--repeat", "0"}, exitUsage},
		{[]string{"run", "--suite", "kcp", "--check", "kcp/no-such-check"}, exitUsage},
		{[]string{"run", "--check", "kcp/*"}, exitUsage}, // patterns need one suite
		{[]string{"run", "--profile", "galaxy"}, exitUsage},
		{[]string{"run", "--rule", "KF-0-99"}, exitUsage},
		{[]string{"run", "--tags", "@no-such-tag"}, exitUsage},
		{[]string{"run", "--target", "elsewhere"}, exitUsage},
		{[]string{"nope"}, exitUsage},
		{[]string{"run", "--suite", "kungfu", "--profile", ""}, exitUsage},
		{[]string{"run", "--suite", "kungfu", "--rule", ""}, exitUsage},
		{[]string{"run", "--suite", "kungfu", "--out", "/proc/no-such-dir/out"}, exitUsage},
		{[]string{"run", "--suite", "kungfu", "--tags", "@thread and"}, exitUsage},
		{[]string{"rules"}, exitOK},
	}
	for _, c := range cases {
		if got := run(c.args); got != c.want {
			t.Errorf("sifu %v: exit %d, want %d", c.args, got, c.want)
		}
	}
}

func TestRunWritesResults(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if code := run([]string{"run", "-q", "--suite", "kungfu", "--profile", "memory", "--out", dir}); code != exitOK {
		t.Fatalf("exit %d", code)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"harness", "suite", "target", "started_at", "duration_ms", "summary", "tests", "rules"} {
		if _, ok := doc[key]; !ok {
			t.Errorf("results.json lacks %q", key)
		}
	}
	summary := doc["summary"].(map[string]any)
	for _, key := range []string{"pass", "fail", "warn", "not_applicable", "untestable", "timeout", "harness_error"} {
		if _, ok := summary[key]; !ok {
			t.Errorf("summary lacks %q", key)
		}
	}
	test := doc["tests"].([]any)[0].(map[string]any)
	for _, key := range []string{"id", "kind", "source", "rules", "status", "duration_ms"} {
		if _, ok := test[key]; !ok {
			t.Errorf("a test lacks %q", key)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "junit.xml")); err != nil {
		t.Error(err)
	}
}

// TestShardsMergeIntoTheWholeRun: two shards merged give the same checks and
// statuses as one run, and a declaration that verifies; a rerun of a
// passing run has nothing to do; diff of identical runs finds nothing.
func TestShardsMergeIntoTheWholeRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := func(parts ...string) string { return filepath.Join(append([]string{dir}, parts...)...) }
	for _, args := range [][]string{
		{"run", "-q", "--suite", "kungfu", "--shard", "1/2", "--out", p("s1")},
		{"run", "-q", "--suite", "kungfu", "--shard", "2/2", "--out", p("s2")},
		{"run", "-q", "--suite", "kungfu", "--out", p("all")},
		{"merge", "--out", p("merged"), p("s1", "results.json"), p("s2", "results.json")},
		{"verify", p("merged", "conformance.json")},
		{"diff", p("all", "results.json"), p("merged", "results.json")},
		{"run", "-q", "--suite", "kungfu", "--rerun-failed", p("all", "results.json")},
	} {
		if code := run(args); code != exitOK {
			t.Fatalf("sifu %v: exit %d", args, code)
		}
	}
	for _, args := range [][]string{
		{"merge", "--out", p("twice"), p("s1", "results.json"), p("s1", "results.json")},
		{"run", "--shard", "3/2"},
		{"diff", p("all", "results.json"), p("missing.json")},
	} {
		if code := run(args); code != exitUsage {
			t.Errorf("sifu %v: exit %d, want %d", args, code, exitUsage)
		}
	}
}

// TestPathIsBackBeforeMain: quickstart hides PATH from godog's start-up
// only; by the time the command line runs (here: the tests, which start
// after the main package's init as main does), PATH is the process's own
// again and commands are found on it.
func TestPathIsBackBeforeMain(t *testing.T) {
	t.Parallel()
	if os.Getenv("PATH") == "" {
		t.Fatal("PATH is empty after start-up")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Errorf("go is not found on PATH after start-up: %v", err)
	}
}

// TestListPrintsTheSelection: --list prints the selected check IDs, one per
// line, runs none of them, and refuses to write results.
func TestListPrintsTheSelection(t *testing.T) {
	t.Parallel()
	out, err := sifuCLI(t, "run", "--suite", "kungfu", "--check", "*pins*", "--list")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "suite kungfu, target inproc") || !strings.HasSuffix(lines[0], fmt.Sprintf(": %d check(s)", len(lines)-1)) {
		t.Fatalf("header %q for %d listed checks", lines[0], len(lines)-1)
	}
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l, "kungfu/") || !strings.Contains(l, "pins") {
			t.Errorf("listed %q, which the pattern does not select", l)
		}
	}
	if strings.Contains(out, "checks:") || strings.Contains(out, "result:") {
		t.Errorf("--list ran the checks:\n%s", out)
	}
	_, err = sifuCLI(t, "run", "--suite", "kungfu", "--list", "--out", t.TempDir())
	var usage *runner.UsageError
	if !errors.As(err, &usage) {
		t.Errorf("--list with --out: %v; want a usage error", err)
	}
}

// TestGateBothWays: the CI gate of docs/ci.md, in-process: a planted bug
// fails the run (exit 1); an expectations file with a reason for each of
// its failures passes it (exit 0) and writes junit.xml without a failure;
// the same file against the fixed implementation fails as stale (exit 1),
// in junit.xml and cucumber.json too.
func TestGateBothWays(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := func(parts ...string) string { return filepath.Join(append([]string{dir}, parts...)...) }
	base := []string{"run", "-q", "--suite", "kungfu", "--profile", "memory"}
	if code := run(append(base, "--mutant", "existence-leak", "--out", p("out"))); code != exitFail {
		t.Fatalf("the planted bug: exit %d, want %d", code, exitFail)
	}
	if code := run([]string{"expect", "update", p("out", "results.json"), "--file", p("sifu.expect.yaml")}); code != exitOK {
		t.Fatalf("expect update: exit %d", code)
	}
	if code := run(append(base, "--mutant", "existence-leak", "--expect", p("sifu.expect.yaml"))); code != exitUsage {
		t.Fatalf("TODO reasons: exit %d, want %d", code, exitUsage)
	}
	raw, _ := os.ReadFile(p("sifu.expect.yaml"))
	var lines []string
	for _, l := range strings.Split(string(raw), "\n") {
		if strings.Contains(l, "reason:") {
			l = "    reason: private memories answer forbidden (planted)"
		}
		lines = append(lines, l)
	}
	os.WriteFile(p("sifu.expect.yaml"), []byte(strings.Join(lines, "\n")), 0o644)
	if code := run(append(base, "--mutant", "existence-leak", "--expect", p("sifu.expect.yaml"), "--out", p("gated"))); code != exitOK {
		t.Fatalf("expected failures: exit %d, want %d", code, exitOK)
	}
	junit, _ := os.ReadFile(p("gated", "junit.xml"))
	if strings.Contains(string(junit), "<failure") || !strings.Contains(string(junit), "<skipped") {
		t.Errorf("junit.xml of a passing gate has failures or no skipped expected failures")
	}
	if code := run(append(base, "--expect", p("sifu.expect.yaml"), "--out", p("stale"))); code != exitFail {
		t.Fatalf("stale expectations: exit %d, want %d", code, exitFail)
	}
	// Every report of the stale run is red, as the exit code is.
	junit, _ = os.ReadFile(p("stale", "junit.xml"))
	cucumber, _ := os.ReadFile(p("stale", "cucumber.json"))
	if !strings.Contains(string(junit), `type="stale"`) || !strings.Contains(string(cucumber), `"status": "failed"`) {
		t.Errorf("a run failed on stale expectations has a report without a failure:\njunit.xml holds a stale failure: %v\ncucumber.json holds a failed step: %v",
			strings.Contains(string(junit), `type="stale"`), strings.Contains(string(cucumber), `"status": "failed"`))
	}
}

// TestStartUpRunsNoGo: starting sifu runs no `go` (godog's builder runs
// `go env GOTOOLDIR` while packages initialise; internal/quickstart hides
// PATH from it). A fake go first on PATH records every call: a program that
// links godog without quickstart calls it (the control), sifu must not.
func TestStartUpRunsNoGo(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("the fake go is a shell script")
	}
	bin := buildSifu(t)
	control := filepath.Join(t.TempDir(), "godoginit")
	if out, err := exec.Command("go", "build", "-o", control, "./testdata/godoginit").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	calls := func(program string, args ...string) string {
		dir := t.TempDir()
		log := filepath.Join(dir, "calls")
		if err := os.WriteFile(filepath.Join(dir, "go"), []byte("#!/bin/sh\necho \"go $*\" >> "+log+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(program, args...)
		cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", program, err, out)
		}
		raw, _ := os.ReadFile(log)
		return string(raw)
	}
	if got := calls(control); !strings.Contains(got, "go env GOTOOLDIR") {
		t.Fatalf("the control linked godog and ran no go (%q): the fake go sees nothing, so this test guards nothing", got)
	}
	if got := calls(bin, "--version"); got != "" {
		t.Errorf("starting sifu ran %q: internal/quickstart no longer initialises before godog's builder", got)
	}
}

// TestTheDocumentedExpectationsFileIsValid: the example file of docs/ci.md
// is one sifu takes: every ID in it is a check or rule of the kungfu suite
// and each check evidences its entry's rule. Against the bundled reference,
// which fails nothing, each of its entries is stale (exit 1, not 2).
func TestTheDocumentedExpectationsFileIsValid(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	start := strings.Index(text, "# sifu.expect.yaml")
	end := strings.Index(text[max(start, 0):], "```")
	if start < 0 || end < 0 {
		t.Fatal("docs/ci.md has no example expectations file")
	}
	file := filepath.Join(t.TempDir(), "sifu.expect.yaml")
	if err := os.WriteFile(file, []byte(text[start:start+end]), 0o644); err != nil {
		t.Fatal(err)
	}
	if code := run([]string{"run", "-q", "--suite", "kungfu", "--expect", file}); code != exitFail {
		t.Fatalf("the example of docs/ci.md against the reference: exit %d, want %d (every entry stale)", code, exitFail)
	}
}

// TestKeygenMakesItsFolder: `keygen --out out/signing`, as the README
// writes it, works where out/ does not exist yet; the key stays private.
func TestKeygenMakesItsFolder(t *testing.T) {
	t.Parallel()
	prefix := filepath.Join(t.TempDir(), "out", "signing")
	if code := run([]string{"keygen", "--out", prefix}); code != exitOK {
		t.Fatalf("keygen --out %s: exit %d", prefix, code)
	}
	st, err := os.Stat(prefix + ".pem")
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		t.Errorf("the private key is readable by others: %v", st.Mode())
	}
	if _, err := os.Stat(prefix + ".pub.pem"); err != nil {
		t.Fatal(err)
	}
}
