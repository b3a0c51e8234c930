package main

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sifu-dev/sifu/internal/declaration"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/reference/agentkitref"
)

// akRules are the rules the process tests run: a restart, exactly-once,
// SSE termination, health and the window rule at start-up.
var akRules = []string{"--rule", "AK-SUSPEND-04", "--rule", "AK-SUSPEND-09", "--rule", "AK-SSE-03", "--rule", "AK-HTTP-01", "--rule", "AK-CONFIG-01"}

func akRun(t *testing.T, rules []string, extra ...string) (int, string) {
	t.Helper()
	out := t.TempDir()
	code := runQuiet(append(append([]string{"run", "--suite", "agentkit", "-q", "--out", out}, rules...), extra...))
	return code, out
}

// TestAgentKitThroughStartCmd: sifu starts its own reference gateway as a
// process per check (stdin closed, own directory), kills and restarts it
// for the restart checks, and it passes.
func TestAgentKitThroughStartCmd(t *testing.T) {
	t.Parallel()
	bin := buildSifu(t)
	code, out := akRun(t, akRules, "--start-cmd", bin+" agentkit gateway")
	if code != exitOK {
		run, _, _ := declaration.ReadResults(filepath.Join(out, "results.json"))
		for _, tc := range run.Tests {
			if tc.Status != engine.Pass {
				t.Errorf("%s: %s: %s", tc.ID, tc.Status, tc.Message)
			}
		}
		t.Fatalf("exit %d", code)
	}
	// The same gateway with an effect that runs twice fails the exactly-once checks.
	code, out = akRun(t, []string{"--rule", "AK-SUSPEND-09"}, "--start-cmd", bin+" agentkit gateway --fault effect-twice")
	if code != exitFail {
		t.Fatalf("a gateway that runs approved effects twice: exit %d, want %d", code, exitFail)
	}
	assertStatus(t, out, "exactly-once", engine.Fail)
	code, out = akRun(t, []string{"--rule", "AK-SSE-03"}, "--start-cmd", bin+" agentkit gateway --fault sse-no-done")
	if code != exitFail {
		t.Fatalf("a gateway that ends SSE without [DONE]: exit %d, want %d", code, exitFail)
	}
	assertStatus(t, out, "terminated-by-data-done", engine.Fail)
}

// runQuiet is run without printing: the exit code of the command line.
func runQuiet(args []string) int {
	cmd := newRoot()
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	err := cmd.ExecuteContext(context.Background())
	var failed *failedError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &failed):
		return exitFail
	}
	return exitUsage
}

