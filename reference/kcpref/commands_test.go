package kcpref

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// plannerVectors are the corpus's planner vectors (vectors/kcp/*.json).
func plannerVectors(t *testing.T) []struct {
	Name, Manifest, Task string
	Options              Options
} {
	t.Helper()
	files, _ := filepath.Glob("../../vectors/kcp/*.json")
	var out []struct {
		Name, Manifest, Task string
		Options              Options
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v struct {
			Name, Manifest, Task string
			Options              Options
		}
		if json.Unmarshal(raw, &v) == nil && v.Manifest != "" {
			out = append(out, v)
		}
	}
	if len(out) < 80 {
		t.Fatalf("only %d planner vectors", len(out))
	}
	return out
}

// TestTheTraceAgreesWithThePlan: over every planner vector, a unit the
// trace selects is one the plan selects, a skipped unit says which gate
// refused it (its last, the only failed one), and the summary counts every
// gate step.
func TestTheTraceAgreesWithThePlan(t *testing.T) {
	for _, v := range plannerVectors(t) {
		m, err := ParseManifest([]byte(v.Manifest))
		if err != nil {
			continue
		}
		tr := PlanTrace(v.Task, m, v.Options)
		var selected []string
		for _, s := range tr.Plan.Selected {
			selected = append(selected, s.ID)
		}
		ids := map[string]int{}
		for _, u := range m.Units {
			ids[u.ID]++
		}
		for _, u := range tr.Units {
			if ids[u.ID] > 1 {
				continue // duplicate ids: the plan cannot tell the units apart
			}
			failed := slices.IndexFunc(u.Gates, func(g GateStep) bool { return !g.Passed })
			switch {
			case u.Outcome == "selected" && (!slices.Contains(selected, u.ID) || failed >= 0 || len(u.Gates) != len(TraceGates)):
				t.Errorf("%s: %s selected by the trace (%d gates, first failed %d) but the plan selects %v", v.Name, u.ID, len(u.Gates), failed, selected)
			case u.Outcome == "skipped" && (slices.Contains(selected, u.ID) || failed != len(u.Gates)-1 || u.Gates[failed].Gate != u.RejectedBy):
				t.Errorf("%s: %s skipped by the trace at %q but its gates are %+v", v.Name, u.ID, u.RejectedBy, u.Gates)
			}
		}
		var doc struct {
			Kind        string `json:"kind"`
			GateSummary []struct {
				Gate           string
				Passed, Failed int
			} `json:"gateSummary"`
		}
		if err := json.Unmarshal(TraceJSON(tr, Envelope{}), &doc); err != nil || doc.Kind != "trace" || len(doc.GateSummary) != len(TraceGates) {
			t.Errorf("%s: trace JSON %+v (%v)", v.Name, doc, err)
		}
	}
}

// TestTheTraceJudgesEachUnitByItself: where ids repeat, the trace walks
// each unit with its own size, and gives each the outcome of its id in the
// plan, with its own size, price and action scope when that id is
// selected (kcp-agent 0.27.0's plan --trace --json of this manifest).
func TestTheTraceJudgesEachUnitByItself(t *testing.T) {
	m := mustParse(t, `
units:
  - {id: a, path: a1.md, intent: foo guide, size_tokens: 10, kind: skill, load_eligible: true, action_scope: {tools: [t1]},
     payment: {methods: [{type: x402, price_per_request: 0.1, currency: USDC}]}}
  - {id: a, path: a2.md, intent: bar, size_tokens: 20, kind: skill, load_eligible: true, action_scope: {tools: [t2]},
     payment: {methods: [{type: x402, price_per_request: 0.2, currency: USDC}]}}
  - {id: b, path: b.md, intent: foo, bytes: 400}
`)
	ceiling := 1000.0
	tr := PlanTrace("foo", m, Options{AsOf: asOf, ContextBudget: &ceiling, Capabilities: Capabilities{PaymentMethods: []string{"free", "x402"}}})
	detail := func(u TracedUnit, gate string) string {
		for _, g := range u.Gates {
			if g.Gate == gate {
				return g.Detail
			}
		}
		return ""
	}
	type row struct {
		Outcome, RejectedBy, Context string
		Tokens                       float64
		Cost, Scope                  string
	}
	var got []row
	for _, u := range tr.Units {
		r := row{Outcome: u.Outcome, RejectedBy: u.RejectedBy, Context: detail(u, "context_budget")}
		if u.Tokens != nil && u.Tokens.Value != nil {
			r.Tokens = *u.Tokens.Value
		}
		if u.Cost != nil {
			r.Cost = string(render(u.Cost))
		}
		if u.ActionScope != nil {
			r.Scope = string(render(u.ActionScope))
		}
		got = append(got, r)
	}
	cost := func(x string) string {
		return "{\n  \"amount\": " + x + ",\n  \"currency\": \"USDC\",\n  \"method\": \"x402\"\n}\n"
	}
	scope := func(tool string) string {
		return "{\n  \"tools\": [\n    \"" + tool + "\"\n  ],\n  \"paths\": [],\n  \"capabilities\": []\n}\n"
	}
	want := []row{
		{"selected", "", "10 tokens (10 of 1,000 used)", 10, cost("0.1"), scope("t1")},
		{"selected", "relevance", "", 20, cost("0.2"), scope("t2")},
		{"selected", "", "100 tokens (110 of 1,000 used)", 100, "", ""},
	}
	if !slices.Equal(got, want) {
		t.Errorf("trace units:\n got %+v\nwant %+v", got, want)
	}
}

