package kcpexec

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/suite/kcp"
)

func TestFlags(t *testing.T) {
	args, err := Flags("t", map[string]any{"asOf": "2026-07-06", "strict": true, "budget": map[string]any{"amount": 0.25},
		"capabilities": map[string]any{"paymentMethods": []any{"free", "x402"}}})
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(args, " ")
	for _, want := range []string{"--task t", "--as-of 2026-07-06", "--strict", "--budget 0.25", "--methods free,x402"} {
		if !strings.Contains(joined, want) {
			t.Errorf("%q lacks %q", joined, want)
		}
	}
	for name, opts := range map[string]map[string]any{
		"spent":      {"budget": map[string]any{"amount": 1.0, "spent": 0.5}},
		"spend":      {"spend": map[string]any{"amount": 1.0}},
		"comma item": {"capabilities": map[string]any{"credentials": []any{"a,b"}}},
		"empty role": {"capabilities": map[string]any{"role": ""}},
		"grant":      {"grantCeiling": "observe"},
	} {
		if _, err := Flags("t", opts); err == nil {
			t.Errorf("%s: an option without a flag was accepted", name)
		}
	}
	if _, err := Flags("", nil); err == nil {
		t.Error("an empty task has no command-line form")
	}
}

// TestBrokenPlanners: garbage output is a harness error; a refusal (exit 1)
// is the planner's answer; a hang ends at the deadline; options without a
// flag are untestable.
func TestBrokenPlanners(t *testing.T) {
	req := kcp.PlanRequest{Name: "v", Manifest: "project: p\n", Task: "t", Options: map[string]any{}}
	var ae *engine.AdapterError
	if _, err := (Planner{Command: `echo "not json"; true`}).Plan(context.Background(), req); !errors.As(err, &ae) {
		t.Errorf("garbage: %v", err)
	}
	if _, err := (Planner{Command: `echo '{"kind":"tree","schemaVersion":1}'; true`}).Plan(context.Background(), req); !errors.As(err, &ae) {
		t.Errorf("not a plan: %v", err)
	}
	var refusal *kcp.Refusal
	if _, err := (Planner{Command: `echo "kcp-agent: m.yaml: parse failed: bad" >&2; exit 1; true`}).Plan(context.Background(), req); !errors.As(err, &refusal) || !strings.Contains(refusal.Message, "parse failed") {
		t.Errorf("refusal: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := (Planner{Command: `sleep 5; true`}).Plan(ctx, req); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("hang: %v", err)
	}
	req.Options = map[string]any{"action": map[string]any{"tool": "x"}}
	if _, err := (Planner{Command: "true"}).Plan(context.Background(), req); !errors.Is(err, engine.ErrUnsupported) {
		t.Errorf("unsupported option: %v", err)
	}
}
