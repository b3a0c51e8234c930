package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/kungfuhttp"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/registry"
	"github.com/sifu-dev/sifu/internal/runner"
	kcpsuite "github.com/sifu-dev/sifu/suite/kcp"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

// The binaries the subprocess tests run, built once for the whole test
// binary (TestMain removes them).
var (
	binDir    string
	buildOnce sync.Once
	buildErr  error
)

// buildSifu returns sifu and sifu-kcp built from this checkout, building
// them the first time a test asks.
func buildSifu(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		for _, pkg := range []string{".", "../sifu-kcp"} {
			name := filepath.Base(pkg)
			if pkg == "." {
				name = "sifu"
			}
			if out, err := exec.Command("go", "build", "-o", filepath.Join(binDir, name), pkg).CombinedOutput(); err != nil {
				buildErr = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(binDir, "sifu")
}

// TestMain gives the built binaries a directory of their own.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sifu-test-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// startServe runs `sifu serve kungfu` and waits until it listens.
func startServe(t *testing.T, bin, addr, db string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, "serve", "kungfu", "--addr", addr, "--db", db)
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "serving") {
				ready <- true
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("sifu serve did not start")
	}
	return cmd
}

func statuses(t *testing.T, target runner.Target) map[string]engine.Status {
	t.Helper()
	plan, err := runner.Load(sifu.Assets, kungfu.Suite)
	if err != nil {
		t.Fatal(err)
	}
	run, err := plan.Run(context.Background(), runner.Config{Target: target, TargetName: "x"})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]engine.Status{}
	for _, tc := range run.Tests {
		out[tc.ID] = tc.Status
		if tc.Status != engine.Pass {
			t.Logf("%s: %s: %s", tc.ID, tc.Status, tc.Message)
		}
	}
	return out
}

