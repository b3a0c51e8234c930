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
	// Cost and ActionScope are a selected unit's price (x402) and
	// action_scope, as the trace prints them; nil when it has none.
	Cost, ActionScope *jsonObject
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
// --trace` does: every unit's way through the skip gates, the reductions
// (skill eligibility, attestation, payment, access), strict mode, and the
// greedy walk under maxUnits and the money and context ceilings. The plan
// is Plan's; the trace follows the same decisions with their details, each
// unit judged by itself (its own size), while its outcome is its id's in
// the plan: a unit is selected when the plan selected a unit of its id,
// and a selected unit shows its own size, price and action scope (which
// differ from the plan's only where ids repeat).
func PlanTrace(task string, m Manifest, opts Options) Trace {
	p := Plan(task, m, opts)
	o := resolveOptions(opts)
	sizedByID := o.has(FaultTraceSizedByID)
	o.faults = nil // the trace explains the honest cascade
	pl := newPlanner(m, o)
	t := Trace{Plan: p, Units: make([]TracedUnit, len(m.Units))}
	// Survivors of the cascade and the reductions, as Plan makes them.
	var store []SelectedUnit
	var unitOf []int // store index -> manifest index
	for i := range m.Units {
		u := &pl.m.Units[i]
		tu := &t.Units[i]
		*tu = TracedUnit{ID: u.ID, Path: u.Path, Intent: u.Intent, Outcome: "skipped"}
		if !pl.traceCascade(u, p.TaskTerms, tu.pass, tu.fail) {
			continue
		}
		var c SelectedUnit
		g := pl.cascade(i, p.TaskTerms)
		pl.reduce(&c, u, g.score(), g.hits.appendReasons(nil))
		score := c.Score
		tu.Score = &score
		if !pl.traceReductions(u, c, tu) {
			continue
		}
		switch {
		case !o.strict:
			tu.pass("strict", "non-strict mode")
		case c.LoadEligible:
			tu.pass("strict", "load-eligible under strict mode")
		default:
			tu.fail("strict", "not load-eligible under strict mode")
			continue
		}
		store = append(store, c)
		unitOf = append(unitOf, i)
	}
	order := make([]int32, len(store))
	for i := range order {
		order[i] = int32(i)
	}
	sortCandidates(store, order)
	own := func(i int) *Unit {
		if sizedByID {
			ix, _ := pl.lookup(pl.m.Units[i].ID)
			i = int(ix.last)
		}
		return &pl.m.Units[i]
	}
	pl.traceWalk(store, order, func(i int32) (*Unit, *TracedUnit) { return own(unitOf[i]), &t.Units[unitOf[i]] })
	selected := map[string]bool{}
	for _, s := range p.Selected {
		selected[s.ID] = true
	}
	for i := range m.Units {
		u, tu := &pl.m.Units[i], &t.Units[i]
		if !selected[u.ID] {
			continue
		}
		tu.Outcome = "selected"
		tokens, approximate, measured := pl.sizeOf(own(i))
		switch {
		case !measured:
			tu.Tokens = &TraceTokens{Source: "unmeasured"}
		case approximate:
			tu.Tokens = &TraceTokens{Value: &tokens, Source: "estimated"}
		default:
			tu.Tokens = &TraceTokens{Value: &tokens, Source: "declared"}
		}
		var c SelectedUnit
		g := pl.cascade(i, p.TaskTerms)
		pl.reduce(&c, u, g.score(), g.hits.appendReasons(nil))
		if price := c.Payment.PricePerRequest; c.Payment.Method == "x402" && price != nil {
			cur := "undefined"
			if c.Payment.Currency != nil {
				cur = *c.Payment.Currency
			}
			tu.Cost = (&jsonObject{}).put("amount", *price).put("currency", cur).put("method", "x402")
		}
		if a := u.ActionScope; a != nil {
			tu.ActionScope = (&jsonObject{}).put("tools", a.Tools).put("paths", a.Paths).put("capabilities", a.Capabilities)
		}
	}
	return t
}

func (tu *TracedUnit) pass(gate, detail string) {
	tu.Gates = append(tu.Gates, GateStep{gate, true, detail})
}

func (tu *TracedUnit) fail(gate, detail string) {
	tu.Gates = append(tu.Gates, GateStep{gate, false, detail})
	tu.RejectedBy = gate
}

// traceReductions adds the reduction gates of candidate c. A reduction
// that makes the unit ineligible passes with its reason marked
// (loadEligible=false), but under strict a skill or playbook without its
// grant is refused at skill_eligibility; it reports whether the unit
// goes on.
func (pl *planner) traceReductions(u *Unit, c SelectedUnit, tu *TracedUnit) bool {
	skill := ""
	for _, r := range c.Reasons {
		if strings.HasPrefix(r, "kind: ") || strings.HasPrefix(r, "step '") {
			skill = r
			break
		}
	}
	switch {
	case skill != "" && pl.o.strict:
		tu.fail("skill_eligibility", skill)
		return false
	case skill != "":
		tu.pass("skill_eligibility", skill+" (loadEligible=false)")
	case u.Kind == "skill" || u.Kind == "playbook":
		tu.pass("skill_eligibility", "kind: "+u.Kind+" with explicit eligibility grant")
	default:
		tu.pass("skill_eligibility", "not a governed procedure")
	}
	switch {
	case !pl.requiresAttestation || u.Access != "restricted":
		tu.pass("attestation", "no attestation required")
	case pl.agentCanAttest:
		tu.pass("attestation", "agent can present required attestation")
	default:
		tu.pass("attestation", reasonAttestation+" (loadEligible=false)")
	}
	switch pay := c.Payment; {
	case !pay.Affordable:
		tu.pass("payment", "unaffordable: "+pay.Method+" (loadEligible=false)")
	case pay.Method == "free":
		tu.pass("payment", "free")
	default:
		tu.pass("payment", pay.Method+": "+jsTemplate(pay.Cost))
	}
	switch {
	case len(pl.o.credentials) > 0 && u.Access != "":
		tu.pass("access", "access '"+u.Access+"' — agent has credentials")
	case len(pl.o.credentials) > 0 || (u.Access != "authenticated" && u.Access != "restricted"):
		tu.pass("access", "public access")
	case u.Access == "restricted":
		tu.pass("access", "access 'restricted': agent holds no credentials (loadEligible=false)")
	default:
		tu.pass("access", "access 'authenticated': agent holds no credentials")
	}
	return true
}

