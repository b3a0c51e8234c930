package kcpref

import (
	"slices"
	"testing"
)

// A unit relevant to the task "deploy guide": intent 2 terms, id/path 2,
// score 10.
const relevant = `
  - id: deploy-guide
    path: docs/deploy.md
    intent: "How to deploy: the guide"
`

func TestCascadeSkipReasons(t *testing.T) {
	tests := []struct {
		name string
		unit string
		opts func(*Options)
		want string
	}{
		{"audience", `
  - id: u
    path: u.md
    intent: deploy guide
    audience: [human, "ops team"]
`, nil, `audience ["human","ops team"] excludes role 'agent'`},
		{"not_for as declared, not lowercased", `
  - id: u
    path: u.md
    intent: deploy guide
    not_for: ["Billing", "Deployment Rollbacks"]
`, nil, "not_for declares it does not serve 'Deployment Rollbacks'"},
		{"not yet active", `
  - id: u
    path: u.md
    intent: deploy guide
    temporal: {valid_from: "2026-07-07"}
`, nil, "not active until 2026-07-07"},
		{"expired", `
  - id: u
    path: u.md
    intent: deploy guide
    temporal: {valid_until: "2026-07-05"}
`, nil, "expired 2026-07-05"},
		{"expired with successor named", `
  - id: u
    path: u.md
    intent: deploy guide
    temporal: {valid_until: "2026-07-05", superseded_by: u2}
`, nil, "expired 2026-07-05 (superseded by u2)"},
		{"deprecated", `
  - id: u
    path: u.md
    intent: deploy guide
    deprecated: true
`, nil, "deprecated"},
		{"superseded by an active successor", `
  - id: u
    path: u.md
    intent: deploy guide
    temporal: {superseded_by: u2}
  - id: u2
    path: u2.md
    intent: nothing relevant
    temporal: {valid_from: "2026-07-06"}
`, nil, "superseded by u2 (successor active)"},
		{"no relevance", `
  - id: u
    path: u.md
    intent: billing
`, nil, "no task-relevance match"},
		{"strict: last reason of an ineligible unit", `
  - id: u
    path: u.md
    intent: deploy guide
    kind: skill
`, func(o *Options) { o.Strict = true }, "kind: skill not invoke-eligible: no explicit eligibility grant"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := agentOpts()
			if tt.opts != nil {
				tt.opts(&o)
			}
			p := planOf(t, units(tt.unit), "deploy guide", o)
			if got := skipReason(t, p, "u"); got != tt.want {
				t.Errorf("reason\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestScoreReasons(t *testing.T) {
	// "award-exclusive" against "sovereign compute award": intent 3×3,
	// triggers 3×4, id/path ("award") 1×2 = 23 (the notes' worked example).
	p := planOf(t, units(`
  - id: award-exclusive
    path: stories/exclusive.md
    intent: "Sovereign compute award: the exclusive"
    triggers: [sovereign, compute, award]
`), "sovereign compute award", agentOpts())
	u := selectedUnit(t, p, "award-exclusive")
	if u.Score != 23 {
		t.Errorf("score %d, want 23", u.Score)
	}
	want := []string{"intent matches 3 term(s)", "triggers match 3 term(s)", "id/path matches 1 term(s)"}
	if !slices.Equal(u.Reasons, want) {
		t.Errorf("reasons %q, want %q", u.Reasons, want)
	}
}

func TestEligibilityReasons(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		opts func(*Options)
		want []string // reasons after the score reasons
		ok   bool     // loadEligible
	}{
		{"skill without grant", units(`
  - id: u
    path: u.md
    intent: deploy guide
    kind: skill
`), nil, []string{"kind: skill not invoke-eligible: no explicit eligibility grant"}, false},
		{"playbook without grant", units(`
  - id: u
    path: u.md
    intent: deploy guide
    kind: playbook
`), nil, []string{"kind: playbook not invoke-eligible: no explicit eligibility grant"}, false},
		{"skill with grant", units(`
  - id: u
    path: u.md
    intent: deploy guide
    kind: skill
    load_eligible: true
`), nil, nil, true},
		{"playbook step uses an ungranted unit", units(`
  - id: u
    path: u.md
    intent: deploy guide
    kind: playbook
    load_eligible: true
    steps:
      - {id: s0, uses: missing-unit}
      - {id: s1, uses: restart}
  - id: restart
    path: r.md
    intent: other
    kind: skill
`), nil, []string{"step 's1' uses 'restart', which is not invoke-eligible — a grant on a playbook does not compose to the units its steps name (§4.3c)"}, false},
		{"playbook step above the playbook's authority", units(`
  - id: u
    path: u.md
    intent: deploy guide
    kind: playbook
    load_eligible: true
    authority_level: suggest
    steps:
      - {id: look, authority_level: observe}
      - {id: ship, authority_level: commit}
`), nil, []string{"step 'ship' requires 'commit' authority, above the resolved ceiling 'suggest' (bound by playbook authority_level) — §3.13"}, false},
		{"agent grant ceiling binds tighter", units(`
  - id: u
    path: u.md
    intent: deploy guide
    kind: playbook
    load_eligible: true
    authority_level: commit
    steps:
      - {id: ship, authority_level: prepare}
`), func(o *Options) { o.GrantCeiling = Str("explain") }, []string{"step 'ship' requires 'prepare' authority, above the resolved ceiling 'explain' (bound by agent grant_ceiling) — §3.13"}, false},
		{"spend vendor outside allowed_vendors", units(`
  - id: u
    path: u.md
    intent: deploy guide
    kind: skill
    load_eligible: true
    action_scope:
      spend: {max_spend: 10, allowed_vendors: [acme, "globex"], currency: USDC}
`), func(o *Options) { o.Spend = &SpendProposal{Vendor: Str("initech")} },
			[]string{`step 'u' names vendor 'initech', outside allowed_vendors ["acme","globex"] — §4.3a.1`}, false},
		{"spend currency mismatch", units(`
  - id: u
    path: u.md
    intent: deploy guide
    kind: skill
    load_eligible: true
    action_scope:
      spend: {max_spend: 10, currency: EURC}
`), func(o *Options) { o.Spend = &SpendProposal{Amount: ptr(2.5), Currency: Str("USDC")} },
			[]string{"step 'u' proposed 2.5 USDC cannot be checked against a EURC ceiling (currency mismatch) — §4.3a.1"}, false},
		{"spend over max_spend", units(`
  - id: u
    path: u.md
    intent: deploy guide
    kind: skill
    load_eligible: true
    action_scope:
      spend: {max_spend: 10}
`), func(o *Options) { o.Spend = &SpendProposal{Amount: ptr(10.5)} },
			[]string{"step 'u' proposed spend 10.5 exceeds max_spend 10 — §4.3a.1"}, false},
		{"denied path", units(`
  - id: u
    path: u.md
    intent: deploy guide
    kind: playbook
    load_eligible: true
    steps:
      - {id: wipe, uses: cleaner}
  - id: cleaner
    path: c.md
    intent: other
    kind: skill
    load_eligible: true
    action_scope:
      deny: {paths: ["/etc/**"]}
`), func(o *Options) { o.Action = &ActionProposal{Path: Str("/etc/ssh/sshd_config")} },
			[]string{"step 'wipe' attempts '/etc/ssh/sshd_config' (paths), denied by skill 'cleaner' action_scope.deny — refused finally, not grantable (§4.3b, RFC-0030)"}, false},
		{"restricted under attestation", `
project: t
trust:
  agent_requirements: {require_attestation: true, trusted_providers: [hsm]}
units:
  - id: u
    path: u.md
    intent: deploy guide
    access: restricted
`, func(o *Options) { o.Capabilities.Credentials = []string{"oauth2"} },
			[]string{"restricted: requires attestation the agent cannot present"}, false},
		{"unaffordable", units(`
  - id: u
    path: u.md
    intent: deploy guide
    payment:
      methods: [{type: free}, {type: subscription}, {type: x402, price_per_request: "1", currency: USDC}]
`), func(o *Options) { o.Capabilities.PaymentMethods = []string{"card"} },
			[]string{"unaffordable: needs subscription or x402"}, false},
		{"authenticated without credentials stays eligible", units(`
  - id: u
    path: u.md
    intent: deploy guide
    access: authenticated
`), nil, []string{"access 'authenticated': agent holds no credentials"}, true},
		{"restricted + x402 without credentials", units(`
  - id: u
    path: u.md
    intent: deploy guide
    access: restricted
    payment:
      methods: [{type: x402, price_per_request: "0.30", currency: USDC}]
`), nil, []string{
			"access 'restricted': agent holds no credentials",
			"hint: 'restricted' + x402 — if this unit is anonymous-paid the manifest should mark it public (spec §4.11, v0.25.1)",
		}, false},
		{"restricted + x402 with credentials", units(`
  - id: u
    path: u.md
    intent: deploy guide
    access: restricted
    payment:
      methods: [{type: x402, price_per_request: "0.30", currency: USDC}]
`), func(o *Options) { o.Capabilities.Credentials = []string{"oauth2"} }, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := agentOpts()
			if tt.opts != nil {
				tt.opts(&o)
			}
			p := planOf(t, tt.yaml, "deploy guide", o)
			u := selectedUnit(t, p, "u")
			_, scoreReasons := scoreUnit(Unit{ID: u.ID, Path: u.Path, Intent: u.Intent}, p.TaskTerms)
			got := u.Reasons[len(scoreReasons):]
			if !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
				t.Errorf("reasons\n got %q\nwant %q", got, tt.want)
			}
			if u.LoadEligible != tt.ok {
				t.Errorf("loadEligible %v, want %v", u.LoadEligible, tt.ok)
			}
		})
	}
}

func TestStrictSkipsWithTheLastReasonEvenTheHint(t *testing.T) {
	o := agentOpts()
	o.Strict = true
	p := planOf(t, units(`
  - id: u
    path: u.md
    intent: deploy guide
    access: restricted
    payment:
      methods: [{type: x402, price_per_request: "0.30", currency: USDC}]
`), "deploy guide", o)
	want := "hint: 'restricted' + x402 — if this unit is anonymous-paid the manifest should mark it public (spec §4.11, v0.25.1)"
	if got := skipReason(t, p, "u"); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestCeilingReasons(t *testing.T) {
	t.Run("money exceeds remaining", func(t *testing.T) {
		o := agentOpts()
		o.Budget = &Budget{Amount: 0.25}
		p := planOf(t, units(`
  - id: big
    path: b.md
    intent: deploy guide
    triggers: [deploy]
    payment: {methods: [{type: x402, price_per_request: "0.25", currency: USDC}]}
  - id: small
    path: s.md
    intent: deploy guide
    payment: {methods: [{type: x402, price_per_request: "0.05", currency: USDC}]}
`), "deploy guide", o)
		if got, want := skipReason(t, p, "small"), "over budget: 0.05 would exceed remaining 0 of 0.25 USDC"; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	})
	t.Run("money in another currency", func(t *testing.T) {
		o := agentOpts()
		o.Budget = &Budget{Amount: 5}
		p := planOf(t, units(`
  - id: eur
    path: e.md
    intent: deploy guide
    payment: {methods: [{type: x402, price_per_request: "0.10", currency: EURC}]}
  - id: nocur
    path: n.md
    intent: deploy guide
    payment: {methods: [{type: x402, price_per_request: "0.10"}]}
`), "deploy guide", o)
		if got, want := skipReason(t, p, "eur"), "over budget: costs 0.10 EURC/request, budget is in USDC"; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
		if got, want := skipReason(t, p, "nocur"), "over budget: costs 0.10 undefined/request, budget is in USDC"; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	})
	t.Run("context exceeds remaining", func(t *testing.T) {
		o := agentOpts()
		o.ContextBudget = ptr(3000.0)
		p := planOf(t, units(`
  - id: big
    path: b.md
    intent: deploy guide
    triggers: [deploy]
    size_tokens: 2900
  - id: small
    path: s.md
    intent: deploy guide
    size_tokens: 900
`), "deploy guide", o)
		if got, want := skipReason(t, p, "small"), "over context budget: 900 tokens would exceed remaining 100 of 3,000"; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	})
	t.Run("undeclared size under strict", func(t *testing.T) {
		o := agentOpts()
		o.ContextBudget = ptr(3000.0)
		o.Strict = true
		p := planOf(t, units(relevant), "deploy guide", o)
		if got := skipReason(t, p, "deploy-guide"); got != reasonStrictNoSize {
			t.Errorf("got %q", got)
		}
		if reasonStrictNoSize != "size undeclared — excluded under strict (declare size_tokens or bytes)" {
			t.Errorf("template changed: %q", reasonStrictNoSize)
		}
	})
}

func TestWarnings(t *testing.T) {
	t.Run("no terms", func(t *testing.T) {
		p := planOf(t, units(relevant), "how do I do it?", agentOpts())
		want := []string{"task produced no search terms after stopword removal"}
		if !slices.Equal(p.Warnings, want) {
			t.Errorf("warnings %q", p.Warnings)
		}
	})
	t.Run("beyond maxUnits and unmeasured", func(t *testing.T) {
		o := agentOpts()
		o.MaxUnits = ptr(1.0)
		o.ContextBudget = ptr(100.0)
		p := planOf(t, units(`
  - {id: a, path: a.md, intent: deploy guide}
  - {id: b, path: b.md, intent: deploy guide}
  - {id: c, path: c.md, intent: deploy guide}
`), "deploy guide", o)
		want := []string{
			"2 relevant unit(s) beyond maxUnits=1 not selected",
			"1 selected unit(s) declare no size — the context projection is a lower bound (unmeasured)",
		}
		if !slices.Equal(p.Warnings, want) {
			t.Errorf("warnings\n got %q\nwant %q", p.Warnings, want)
		}
		if len(p.Skipped) != 0 {
			t.Errorf("units beyond maxUnits are dropped silently, got skipped %v", p.Skipped)
		}
	})
	t.Run("serving binding", func(t *testing.T) {
		m := mustParse(t, `
project: t
serving:
  manifest: ["https://docs.example.com/knowledge.yaml", "https://mirror.example.com/k.yaml"]
units: []
`)
		m.Source = "https://evil.example.net/knowledge.yaml"
		p := Plan("deploy guide", m, agentOpts())
		want := "serving binding: retrieved from https://evil.example.net/knowledge.yaml, which is not in the declared serving.manifest list [https://docs.example.com/knowledge.yaml, https://mirror.example.com/k.yaml] — trust capped at 'known' (KCP §16.5 C22)"
		if !slices.Equal(p.Warnings, []string{want}) {
			t.Errorf("warnings %q", p.Warnings)
		}
		for _, src := range []string{"HTTPS://Docs.Example.com:443/knowledge.yaml?x=1#top", "knowledge.yaml", "/srv/knowledge.yaml"} {
			m.Source = src
			if p := Plan("deploy guide", m, agentOpts()); len(p.Warnings) != 0 {
				t.Errorf("source %q: unexpected warnings %q", src, p.Warnings)
			}
		}
	})
}

func TestFederationReasons(t *testing.T) {
	y := `
project: hub
manifests:
  - id: platform
    url: https://platform.example.com/knowledge.yaml
    agent_identity: {required: true, credential_hint: github_pat, docs_url: "https://docs/pat"}
  - id: platform-dev
    url: https://dev.example.com/knowledge.yaml
    context: [dev, test]
    agent_identity: {required: true, credential_hint: vpn_cert}
  - id: prod-only
    url: https://prod.example.com/knowledge.yaml
    context: [prod]
  - id: open
    url: https://open.example.com/knowledge.yaml
`
	check := func(t *testing.T, o Options, want []OutcomeFederation) {
		t.Helper()
		got := Outcome(planOf(t, y, "deploy", o)).Federation
		if len(got) != len(want) {
			t.Fatalf("got %d refs, want %d", len(got), len(want))
		}
		for i := range want {
			g, w := got[i], want[i]
			if g.ID != w.ID || g.Selected != w.Selected || g.Reason != w.Reason || derefString(g.CredentialNeeded) != derefString(w.CredentialNeeded) ||
				(g.CredentialNeeded == nil) != (w.CredentialNeeded == nil) {
				t.Errorf("ref %d\n got %+v (cred %v)\nwant %+v (cred %v)", i, g, derefString(g.CredentialNeeded), w, derefString(w.CredentialNeeded))
			}
		}
	}
	t.Run("env prod", func(t *testing.T) {
		o := agentOpts()
		o.Env = Str("prod")
		check(t, o, []OutcomeFederation{
			{ID: "platform", Selected: true, Reason: "needs github_pat before fetch", CredentialNeeded: ptr("github_pat")},
			{ID: "platform-dev", Selected: false, Reason: `context ["dev","test"] excludes env 'prod'`, CredentialNeeded: ptr("vpn_cert")},
			{ID: "prod-only", Selected: true, Reason: "eligible"},
			{ID: "open", Selected: true, Reason: "eligible"},
		})
	})
	t.Run("no env, credential held", func(t *testing.T) {
		o := agentOpts()
		o.Capabilities.Credentials = []string{"github_pat"}
		check(t, o, []OutcomeFederation{
			{ID: "platform", Selected: true, Reason: "eligible"},
			{ID: "platform-dev", Selected: false, Reason: `context ["dev","test"] requires a declared env; none given (fail-closed)`, CredentialNeeded: ptr("vpn_cert")},
			{ID: "prod-only", Selected: false, Reason: `context ["prod"] requires a declared env; none given (fail-closed)`},
			{ID: "open", Selected: true, Reason: "eligible"},
		})
	})
}