// TestTransportsAgree runs the whole Kungfu suite in-process, over HTTP
// against a `sifu serve` process with SQLite, and over stdio against
// `sifu serve --stdio` subprocesses, and requires identical results.
func TestTransportsAgree(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildSifu(t)
	inproc, err := registry.Kungfu.Open(registry.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	want := statuses(t, inproc)

	addr := freeAddr(t)
	srv := startServe(t, bin, addr, filepath.Join(t.TempDir(), "kungfu.db"))
	defer srv.Process.Kill()
	overHTTP, err := registry.Kungfu.Open(registry.Spec{Kind: "http", URL: "http://" + addr, RequestTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(t, overHTTP); !reflect.DeepEqual(got, want) {
		t.Errorf("HTTP results differ from in-process: %s", diff(want, got))
	}

	overStdio, err := registry.Kungfu.Open(registry.Spec{Kind: "stdio", Command: bin + " serve kungfu --stdio --db kungfu.db"})
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(t, overStdio); !reflect.DeepEqual(got, want) {
		t.Errorf("stdio results differ from in-process: %s", diff(want, got))
	}
}

func diff(want, got map[string]engine.Status) string {
	var b strings.Builder
	for id, w := range want {
		if got[id] != w {
			fmt.Fprintf(&b, "\n  %s: in-process %s, here %q", id, w, got[id])
		}
	}
	for id := range got {
		if _, ok := want[id]; !ok {
			fmt.Fprintf(&b, "\n  %s: only here", id)
		}
	}
	return b.String()
}

// TestKillAndRestartKeepsEverything kills `sifu serve` with SIGKILL after
// keyed actions and obligations were recorded, starts it again on the same
// database, and checks that facts, obligations, receipts and idempotency
// records survived, and that an agent recovers from its turn alone.
func TestKillAndRestartKeepsEverything(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildSifu(t)
	db := filepath.Join(t.TempDir(), "kungfu.db")
	addr := freeAddr(t)
	srv := startServe(t, bin, addr, db)
	ctx := context.Background()
	c := kungfuhttp.NewClient("http://"+addr, kungfuhttp.ClientOptions{})
	agent := func(name string) string {
		r, err := c.Control(ctx, kungfu.Control{Name: "provision", Params: map[string]any{"name": name}})
		if err != nil || !r.OK {
			t.Fatalf("provision %s: %v %+v", name, err, r)
		}
		return r.Result["agent"].(string)
	}
	must := func(r kungfu.Response, err error) map[string]any {
		t.Helper()
		if err != nil || !r.OK {
			t.Fatalf("%v %+v", err, r.Rejection)
		}
		return r.Result
	}
	alice, bob := agent("alice"), agent("bob")
	create := kungfu.Action{Agent: alice, Name: "memory.create", Key: "m1", Params: map[string]any{"content": "before the crash"}}
	mem := must(c.Act(ctx, create))
	th := must(c.Act(ctx, kungfu.Action{Agent: alice, Name: "thread.create", Key: "t1"}))["thread"]
	secret := must(c.Act(ctx, kungfu.Action{Agent: alice, Name: "thread.admit", Key: "a1", Params: map[string]any{"thread": th}}))["secret"]
	must(c.Act(ctx, kungfu.Action{Agent: bob, Name: "thread.join", Key: "j1", Params: map[string]any{"secret": secret}}))
	post := must(c.Act(ctx, kungfu.Action{Agent: alice, Name: "thread.post", Key: "p1", Params: map[string]any{"thread": th, "memory": mem["memory"]}}))
	turnBefore := must(c.Read(ctx, kungfu.Read{Agent: bob, View: "turn"}))

	if err := srv.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = srv.Wait()
	srv = startServe(t, bin, addr, db)
	defer srv.Process.Kill()

	if got := must(c.Act(ctx, create)); !reflect.DeepEqual(got, mem) {
		t.Errorf("receipt after restart %v, before %v", got, mem)
	}
	again := must(c.Act(ctx, kungfu.Action{Agent: alice, Name: "thread.post", Key: "p1", Params: map[string]any{"thread": th, "memory": mem["memory"]}}))
	if !reflect.DeepEqual(again, post) {
		t.Errorf("post receipt after restart %v, before %v", again, post)
	}
	if r, err := c.Act(ctx, kungfu.Action{Agent: alice, Name: "thread.post", Key: "p1", Params: map[string]any{"thread": th, "memory": "other"}}); err != nil || r.OK || r.Rejection.Reason != "idempotency_conflict" {
		t.Errorf("a conflicting reuse of a key after restart: %+v %v", r, err)
	}
	turnAfter := must(c.Read(ctx, kungfu.Read{Agent: bob, View: "turn"}))
	if !reflect.DeepEqual(turnAfter, turnBefore) || len(turnAfter["items"].([]any)) != 1 {
		t.Errorf("bob's turn after restart %v, before %v", turnAfter, turnBefore)
	}
	item := turnAfter["items"].([]any)[0].(map[string]any)
	ws := must(c.Read(ctx, kungfu.Read{Agent: bob, View: "entry", Params: map[string]any{"thread": item["thread"], "entry": item["entry"]}}))
	if pinned := ws["pinned"].(map[string]any); pinned["content"] != "before the crash" {
		t.Errorf("recovered entry %v", ws)
	}
}

// kcpCommandLine says a KCP check is a command line's: plan-json answers
// and the command vectors (commands, memory, scaffold, ask).
func kcpCommandLine(id string) bool {
	for _, p := range []string{"kcp/cli/", "kcp/commands/", "kcp/memory/", "kcp/scaffold/", "kcp/ask/"} {
		if strings.HasPrefix(id, p) {
			return true
		}
	}
	return false
}

// TestKCPOverTheCommandLine runs the KCP corpus against `sifu kcp` and the
// planner-only `sifu-kcp` as planner commands: every vector the command line
// can express gives the in-process result; the rest (the confidence gate,
// options without a flag) are untestable, never passed silently.
func TestKCPOverTheCommandLine(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildSifu(t)
	plan, err := runner.Load(sifu.Assets, kcpsuite.Suite)
	if err != nil {
		t.Fatal(err)
	}
	results := func(name string, spec registry.Spec) map[string]engine.Status {
		target, err := registry.KCP.Open(spec)
		if err != nil {
			t.Fatal(err)
		}
		defer target.Close()
		run, err := plan.Run(context.Background(), runner.Config{Target: target, TargetName: name, Tags: "~@slow"})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]engine.Status{}
		for _, tc := range run.Tests {
			out[tc.ID] = tc.Status
		}
		return out
	}
	planner := filepath.Join(filepath.Dir(bin), "sifu-kcp")
	want := results("inproc", registry.Spec{})
	for _, command := range []string{bin + " kcp", planner} {
		got := results("exec", registry.Spec{Kind: "exec", Command: command})
		untestable := 0
		for id, w := range want {
			switch {
			case strings.HasPrefix(id, "kcp/mcp/"):
				// An MCP check of a profile the command line claims
				// (signatures, network) is listed, not_applicable; none runs.
				if st, ok := got[id]; ok && st != engine.NotApplicable {
					t.Errorf("%s: the MCP check %s ran against a command line (%s)", filepath.Base(command), id, st)
				}
			case got[id] == engine.Untestable:
				untestable++
			case got[id] != w:
				t.Errorf("%s: in-process %s, through %s %s", id, w, filepath.Base(command), got[id])
			}
		}
		if untestable == 0 || untestable == len(want) {
			t.Errorf("%s: %d of %d checks untestable over the command line", filepath.Base(command), untestable, len(want))
		}
	}
	// As planner runners (detected by their hello), every check runs and
	// gives the in-process result, except the command-line ones (plan-json
	// answers and command vectors, kcpCommandLine), the MCP ones and the serve ones, which
	// are not in a runner's run.
	for _, command := range []string{bin + " kcp --serve", planner + " --serve"} {
		got := results("exec", registry.Spec{Kind: "exec", Command: command})
		for id, w := range want {
			if kcpCommandLine(id) || strings.HasPrefix(id, "kcp/mcp/") || strings.HasPrefix(id, "kcp/serve/") {
				if _, ok := got[id]; ok {
					t.Errorf("%s: the check %s ran against a runner", command, id)
				}
				continue
			}
			if got[id] != w {
				t.Errorf("%s: in-process %s, through %s %s", id, w, command, got[id])
			}
		}
	}
	// As MCP servers, the planner and MCP checks give the in-process
	// result or are untestable (a planner option kcp_plan has no argument
	// for); the command-line (memory, scaffold and ask included), serve
	// and confidence-gate checks (kcp-agent's MCP server has no assess
	// tool) are not in the run.
	for _, command := range []string{bin + " kcp mcp", planner + " mcp"} {
		got := results("mcp", registry.Spec{Kind: "mcp", Command: command})
		untestable := 0
		for id, w := range want {
			switch {
			case kcpCommandLine(id) || strings.HasPrefix(id, "kcp/assess/") || strings.HasPrefix(id, "kcp/serve/"):
				// A command check of a profile the MCP server claims
				// (signatures, network) is listed, not_applicable; none runs.
				if st, ok := got[id]; ok && st != engine.NotApplicable {
					t.Errorf("%s: the check %s ran against an MCP server (%s)", command, id, st)
				}
			case got[id] == engine.Untestable && !strings.HasPrefix(id, "kcp/mcp/"):
				untestable++
			case got[id] != w:
				t.Errorf("%s: in-process %s, through %s %s", id, w, command, got[id])
			}
		}
		if untestable == 0 {
			t.Errorf("%s: no planner check untestable over MCP, though kcp_plan has no argument for spend", command)
		}
	}
}
