package kcpref

import (
	"math"
	"strconv"
	"strings"
)

// The gates of a decision trace, in the order a unit meets them.
var traceGates = []string{"audience", "not_for", "temporal", "deprecated", "supersession", "relevance",
	"skill_eligibility", "attestation", "payment", "access", "strict", "max_units", "money_budget", "context_budget"}

// traceGate is one gate's verdict on a unit.
type traceGate struct {
	gate   string
	passed bool
	detail string
}

// TraceJSON renders kcp_trace's answer, as kcp-agent 0.27.0 gives it: the
// task, its terms, asOf, the capabilities and the plan p (planned from
// task, m and opts), then every manifest unit in manifest order with the
// gates it went through up to the first that refused it, and a count
// per gate. As kcp-agent's trace does, each unit's gates are judged on
// the unit itself (its own size, even where ids repeat), while its
// outcome is whether the plan selected a unit of that id.
func TraceJSON(p AgentPlan, m Manifest, opts Options) []byte {
	o := resolveOptions(opts)
	// Every survivor of the cascade, reduced and sorted: the plan without
	// a cap, ceilings or strictness.
	free := opts
	free.MaxUnits, free.Budget, free.ContextBudget, free.Strict = ptrFloat(math.Inf(1)), nil, nil, false
	all := Plan(p.Task, m, free)
	survivor := map[*Unit]*SelectedUnit{}
	used := map[int]bool{}
	for i := range m.Units {
		u := &m.Units[i]
		for j := range all.Selected {
			s := &all.Selected[j]
			if !used[j] && s.ID == u.ID && s.Path == u.Path && s.Intent == u.Intent {
				used[j] = true
				survivor[u] = s
				break
			}
		}
	}
	unitOf := map[*SelectedUnit]*Unit{}
	for u, s := range survivor {
		unitOf[s] = u
	}
	w := traceWalk(all.Selected, unitOf, o)
	selectedIDs := map[string]bool{}
	for _, s := range p.Selected {
		selectedIDs[s.ID] = true
	}
	cascade := all.Skipped
	skipReason := map[*Unit]string{}
	ci := 0
	for i := range m.Units {
		u := &m.Units[i]
		if survivor[u] == nil && ci < len(cascade) {
			skipReason[u] = cascade[ci].Reason
			ci++
		}
	}
	passed := make([]int, len(traceGates))
	failed := make([]int, len(traceGates))
	units := []any{}
	for i := range m.Units {
		u := &m.Units[i]
		s := survivor[u]
		var gates []traceGate
		if s == nil {
			gates = cascadeTrace(u, o, skipReason[u], nil)
		} else {
			gates = cascadeTrace(u, o, "", s)
			gates = append(gates, reductionTrace(u, s, o)...)
			if gates[len(gates)-1].passed {
				gates = append(gates, w[s]...)
			}
		}
		obj := (&jsonObject{}).put("id", u.ID).put("path", u.Path).put("intent", u.Intent)
		outcome := "skipped"
		if selectedIDs[u.ID] {
			outcome = "selected"
		}
		obj.put("outcome", outcome)
		list := make([]any, len(gates))
		rejected := ""
		for k, g := range gates {
			list[k] = (&jsonObject{}).put("gate", g.gate).put("passed", g.passed).put("detail", g.detail)
			if g.passed {
				passed[k]++
			} else {
				failed[k]++
				if rejected == "" {
					rejected = g.gate
				}
			}
		}
		obj.put("gates", list)
		obj.putIf(rejected != "", "rejectedBy", rejected)
		if s != nil {
			obj.put("score", s.Score)
		}
		if outcome == "selected" {
			obj.put("tokens", traceTokens(u))
			if s != nil && s.Payment.PricePerRequest != nil {
				cost := (&jsonObject{}).put("amount", *s.Payment.PricePerRequest)
				cost.put("currency", derefString(s.Payment.Currency)).put("method", s.Payment.Method)
				obj.put("cost", cost)
			}
			if as := u.ActionScope; as != nil {
				obj.put("action_scope", (&jsonObject{}).put("tools", as.Tools).put("paths", as.Paths).put("capabilities", as.Capabilities))
			}
		}
		units = append(units, obj)
	}
	summary := make([]any, len(traceGates))
	for k, g := range traceGates {
		summary[k] = (&jsonObject{}).put("gate", g).put("passed", passed[k]).put("failed", failed[k])
	}
	caps := optionsJSON(p.Options).members[0].value
	return renderCompact((&jsonObject{}).put("task", p.Task).put("taskTerms", orStrings(p.TaskTerms)).put("asOf", p.AsOf).
		put("capabilities", caps).put("plan", planObject(p, false)).put("units", units).put("gateSummary", summary))
}

