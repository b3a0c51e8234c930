package kcp

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// sortCandidates orders the survivors' indices by score descending, then
// id in localeCompare order; stable, so equal units keep manifest order.
// The collation key of an id is built on first use, and only for
// non-ASCII ids.
func sortCandidates(store []SelectedUnit, order []int32) {
	var keys []*sortKey
	key := func(i int32) *sortKey {
		if keys == nil {
			keys = make([]*sortKey, len(store))
		}
		if keys[i] == nil {
			k := newSortKey(store[i].ID)
			keys[i] = &k
		}
		return keys[i]
	}
	slices.SortStableFunc(order, func(i, j int32) int {
		a, b := &store[i], &store[j]
		if a.Score != b.Score {
			return b.Score - a.Score
		}
		if isASCII(a.ID) && isASCII(b.ID) {
			return compareASCII(a.ID, b.ID)
		}
		return key(i).compare(*key(j))
	})
}

// gather moves store[idx[0]], store[idx[1]], … (distinct indices) to the
// front of store in that order, by swaps, and returns that prefix.
func gather(store []SelectedUnit, idx []int32) []SelectedUnit {
	// at[p] is the original index of the unit now at p, and pos[o] the
	// position of the unit originally at o.
	var buf [2 * smallManifest]int32
	var at, pos []int32
	if len(store) <= smallManifest {
		at, pos = buf[:len(store)], buf[smallManifest:smallManifest+len(store)]
	} else {
		both := make([]int32, 2*len(store))
		at, pos = both[:len(store)], both[len(store):]
	}
	for i := range store {
		at[i], pos[i] = int32(i), int32(i)
	}
	for i, o := range idx {
		p := pos[o]
		if int(p) == i {
			continue
		}
		store[i], store[p] = store[p], store[i]
		displaced := at[i]
		at[i], at[p] = o, displaced
		pos[o], pos[displaced] = int32(i), p
	}
	return store[:len(idx):len(idx)]
}