// TestReplayOfAnUntouchedPlanIsIdentical: every planner vector's plan, as
// plan --json prints it with a correlation id, replays identical over the
// same bytes; an edited field and changed bytes drift, naming them.
func TestReplayOfAnUntouchedPlanIsIdentical(t *testing.T) {
	for _, v := range plannerVectors(t) {
		m, err := ParseManifest([]byte(v.Manifest))
		if err != nil {
			continue
		}
		m.Source = v.Name + ".yaml"
		sig := SignatureResult{Status: SignatureUnsigned, Detail: "manifest declares no signature"}
		var saved map[string]any
		if err := json.Unmarshal(PlanJSON(Plan(v.Task, m, v.Options), Envelope{Signature: &sig, CorrelationID: "run-1"}), &saved); err != nil {
			t.Fatal(err)
		}
		if c := ReplayPlan(saved, m, sig, nil); c.Status != ReplayIdentical {
			t.Errorf("%s: an untouched plan replays %s: %s", v.Name, c.Status, c.Detail)
		}
		saved["warnings"] = []any{"edited"}
		if c := ReplayPlan(saved, m, sig, nil); c.Status != ReplayDrifted || !slices.Equal(c.Fields, []string{"warnings"}) {
			t.Errorf("%s: an edited plan replays %+v", v.Name, c)
		}
		if c := ReplayPlan(saved, m, sig, []Fault{FaultReplayDriftIgnored}); c.Status != ReplayIdentical {
			t.Errorf("%s: the planted fault did not hide the drift: %+v", v.Name, c)
		}
		m.SHA256 = strings.Repeat("0", 64)
		if c := ReplayPlan(saved, m, sig, nil); c.Status != ReplayDrifted || !strings.HasPrefix(c.Detail, "manifest bytes changed: sha256 000000000000… ≠ saved ") {
			t.Errorf("%s: changed bytes replay %+v", v.Name, c)
		}
	}
}

// TestDiffOfAPlanWithItselfIsIdentical, and with an edited copy names
// each change once. (A plan that both selects and skips one id is not
// identical to itself, in kcp-agent's diff either.)
func TestDiffOfAPlanWithItselfIsIdentical(t *testing.T) {
	for _, v := range plannerVectors(t) {
		m, err := ParseManifest([]byte(v.Manifest))
		if err != nil || v.Name == "hazard-supersession-duplicate-successor" {
			continue
		}
		var a, b map[string]any
		raw := PlanJSON(Plan(v.Task, m, v.Options), Envelope{})
		json.Unmarshal(raw, &a)
		json.Unmarshal(raw, &b)
		if d := DiffPlans(a, b); !d.Identical() || d.ExitCode() != ExitOK {
			t.Errorf("%s: a plan differs from itself: %+v", v.Name, d)
		}
		b["warnings"] = append(b["warnings"].([]any), "new")
		if d := DiffPlans(a, b); d.Identical() || !slices.Equal(d.Added, []string{"new"}) || len(d.Removed) != 0 || d.ExitCode() != ExitFailure {
			t.Errorf("%s: an added warning diffs as %+v", v.Name, d)
		}
	}
}
