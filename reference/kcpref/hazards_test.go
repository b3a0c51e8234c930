package kcpref

import (
	"slices"
	"testing"
)

// The divergence hazards of notes §3.10, each pinned to the reference's
// behaviour (quirks included, on purpose).

func TestHazardUnquotedDatesAreAlwaysFuture(t *testing.T) {
	p := planOf(t, units(`
  - id: future
    path: f.md
    intent: deploy guide
    temporal: {valid_from: 2020-01-01}
  - id: eternal
    path: e.md
    intent: deploy guide
    temporal: {valid_until: 2020-01-01}
`), "deploy guide", agentOpts())
	// String(Date) starts with the weekday, which sorts after any digit.
	if got, want := skipReason(t, p, "future"), "not active until Wed Jan 01 2020 00:00:00 GMT+0000 (Coordinated Universal Time)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	selectedUnit(t, p, "eternal") // never expires
}

func TestHazardLoadEligibleStringFalseIsAGrant(t *testing.T) {
	p := planOf(t, units(`
  - id: u
    path: u.md
    intent: deploy guide
    kind: skill
    load_eligible: "false"
`), "deploy guide", agentOpts())
	if u := selectedUnit(t, p, "u"); !u.LoadEligible {
		t.Errorf("Boolean(\"false\") is true: the skill is granted; reasons %q", u.Reasons)
	}
}

func TestHazardScalarContextFailsOpen(t *testing.T) {
	p := planOf(t, `
project: hub
manifests:
  - {id: prod-only, url: "https://p", context: prod}
`, "deploy", agentOpts())
	if f := p.Federation[0]; !f.Selected || f.Reason != "eligible" {
		t.Errorf("a scalar context is dropped, so the ref is untagged and eligible: %+v", f)
	}
}

