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
