package main

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sifu-dev/sifu/internal/declaration"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/runner"
)

// brokenRun runs `sifu run` with args against a broken target and checks
// that it returned within a generous outer bound, exited 1 (not conforming),
// and that every check that ran ended timeout or harness_error — never
// pass, never fail — with timeouts where wantTimeout says so.
func brokenRun(t *testing.T, wantTimeout bool, args ...string) {
	t.Helper()
	out := t.TempDir()
	args = append([]string{"run", "-q", "--out", out}, args...)
	if !slices.Contains(args, "--suite") {
		args = append(args, "--suite", "kungfu")
	}
	type result struct {
		text string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		text, err := sifuCLI(t, args...)
		done <- result{text, err}
	}()
	var res result
	select {
	case res = <-done:
	case <-time.After(90 * time.Second):
		t.Fatalf("sifu %v did not return: a timeout was not applied", args)
	}
	var failed *failedError
	if !errors.As(res.err, &failed) {
		t.Fatalf("sifu %v: %v, want exit 1\n%s", args, res.err, res.text)
	}
	run, _, err := declaration.ReadResults(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, tc := range run.Tests {
		switch tc.Status {
		case engine.NotApplicable:
			continue
		case engine.Timeout:
		case engine.HarnessError:
			if wantTimeout {
				t.Errorf("%s: harness_error, want timeout: %s", tc.ID, tc.Message)
			}
		default:
			t.Errorf("%s ended %s against a broken target: %s", tc.ID, tc.Status, tc.Message)
		}
		ran++
	}
	if ran == 0 {
		t.Fatalf("no check ran:\n%s", res.text)
	}
}

const fullHello = `{"implementation":"broken","version":"1","spec":"Kungfu Protocol 1.0-rc1","profiles":["memory"],"controls":["provision","deactivate","clock","restart"]}`

// answersPreflight answers the one agent sifu provisions before any check, so
// that a target broken after it reaches the checks (see
// TestTargetBrokenFromTheStartIsAUsageError for one that is not).
func answersPreflight(r *http.Request) bool {
	if r.URL.Path != "/kungfu/v1/control" {
		return false
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	return bytes.Contains(body, []byte(`"sifu-preflight"`))
}

// stdioPreflight answers the preflight provision (request 2) of a stdio run.
const stdioPreflight = `read line; echo '{"id":2,"ok":true,"result":{"agent":"a-0"}}'; `

// TestTargetBrokenFromTheStartIsAUsageError: a target that answers its
// hello but breaks on the first control ends the run before any check with
// exit 2 and one message, never as verdicts against the implementation.
func TestTargetBrokenFromTheStartIsAUsageError(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/kungfu/v1/hello" {
			_, _ = w.Write([]byte(fullHello))
			return
		}
		_, _ = w.Write([]byte("<html>upstream unavailable</html>"))
	}))
	defer srv.Close()
	out := t.TempDir()
	// ACP tools whose program, or whose script beside the config, is not there.
	acpConfig := func(name, argv string) string {
		path := filepath.Join(t.TempDir(), name)
		cfg := `{"schemas":["v1"],"commands":{"init":{"argv":` + argv + `},"validate":{"argv":["sh","-c","exit 0"]}}}`
		if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, args := range [][]string{
		{"run", "-q", "--suite", "acp", "--out", out, "--target", "exec", "--timeout", "5s", "--target-config",
			acpConfig("noprog.json", `["no-such-acp-tool-anywhere","{folder}"]`)},
		{"run", "-q", "--suite", "acp", "--out", out, "--target", "exec", "--timeout", "5s", "--target-config",
			acpConfig("noscript.json", `["sh","{config_dir}/scripts/init.sh","{folder}"]`)},
		{"run", "-q", "--suite", "kungfu", "--out", out, "--target", "http", "--url", srv.URL, "--timeout", "2s"},
		{"run", "-q", "--suite", "kungfu", "--out", out, "--target", "stdio", "--timeout", "300ms", "--cmd",
			`read line; echo '{"id":1,"ok":true,"result":` + fullHello + `}'; read line; kill -SEGV $$`},
		{"run", "-q", "--suite", "kcp", "--out", out, "--target", "exec", "--timeout", "5s", "--cmd", "no-such-planner-anywhere"},
		{"run", "-q", "--suite", "kcp", "--out", out, "--target", "exec", "--timeout", "5s", "--cmd", "/etc/passwd"},
	} {
		_, err := sifuCLI(t, args...)
		var ue *runner.UnreachableError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "no check ran") {
			t.Errorf("sifu %v: %v, want the target reported unreachable", args[5:], err)
		}
		if _, err := os.Stat(filepath.Join(out, "results.json")); err == nil {
			t.Errorf("sifu %v wrote results although no check ran", args[5:])
		}
	}
}