// reduce applies the eligibility reductions of §3.5 to a relevant unit,
// filling *s, which must be the zero SelectedUnit. The unit stays listed;
// each failing rule appends its reason and may clear LoadEligible.
func (pl *planner) reduce(s *SelectedUnit, u *Unit, score int, reasons []string) {
	// Field by field: assigning a whole struct literal copies all of it
	// through the write barrier while the collector runs.
	s.ID, s.Path, s.Intent = u.ID, u.Path, u.Intent
	s.Score, s.LoadEligible, s.Reasons = score, true, reasons
	s.RequiresAttestation = pl.requiresAttestation && u.Access == "restricted"
	s.ActionScope = u.ActionScope
	fail := func(reason string) {
		s.LoadEligible = false
		s.Reasons = append(s.Reasons, reason)
	}

	// a. skills and playbooks need an explicit grant (§4.3a).
	if (u.Kind == "skill" || u.Kind == "playbook") && !isTrue(u.LoadEligible) && !pl.o.has(FaultSkillsEligible) {
		fail("kind: " + u.Kind + " not invoke-eligible: no explicit eligibility grant")
	}
	if u.Kind == "playbook" && s.LoadEligible {
		// b. a grant on a playbook does not compose to its steps (§4.3c).
		if reason := pl.playbookComposition(u); reason != "" {
			fail(reason)
		}
	}
	var g Governance
	if u.Kind == "playbook" && s.LoadEligible && len(u.Steps) > 0 {
		// c. step authority under the resolved ceiling (§3.13).
		var reason string
		g.Authority, reason = pl.authority(u)
		if reason != "" {
			fail(reason)
		}
	}
	if sp := pl.o.spend; sp != nil && (sp.Amount != nil || sp.Vendor != "") {
		// d. proposed spend against action_scope.spend (§4.3a.1).
		g.Spend = pl.spendCheck(u, sp)
		if g.Spend != nil && !g.Spend.Within && s.LoadEligible {
			fail("step '" + g.Spend.Step + "' " + g.Spend.Detail + " — §4.3a.1")
		}
	}
	if a := pl.o.action; a != nil && (a.Tool != "" || a.Path != "" || a.Capability != "") {
		// e. proposed action against action_scope.deny (§4.3b).
		g.ProhibitedAttempts = pl.denyCheck(u, a)
		if len(g.ProhibitedAttempts) > 0 {
			pa := g.ProhibitedAttempts[0]
			fail("step '" + pa.Step + "' attempts '" + pa.Token + "' (" + pa.Dimension + "), denied by " + pa.DeniedBy +
				" — refused finally, not grantable (§4.3b, RFC-0030)")
		}
	}
	// f. escalation grant requests (§3.14): structured only.
	g.GrantRequests = grantRequests(u)
	if g.Authority != nil || g.Spend != nil || len(g.GrantRequests) > 0 || len(g.ProhibitedAttempts) > 0 {
		s.Governance = pl.newGovernance(g)
	}

	// g. attestation (§3.2).
	if pl.requiresAttestation && u.Access == "restricted" && !pl.agentCanAttest && !pl.o.has(FaultAttestationIgnored) {
		fail(reasonAttestation)
	}
	// h. payment (§4.14).
	pay := u.Payment
	if pay == nil {
		pay = pl.m.Payment
	}
	cost, price := planPayment(&s.Payment, pay, pl.o.methods)
	if s.Payment.Method == "x402" {
		s.Payment.Cost = pl.newString(cost)
		if price == price {
			s.Payment.PricePerRequest = pl.newFloat(price)
		}
	}
	if !s.Payment.Affordable && !pl.o.has(FaultUnaffordableSelected) {
		fail("unaffordable: " + s.Payment.Method)
	}
	// i. access is an authorization dimension; payment does not replace it (§4.11).
	if (u.Access == "authenticated" || u.Access == "restricted") && len(pl.o.credentials) == 0 {
		reason := "access '" + u.Access + "': agent holds no credentials"
		if u.Access == "restricted" && !pl.o.has(FaultRestrictedOpen) {
			fail(reason)
		} else {
			s.Reasons = append(s.Reasons, reason)
		}
		if s.Payment.Method == "x402" {
			s.Reasons = append(s.Reasons,
				"hint: '"+u.Access+"' + x402 — if this unit is anonymous-paid the manifest should mark it public (spec §4.11, v0.25.1)")
		}
	}
}

// playbookComposition finds the first step whose `uses` names an existing
// unit that lacks load_eligible: true.
func (pl *planner) playbookComposition(u *Unit) string {
	for _, st := range u.Steps {
		if st.Uses == "" {
			continue
		}
		target, ok := pl.unitByID(st.Uses)
		if ok && !isTrue(target.LoadEligible) {
			return "step '" + st.ID + "' uses '" + st.Uses + "', which is not invoke-eligible — a grant on a playbook does not compose to the units its steps name (§4.3c)"
		}
	}
	return ""
}

// defaultAuthorityScale ranks authority levels when the manifest declares
// no authority_level_scale.
var defaultAuthorityScale = []string{"observe", "explain", "suggest", "prepare", "commit"}

// authority resolves a playbook's ceiling, the lowest of its own
// authority_level and the agent's grant ceiling, and finds the first step
// whose level is unknown or above it. Steps without a level are not
// checked, and without any ceiling nothing is.
func (pl *planner) authority(u *Unit) (*AuthorityBinding, string) {
	scale := pl.m.AuthorityLevelScale
	if len(scale) == 0 {
		scale = defaultAuthorityScale
	}
	rank := func(level string) int { return slices.Index(scale, level) }
	var b AuthorityBinding
	for _, c := range [...]AuthorityBinding{
		{Ceiling: u.AuthorityLevel, BoundBy: "playbook authority_level"},
		{Ceiling: pl.o.grantCeiling, BoundBy: "agent grant_ceiling"},
	} {
		if c.Ceiling != "" && (b.Ceiling == "" || rank(c.Ceiling) < rank(b.Ceiling)) {
			b = c
		}
	}
	if b.Ceiling == "" {
		return nil, ""
	}
	bound := &b
	ceiling := rank(bound.Ceiling)
	for _, st := range u.Steps {
		if st.AuthorityLevel == "" {
			continue
		}
		if r := rank(st.AuthorityLevel); r < 0 || r > ceiling {
			return bound, "step '" + st.ID + "' requires '" + st.AuthorityLevel + "' authority, above the resolved ceiling '" +
				bound.Ceiling + "' (bound by " + bound.BoundBy + ") — §3.13"
		}
	}
	return bound, ""
}

