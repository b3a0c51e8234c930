package kcpref

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// unitOf parses a manifest with one unit given by its fields.
func unitOf(t *testing.T, fields string) Unit {
	t.Helper()
	m := mustParse(t, "units:\n  - "+strings.ReplaceAll(strings.TrimSpace(fields), "\n", "\n    ")+"\n")
	if len(m.Units) != 1 {
		t.Fatalf("got %d units", len(m.Units))
	}
	return m.Units[0]
}

func TestParseManifestDefaults(t *testing.T) {
	m := mustParse(t, "units: not-a-list\nmanifests: {}\n")
	if m.Project != "(unnamed)" || m.Version != "0.0.0" || m.KCPVersion != nil {
		t.Errorf("defaults: %q %q %v", m.Project, m.Version, m.KCPVersion)
	}
	if m.Units == nil || len(m.Units) != 0 || m.Manifests == nil || len(m.Manifests) != 0 {
		t.Errorf("units %v manifests %v", m.Units, m.Manifests)
	}
	if m.Trust != nil || m.Payment != nil || m.Signing != nil || m.Serving != nil {
		t.Error("absent blocks must stay nil")
	}
	if len(m.SHA256) != 64 {
		t.Errorf("sha256 %q", m.SHA256)
	}
}

func TestParseManifestStringCoercions(t *testing.T) {
	m := mustParse(t, `
project: 1.0
version: 0755
kcp_version: 0.30
units:
  - id: 1_000
    path: [a, b]
    intent: {x: 1}
    kind: true
    access: ~
    audience: agent
    triggers: [1.50, null, true, 2026-07-01]
    temporal:
      valid_from: 2026-07-01
      valid_until: "2026-08-01"
  - just a string
  - null
`)
	if m.Project != "1" || m.Version != "755" || *m.KCPVersion != "0.3" {
		t.Errorf("project %q version %q kcp %q", m.Project, m.Version, *m.KCPVersion)
	}
	if len(m.Units) != 1 {
		t.Fatalf("non-mapping units must be dropped, got %d", len(m.Units))
	}
	u := m.Units[0]
	// js-yaml 4.3 (kcp-agent 0.27.0's lock file) keeps 1_000 a string.
	if u.ID != "1_000" || u.Path != "a,b" || u.Intent != "[object Object]" || u.Kind != "true" || u.Access != "" {
		t.Errorf("id %q path %q intent %q kind %q access %q", u.ID, u.Path, u.Intent, u.Kind, u.Access)
	}
	if u.Audience == nil || len(u.Audience) != 0 {
		t.Errorf("a scalar audience must give [], got %#v", u.Audience)
	}
	date := "Wed Jul 01 2026 00:00:00 GMT+0000 (Coordinated Universal Time)"
	if want := []string{"1.5", "null", "true", date}; !slices.Equal(u.Triggers, want) {
		t.Errorf("triggers %q, want %q", u.Triggers, want)
	}
	if u.Temporal.ValidFrom != date || u.Temporal.ValidUntil != "2026-08-01" {
		t.Errorf("temporal %+v", *u.Temporal)
	}
}

func TestParseManifestBooleanCoercions(t *testing.T) {
	tests := []struct {
		yaml string
		want *bool
	}{
		{`load_eligible: true`, ptr(true)},
		{`load_eligible: "false"`, ptr(true)}, // Boolean("false") is true
		{`load_eligible: "no"`, ptr(true)},
		{`load_eligible: 0`, ptr(false)},
		{`load_eligible: 2`, ptr(true)},
		{`load_eligible: null`, ptr(false)},
		{`load_eligible: ""`, ptr(false)},
		{`load_eligible: []`, ptr(true)},
		{`id: absent`, nil},
	}
	for _, tt := range tests {
		u := unitOf(t, tt.yaml)
		if (u.LoadEligible == nil) != (tt.want == nil) || (u.LoadEligible != nil && *u.LoadEligible != *tt.want) {
			t.Errorf("%s: got %v", tt.yaml, u.LoadEligible)
		}
	}
}