// assertStatus finds a check whose ID contains part and wants status.
func assertStatus(t *testing.T, out, part string, want engine.Status) {
	t.Helper()
	run, _, err := declaration.ReadResults(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range run.Tests {
		if strings.Contains(tc.ID, part) {
			if tc.Status != want {
				t.Errorf("%s: %s, want %s (%s)", tc.ID, tc.Status, want, tc.Message)
			}
			return
		}
	}
	t.Errorf("no check id contains %q", part)
}

// TestAgentKitGatewaysThatCannotStart: a gateway that cannot start with
// sifu's generated configuration (a command that is not there, one that
// crashes, one that never answers /healthz) stops the run before any check
// with one line and exit 2, not a verdict per check.
func TestAgentKitGatewaysThatCannotStart(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "target.yaml")
	if err := os.WriteFile(cfg, []byte("start_timeout: 300ms\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct{ cmd, want string }{
		"missing": {"/nonexistent/gateway-binary", "exited with status 127 before it answered GET /healthz (the shell found no such command)"},
		"crashes": {"echo boom-on-start >&2; exit 3", "exited with status 3 before it answered GET /healthz; its output ends: boom-on-start"},
		"silent":  {"sleep 30", "did not answer GET /healthz with 200 within 300ms"},
	} {
		t.Run(name, func(t *testing.T) {
			out := t.TempDir()
			code, msg := runCapture(append([]string{"run", "--suite", "agentkit", "-q", "--out", out},
				"--start-cmd", c.cmd, "--target-config", cfg, "--timeout", "5s"))
			if code != exitUsage {
				t.Fatalf("exit %d, want %d (%s)", code, exitUsage, msg)
			}
			if !strings.Contains(msg, c.want) || !strings.Contains(msg, "no check was run") || strings.Contains(msg, "\n") {
				t.Errorf("want one line containing %q, got %q", c.want, msg)
			}
			if _, err := os.Stat(filepath.Join(out, "results.json")); err == nil {
				t.Error("a run that could not start wrote results")
			}
		})
	}
}

// TestAgentKitGatewayThatDiesLater: a gateway that starts once and then
// crashes at every start gives harness_error with its output tail, never a
// pass and never a hung run.
func TestAgentKitGatewayThatDiesLater(t *testing.T) {
	t.Parallel()
	bin := buildSifu(t)
	flag := filepath.Join(t.TempDir(), "started-once")
	cmd := "if [ -e " + flag + " ]; then echo boom-after-start >&2; exit 3; fi; touch " + flag + "; exec " + bin + " agentkit gateway"
	code, out := akRun(t, []string{"--profile", "gateway,suspend", "--tags", "@AK-HTTP-01,@AK-SUSPEND-04,@AK-SUSPEND-09,@AK-SSE-03"},
		"--start-cmd", cmd, "--timeout", "5s")
	if code != exitFail {
		t.Fatalf("exit %d, want %d", code, exitFail)
	}
	run, _, err := declaration.ReadResults(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if run.Target.Name != "process" {
		t.Errorf("the target is named %q; with --start-cmd it is a process", run.Target.Name)
	}
	for _, tc := range run.Tests {
		if tc.Status == engine.Pass {
			t.Errorf("%s passed against a gateway that crashes", tc.ID)
		}
		if strings.Contains(tc.ID, "healthz") {
			if tc.Status != engine.HarnessError || !strings.Contains(tc.Message, "boom-after-start") {
				t.Errorf("%s: %s, want harness_error with the output tail: %s", tc.ID, tc.Status, tc.Message)
			}
		}
	}
}

// runCapture runs a command line and returns its exit code and error text.
func runCapture(args []string) (int, string) {
	cmd := newRoot()
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	err := cmd.ExecuteContext(context.Background())
	var failed *failedError
	switch {
	case err == nil:
		return exitOK, ""
	case errors.As(err, &failed):
		return exitFail, err.Error()
	}
	return exitUsage, err.Error()
}

// TestAgentKitSetupErrorsAreUsageErrors: a stub port that is taken, a
// missing templates directory or a bad target config exit 2.
func TestAgentKitSetupErrorsAreUsageErrors(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, args := range [][]string{
		{"--target-config", write("taken.yaml", "stub_addr: "+ln.Addr().String()+"\n")},
		{"--target-config", write("notmpl.yaml", "templates: ./nowhere\n")},
		{"--target-config", write("typo.yaml", "stubaddr: 127.0.0.1:1\n")},
		{"--target-config", filepath.Join(dir, "missing.yaml")},
		{"--target", "http"},
		{"--target", "http", "--url", "http://127.0.0.1:1"},
		{"--target", "process"},
	} {
		if code := runQuiet(append([]string{"run", "--suite", "agentkit", "-q"}, args...)); code != exitUsage {
			t.Errorf("sifu run --suite agentkit %v: exit %d, want %d", args, code, exitUsage)
		}
	}
}

// TestAgentKitAgainstARunningGateway: `sifu agentkit config` writes the
// configuration a user's gateway needs for --target http; a gateway started
// from it (here the reference) passes the checks that need no control, and
// the checks that do are untestable, not passed.
func TestAgentKitAgainstARunningGateway(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	addr, stubAddr := freeAddr(t), freeAddr(t)
	if code := runQuiet([]string{"agentkit", "config", "--out", dir, "--addr", addr, "--stub", stubAddr}); code != exitOK {
		t.Fatalf("agentkit config: exit %d", code)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- agentkitref.Serve(ctx, dir, nil) }()
	defer func() { cancel(); <-done }()
	// The gateway answers once it listens: wait for it, or the first check
	// races its start-up.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the gateway never listened")
		}
	}
	cfg := filepath.Join(dir, "target.yaml")
	if err := os.WriteFile(cfg, []byte("stub_addr: "+stubAddr+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"--target", "http", "--url", "http://" + addr, "--target-config", cfg}
	rules := []string{"--rule", "AK-HTTP-02", "--rule", "AK-SSE-03", "--rule", "AK-SUSPEND-02", "--rule", "AK-SUSPEND-03", "--rule", "AK-A2A-01", "--rule", "AK-HTTP-05"}
	code, out := akRun(t, rules, base...)
	if code != exitOK {
		run, _, _ := declaration.ReadResults(filepath.Join(out, "results.json"))
		for _, tc := range run.Tests {
			t.Logf("%s: %s: %s", tc.ID, tc.Status, tc.Message)
		}
		t.Fatalf("exit %d", code)
	}
	code, out = akRun(t, []string{"--rule", "AK-SUSPEND-04"}, base...)
	if code != exitFail {
		t.Fatalf("restart checks against a remote gateway: exit %d, want %d", code, exitFail)
	}
	assertStatus(t, out, "killed-and-started-again", engine.Untestable)
}
