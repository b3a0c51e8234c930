package kcpref

import (
	"reflect"
	"slices"
)

// PlanDiff is `kcp-agent diff a b`: how plan b differs from plan a, unit
// by unit, in the budgets and in the warnings.
type PlanDiff struct {
	A, B          PlanHeader
	Moves         []UnitMove
	ScoreChanges  []ScoreChange
	Presence      []Presence
	BudgetShifts  []BudgetShift
	ReasonChanges []ReasonChange
	Added         []string // warnings b has and a has not
	Removed       []string // warnings a has and b has not
}

// PlanHeader names a plan: its manifest's project and version, its task
// and date.
type PlanHeader struct{ Project, Version, Task, AsOf string }

// UnitMove is a unit selected in one plan and skipped in the other.
type UnitMove struct {
	ID             string
	SelectedToSkip bool
	Score          float64 // on the selected side
	Reason         string  // on the skipped side
}

// ScoreChange is a unit selected in both plans with another score.
type ScoreChange struct {
	ID            string
	Before, After float64
}

// Presence is a unit only one plan mentions.
type Presence struct {
	ID    string
	AOnly bool
}

// BudgetShift is a budget or context figure that differs; a nil side is
// a figure that plan does not have.
type BudgetShift struct {
	Field         string
	Before, After any
}

// ReasonChange is a unit skipped in both plans for another reason.
type ReasonChange struct{ ID, Before, After string }

// Identical is true when nothing differs.
func (d PlanDiff) Identical() bool {
	return len(d.Moves)+len(d.ScoreChanges)+len(d.Presence)+len(d.BudgetShifts)+len(d.ReasonChanges)+len(d.Added)+len(d.Removed) == 0
}

// ExitCode is ExitOK for identical plans, else ExitFailure.
func (d PlanDiff) ExitCode() int {
	if d.Identical() {
		return ExitOK
	}
	return ExitFailure
}

// planUnits is one plan's units: scores of the selected, reasons of the
// skipped, and every id in the plan's order (selected, then skipped).
type planUnits struct {
	score  map[string]float64
	reason map[string]string
	order  []string
}

func unitsOf(plan map[string]any) planUnits {
	u := planUnits{score: map[string]float64{}, reason: map[string]string{}}
	add := func(id string) {
		if !slices.Contains(u.order, id) {
			u.order = append(u.order, id)
		}
	}
	for _, e := range list(plan["selected"]) {
		o, _ := e.(map[string]any)
		id, _ := o["id"].(string)
		u.score[id], _ = o["score"].(float64)
		add(id)
	}
	for _, e := range list(plan["skipped"]) {
		o, _ := e.(map[string]any)
		id, _ := o["id"].(string)
		u.reason[id], _ = o["reason"].(string)
		add(id)
	}
	return u
}

func list(v any) []any { l, _ := v.([]any); return l }

func header(plan map[string]any) PlanHeader {
	m, _ := plan["manifest"].(map[string]any)
	h := PlanHeader{}
	h.Project, _ = m["project"].(string)
	h.Version, _ = m["version"].(string)
	h.Task, _ = plan["task"].(string)
	h.AsOf, _ = plan["asOf"].(string)
	return h
}

// budgetFields are the figures diff compares, in its order.
var budgetFields = []struct{ block, field string }{
	{"budget", "ceiling"}, {"budget", "projectedSpend"}, {"budget", "remaining"},
	{"context", "ceiling"}, {"context", "projectedTokens"}, {"context", "remaining"},
}