func TestParseManifestNumberCoercions(t *testing.T) {
	tests := []struct {
		yaml string
		want *float64
	}{
		{`size_tokens: 1200`, ptr(1200.0)},
		{`size_tokens: ""`, ptr(0.0)},
		{`size_tokens: " 12 "`, ptr(12.0)},
		{`size_tokens: "0x10"`, ptr(16.0)},
		{`size_tokens: 0x10`, ptr(16.0)},
		{`size_tokens: 0o17`, ptr(15.0)},
		{`size_tokens: 0755`, ptr(755.0)},
		{`size_tokens: 1_000`, nil},           // js-yaml 4.3: the string "1_000", whose Number() is NaN
		{`size_tokens: 1e999`, ptr(posInf())}, // not finite, so the string "1e999", whose Number() is Infinity

		{`size_tokens: true`, ptr(1.0)},
		{`size_tokens: "12k"`, nil}, // NaN is absent
		{`size_tokens: "1_000"`, nil},
		{`size_tokens: null`, nil},
		{`size_tokens: [7]`, ptr(7.0)},
		{`size_tokens: .inf`, ptr(posInf())},
	}
	for _, tt := range tests {
		u := unitOf(t, tt.yaml)
		if (u.SizeTokens == nil) != (tt.want == nil) || (u.SizeTokens != nil && *u.SizeTokens != *tt.want) {
			t.Errorf("%s: got %v, want %v", tt.yaml, deref(u.SizeTokens), deref(tt.want))
		}
	}
}

func posInf() float64 { return 1 / zero() }
func zero() float64   { return 0 }

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestParseManifestTimestamps(t *testing.T) {
	tests := map[string]string{
		`2026-07-05`:                "Sun Jul 05 2026 00:00:00 GMT+0000 (Coordinated Universal Time)",
		`2026-7-5 1:02:03`:          "Sun Jul 05 2026 01:02:03 GMT+0000 (Coordinated Universal Time)",
		`2026-07-05T10:00:00+02:00`: "Sun Jul 05 2026 08:00:00 GMT+0000 (Coordinated Universal Time)",
		`2026-07-05 10:00:00 -5`:    "Sun Jul 05 2026 15:00:00 GMT+0000 (Coordinated Universal Time)",
		`2026-02-30`:                "Mon Mar 02 2026 00:00:00 GMT+0000 (Coordinated Universal Time)",
		`0050-01-01`:                "Sun Jan 01 1950 00:00:00 GMT+0000 (Coordinated Universal Time)", // Date.UTC's two-digit years
		`"2026-07-05"`:              "2026-07-05",
		`2026-07-05x`:               "2026-07-05x",
	}
	for in, want := range tests {
		if got := unitOf(t, "intent: "+in).Intent; got != want {
			t.Errorf("%s: got %q, want %q", in, got, want)
		}
	}
}

func TestParseManifestScalarResolution(t *testing.T) {
	tests := map[string]string{
		`yes`: "yes", `True`: "true", `FALSE`: "false", `~`: "", `Null`: "", // String(v ?? "")
		`.5`: "0.5", `1.`: "1", `+12`: "12",
		`-0`: "0", `1e3`: "1000", `0x_1`: "0x_1", `1:30`: "1:30", `1_`: "1_", `0o`: "0o", `+.5`: "+.5", `0_1`: "0_1", `1_0.5`: "1_0.5", `1e999`: "1e999", `-1e999`: "-1e999", `0b`: "0b",
		`.NaN`: "NaN", `-.inf`: "-Infinity", `!!str 12`: "12", `!!int "12"`: "12", `!!binary aGVsbG8=`: "104,101,108,108,111",
	}
	for in, want := range tests {
		if got := unitOf(t, "path: "+in).Path; got != want {
			t.Errorf("%s: got %q, want %q", in, got, want)
		}
	}
}

