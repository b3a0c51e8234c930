package kcpref

import (
	"encoding/json"
	"reflect"
	"testing"
)

// Scenarios shaped like the conformance vectors (one per layer), with
// their VectorOutcome written by hand from the notes. Comparison is
// key-presence sensitive, as in the vector harnesses.

const newsroom = `
kcp_version: "0.32"
project: fjordwire
version: "2.1.0"
units:
  - id: award-exclusive
    path: stories/award.md
    intent: "Sovereign compute award: the exclusive"
    triggers: [sovereign, compute, award]
    temporal: {valid_from: "2026-07-01"}
    payment: {methods: [{type: x402, price_per_request: "0.20", currency: USDC}]}
    size_tokens: 2000
  - id: award-rumour
    path: stories/rumour.md
    intent: "Compute award rumours"
    triggers: [award]
    temporal: {valid_until: "2026-07-31", superseded_by: award-exclusive}
  - id: weather
    path: live/weather.md
    intent: "Weather at the award ceremony"
    payment: {methods: [{type: x402, price_per_request: "0.05", currency: USDC}]}
    size_tokens: 900
  - id: power-feed
    path: live/power.md
    intent: "Sovereign datacenter power feed"
    payment: {methods: [{type: x402, price_per_request: "0.05", currency: USDC}]}
    bytes: 402
  - id: hr-handbook
    path: hr.md
    intent: "Award policies for staff"
    audience: [human]
  - id: sports
    path: sports.md
    intent: "Football results"
`

func TestScenarioOutcomes(t *testing.T) {
	tests := []struct {
		name   string
		yaml   string
		task   string
		opts   func(*Options)
		expect string
	}{
		{"budget greedy skip", newsroom, "sovereign compute award", func(o *Options) { o.Budget = &Budget{Amount: 0.25} }, `{
			"selected": [
				{"id": "award-exclusive", "loadEligible": true, "score": 23},
				{"id": "power-feed", "loadEligible": true, "score": 3}
			],
			"skipped": [
				{"id": "award-rumour", "reason": "superseded by award-exclusive (successor active)"},
				{"id": "hr-handbook", "reason": "audience [\"human\"] excludes role 'agent'"},
				{"id": "sports", "reason": "no task-relevance match"},
				{"id": "weather", "reason": "over budget: 0.05 would exceed remaining 0 of 0.25 USDC"}
			],
			"federation": [],
			"trust": {"requiresAttestation": false, "agentCanAttest": true},
			"budget": {"rateTier": "default", "ceiling": 0.25, "projectedSpend": 0.25, "remaining": 0, "currency": "USDC"},
			"context": {"approximate": true, "unmeasured": 0},
			"warnings": []
		}`},
		{"context budget skip", newsroom, "sovereign compute award", func(o *Options) { o.ContextBudget = ptr(2500.0) }, `{
			"selected": [
				{"id": "award-exclusive", "loadEligible": true, "score": 23},
				{"id": "power-feed", "loadEligible": true, "score": 3}
			],
			"skipped": [
				{"id": "award-rumour", "reason": "superseded by award-exclusive (successor active)"},
				{"id": "hr-handbook", "reason": "audience [\"human\"] excludes role 'agent'"},
				{"id": "sports", "reason": "no task-relevance match"},
				{"id": "weather", "reason": "over context budget: 900 tokens would exceed remaining 399 of 2,500"}
			],
			"federation": [],
			"trust": {"requiresAttestation": false, "agentCanAttest": true},
			"budget": {"rateTier": "default"},
			"context": {"ceiling": 2500, "projectedTokens": 2101, "remaining": 399, "approximate": true, "unmeasured": 0},
			"warnings": []
		}`},
		{"temporal: before the successor opens", newsroom, "compute award rumours", func(o *Options) {
			o.AsOf = "2026-06-30"
			o.Capabilities.Role = Str("human")
			o.MaxUnits = ptr(1.0)
		}, `{
			"selected": [{"id": "award-rumour", "loadEligible": true, "score": 15}],
			"skipped": [
				{"id": "award-exclusive", "reason": "not active until 2026-07-01"},
				{"id": "power-feed", "reason": "no task-relevance match"},
				{"id": "sports", "reason": "no task-relevance match"}
			],
			"federation": [],
			"trust": {"requiresAttestation": false, "agentCanAttest": true},
			"budget": {"rateTier": "default"},
			"context": {"approximate": false, "unmeasured": 1},
			"warnings": ["2 relevant unit(s) beyond maxUnits=1 not selected"]
		}`},
		{"attestation gated", `
project: vault
trust:
  agent_requirements: {require_attestation: true, trusted_providers: [hsm-attest]}
rate_limits:
  default: {requests_per_minute: 10}
  authenticated: {requests_per_minute: 100}
units:
  - id: recipe
    path: recipe.md
    intent: "Secret recipe"
    access: restricted
  - id: menu
    path: menu.md
    intent: "Public recipe menu"
`, "secret recipe", func(o *Options) { o.Capabilities.Credentials = []string{"oauth2"} }, `{
			"selected": [
				{"id": "recipe", "loadEligible": false, "score": 8},
				{"id": "menu", "loadEligible": true, "score": 3}
			],
			"skipped": [],
			"federation": [],
			"trust": {"requiresAttestation": true, "agentCanAttest": false},
			"budget": {"rateTier": "authenticated"},
			"context": {"approximate": false, "unmeasured": 1},
			"warnings": []
		}`},
		{"attestation presented", `
project: vault
trust:
  agent_requirements: {require_attestation: true, trusted_providers: [hsm-attest]}
units:
  - id: recipe
    path: recipe.md
    intent: "Secret recipe"
    access: restricted
`, "secret recipe", func(o *Options) {
			o.Capabilities.Credentials = []string{"oauth2"}
			o.Capabilities.AttestationProvider = Str("hsm-attest")
		}, `{
			"selected": [{"id": "recipe", "loadEligible": true, "score": 8}],
			"skipped": [],
			"federation": [],
			"trust": {"requiresAttestation": true, "agentCanAttest": true},
			"budget": {"rateTier": "default"},
			"context": {"approximate": false, "unmeasured": 1},
			"warnings": []
		}`},
		{"skill eligibility strict", `
project: ops
units:
  - id: restart-web
    path: skills/restart.md
    intent: "Restart the web service"
    kind: skill
    load_eligible: true
  - id: restart-db
    path: skills/restart-db.md
    intent: "Restart the database service"
    kind: skill
`, "restart service", func(o *Options) { o.Strict = true }, `{
			"selected": [{"id": "restart-web", "loadEligible": true, "score": 8}],
			"skipped": [{"id": "restart-db", "reason": "kind: skill not invoke-eligible: no explicit eligibility grant"}],
			"federation": [],
			"trust": {"requiresAttestation": false, "agentCanAttest": true},
			"budget": {"rateTier": "default"},
			"context": {"approximate": false, "unmeasured": 1},
			"warnings": []
		}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := agentOpts()
			if tt.opts != nil {
				tt.opts(&o)
			}
			got, err := json.Marshal(Outcome(planOf(t, tt.yaml, tt.task, o)))
			if err != nil {
				t.Fatal(err)
			}
			var g, w any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(tt.expect), &w); err != nil {
				t.Fatalf("expectation: %v", err)
			}
			if !reflect.DeepEqual(g, w) {
				t.Errorf("outcome\n got %s\nwant %s", got, tt.expect)
			}
		})
	}
}
