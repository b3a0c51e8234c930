package kcp

// ProjectOptions choose what Project keeps beyond the VectorOutcome.
type ProjectOptions struct {
	// Reasons keeps each selected unit's reasons (sifu's extension of the
	// outcome: the upstream format records only id, loadEligible and
	// score for a selected unit).
	Reasons bool
	// Governance keeps the governance blocks of selected and skipped
	// units (authority, spend, grantRequests, prohibitedAttempts) where
	// the plan has them (sifu's extension too).
	Governance bool
}

// GovernanceKeys are the governance blocks a unit of a plan may carry.
var GovernanceKeys = []string{"authority", "spend", "grantRequests", "prohibitedAttempts"}

// Project reduces a full plan (the library's plan object, or the JSON a
// planner CLI prints with --json) to the VectorOutcome object the vectors
// compare: selected, skipped, federation, trust, budget, context and
// warnings, each with only the keys the outcome defines, present only
// when the plan has them.
func Project(plan map[string]any, o ProjectOptions) map[string]any {
	out := map[string]any{}
	selectedKeys := []string{"id", "loadEligible", "score"}
	skippedKeys := []string{"id", "reason"}
	if o.Reasons {
		selectedKeys = append(selectedKeys, "reasons")
	}
	if o.Governance {
		selectedKeys = append(selectedKeys, GovernanceKeys...)
		skippedKeys = append(skippedKeys, GovernanceKeys...)
	}
	out["selected"] = pickAll(plan["selected"], selectedKeys...)
	out["skipped"] = pickAll(plan["skipped"], skippedKeys...)
	out["federation"] = pickAll(plan["federation"], "id", "selected", "reason", "credentialNeeded")
	if t, ok := plan["trust"].(map[string]any); ok {
		out["trust"] = pick(t, "requiresAttestation", "agentCanAttest")
	}
	if b, ok := plan["budget"].(map[string]any); ok {
		out["budget"] = pick(b, "rateTier", "ceiling", "projectedSpend", "remaining", "currency")
	}
	if c, ok := plan["context"].(map[string]any); ok {
		out["context"] = pick(c, "ceiling", "projectedTokens", "remaining", "approximate", "unmeasured")
	}
	if w, ok := plan["warnings"].([]any); ok {
		out["warnings"] = w
	} else {
		out["warnings"] = []any{}
	}
	return out
}

// ProjectVerdict reduces a confidence-gate verdict to what the assess
// vectors compare: passed, score, threshold, severity (when set), the
// signals' source and score, and detail.
func ProjectVerdict(v map[string]any) map[string]any {
	out := pick(v, "passed", "score", "threshold", "severity", "detail")
	out["signals"] = pickAll(v["signals"], "source", "score")
	return out
}

func pick(m map[string]any, keys ...string) map[string]any {
	out := map[string]any{}
	for _, k := range keys {
		if v, ok := m[k]; ok && v != nil {
			out[k] = v
		}
	}
	return out
}

func pickAll(v any, keys ...string) []any {
	list, _ := v.([]any)
	out := make([]any, 0, len(list))
	for _, e := range list {
		if m, ok := e.(map[string]any); ok {
			out = append(out, pick(m, keys...))
		}
	}
	return out
}
