package kcpref

import (
	"slices"
	"strconv"
	"strings"
)

// TraceGates are the gates of the decision trace, in cascade order: the
// skip gates, the reductions, then the walk's caps.
var TraceGates = []string{"audience", "not_for", "temporal", "deprecated", "supersession", "relevance",
	"skill_eligibility", "attestation", "payment", "access", "strict", "max_units", "money_budget", "context_budget"}

// GateStep is one gate a unit went through.
type GateStep struct {
	Gate   string
	Passed bool
	Detail string
}

// TracedUnit is one manifest unit's way through the gates.
type TracedUnit struct {
	ID, Path, Intent string
	Outcome          string // "selected" or "skipped"
	Gates            []GateStep
	RejectedBy       string // the failing gate of a skipped unit
	Score            *int   // a unit that reached the reductions
	Tokens           *TraceTokens
}

// TraceTokens is a selected unit's size: declared (size_tokens),
// estimated (bytes/4) or unmeasured (no value).
type TraceTokens struct {
	Value  *float64
	Source string
}

// Trace is `plan --trace`: the plan and every unit's gate cascade.
type Trace struct {
	Plan  AgentPlan
	Units []TracedUnit
}

// PlanTrace plans and explains the plan unit by unit, as `kcp-agent plan
// --trace` does. The plan is Plan's; the trace is derived from it and the
// manifest, so it never disagrees with the plan.
func PlanTrace(task string, m Manifest, opts Options) Trace {
	p := Plan(task, m, opts)
	o := resolveOptions(opts)
	pl := newPlanner(m, o)
	selected := map[string]int{}
	for i, s := range p.Selected {
		if _, ok := selected[s.ID]; !ok {
			selected[s.ID] = i
		}
	}
	skipped := map[string]string{}
	for _, s := range p.Skipped {
		if _, ok := skipped[s.ID]; !ok {
			skipped[s.ID] = s.Reason
		}
	}
	// The reductions of a survivor are Plan's, read off the candidate it
	// made of the unit (selected, or skipped by a ceiling).
	candidates := candidatesOf(task, m, o)
	maxUnits := formatJSNumber(o.maxUnits)
	t := Trace{Plan: p}
	for i := range m.Units {
		u := &m.Units[i]
		tu := TracedUnit{ID: u.ID, Path: u.Path, Intent: u.Intent, Outcome: "skipped"}
		pass := func(gate, detail string) { tu.Gates = append(tu.Gates, GateStep{gate, true, detail}) }
		fail := func(gate, detail string) {
			tu.Gates = append(tu.Gates, GateStep{gate, false, detail})
			tu.RejectedBy = gate
		}
		if !pl.traceCascade(u, p.TaskTerms, pass, fail) {
			t.Units = append(t.Units, tu)
			continue
		}
		c := candidates[i]
		score := c.Score
		tu.Score = &score
		for _, gate := range []string{"skill_eligibility", "attestation", "payment", "access"} {
			pass(gate, reductionDetail(gate, c))
		}
		reason, wasSkipped := skipped[u.ID]
		switch {
		case !o.strict:
			pass("strict", "non-strict mode")
		case wasSkipped && !c.LoadEligible:
			fail("strict", reason)
			t.Units = append(t.Units, tu)
			continue
		default:
			pass("strict", "strict mode: unit is load-eligible")
		}
		pos, isSelected := selected[u.ID]
		switch {
		case isSelected:
			pass("max_units", "position "+strconv.Itoa(pos+1)+" within cap of "+maxUnits)
		case !wasSkipped:
			fail("max_units", "position "+strconv.Itoa(len(p.Selected)+1)+" exceeds cap of "+maxUnits)
			t.Units = append(t.Units, tu)
			continue
		default:
			pass("max_units", "within cap of "+maxUnits)
		}
		if o.budget == nil {
			pass("money_budget", "no budget ceiling set")
		} else if wasSkipped && !strings.HasPrefix(reason, "over context budget") {
			fail("money_budget", reason)
			t.Units = append(t.Units, tu)
			continue
		} else {
			pass("money_budget", "within budget ceiling")
		}
		if o.contextBudget == nil {
			pass("context_budget", "no context budget set")
		} else if wasSkipped {
			fail("context_budget", reason)
			t.Units = append(t.Units, tu)
			continue
		} else {
			pass("context_budget", "within context budget")
		}
		tu.Outcome = "selected"
		tu.RejectedBy = ""
		tokens, approximate, measured := pl.size(u.ID)
		switch {
		case !measured:
			tu.Tokens = &TraceTokens{Source: "unmeasured"}
		case approximate:
			tu.Tokens = &TraceTokens{Value: &tokens, Source: "estimated"}
		default:
			tu.Tokens = &TraceTokens{Value: &tokens, Source: "declared"}
		}
		t.Units = append(t.Units, tu)
	}
	return t
}