// DiffPlans compares two saved plans (decoded JSON).
func DiffPlans(a, b map[string]any) PlanDiff {
	d := PlanDiff{A: header(a), B: header(b)}
	ua, ub := unitsOf(a), unitsOf(b)
	// One move per id, selected-to-skipped first (a duplicate id may be
	// both selected and skipped in one plan).
	for _, id := range ua.order {
		if s, ok := ua.score[id]; ok {
			if r, ok := ub.reason[id]; ok {
				d.Moves = append(d.Moves, UnitMove{ID: id, SelectedToSkip: true, Score: s, Reason: r})
				continue
			}
		}
		if r, ok := ua.reason[id]; ok {
			if s, ok := ub.score[id]; ok {
				d.Moves = append(d.Moves, UnitMove{ID: id, Score: s, Reason: r})
			}
		}
	}
	for _, id := range ua.order {
		if s, ok := ua.score[id]; ok {
			if t, ok := ub.score[id]; ok && s != t {
				d.ScoreChanges = append(d.ScoreChanges, ScoreChange{ID: id, Before: s, After: t})
			}
		}
	}
	for _, id := range ua.order {
		if !slices.Contains(ub.order, id) {
			d.Presence = append(d.Presence, Presence{ID: id, AOnly: true})
		}
	}
	for _, id := range ub.order {
		if !slices.Contains(ua.order, id) {
			d.Presence = append(d.Presence, Presence{ID: id})
		}
	}
	for _, f := range budgetFields {
		ba, _ := a[f.block].(map[string]any)
		bb, _ := b[f.block].(map[string]any)
		va, vb := ba[f.field], bb[f.field]
		if !reflect.DeepEqual(va, vb) {
			d.BudgetShifts = append(d.BudgetShifts, BudgetShift{Field: f.block + "." + f.field, Before: va, After: vb})
		}
	}
	for _, id := range ua.order {
		if r, ok := ua.reason[id]; ok {
			if t, ok := ub.reason[id]; ok && r != t {
				d.ReasonChanges = append(d.ReasonChanges, ReasonChange{ID: id, Before: r, After: t})
			}
		}
	}
	wa, wb := stringList(a["warnings"]), stringList(b["warnings"])
	d.Added, d.Removed = []string{}, []string{}
	for _, w := range wb {
		if !slices.Contains(wa, w) {
			d.Added = append(d.Added, w)
		}
	}
	for _, w := range wa {
		if !slices.Contains(wb, w) {
			d.Removed = append(d.Removed, w)
		}
	}
	return d
}

func stringList(v any) []string {
	var out []string
	for _, e := range list(v) {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// DiffJSON renders `diff --json`.
func DiffJSON(d PlanDiff) []byte {
	head := func(h PlanHeader) *jsonObject {
		return (&jsonObject{}).put("project", h.Project).put("version", h.Version).put("task", h.Task).put("asOf", h.AsOf)
	}
	moves := []any{}
	for _, m := range d.Moves {
		sel := (&jsonObject{}).put("score", m.Score)
		skip := (&jsonObject{}).put("reason", m.Reason)
		o := (&jsonObject{}).put("id", m.ID)
		if m.SelectedToSkip {
			o.put("direction", "selected_to_skipped").put("from", sel).put("to", skip)
		} else {
			o.put("direction", "skipped_to_selected").put("from", skip).put("to", sel)
		}
		moves = append(moves, o)
	}
	scores := []any{}
	for _, s := range d.ScoreChanges {
		scores = append(scores, (&jsonObject{}).put("id", s.ID).put("before", s.Before).put("after", s.After).put("delta", s.After-s.Before))
	}
	presence := []any{}
	for _, p := range d.Presence {
		side := "b_only"
		if p.AOnly {
			side = "a_only"
		}
		presence = append(presence, (&jsonObject{}).put("id", p.ID).put("side", side))
	}
	shifts := []any{}
	for _, s := range d.BudgetShifts {
		shifts = append(shifts, (&jsonObject{}).put("field", s.Field).putIf(s.Before != nil, "before", jsonValue(s.Before)).putIf(s.After != nil, "after", jsonValue(s.After)))
	}
	reasons := []any{}
	for _, r := range d.ReasonChanges {
		reasons = append(reasons, (&jsonObject{}).put("id", r.ID).put("before", r.Before).put("after", r.After))
	}
	root := (&jsonObject{}).put("a", head(d.A)).put("b", head(d.B)).put("identical", d.Identical()).
		put("moves", moves).put("scoreChanges", scores).put("presence", presence).put("budgetShifts", shifts).
		put("reasonChanges", reasons).put("warningChanges", (&jsonObject{}).put("added", d.Added).put("removed", d.Removed))
	return render(root)
}

// jsonValue turns decoded JSON into what jsonWrite writes.
func jsonValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		o := &jsonObject{}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			o.put(k, jsonValue(x[k]))
		}
		return o
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonValue(e)
		}
		return out
	}
	return v
}
