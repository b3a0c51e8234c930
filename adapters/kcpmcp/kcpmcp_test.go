//go:build unix

package kcpmcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/reference/kcpref/kcpcli"
	"github.com/sifu-dev/sifu/suite/kcp"
)

// TestMain lets the test binary be the reference's MCP server
// (SIFU_KCP_MCP_HELPER=1), so Start drives a real process.
func TestMain(m *testing.M) {
	if os.Getenv("SIFU_KCP_MCP_HELPER") == "1" {
		os.Exit(kcpcli.CLI{Name: "sifu-kcp", Stdout: os.Stdout, Stderr: os.Stderr}.Main([]string{"mcp"}))
	}
	os.Exit(m.Run())
}

func helper() string { return fmt.Sprintf("SIFU_KCP_MCP_HELPER=1 %q", os.Args[0]) }

// TestStartProbesAnMCPServer: the reference's server passes the probe and
// names itself; a command that is no MCP server is said so, naming the
// command and what it wrote; one that never answers ends at the timeout.
func TestStartProbesAnMCPServer(t *testing.T) {
	s, err := Start(context.Background(), helper(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	h, _ := s.Hello(context.Background())
	if h.Implementation != kcpcli.Implementation || len(s.tools) != 5 {
		t.Errorf("hello %v, %d tools", h, len(s.tools))
	}
	s.Close()
	for cmd, want := range map[string]string{
		"cat":                        `the command "cat" is not an MCP server over stdio: it did not complete MCP's initialize handshake`,
		"true":                       `the command "true" is not an MCP server over stdio`,
		"echo oops >&2; exit 3":      `it wrote "oops" on standard error`,
		"no-such-mcp-server-anyhere": `not found`,
	} {
		_, err := Start(context.Background(), cmd, 5*time.Second)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", cmd, err, want)
		}
	}
	_, err = Start(context.Background(), "sleep 1000", 200*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "--request-timeout (200ms) bounds the start-up") {
		t.Errorf("a silent command: %v", err)
	}
}

// TestPlanGoesThroughKCPPlan: a plan request becomes a kcp_plan call over a
// written manifest, and its plan is the tree's; an option kcp_plan cannot
// express makes the check untestable, naming the option.
func TestPlanGoesThroughKCPPlan(t *testing.T) {
	s, err := Start(context.Background(), helper(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	manifest := "project: p\nversion: \"1\"\nunits:\n  - id: award\n    path: a.md\n    intent: compute the award\n"
	plan, err := s.Plan(context.Background(), kcp.PlanRequest{Name: "v", Manifest: manifest, Task: "award", Options: map[string]any{"asOf": "2026-07-01", "capabilities": map[string]any{"paymentMethods": []any{"free", "x402"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if sel, _ := plan["selected"].([]any); len(sel) != 1 || plan["asOf"] != "2026-07-01" {
		t.Errorf("plan %v", plan)
	}
	_, err = s.Plan(context.Background(), kcp.PlanRequest{Name: "v", Manifest: manifest, Task: "award", Options: map[string]any{"grantCeiling": "observe"}})
	if !errors.Is(err, engine.ErrUnsupported) || !strings.Contains(err.Error(), "grantCeiling") {
		t.Errorf("grantCeiling: %v", err)
	}
	_, err = s.Plan(context.Background(), kcp.PlanRequest{Name: "v", Manifest: "units: [\n", Task: "award"})
	var refusal *kcp.Refusal
	if !errors.As(err, &refusal) || !strings.Contains(refusal.Message, "parse failed") {
		t.Errorf("a broken manifest: %v", err)
	}
}

func TestArgumentsMapTheOptions(t *testing.T) {
	args, err := Arguments("t", map[string]any{"env": "prod", "asOf": "2026-01-01", "maxUnits": 2.0, "strict": true, "contextBudget": 10.0,
		"budget":       map[string]any{"amount": 0.5, "currency": "EURC"},
		"capabilities": map[string]any{"role": "human", "attestationProvider": "p", "paymentMethods": []any{"free"}, "credentials": []any{"a,b"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"task": "t", "env": "prod", "as_of": "2026-01-01", "max_units": 2.0, "strict": true, "context_budget": 10.0,
		"budget": 0.5, "currency": "EURC", "role": "human", "attest": "p", "methods": []any{"free"}, "credentials": []any{"a,b"}}
	if fmt.Sprint(args) != fmt.Sprint(want) {
		t.Errorf("got %v\nwant %v", args, want)
	}
	for opts, want := range map[string]map[string]any{
		"budget.spent":            {"budget": map[string]any{"spent": 1.0}},
		"option spend":            {"spend": map[string]any{}},
		"empty capabilities.role": {"capabilities": map[string]any{"role": ""}},
	} {
		if _, err := Arguments("t", want); err == nil || !strings.Contains(err.Error(), opts) {
			t.Errorf("%s: %v", opts, err)
		}
	}
}