func ptrFloat(x float64) *float64 { return &x }

func orStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// cascadeTrace is the cascade's gates for u: up to the one its skip
// reason names, or all six with the survivor's score.
func cascadeTrace(u *Unit, o effective, skip string, s *SelectedUnit) []traceGate {
	t := u.Temporal
	if t == nil {
		t = &Temporal{}
	}
	pass := []string{
		"no audience restriction", "no not_for declarations", "no temporal constraint", "not deprecated", "no supersession declared", "",
	}
	if len(u.Audience) > 0 {
		pass[0] = "role '" + o.role + "' in " + jsonStringArray(u.Audience)
	}
	if len(u.NotFor) > 0 {
		pass[1] = "task terms do not match " + jsonStringArray(u.NotFor)
	}
	if u.Temporal != nil {
		pass[2] = "active as-of " + o.asOf
	}
	if t.SupersededBy != "" {
		pass[4] = "successor '" + t.SupersededBy + "' not active"
	}
	if s != nil {
		var hits []string
		for _, r := range s.Reasons {
			if strings.HasPrefix(r, "intent matches ") || strings.HasPrefix(r, "triggers match ") || strings.HasPrefix(r, "id/path matches ") {
				hits = append(hits, r)
			}
		}
		pass[5] = "score " + strconv.Itoa(s.Score) + ": " + strings.Join(hits, "; ")
	}
	failing := len(pass)
	if s == nil {
		failing = cascadeGate(skip)
	}
	var gates []traceGate
	for k := range pass {
		if k == failing {
			return append(gates, traceGate{traceGates[k], false, skip})
		}
		gates = append(gates, traceGate{traceGates[k], true, pass[k]})
	}
	return gates
}

// cascadeGate is the index of the cascade gate a skip reason comes from.
func cascadeGate(reason string) int {
	switch {
	case strings.HasPrefix(reason, "audience "):
		return 0
	case strings.HasPrefix(reason, "not_for "):
		return 1
	case strings.HasPrefix(reason, "not active until "), strings.HasPrefix(reason, "expired "):
		return 2
	case reason == reasonDeprecated:
		return 3
	case strings.HasPrefix(reason, "superseded by "):
		return 4
	}
	return 5
}

// reductionTrace is the eligibility gates for a survivor, from its
// reasons: skill eligibility, attestation, payment, access and strict.
func reductionTrace(u *Unit, s *SelectedUnit, o effective) []traceGate {
	const off = " (loadEligible=false)"
	var skill, attest, access []string
	for _, r := range s.Reasons {
		switch {
		case strings.HasPrefix(r, "kind: "), strings.HasPrefix(r, "step '"):
			skill = append(skill, r)
		case r == reasonAttestation:
			attest = append(attest, r)
		case strings.HasPrefix(r, "access '"), strings.HasPrefix(r, "hint: "):
			access = append(access, r)
		}
	}
	var gates []traceGate
	switch {
	case len(skill) > 0 && o.strict:
		return append(gates, traceGate{"skill_eligibility", false, skill[0]})
	case len(skill) > 0:
		gates = append(gates, traceGate{"skill_eligibility", true, skill[0] + off})
	case u.Kind == "skill" || u.Kind == "playbook":
		gates = append(gates, traceGate{"skill_eligibility", true, "kind: " + u.Kind + " with explicit eligibility grant"})
	default:
		gates = append(gates, traceGate{"skill_eligibility", true, "not a governed procedure"})
	}
	switch {
	case len(attest) > 0:
		gates = append(gates, traceGate{"attestation", true, attest[0] + off})
	case u.Access == "restricted" && o.attest != nil && *o.attest != "":
		gates = append(gates, traceGate{"attestation", true, "agent can present required attestation"})
	default:
		gates = append(gates, traceGate{"attestation", true, "no attestation required"})
	}
	pay := s.Payment
	switch {
	case !pay.Affordable:
		gates = append(gates, traceGate{"payment", true, "unaffordable: " + pay.Method + off})
	case pay.Method == "free":
		gates = append(gates, traceGate{"payment", true, "free"})
	default:
		gates = append(gates, traceGate{"payment", true, pay.Method + ": " + jsTemplate(pay.Cost)})
	}
	switch {
	case len(o.credentials) > 0 && u.Access != "":
		gates = append(gates, traceGate{"access", true, "access '" + u.Access + "' — agent has credentials"})
	case len(access) > 0 && u.Access == "restricted":
		gates = append(gates, traceGate{"access", true, access[0] + off})
	case len(access) > 0:
		gates = append(gates, traceGate{"access", true, access[0]})
	default:
		gates = append(gates, traceGate{"access", true, "public access"})
	}
	switch {
	case !o.strict:
		gates = append(gates, traceGate{"strict", true, "non-strict mode"})
	case s.LoadEligible:
		gates = append(gates, traceGate{"strict", true, "load-eligible under strict mode"})
	default:
		gates = append(gates, traceGate{"strict", false, "not load-eligible under strict mode"})
	}
	return gates
}

