package kcpref

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Replay statuses.
const (
	ReplayIdentical = "identical"
	ReplayDrifted   = "drifted"
	ReplayError     = "error"
)

// ReplayCheck is replay's verdict on one saved plan.
type ReplayCheck struct {
	Source, Project string
	Status          string
	Detail          string
	// Fields are the plan's top-level fields that differ, sorted (a
	// drifted plan over unchanged bytes only).
	Fields []string
}

// Replay is the result of `kcp-agent replay <artifact>`.
type Replay struct {
	Artifact string
	Checks   []ReplayCheck
}

// OK is true when every check is identical.
func (r Replay) OK() bool {
	return !slices.ContainsFunc(r.Checks, func(c ReplayCheck) bool { return c.Status != ReplayIdentical })
}

// ExitCode is ExitOK when every saved plan reproduced, else ExitFailure.
func (r Replay) ExitCode() int {
	if r.OK() {
		return ExitOK
	}
	return ExitFailure
}

// envelopeFields are the members `plan --json` adds around the plan; they
// are no planner output, so replay does not compare them (a caller's
// correlationId included: it is echoed, not planned).
var envelopeFields = []string{"schemaVersion", "kind", "signature", "correlationId"}

// IsPlanArtifact reports whether decoded JSON is a saved plan: an object
// with a manifest block and a selected list.
func IsPlanArtifact(v any) bool {
	o, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, manifest := o["manifest"].(map[string]any)
	_, selected := o["selected"].([]any)
	return manifest && selected
}

// TreePlans are the saved plans of an artifact: the plan itself, or every
// plan of a --follow tree in walk order (nodes that could not be read have
// none); nil when the artifact is neither.
func TreePlans(v any) []map[string]any {
	if IsPlanArtifact(v) {
		return []map[string]any{v.(map[string]any)}
	}
	o, ok := v.(map[string]any)
	if _, children := o["children"].([]any); !ok || !children || !IsPlanArtifact(o["plan"]) {
		return nil
	}
	var plans []map[string]any
	var walk func(n map[string]any)
	walk = func(n map[string]any) {
		if IsPlanArtifact(n["plan"]) {
			plans = append(plans, n["plan"].(map[string]any))
		}
		children, _ := n["children"].([]any)
		for _, c := range children {
			if cn, ok := c.(map[string]any); ok {
				walk(cn)
			}
		}
	}
	walk(o)
	return plans
}

// SavedSource is the manifest source and project a saved plan names.
func SavedSource(saved map[string]any) (source, project string) {
	m, _ := saved["manifest"].(map[string]any)
	source, _ = m["source"].(string)
	project, _ = m["project"].(string)
	return source, project
}

// ReplayPlan re-plans a saved plan (decoded JSON) over the manifest as it
// is now (m, parsed from raw; its Source the saved source) and the
// inputs the plan echoes (task, asOf, environment, options), and says
// whether the bytes and the plan are the same. sig is the manifest's
// signature verdict now; it is not compared.
func ReplayPlan(saved map[string]any, m Manifest, sig SignatureResult, faults []Fault) ReplayCheck {
	source, project := SavedSource(saved)
	c := ReplayCheck{Source: source, Project: project}
	ignore := hasFault(faults, FaultReplayDriftIgnored)
	savedManifest, _ := saved["manifest"].(map[string]any)
	if sha, _ := savedManifest["sha256"].(string); sha != m.SHA256 && !ignore {
		c.Status = ReplayDrifted
		c.Detail = "manifest bytes changed: sha256 " + prefix12(m.SHA256) + "… ≠ saved " + prefix12(sha) + "…"
		return c
	}
	var opts Options
	if raw, err := json.Marshal(saved["options"]); err == nil {
		_ = json.Unmarshal(raw, &opts)
	}
	if env, ok := saved["environment"].(string); ok {
		opts.Env = &env
	}
	opts.AsOf, _ = saved["asOf"].(string)
	if hasFault(faults, FaultReplayContextBudgetDropped) {
		opts.ContextBudget = nil
	}
	task, _ := saved["task"].(string)
	p := Plan(task, m, opts)
	var now map[string]any
	_ = json.Unmarshal(PlanJSON(p, Envelope{Signature: &sig}), &now)
	var fields []string
	for _, k := range unionKeys(saved, now) {
		if !slices.Contains(envelopeFields, k) && !reflect.DeepEqual(saved[k], now[k]) {
			fields = append(fields, k)
		}
	}
	if len(fields) > 0 && !ignore {
		c.Status, c.Detail, c.Fields = ReplayDrifted, "plan differs in: "+strings.Join(fields, ", "), fields
		return c
	}
	c.Status = ReplayIdentical
	c.Detail = strconv.Itoa(len(p.Selected)) + " selected, " + strconv.Itoa(len(p.Skipped)) +
		" skipped — plan reproduced byte-identically, manifest sha256 matches"
	return c
}

func prefix12(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

func unionKeys(a, b map[string]any) []string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// ReplayJSON renders `replay --json`: {artifact, checks[{source, project,
// status, detail, fields?}], ok}.
func ReplayJSON(r Replay) []byte {
	checks := make([]any, len(r.Checks))
	for i, c := range r.Checks {
		o := (&jsonObject{}).put("source", c.Source).put("project", c.Project).put("status", c.Status).put("detail", c.Detail)
		o.putIf(len(c.Fields) > 0, "fields", c.Fields)
		checks[i] = o
	}
	return render((&jsonObject{}).put("artifact", r.Artifact).put("checks", checks).put("ok", r.OK()))
}