// TestBrokenHTTPTargets: whole runs against HTTP servers that crash, hang,
// answer garbage, trickle their answer or answer another schema after a
// good hello.
func TestBrokenHTTPTargets(t *testing.T) {
	t.Parallel()
	modes := map[string]struct {
		handle      func(w http.ResponseWriter, r *http.Request, stop <-chan struct{})
		wantTimeout bool
	}{
		"crash": {func(w http.ResponseWriter, r *http.Request, _ <-chan struct{}) {
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				conn.Close()
			}
		}, false},
		"hang": {func(w http.ResponseWriter, r *http.Request, stop <-chan struct{}) { <-stop }, true},
		"garbage": {func(w http.ResponseWriter, r *http.Request, _ <-chan struct{}) {
			_, _ = w.Write([]byte("<html>upstream unavailable</html>"))
		}, false},
		"slow": {func(w http.ResponseWriter, r *http.Request, stop <-chan struct{}) {
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte(`{"ok":`))
			w.(http.Flusher).Flush()
			<-stop
		}, true},
		"other schema": {func(w http.ResponseWriter, r *http.Request, _ <-chan struct{}) {
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"agent":"a-1"}}`))
		}, false},
	}
	for name, m := range modes {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			stop := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/kungfu/v1/hello" {
					_, _ = w.Write([]byte(fullHello))
					return
				}
				if answersPreflight(r) {
					_, _ = w.Write([]byte(`{"ok":true,"result":{"agent":"a-0","credential":"c-0"}}`))
					return
				}
				m.handle(w, r, stop)
			}))
			defer srv.Close()
			defer close(stop)
			brokenRun(t, m.wantTimeout, "--target", "http", "--url", srv.URL, "--rule", "KF-L3-02",
				"--timeout", "2s", "--request-timeout", "200ms")
		})
	}
}

// TestBrokenStdioTargets: whole runs against processes that crash, hang,
// answer garbage, answer slowly or answer another schema after a good hello.
func TestBrokenStdioTargets(t *testing.T) {
	t.Parallel()
	modes := map[string]struct {
		snippet     string
		wantTimeout bool
	}{
		"crash":        {`echo "fatal: out of memory" >&2; kill -SEGV $$`, false},
		"hang":         {`sleep 30`, true},
		"garbage":      {`echo 'Traceback (most recent call last):'; sleep 30`, false},
		"slow":         {`sleep 5; echo '{"id":3,"ok":true,"result":{"agent":"a-1"}}'; sleep 30`, true},
		"other schema": {`echo '{"jsonrpc":"2.0","id":3,"result":{"agent":"a-1"}}'; sleep 30`, false},
	}
	for name, m := range modes {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			script := `read line; echo '{"id":1,"ok":true,"result":` + fullHello + `}'; ` + stdioPreflight + `read line; ` + m.snippet
			brokenRun(t, m.wantTimeout, "--target", "stdio", "--cmd", script, "--rule", "KF-L3-02", "--timeout", "300ms")
		})
	}
}

// kcpPlannerAfterProbe is a planner command line that plans sifu's probe
// (the plan before any check), prints its usage and exits 2 without
// arguments, as kcp-agent does, and otherwise runs snippet: a planner broken
// after the probe (see TestTargetBrokenFromTheStartIsAUsageError for ones
// that are not).
func kcpPlannerAfterProbe(snippet string) string {
	return `case "$*" in *sifu-probe*) echo '{"kind":"plan","schemaVersion":1}';; "") echo usage >&2; exit 2;; *) ` + snippet + `;; esac; true`
}

// TestBrokenKCPPlanners: whole KCP runs against planner commands that
// crash, hang, answer garbage, answer slowly or answer another schema.
func TestBrokenKCPPlanners(t *testing.T) {
	t.Parallel()
	modes := map[string]struct {
		command     string
		wantTimeout bool
	}{
		"crash":        {`echo "panic: nil map" >&2; exit 2`, false},
		"hang":         {`sleep 30`, true},
		"garbage":      {`echo "Segmentation fault"`, false},
		"slow":         {`sleep 5; echo '{"kind":"plan","schemaVersion":1}'`, true},
		"other schema": {`echo '{"kind":"tree","schemaVersion":1,"units":[]}'`, false},
	}
	for name, m := range modes {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			brokenRun(t, m.wantTimeout, "--suite", "kcp", "--target", "exec", "--cmd", kcpPlannerAfterProbe(m.command), "--rule", "KCP-4", "--timeout", "300ms")
		})
	}
}

// TestKCPPlannersThatNeverPlanAreUsageErrors: a KCP planner command (one
// process per plan) or runner that is silent, exits, or speaks garbage
// from the start ends the run before any check with exit 2 and one message
// naming the command and what it did, never as hundreds of verdicts; one
// that never answers is given up on at the hello's bound (--request-timeout),
// not after every check's --timeout.
func TestKCPPlannersThatNeverPlanAreUsageErrors(t *testing.T) {
	t.Parallel()
	config := func(protocol string) string {
		path := filepath.Join(t.TempDir(), protocol+".yaml")
		if err := os.WriteFile(path, []byte("protocol: "+protocol+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	cases := []struct {
		cmd, protocol string
		want          []string
	}{
		{"true", "detect", []string{`the planner command "true" (run as ` + "`true plan --task probe --manifest <manifest> --json`" + `) exited with status 0 and printed nothing`, `nor is it a planner runner`, `the runner exited with status 0`}},
		{"true", "cli", []string{`the planner command "true"`, `exited with status 0 and printed nothing, which is not the plan JSON a planner prints`}},
		{"true", "runner", []string{`the planner runner "true" did not answer sifu's hello: the runner exited with status 0; it wrote nothing on standard error`}},
		{"echo garbage", "detect", []string{`the planner command "echo garbage"`, `printed "garbage plan --task probe`, `the runner wrote a line that is not an answer: "garbage"`}},
		{"echo garbage", "cli", []string{`the planner command "echo garbage"`, `printed "garbage plan --task probe`}},
		{"echo garbage", "runner", []string{`the planner runner "echo garbage" did not answer sifu's hello: the runner wrote a line that is not an answer: "garbage"`}},
		{"sleep 1000; true", "detect", []string{"within 400ms (--request-timeout bounds the hello", `the planner command "sleep 1000; true"`, "gave no answer to a one-unit plan in time"}},
		{"sleep 1000; true", "cli", []string{"within 400ms (--request-timeout bounds the hello", `the planner command "sleep 1000; true"`, "gave no answer to a one-unit plan in time"}},
		{"sleep 1000; true", "runner", []string{"within 400ms (--request-timeout bounds the hello", `the planner runner "sleep 1000; true" gave no answer to sifu's hello in time`}},
	}
	for _, c := range cases {
		t.Run(c.protocol+" "+c.cmd, func(t *testing.T) {
			t.Parallel()
			// The default --timeout (30s) would bound each check; the hello
			// is bounded by --request-timeout.
			unreachableRun(t, c.want, "--suite", "kcp", "--target", "exec", "--cmd", c.cmd, "--target-config", config(c.protocol))
		})
	}
}