// traceWalk walks the sorted survivors as the plan does (those strict
// drops left out) and gives each its max_units, money_budget and
// context_budget gates, up to the one that refused it.
func traceWalk(sorted []SelectedUnit, unitOf map[*SelectedUnit]*Unit, o effective) map[*SelectedUnit][]traceGate {
	out := map[*SelectedUnit][]traceGate{}
	accepted := 0
	var spend, usedTokens float64
	for i := range sorted {
		s := &sorted[i]
		if o.strict && !s.LoadEligible {
			continue
		}
		var gates []traceGate
		pos := strconv.Itoa(accepted + 1)
		if float64(accepted) >= o.maxUnits {
			out[s] = append(gates, traceGate{"max_units", false, "position " + pos + " exceeds cap of " + formatJSNumber(o.maxUnits)})
			continue
		}
		gates = append(gates, traceGate{"max_units", true, "position " + pos + " within cap of " + formatJSNumber(o.maxUnits)})
		price := s.Payment.PricePerRequest
		switch {
		case o.budget == nil:
			gates = append(gates, traceGate{"money_budget", true, "no budget ceiling set"})
		case !s.LoadEligible || price == nil || *price <= 0:
			gates = append(gates, traceGate{"money_budget", true, "free unit"})
		case s.Payment.Currency == nil || *s.Payment.Currency != o.currency:
			out[s] = append(gates, traceGate{"money_budget", false, "costs " + jsTemplate(s.Payment.Cost) + ", budget is in " + o.currency})
			continue
		case o.spent+spend+*price > o.budget.Amount+1e-9:
			out[s] = append(gates, traceGate{"money_budget", false, formatJSNumber(*price) + " would exceed remaining " +
				formatJSNumber(money(o.budget.Amount-o.spent-spend)) + " of " + formatJSNumber(o.budget.Amount) + " " + o.currency})
			continue
		default:
			spend += *price
			gates = append(gates, traceGate{"money_budget", true, formatJSNumber(*price) + " within budget (" +
				formatJSNumber(money(o.spent+spend)) + " of " + formatJSNumber(o.budget.Amount) + " " + o.currency + " spent)"})
		}
		ceiling := o.contextBudget
		tokens, measured := unitTokens(unitOf[s])
		switch {
		case ceiling == nil:
			gates = append(gates, traceGate{"context_budget", true, "no context budget set"})
		case !s.LoadEligible:
			gates = append(gates, traceGate{"context_budget", true, "not load-eligible"})
		case !measured && o.strict:
			out[s] = append(gates, traceGate{"context_budget", false, "size undeclared — excluded under strict"})
			continue
		case !measured:
			gates = append(gates, traceGate{"context_budget", true, "unmeasured (admitted, projection is a lower bound)"})
		case usedTokens+tokens > *ceiling+1e-9:
			out[s] = append(gates, traceGate{"context_budget", false, formatTokens(tokens) + " tokens would exceed remaining " +
				formatTokens(*ceiling-usedTokens) + " of " + formatTokens(*ceiling)})
			continue
		default:
			usedTokens += tokens
			gates = append(gates, traceGate{"context_budget", true, formatTokens(tokens) + " tokens (" + formatTokens(usedTokens) + " of " + formatTokens(*ceiling) + " used)"})
		}
		accepted++
		out[s] = gates
	}
	return out
}

// unitTokens is a unit's own size: size_tokens, else ceil(bytes/4).
func unitTokens(u *Unit) (float64, bool) {
	switch {
	case u == nil:
		return 0, false
	case u.SizeTokens != nil:
		return *u.SizeTokens, true
	case u.Bytes != nil:
		return math.Ceil(*u.Bytes / 4), true
	}
	return 0, false
}

// traceTokens is the size a trace reports for a selected unit.
func traceTokens(u *Unit) *jsonObject {
	switch {
	case u.SizeTokens != nil:
		return (&jsonObject{}).put("value", *u.SizeTokens).put("source", "declared")
	case u.Bytes != nil:
		return (&jsonObject{}).put("value", math.Ceil(*u.Bytes/4)).put("source", "estimated")
	}
	return (&jsonObject{}).put("source", "unmeasured")
}