// candidatesOf is the candidate Plan makes of each unit that passes the
// cascade (its score, reductions and eligibility), by manifest index.
func candidatesOf(task string, m Manifest, o effective) map[int]SelectedUnit {
	pl := newPlanner(m, o)
	terms := appendTerms(nil, jsLower(task))
	out := map[int]SelectedUnit{}
	for i := range m.Units {
		u := &pl.m.Units[i]
		g := pl.cascade(u, terms)
		if g.skip != "" {
			continue
		}
		pl.reasons = make([]string, 0, 8)
		var s SelectedUnit
		pl.reduce(&s, u, g.score(), g.hits.appendReasons(nil))
		out[i] = s
	}
	return out
}

// traceCascade runs the skip gates with the detail of each, as cascade
// decides them; it reports whether the unit passed them all.
func (pl *planner) traceCascade(u *Unit, terms []string, pass, fail func(gate, detail string)) bool {
	role := pl.o.role
	switch {
	case len(u.Audience) == 0:
		pass("audience", "no audience restriction")
	case slices.Contains(u.Audience, role):
		pass("audience", "role '"+role+"' in "+string(appendJSONStringArray(nil, u.Audience)))
	default:
		fail("audience", "audience "+string(appendJSONStringArray(nil, u.Audience))+" excludes role '"+role+"'")
		return false
	}
	if len(u.NotFor) == 0 {
		pass("not_for", "no not_for declarations")
	} else {
		for _, n := range u.NotFor {
			lower := jsLower(n)
			for _, t := range terms {
				if strings.Contains(lower, t) {
					fail("not_for", "not_for declares it does not serve '"+n+"'")
					return false
				}
			}
		}
		pass("not_for", "task terms do not match "+string(appendJSONStringArray(nil, u.NotFor)))
	}
	t := u.Temporal
	switch {
	case t == nil:
		pass("temporal", "no temporal constraint")
	case t.ValidFrom != "" && compareUTF16(t.ValidFrom, pl.o.asOf) > 0:
		fail("temporal", "not active until "+t.ValidFrom)
		return false
	case t.ValidUntil != "" && compareUTF16(t.ValidUntil, pl.o.asOf) < 0 && t.SupersededBy != "":
		fail("temporal", "expired "+t.ValidUntil+" (superseded by "+t.SupersededBy+")")
		return false
	case t.ValidUntil != "" && compareUTF16(t.ValidUntil, pl.o.asOf) < 0:
		fail("temporal", "expired "+t.ValidUntil)
		return false
	default:
		pass("temporal", "active as-of "+pl.o.asOf)
	}
	if isTrue(u.Deprecated) {
		fail("deprecated", reasonDeprecated)
		return false
	}
	pass("deprecated", "not deprecated")
	if t == nil || t.SupersededBy == "" {
		pass("supersession", "no supersession declared")
	} else if succ, ok := pl.unitByID(t.SupersededBy); ok && !isTrue(succ.Deprecated) &&
		pl.activeAt(succ) && (len(succ.Audience) == 0 || slices.Contains(succ.Audience, role)) {
		fail("supersession", "superseded by "+t.SupersededBy+" (successor active)")
		return false
	} else {
		pass("supersession", "successor '"+t.SupersededBy+"' not active")
	}
	h := countHits(u, terms)
	if h.score() == 0 {
		fail("relevance", reasonNotRelevant)
		return false
	}
	pass("relevance", "score "+strconv.Itoa(h.score())+": "+strings.Join(h.appendReasons(nil), "; "))
	return true
}