func TestHazardDuplicateUnitIDs(t *testing.T) {
	o := agentOpts()
	o.ContextBudget = ptr(1000.0)
	p := planOf(t, units(`
  - id: old
    path: old.md
    intent: deploy guide
    temporal: {superseded_by: dup}
  - id: dup
    path: a.md
    intent: deploy guide
    size_tokens: 10
  - id: dup
    path: b.md
    intent: unrelated
    deprecated: true
    size_tokens: 5000
`), "deploy guide", o)
	// The successor lookup takes the first "dup" (active, not deprecated).
	if got, want := skipReason(t, p, "old"), "superseded by dup (successor active)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// The size lookup takes the last "dup": 5,000 tokens, not 10.
	if got, want := p.Skipped[len(p.Skipped)-1], (SkippedUnit{ID: "dup", Reason: "over context budget: 5,000 tokens would exceed remaining 1,000 of 1,000"}); got.ID != want.ID || got.Reason != want.Reason {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestHazardTieOrderOfMixedCaseIDs(t *testing.T) {
	p := planOf(t, units(`
  - {id: U2, path: x.md, intent: deploy}
  - {id: b-1, path: x.md, intent: deploy}
  - {id: a2, path: x.md, intent: deploy}
  - {id: B_1, path: x.md, intent: deploy}
  - {id: b_1, path: x.md, intent: deploy}
`), "deploy", agentOpts())
	// Equal scores: ICU order (lower before upper, _ before -), not bytes.
	if got, want := ids(p.Selected), []string{"a2", "b_1", "B_1", "b-1", "U2"}; !slices.Equal(got, want) {
		t.Errorf("order %q, want %q", got, want)
	}
}

func TestHazardAstralIndicAndSigmaTokens(t *testing.T) {
	p := planOf(t, units(`
  - {id: greek, path: g.md, intent: "Η ΟΔΟΣ"}
  - {id: math, path: m.md, intent: "𝒳𝒴 notation"}
  - {id: hindi, path: h.md, intent: "हिन्दी"}
`), "ΟΔΟΣ 𝒳𝒴 हिन्दी", agentOpts())
	if want := []string{"οδος", "𝒳𝒴"}; !slices.Equal(p.TaskTerms, want) {
		t.Errorf("terms %q, want %q", p.TaskTerms, want)
	}
	selectedUnit(t, p, "greek")
	selectedUnit(t, p, "math")
	if got := skipReason(t, p, "hindi"); got != "no task-relevance match" {
		t.Errorf("hindi: %q", got)
	}
}

func TestHazardMoneyRoundingTie(t *testing.T) {
	o := agentOpts()
	o.Budget = &Budget{Amount: 0.0078125}
	p := planOf(t, units(`
  - id: u
    path: u.md
    intent: deploy guide
    payment: {methods: [{type: x402, price_per_request: "0.01", currency: USDC}]}
`), "deploy guide", o)
	if got, want := skipReason(t, p, "u"), "over budget: 0.01 would exceed remaining 0.007813 of 0.0078125 USDC"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if *p.Budget.Remaining != 0.007813 {
		t.Errorf("remaining %v", *p.Budget.Remaining)
	}
}

func TestHazardMoneyIsNotRolledBack(t *testing.T) {
	// The notes' repro: a 5,000-token unit priced 0.25 and a 100-token unit
	// priced 0.05, budget 0.25, context 1,000.
	o := agentOpts()
	o.Budget = &Budget{Amount: 0.25}
	o.ContextBudget = ptr(1000.0)
	p := planOf(t, units(`
  - id: large
    path: l.md
    intent: deploy guide
    triggers: [deploy]
    size_tokens: 5000
    payment: {methods: [{type: x402, price_per_request: "0.25", currency: USDC}]}
  - id: small
    path: s.md
    intent: deploy guide
    size_tokens: 100
    payment: {methods: [{type: x402, price_per_request: "0.05", currency: USDC}]}
`), "deploy guide", o)
	want := []SkippedUnit{
		{ID: "large", Reason: "over context budget: 5,000 tokens would exceed remaining 1,000 of 1,000"},
		{ID: "small", Reason: "over budget: 0.05 would exceed remaining 0 of 0.25 USDC"},
	}
	if len(p.Skipped) != 2 || p.Skipped[0].Reason != want[0].Reason || p.Skipped[1].Reason != want[1].Reason {
		t.Errorf("skipped %+v", p.Skipped)
	}
	// …while the plan reports the full ceiling as remaining.
	if *p.Budget.ProjectedSpend != 0 || *p.Budget.Remaining != 0.25 || len(p.Selected) != 0 {
		t.Errorf("budget %+v selected %v", p.Budget, ids(p.Selected))
	}
}

func TestHazardNotForSubstringOfAShortTerm(t *testing.T) {
	p := planOf(t, units(`
  - id: u
    path: u.md
    intent: api reference
    not_for: ["Rapid prototyping"]
`), "api", agentOpts())
	if got, want := skipReason(t, p, "u"), "not_for declares it does not serve 'Rapid prototyping'"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestHazardEmptyTriggerMatchesEveryTerm(t *testing.T) {
	p := planOf(t, units(`
  - id: u
    path: u.md
    intent: nothing
    triggers: [""]
`), "alpha beta gamma", agentOpts())
	if u := selectedUnit(t, p, "u"); u.Score != 12 || !slices.Equal(u.Reasons, []string{"triggers match 3 term(s)"}) {
		t.Errorf("score %d reasons %q", u.Score, u.Reasons)
	}
}

func TestHazardUnaffordableNeedsNothing(t *testing.T) {
	o := agentOpts()
	o.Capabilities.PaymentMethods = []string{} // --methods ""
	p := planOf(t, units(`
  - id: u
    path: u.md
    intent: deploy guide
    payment: {methods: [{type: free}]}
`), "deploy guide", o)
	u := selectedUnit(t, p, "u")
	if u.LoadEligible || lastReason(u) != "unaffordable: needs " || u.Payment.Method != "needs " {
		t.Errorf("unit %+v", u)
	}
}