func TestParseManifestBlocks(t *testing.T) {
	m := mustParse(t, `
project: hub
authority_level_scale: [read, write]
payment:
  default_tier: free
  methods:
    - {type: x402, price_per_request: 0.30, currency: USDC, free_tier: "false"}
    - free
rate_limits:
  default: {requests_per_minute: 60}
  premium: {requests_per_minute: unlimited}
trust:
  agent_requirements: {require_attestation: yes, trusted_providers: hsm}
  content_integrity:
    signing: {algorithm: ed25519, key_id: k1}
    signature_file: knowledge.yaml.sig
serving: {manifest: [https://a/k.yaml], mcp: https://a/mcp}
manifests:
  - id: dev
    url: https://dev
    context: prod
    agent_identity: {required: "false", credential_hint: pat}
  - 42
  - id: eu
    context: [eu, 1]
units:
  - id: pb
    kind: playbook
    steps:
      - {id: s1, uses: x, escalation: human-review, depends_on: s0}
      - {uses: no-id}
      - {id: s2, escalation: [a, b], authority_level: commit}
`)
	if !slices.Equal(m.AuthorityLevelScale, []string{"read", "write"}) {
		t.Errorf("scale %q", m.AuthorityLevelScale)
	}
	pm := m.Payment.Methods
	// An unquoted price is a number, so "0.30" becomes "0.3"; a scalar
	// method entry has no fields.
	if len(pm) != 2 || *pm[0].PricePerRequest != "0.3" || *pm[0].Currency != "USDC" || !*pm[0].FreeTier || pm[1].Type != "" {
		t.Errorf("methods %+v", pm)
	}
	if m.RateLimits.Default.RequestsPerMinute.N != 60 || !m.RateLimits.Premium.RequestsPerMinute.Unlimited || m.RateLimits.Authenticated != nil {
		t.Errorf("rate limits %+v", m.RateLimits)
	}
	// require_attestation: yes is the string "yes": truthy. A scalar
	// trusted_providers gives [].
	if !*m.Trust.RequireAttestation || len(m.Trust.TrustedProviders) != 0 {
		t.Errorf("trust %+v", m.Trust)
	}
	if m.Signing == nil || m.Signing.Scheme != "ed25519" || m.Signing.KeyID == nil || *m.Signing.KeyID != "k1" || m.Signing.Signature != "knowledge.yaml.sig" {
		t.Errorf("legacy signing %+v", m.Signing)
	}
	if !slices.Equal(m.Serving.Manifest, []string{"https://a/k.yaml"}) || m.Serving.MCP != nil {
		t.Errorf("serving %+v", m.Serving)
	}
	if len(m.Manifests) != 2 {
		t.Fatalf("refs %d", len(m.Manifests))
	}
	if m.Manifests[0].Context != nil || !*m.Manifests[0].AgentIdentity.Required {
		t.Errorf("a scalar context is dropped and Boolean(\"false\") is true: %+v", m.Manifests[0])
	}
	if m.Manifests[1].URL != "" || !slices.Equal(m.Manifests[1].Context, []string{"eu", "1"}) {
		t.Errorf("ref %+v", m.Manifests[1])
	}
	steps := m.Units[0].Steps
	if len(steps) != 2 || !slices.Equal(steps[0].Escalation, []string{"human-review"}) || len(steps[0].DependsOn) != 0 ||
		!slices.Equal(steps[1].Escalation, []string{"a", "b"}) || steps[1].AuthorityLevel == nil || *steps[1].AuthorityLevel != "commit" {
		t.Errorf("steps %+v", steps)
	}
}

func TestParseManifestMergeKeys(t *testing.T) {
	m := mustParse(t, `
defaults: &d {path: shared.md, intent: shared, triggers: [x]}
units:
  - <<: *d
    id: a
    intent: own
  - <<: [{id: b, path: first.md}, {path: second.md, kind: skill}]
`)
	a, b := m.Units[0], m.Units[1]
	if a.Path != "shared.md" || a.Intent != "own" || !slices.Equal(a.Triggers, []string{"x"}) {
		t.Errorf("a %+v", a)
	}
	if b.ID != "b" || b.Path != "first.md" || b.Kind != "skill" {
		t.Errorf("b %+v", b)
	}
}

func TestParseManifestErrors(t *testing.T) {
	for _, in := range []string{"", "# only a comment\n", "---\n", "- a\n- b\n", "just text", "42"} {
		if _, err := ParseManifest([]byte(in)); !errors.Is(err, ErrNotMapping) {
			t.Errorf("%q: got %v, want ErrNotMapping", in, err)
		}
	}
	if ErrNotMapping.Error() != "manifest is not a YAML mapping" {
		t.Errorf("message %q", ErrNotMapping)
	}
	tests := map[string]string{
		"a: 1\na: 2\n":                 `duplicated mapping key "a" (2:1)`,
		"a: [\n":                       "did not find expected node content",
		"a: 1\n---\nb: 2\n":            "expected a single document in the stream, but found more",
		"a: !foo 1\n":                  "unknown tag !<!foo>",
		"a: !!int x\n":                 "cannot resolve a node with !<tag:yaml.org,2002:int> explicit tag",
		"a: *nowhere\n":                "unknown anchor",
		"units:\n  - id: a\n  id: b\n": "",
	}
	for in, want := range tests {
		_, err := ParseManifest([]byte(in))
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%q: got %v, want a *ParseError", in, err)
			continue
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %q does not mention %q", in, err, want)
		}
	}
}