// reductionDetail is what one reduction gate says of a candidate: the
// reason it added (marked when it made the unit ineligible), or its pass.
func reductionDetail(gate string, c SelectedUnit) string {
	for _, r := range c.Reasons {
		ineligible := " (loadEligible=false)"
		switch {
		case gate == "skill_eligibility" && (strings.HasPrefix(r, "kind: ") || strings.HasPrefix(r, "step '")):
		case gate == "attestation" && r == reasonAttestation:
		case gate == "payment" && strings.HasPrefix(r, "unaffordable: "):
		case gate == "access" && strings.HasPrefix(r, "access '"):
			if strings.HasPrefix(r, "access 'authenticated'") {
				ineligible = ""
			}
		default:
			continue
		}
		return r + ineligible
	}
	switch gate {
	case "skill_eligibility":
		return "not a governed procedure"
	case "attestation":
		return "no attestation required"
	case "payment":
		if c.Payment.Method == "x402" && c.Payment.Cost != nil {
			return "x402 " + *c.Payment.Cost
		}
		return c.Payment.Method
	}
	return "public access"
}

// TraceJSON renders `plan --trace --json`: {task, taskTerms, asOf,
// capabilities, plan, units, gateSummary}, then schemaVersion 1, kind
// "trace" and a correlationId when one is given.
func TraceJSON(t Trace, e Envelope) []byte {
	p := t.Plan
	root := (&jsonObject{}).put("task", p.Task).put("taskTerms", p.TaskTerms).put("asOf", p.AsOf)
	root.put("capabilities", optionsJSON(p.Options).members[0].value)
	root.put("plan", planObject(p, false))
	units := make([]any, len(t.Units))
	type count struct{ passed, failed int }
	counts := map[string]*count{}
	for i, u := range t.Units {
		gates := make([]any, len(u.Gates))
		for j, g := range u.Gates {
			gates[j] = (&jsonObject{}).put("gate", g.Gate).put("passed", g.Passed).put("detail", g.Detail)
			c := counts[g.Gate]
			if c == nil {
				c = &count{}
				counts[g.Gate] = c
			}
			if g.Passed {
				c.passed++
			} else {
				c.failed++
			}
		}
		o := (&jsonObject{}).put("id", u.ID).put("path", u.Path).put("intent", u.Intent).put("outcome", u.Outcome).put("gates", gates)
		o.putIf(u.RejectedBy != "", "rejectedBy", u.RejectedBy)
		if u.Score != nil {
			o.put("score", *u.Score)
		}
		if u.Tokens != nil {
			tok := &jsonObject{}
			tok.putIf(u.Tokens.Value != nil, "value", u.Tokens.Value).put("source", u.Tokens.Source)
			o.put("tokens", tok)
		}
		units[i] = o
	}
	root.put("units", units)
	summary := []any{}
	for _, g := range TraceGates {
		if c := counts[g]; c != nil {
			summary = append(summary, (&jsonObject{}).put("gate", g).put("passed", c.passed).put("failed", c.failed))
		}
	}
	root.put("gateSummary", summary)
	root.put("schemaVersion", PlanSchemaVersion)
	root.put("kind", "trace")
	root.putIf(e.CorrelationID != "", "correlationId", e.CorrelationID)
	return render(root)
}
