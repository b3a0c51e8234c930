package kcpref

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
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
		fail(kindReason(u.Kind))
	}
	if u.Kind == "playbook" && s.LoadEligible {
		// b. a grant on a playbook does not compose to its steps (§4.3c).
		if reason := pl.playbookComposition(u); reason != "" {
			fail(reason)
		}
	}
	var g Governance
	playbook := u.Kind == "playbook" && u.Steps != nil
	var violated string // the step that breached the authority ceiling
	if playbook && s.LoadEligible {
		// c. step authority under the resolved ceiling (§3.13).
		var reason string
		g.Authority, violated, reason = pl.authority(u)
		if reason != "" {
			fail(reason)
		}
	}
	if sp := pl.o.spend; sp != nil && (sp.Amount != nil || sp.Vendor != nil) {
		// d. proposed spend against action_scope.spend (§4.3a.1); the
		// binding limit is recorded even when the unit is already out.
		var step, detail string
		g.Spend, step, detail = pl.spendCheck(u, sp)
		if detail != "" && s.LoadEligible {
			fail("step '" + step + "' " + detail + " — §4.3a.1")
		}
	}
	var prohibited string // the step whose deny refused the action
	if a := pl.o.action; a != nil && (a.Tool != nil || a.Path != nil || a.Capability != nil) {
		// e. proposed action against the union of the deny lists (§4.3b).
		if pa, ok := pl.denyCheck(u, a); ok {
			g.ProhibitedAttempts = []ProhibitedAttempt{pa}
			prohibited = pa.Step
			fail("step '" + pa.Step + "' attempts '" + pa.Token + "' (" + pa.Dimension + "), denied by " + pa.BindingSource +
				" — refused finally, not grantable (§4.3b, RFC-0030)")
		}
	}
	if playbook {
		// f. escalation grant requests (§3.14): structured only, and none
		// for a step whose action a deny refused.
		g.GrantRequests = grantRequests(u, violated, prohibited, pl.o.has(FaultEscalationAllFire))
	}
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
		reason := accessReason(u.Access)
		switch {
		case u.Access == "restricted" && !pl.o.has(FaultRestrictedOpen):
			fail(reason)
		case u.Access == "authenticated" && pl.o.has(FaultAuthenticatedReasonDropped):
		default:
			s.Reasons = append(s.Reasons, reason)
		}
		if s.Payment.Method == "x402" {
			s.Reasons = append(s.Reasons, accessHint(u.Access))
		}
	}
}

// kindReason is the reason of a skill or playbook without a grant.
func kindReason(kind string) string {
	if kind == "skill" {
		return "kind: skill not invoke-eligible: no explicit eligibility grant"
	}
	return "kind: playbook not invoke-eligible: no explicit eligibility grant"
}

// accessReason is the reason of an authenticated or restricted unit for
// an agent without credentials, and accessHint the hint when it is paid
// by x402.
func accessReason(access string) string {
	if access == "restricted" {
		return "access 'restricted': agent holds no credentials"
	}
	return "access 'authenticated': agent holds no credentials"
}