// traceWalk is walk with the details of each step: the position under
// maxUnits, the money ceiling, then the context ceiling, each unit
// measured by its own size.
func (pl *planner) traceWalk(store []SelectedUnit, sorted []int32, unit func(int32) (*Unit, *TracedUnit)) {
	accepted := 0
	var spend, usedTokens float64
	budget, ceiling := pl.o.budget, pl.o.contextBudget
	maxUnits := formatJSNumber(pl.o.maxUnits)
	num := func(x float64) string { return string(appendJSNumber(nil, x)) }
	tok := func(x float64) string { return string(appendTokens(nil, x)) }
	for _, c := range sorted {
		u := &store[c]
		mu, tu := unit(c)
		position := "position " + strconv.Itoa(accepted+1)
		if float64(accepted) >= pl.o.maxUnits {
			tu.fail("max_units", position+" exceeds cap of "+maxUnits)
			continue
		}
		tu.pass("max_units", position+" within cap of "+maxUnits)
		switch price := u.Payment.PricePerRequest; {
		case budget == nil:
			tu.pass("money_budget", "no budget ceiling set")
		case !u.LoadEligible || price == nil || *price <= 0:
			tu.pass("money_budget", "free unit")
		case u.Payment.Currency == nil || *u.Payment.Currency != pl.o.currency:
			tu.fail("money_budget", "costs "+jsTemplate(u.Payment.Cost)+", budget is in "+pl.o.currency)
			continue
		case pl.o.spent+spend+*price > budget.Amount+1e-9:
			tu.fail("money_budget", num(*price)+" would exceed remaining "+num(money(budget.Amount-pl.o.spent-spend))+" of "+num(budget.Amount)+" "+pl.o.currency)
			continue
		default:
			spend += *price
			tu.pass("money_budget", num(*price)+" within budget ("+num(money(pl.o.spent+spend))+" of "+num(budget.Amount)+" "+pl.o.currency+" spent)")
		}
		if ceiling == nil {
			tu.pass("context_budget", "no context budget set")
		} else if !u.LoadEligible {
			tu.pass("context_budget", "not load-eligible")
		} else {
			tokens, _, measured := pl.sizeOf(mu)
			switch {
			case !measured && pl.o.strict:
				tu.fail("context_budget", "size undeclared — excluded under strict")
				continue
			case !measured:
				tu.pass("context_budget", "unmeasured (admitted, projection is a lower bound)")
			case usedTokens+tokens > *ceiling+1e-9:
				tu.fail("context_budget", tok(tokens)+" tokens would exceed remaining "+tok(*ceiling-usedTokens)+" of "+tok(*ceiling))
				continue
			default:
				usedTokens += tokens
				tu.pass("context_budget", tok(tokens)+" tokens ("+tok(usedTokens)+" of "+tok(*ceiling)+" used)")
			}
		}
		accepted++
	}
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

// TraceJSON renders `plan --trace --json`: {task, taskTerms, asOf,
// capabilities, plan, units, gateSummary}, then schemaVersion 1, kind
// "trace" and a correlationId when one is given.
func TraceJSON(t Trace, e Envelope) []byte {
	root := traceObject(t)
	root.put("schemaVersion", PlanSchemaVersion)
	root.put("kind", "trace")
	root.putIf(e.CorrelationID != "", "correlationId", e.CorrelationID)
	return render(root)
}

// TraceToolJSON renders the trace as the kcp_trace MCP tool answers it:
// the document of `plan --trace --json` without the envelope and, as
// kcp_plan's tree, without a final newline (kcp-agent 0.27.0's text).
func TraceToolJSON(t Trace) []byte { return renderCompact(traceObject(t)) }

// traceObject is the trace document: {task, taskTerms, asOf,
// capabilities, plan, units, gateSummary}.
func traceObject(t Trace) *jsonObject {
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
		if u.Cost != nil {
			o.put("cost", u.Cost)
		}
		if u.ActionScope != nil {
			o.put("action_scope", u.ActionScope)
		}
		units[i] = o
	}
	root.put("units", units)
	summary := []any{}
	for _, g := range TraceGates {
		c := counts[g]
		if c == nil {
			c = &count{}
		}
		summary = append(summary, (&jsonObject{}).put("gate", g).put("passed", c.passed).put("failed", c.failed))
	}
	root.put("gateSummary", summary)
	return root
}