// unreachableRun runs `sifu run` with args and a short --request-timeout
// (the hello's bound; --timeout keeps its 30s default) and checks that it
// ends before any check, as an unreachable target (exit 2), with a message
// holding every want and no Go internals.
func unreachableRun(t *testing.T, want []string, args ...string) {
	t.Helper()
	out := t.TempDir()
	args = append([]string{"run", "-q", "--out", out, "--request-timeout", "400ms"}, args...)
	done := make(chan error, 1)
	go func() {
		_, err := sifuCLI(t, args...)
		done <- err
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(25 * time.Second): // a hang guard, below the 30s --timeout
		t.Fatalf("sifu %v did not give up on the hello at --request-timeout 400ms", args)
	}
	var ue *runner.UnreachableError
	if !errors.As(err, &ue) {
		t.Fatalf("sifu %v: %v, want the target reported unreachable (exit 2)", args, err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("the message lacks %q:\n%v", w, err)
		}
	}
	for _, leak := range []string{"<nil>", "adapter: ", `stderr tail: ""`, "broken pipe"} {
		if strings.Contains(err.Error(), leak) {
			t.Errorf("the message leaks %q:\n%v", leak, err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "results.json")); err == nil {
		t.Error("results were written although no check ran")
	}
}

// tcpServer accepts connections and hands each to serve; it stops with the
// test.
func tcpServer(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop); ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				serve(c)
				<-stop
			}()
		}
	}()
	return ln.Addr().String()
}