func accessHint(access string) string {
	if access == "restricted" {
		return "hint: 'restricted' + x402 — if this unit is anonymous-paid the manifest should mark it public (spec §4.11, v0.25.1)"
	}
	return "hint: 'authenticated' + x402 — if this unit is anonymous-paid the manifest should mark it public (spec §4.11, v0.25.1)"
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
// no authority_level_scale (a declared empty scale ranks nothing).
var defaultAuthorityScale = []string{"observe", "explain", "suggest", "prepare", "commit"}

// authority resolves a playbook's ceiling, the lowest-ranked of its own
// authority_level and the agent's grant ceiling (the first on a tie; a
// level the scale lacks ranks below all), and finds the first step whose
// declared level is unknown or above it. Without any source nothing is
// checked; a step that declares no level is not checked.
func (pl *planner) authority(u *Unit) (bound *AuthorityBinding, step, reason string) {
	scale := pl.m.AuthorityLevelScale
	if scale == nil {
		scale = defaultAuthorityScale
	}
	rank := func(level string) int { return slices.Index(scale, level) }
	var sources [2]AuthorityBinding
	n := 0
	if u.AuthorityLevel != nil {
		sources[n] = AuthorityBinding{Ceiling: *u.AuthorityLevel, BindingSource: "playbook authority_level"}
		n++
	}
	if g := pl.o.grantCeiling; g != nil {
		sources[n] = AuthorityBinding{Ceiling: *g, BindingSource: "agent grant_ceiling"}
		n++
	}
	if n == 0 {
		return nil, "", ""
	}
	b := sources[0]
	for _, c := range sources[1:n] {
		if rank(c.Ceiling) < rank(b.Ceiling) {
			b = c
		}
	}
	bound = &b
	ceiling := rank(b.Ceiling)
	for _, st := range u.Steps {
		if st.AuthorityLevel == nil {
			continue
		}
		if r := rank(*st.AuthorityLevel); r < 0 || r > ceiling || (r == ceiling && pl.o.has(FaultAuthorityAtCeilingRefused)) {
			return bound, st.ID, "step '" + st.ID + "' requires '" + *st.AuthorityLevel + "' authority, above the resolved ceiling '" +
				b.Ceiling + "' (bound by " + b.BindingSource + ") — §3.13"
		}
	}
	return bound, "", ""
}

// spendScope is one step of a governed unit under a spend ceiling.
type spendScope struct {
	step  string
	scope *SpendScope
}

// spendCheck checks a proposed spend against the action_scope.spend of
// each governed step: for a playbook, the scope of the unit a step uses
// (a step that uses nothing is bound by the playbook's own scope); for
// any other unit, its own. Per step: a vendor outside allowed_vendors,
// then (with an amount and a max_spend) a currency mismatch, then an
// amount over max_spend. It returns the binding limit (the breached one,
// else the lowest max_spend), and the breach: its step and detail.
func (pl *planner) spendCheck(u *Unit, sp *SpendProposal) (*SpendLimit, string, string) {
	var buf [4]spendScope
	scopes := buf[:0]
	if u.Kind == "playbook" && u.Steps != nil {
		for _, st := range u.Steps {
			var scope *SpendScope
			if st.Uses != "" {
				if target, ok := pl.unitByID(st.Uses); ok && target.ActionScope != nil {
					scope = target.ActionScope.Spend
				}
			} else if u.ActionScope != nil {
				scope = u.ActionScope.Spend
			}
			if scope != nil {
				scopes = append(scopes, spendScope{st.ID, scope})
			}
		}
	} else if u.ActionScope != nil && u.ActionScope.Spend != nil {
		scopes = append(scopes, spendScope{u.ID, u.ActionScope.Spend})
	}
	if len(scopes) == 0 {
		return nil, "", ""
	}
	for _, sc := range scopes {
		if detail := spendBreach(sp, sc.scope, pl.o.has(FaultSpendAtMaxRefused)); detail != "" {
			return spendLimit(sc), sc.step, detail
		}
	}
	bound := scopes[0]
	for _, sc := range scopes[1:] {
		if maxOrInf(sc.scope.MaxSpend) < maxOrInf(bound.scope.MaxSpend) {
			bound = sc
		}
	}
	return spendLimit(bound), "", ""
}

func maxOrInf(p *float64) float64 {
	if p == nil {
		return math.Inf(1)
	}
	return *p
}

func spendLimit(sc spendScope) *SpendLimit {
	l := &SpendLimit{MaxSpend: sc.scope.MaxSpend, Currency: sc.scope.Currency, BindingSource: "step '" + sc.step + "' action_scope.spend"}
	if len(sc.scope.AllowedVendors) > 0 {
		l.AllowedVendors = sc.scope.AllowedVendors
	}
	return l
}

func spendBreach(sp *SpendProposal, c *SpendScope, atMaxRefused bool) string {
	if v := sp.Vendor; v != nil && len(c.AllowedVendors) > 0 && !slices.Contains(c.AllowedVendors, *v) {
		return "names vendor '" + *v + "', outside allowed_vendors " + jsonStringArray(c.AllowedVendors)
	}
	if sp.Amount == nil || c.MaxSpend == nil {
		return ""
	}
	amount := formatJSNumber(*sp.Amount)
	if c.Currency != nil && sp.Currency != nil && *c.Currency != *sp.Currency {
		return fmt.Sprintf("proposed %s %s cannot be checked against a %s ceiling (currency mismatch)", amount, *sp.Currency, *c.Currency)
	}
	if *sp.Amount > *c.MaxSpend+1e-9 || (atMaxRefused && *sp.Amount == *c.MaxSpend) {
		return fmt.Sprintf("proposed spend %s exceeds max_spend %s", amount, formatJSNumber(*c.MaxSpend))
	}
	return ""
}

// denyCheck adjudicates the proposed action against each governed step's
// deny lists and returns the first refusal: steps in order, and per step
// the tool, then the path (deny paths are globs), then the capability.
// For a playbook a step is bound by the playbook's own deny and by that of
// the unit it uses; any other unit by its own.
func (pl *planner) denyCheck(u *Unit, a *ActionProposal) (ProhibitedAttempt, bool) {
	type request struct{ dimension, token string }
	var reqBuf [3]request
	reqs := reqBuf[:0]
	if a.Tool != nil {
		reqs = append(reqs, request{"tools", *a.Tool})
	}
	if a.Path != nil {
		reqs = append(reqs, request{"paths", *a.Path})
	}
	if a.Capability != nil {
		reqs = append(reqs, request{"capabilities", *a.Capability})
	}
	type bound struct {
		step            string
		playbook, skill *ActionScope
		skillID         string
	}
	var stepBuf [4]bound
	steps := stepBuf[:0]
	if u.Kind == "playbook" && u.Steps != nil {
		for _, st := range u.Steps {
			b := bound{step: st.ID, playbook: u.ActionScope, skillID: st.Uses}
			if st.Uses != "" {
				if target, ok := pl.unitByID(st.Uses); ok {
					b.skill = target.ActionScope
				}
			}
			steps = append(steps, b)
		}
	} else {
		steps = append(steps, bound{step: u.ID, skill: u.ActionScope, skillID: u.ID})
	}
	for _, st := range steps {
		for _, r := range reqs {
			crosses := pl.o.has(FaultDenyStarCrossesSlash)
			byPlaybook, bySkill := denies(st.playbook, r.dimension, r.token, crosses), denies(st.skill, r.dimension, r.token, crosses)
			if !byPlaybook && !bySkill {
				continue
			}
			var source string
			switch {
			case byPlaybook && bySkill:
				source = "playbook action_scope.deny and skill '" + st.skillID + "' action_scope.deny"
			case byPlaybook:
				source = "playbook action_scope.deny"
			default:
				source = "skill '" + st.skillID + "' action_scope.deny"
			}
			return ProhibitedAttempt{Step: st.step, Dimension: r.dimension, Token: r.token, BindingSource: source,
				Note: "prohibited attempt: '" + r.token + "' (" + r.dimension + ") matches " + source +
					" — refused finally, not grantable; a grant against this event records acknowledgement and does not enact (§4.3b, RFC-0030)"}, true
		}
	}
	return ProhibitedAttempt{}, false
}

// denies reports whether a scope's deny list refuses a token on one
// dimension: tools and capabilities by equality, paths also by glob.
func denies(scope *ActionScope, dimension, token string, starCrossesSlash bool) bool {
	if scope == nil || scope.Deny == nil {
		return false
	}
	switch dimension {
	case "tools":
		return slices.Contains(scope.Deny.Tools, token)
	case "capabilities":
		return slices.Contains(scope.Deny.Capabilities, token)
	}
	return slices.ContainsFunc(scope.Deny.Paths, func(p string) bool {
		if starCrossesSlash {
			p = strings.ReplaceAll(p, "*", "**")
		}
		return p == token || globMatch(p, token)
	})
}

// globMatch matches a path against a deny pattern the way the reference
// does, by a regular expression built from it: ** matches any run of
// characters but a line terminator, * any run without a slash, and every
// other character itself, except that ? makes the character before it
// optional (the reference does not escape it). A pattern the reference
// could not compile matches nothing.
func globMatch(pattern, path string) bool {
	re, ok := globRegexp(pattern)
	return ok && re.MatchString(path)
}

var globCache sync.Map // pattern → *regexp.Regexp (nil when invalid)

func globRegexp(pattern string) (*regexp.Regexp, bool) {
	if v, ok := globCache.Load(pattern); ok {
		re, _ := v.(*regexp.Regexp)
		return re, re != nil
	}
	var b strings.Builder
	b.WriteString("^(?:")
	atom := false // whether a quantifiable atom precedes
	valid := true
	for i := 0; i < len(pattern); {
		switch {
		case strings.HasPrefix(pattern[i:], "**"):
			b.WriteString(`[^\n\r\x{2028}\x{2029}]*`)
			i += 2
			atom = true
		case pattern[i] == '*':
			b.WriteString("[^/]*")
			i++
			atom = true
		case pattern[i] == '?':
			// x? then x?? (lazy, the same set) are valid; anything else
			// is "nothing to repeat".
			if !atom {
				valid = false
			}
			b.WriteByte('?')
			i++
			if i < len(pattern) && pattern[i] == '?' {
				i++ // the lazy form matches the same strings
			}
			atom = false
		default:
			r, size := utf8.DecodeRuneInString(pattern[i:])
			b.WriteString(regexp.QuoteMeta(string(r)))
			i += size
			atom = true
		}
	}
	b.WriteString(")$")
	var re *regexp.Regexp
	if valid {
		re = regexp.MustCompile(b.String())
	}
	globCache.Store(pattern, re)
	return re, re != nil
}

// grantRequests lists, for each playbook step that declares escalation
// triggers, the triggers the planner cannot clear: every one but
// insufficient_authority_level, which fires only for the step that
// breached the authority ceiling. A step whose action a deny refused asks
// for nothing (a deny is not grantable).
func grantRequests(u *Unit, violated, prohibited string, allFire bool) []GrantRequest {
	var out []GrantRequest
	for _, st := range u.Steps {
		if len(st.Escalation) == 0 || (prohibited != "" && st.ID == prohibited) {
			continue
		}
		var fired []string
		for _, t := range st.Escalation {
			if t != "insufficient_authority_level" || (violated != "" && st.ID == violated) || allFire {
				fired = append(fired, t)
			}
		}
		if len(fired) > 0 {
			out = append(out, GrantRequest{Step: st.ID, Triggers: fired,
				Note: "step '" + st.ID + "' declares escalation " + jsonStringArray(fired) + " — a grant is owed before enactment (not auto-approved) — §3.14"})
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