// invocationStep is one step as the spend and deny gates see it: its name
// and the units whose action_scope binds it. A unit without steps is its
// own single step.
type invocationStep struct {
	name  string
	units [2]*Unit // the unit itself first, then the unit its step uses
	n     int      // how many of units bind
}

func (st *invocationStep) binders() []*Unit { return st.units[:st.n] }

// invocationSteps appends u's steps to buf.
func (pl *planner) invocationSteps(u *Unit, buf []invocationStep) []invocationStep {
	if len(u.Steps) == 0 {
		return append(buf, invocationStep{name: u.ID, units: [2]*Unit{u}, n: 1})
	}
	for _, st := range u.Steps {
		is := invocationStep{name: st.ID, units: [2]*Unit{u}, n: 1}
		if used, ok := pl.unitByID(st.Uses); ok && st.Uses != "" && used.ID != u.ID {
			is.units[1], is.n = used, 2
		}
		buf = append(buf, is)
	}
	return buf
}

// spendCheck checks the proposed spend against the spend ceiling that
// binds each step (the used unit's action_scope.spend, else the unit's
// own): vendor, then currency, then amount. It returns the first breach,
// else the last check made, else nil when no ceiling applies.
func (pl *planner) spendCheck(u *Unit, sp *SpendProposal) *SpendCheck {
	var last *SpendCheck
	var buf [4]invocationStep
	for _, st := range pl.invocationSteps(u, buf[:0]) {
		var ceiling *SpendScope
		binders := st.binders()
		for i := len(binders) - 1; i >= 0 && ceiling == nil; i-- {
			if as := binders[i].ActionScope; as != nil {
				ceiling = as.Spend
			}
		}
		if ceiling == nil {
			continue
		}
		check := &SpendCheck{Step: st.name, Within: true, Ceiling: ceiling}
		check.Detail = spendBreach(sp, ceiling)
		check.Within = check.Detail == ""
		if !check.Within {
			return check
		}
		last = check
	}
	return last
}