// TestTargetsThatNeverAnswerAreUsageErrors: a Kungfu or agent-kit target
// that is not there, never answers, exits or speaks garbage from the start
// ends the run before any check with exit 2 and one message naming the
// command or URL and what it did; one that never answers is given up on at
// the hello's bound, --request-timeout.
func TestTargetsThatNeverAnswerAreUsageErrors(t *testing.T) {
	t.Parallel()
	silent := tcpServer(t, func(net.Conn) {})
	garbage := tcpServer(t, func(c net.Conn) { _, _ = c.Write([]byte("SSH-2.0-OpenSSH_9.6\r\n")); c.Close() })
	closed := freeAddr(t)
	stubConfig := func() string {
		path := filepath.Join(t.TempDir(), "target.yaml")
		if err := os.WriteFile(path, []byte("stub_addr: "+freeAddr(t)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	acpConfig := func(validate string) string {
		path := filepath.Join(t.TempDir(), "acp.json")
		cfg := `{"schemas":["v1"],"commands":{"init":{"argv":["sh","-c","exit 0"]},"validate":{"argv":["sh","-c",` + strconv.Quote(validate) + `]}}}`
		if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	cases := map[string]struct {
		want []string
		args []string
	}{
		"acp exec silent": {[]string{"within 400ms (--request-timeout bounds the hello", "the validate command (sh -c sleep 1000) did not finish before the hello's deadline"},
			[]string{"--suite", "acp", "--target", "exec", "--target-config", acpConfig("sleep 1000")}},
		"acp exec killed": {[]string{"the validate command (sh -c kill -SEGV $$) could not be run: validate was killed by a signal (segmentation fault)"},
			[]string{"--suite", "acp", "--target", "exec", "--target-config", acpConfig("kill -SEGV $$")}},
		"acp exec not found": {[]string{"the validate command (sh -c no-such-validator-anywhere) exited with status 127, which is the shell saying it could not find or run a program", "not found"},
			[]string{"--suite", "acp", "--target", "exec", "--target-config", acpConfig("no-such-validator-anywhere")}},
		"kungfu stdio true": {[]string{`the implementation "true" did not answer sifu's hello: the implementation exited with status 0; it wrote nothing on standard error`},
			[]string{"--suite", "kungfu", "--target", "stdio", "--cmd", "true"}},
		"kungfu stdio garbage": {[]string{`the implementation "echo garbage" did not answer sifu's hello: the implementation wrote a line that is not a binding answer: "garbage"`},
			[]string{"--suite", "kungfu", "--target", "stdio", "--cmd", "echo garbage"}},
		"kungfu stdio silent": {[]string{"within 400ms (--request-timeout bounds the hello", `the implementation "sleep 1000" gave no answer to sifu's hello in time`},
			[]string{"--suite", "kungfu", "--target", "stdio", "--cmd", "sleep 1000"}},
		"kungfu http silent": {[]string{"within 400ms (--request-timeout bounds the hello", "the server at http://" + silent + " gave no answer to GET /kungfu/v1/hello in time"},
			[]string{"--suite", "kungfu", "--target", "http", "--url", "http://" + silent}},
		"kungfu http garbage": {[]string{"http://" + garbage + "/kungfu/v1/hello", "malformed HTTP"},
			[]string{"--suite", "kungfu", "--target", "http", "--url", "http://" + garbage}},
		"agentkit http closed": {[]string{"the gateway at http://" + closed + " did not answer GET /healthz (is it running there, and is --url right?)", "connection refused"},
			[]string{"--suite", "agentkit", "--target", "http", "--url", "http://" + closed, "--target-config", stubConfig()}},
		"agentkit http silent": {[]string{"the gateway at http://" + silent, "GET /healthz"},
			[]string{"--suite", "agentkit", "--target", "http", "--url", "http://" + silent, "--target-config", stubConfig()}},
		"agentkit http garbage": {[]string{"the gateway at http://" + garbage + " did not answer GET /healthz", "malformed HTTP"},
			[]string{"--suite", "agentkit", "--target", "http", "--url", "http://" + garbage, "--target-config", stubConfig()}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			unreachableRun(t, c.want, c.args...)
		})
	}
}

// TestKCPServeThatCannotStartIsUnreachable: a planner command line that
// plans but whose serve exits, or cannot bind its port, ends a run with
// serve checks before any check, with one message (exit 2).
func TestKCPServeThatCannotStartIsUnreachable(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		snippet string
		want    []string
	}{
		"exits":       {`echo "no serve here" >&2; exit 3`, []string{"the serve checks cannot run", "exited with status 3 before answering GET /health", `"no serve here"`, "run it by hand"}},
		"port in use": {`echo "Error: listen EADDRINUSE: address already in use :::$2" >&2; exit 1`, []string{"the serve checks cannot run", "the port was already in use", "free loopback ports"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cmd := `f() { case "$*" in *sifu-probe*) echo '{"kind":"plan","schemaVersion":1}';; serve*) ` + c.snippet + `;; esac; }; f`
			unreachableRun(t, c.want, "--suite", "kcp", "--target", "exec", "--cmd", cmd, "--profile", "serve")
		})
	}
}
