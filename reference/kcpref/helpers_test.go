package kcpref

import (
	"strings"
	"testing"
)

// asOf is the "today" every test plans at.
const asOf = "2026-07-06"

func ptr[T any](v T) *T { return &v }

// mustParse parses a manifest written with tabs-free, dedented YAML.
func mustParse(t testing.TB, yaml string) Manifest {
	t.Helper()
	m, err := ParseManifest([]byte(yaml))
	if err != nil {
		t.Fatalf("ParseManifest: %v\n%s", err, yaml)
	}
	return m
}

// agentOpts are the options every conformance vector pins: asOf, role
// agent, methods free and x402.
func agentOpts() Options {
	return Options{AsOf: asOf, Capabilities: Capabilities{Role: Str("agent"), PaymentMethods: []string{"free", "x402"}}}
}

func planOf(t testing.TB, yaml, task string, o Options) AgentPlan {
	t.Helper()
	return Plan(task, mustParse(t, yaml), o)
}

// skipReason returns the reason a unit was skipped with, or "" and fails.
func skipReason(t testing.TB, p AgentPlan, id string) string {
	t.Helper()
	for _, s := range p.Skipped {
		if s.ID == id {
			return s.Reason
		}
	}
	t.Fatalf("unit %q not skipped; selected=%v skipped=%v", id, ids(p.Selected), p.Skipped)
	return ""
}

// selectedUnit returns a selected unit or fails.
func selectedUnit(t testing.TB, p AgentPlan, id string) SelectedUnit {
	t.Helper()
	for _, s := range p.Selected {
		if s.ID == id {
			return s
		}
	}
	t.Fatalf("unit %q not selected; selected=%v skipped=%v", id, ids(p.Selected), p.Skipped)
	return SelectedUnit{}
}

func ids(units []SelectedUnit) []string {
	out := make([]string, len(units))
	for i, u := range units {
		out[i] = u.ID
	}
	return out
}

func lastReason(u SelectedUnit) string { return u.Reasons[len(u.Reasons)-1] }

// units builds a manifest whose units are given as YAML list items.
func units(items ...string) string {
	return "project: test\nversion: \"1\"\nunits:\n" + strings.Join(items, "")
}