func spendBreach(sp *SpendProposal, c *SpendScope) string {
	if sp.Vendor != "" && len(c.AllowedVendors) > 0 && !slices.Contains(c.AllowedVendors, sp.Vendor) {
		return fmt.Sprintf("names vendor '%s', outside allowed_vendors %s", sp.Vendor, jsonStringArray(c.AllowedVendors))
	}
	if sp.Amount == nil || c.MaxSpend == nil {
		return ""
	}
	cur, ceilCur := orDefault(sp.Currency, DefaultCurrency), orDefault(c.Currency, DefaultCurrency)
	amount := formatJSNumber(*sp.Amount)
	if cur != ceilCur {
		return fmt.Sprintf("proposed %s %s cannot be checked against a %s ceiling (currency mismatch)", amount, cur, ceilCur)
	}
	if *sp.Amount > *c.MaxSpend+1e-9 {
		return fmt.Sprintf("proposed spend %s exceeds max_spend %s", amount, formatJSNumber(*c.MaxSpend))
	}
	return ""
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// denyCheck matches the proposed action's tokens against the union of
// the deny lists that bind each step, tools then paths (globs) then
// capabilities, and returns every denied attempt in that order.
func (pl *planner) denyCheck(u *Unit, a *ActionProposal) []ProhibitedAttempt {
	var out []ProhibitedAttempt
	var buf [4]invocationStep
	for _, st := range pl.invocationSteps(u, buf[:0]) {
		for _, binder := range st.binders() {
			as := binder.ActionScope
			if as == nil || as.Deny == nil {
				continue
			}
			by := orDefault(binder.Kind, "unit") + " '" + binder.ID + "' action_scope.deny"
			d := as.Deny
			if a.Tool != "" && slices.Contains(d.Tools, a.Tool) {
				out = append(out, ProhibitedAttempt{Step: st.name, Token: a.Tool, Dimension: "tool", DeniedBy: by})
			}
			if a.Path != "" && slices.ContainsFunc(d.Paths, func(p string) bool { return globMatch(p, a.Path) }) {
				out = append(out, ProhibitedAttempt{Step: st.name, Token: a.Path, Dimension: "path", DeniedBy: by})
			}
			if a.Capability != "" && slices.Contains(d.Capabilities, a.Capability) {
				out = append(out, ProhibitedAttempt{Step: st.name, Token: a.Capability, Dimension: "capability", DeniedBy: by})
			}
		}
	}
	return out
}

// globMatch matches a path against a pattern where ** matches any run of
// characters and * any run without a slash.
func globMatch(pattern, path string) bool {
	if pattern == "" {
		return path == ""
	}
	if strings.HasPrefix(pattern, "**") {
		rest := pattern[2:]
		for i := 0; i <= len(path); i++ {
			if globMatch(rest, path[i:]) {
				return true
			}
		}
		return false
	}
	if pattern[0] == '*' {
		rest := pattern[1:]
		for i := 0; i <= len(path); i++ {
			if globMatch(rest, path[i:]) {
				return true
			}
			if i < len(path) && path[i] == '/' {
				return false
			}
		}
		return false
	}
	return path != "" && pattern[0] == path[0] && globMatch(pattern[1:], path[1:])
}

// grantRequests lists the escalation paths a playbook's steps declare.
func grantRequests(u *Unit) []GrantRequest {
	var out []GrantRequest
	for _, st := range u.Steps {
		if len(st.Escalation) > 0 {
			out = append(out, GrantRequest{Step: st.ID, Escalation: slices.Clone(st.Escalation), Authority: st.AuthorityLevel})
		}
	}
	return out
}

// planPayment picks the first declared method the agent supports. No
// declared method means free; none supported means unaffordable, with
// method "needs <non-free types joined by ' or '>". It fills c, which
// must be the zero PaymentChoice, except Cost and PricePerRequest: for
// x402 it returns the cost text and the price (NaN when there is none)
// for the caller to store there.
func planPayment(c *PaymentChoice, p *Payment, supported []string) (cost string, price float64) {
	if p == nil || len(p.Methods) == 0 {
		c.Method, c.Affordable = "free", true
		return "", 0
	}
	for _, md := range p.Methods {
		if !slices.Contains(supported, md.Type) {
			continue
		}
		c.Affordable = true
		switch md.Type {
		case "free":
			c.Method = "free"
			return "", 0
		case "x402":
			c.Method, c.Currency = "x402", md.Currency
			price = math.NaN()
			if md.PricePerRequest != nil {
				price = jsNumberFromString(*md.PricePerRequest)
			}
			return jsTemplate(md.PricePerRequest) + " " + jsTemplate(md.Currency) + "/request", price
		default:
			c.Method = md.Type
			return "", 0
		}
	}
	var needs []string
	for _, md := range p.Methods {
		if md.Type != "free" {
			needs = append(needs, md.Type)
		}
	}
	c.Method = "needs " + strings.Join(needs, " or ")
	return "", 0
}

// jsTemplate is `${v}` for an optional string: undefined prints as
// "undefined".
func jsTemplate(s *string) string {
	if s == nil {
		return "undefined"
	}
	return *s
}
