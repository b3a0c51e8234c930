package kcpref

import (
	"crypto/sha256"
	"encoding/hex"
)

// ParseManifest parses a knowledge.yaml the way the reference client does:
// js-yaml 4 default-schema loading, then JavaScript coercions per field
// (String(), Boolean(), Number() with NaN as absent). Missing fields take
// their defaults; nothing is rejected except invalid YAML (*ParseError) and
// a document that is not a mapping (ErrNotMapping).
func ParseManifest(data []byte) (Manifest, error) {
	v, present, err := loadYAML(data)
	if err != nil {
		return Manifest{}, err
	}
	root, ok := v.(*jsObject)
	if !present || !ok {
		return Manifest{}, ErrNotMapping
	}
	sum := sha256.Sum256(data)
	m := Manifest{
		Project:    strDefault(root, "project", "(unnamed)"),
		Version:    strDefault(root, "version", "0.0.0"),
		KCPVersion: asStrPtr(root, "kcp_version"),
		SHA256:     hex.EncodeToString(sum[:]),
	}
	if arr, ok := field(root, "authority_level_scale").([]any); ok {
		m.AuthorityLevelScale = mapString(arr)
	}
	m.Units = []Unit{}
	for _, u := range mappings(field(root, "units")) {
		m.Units = append(m.Units, parseUnit(u))
	}
	m.Manifests = []ManifestRef{}
	for _, r := range mappings(field(root, "manifests")) {
		m.Manifests = append(m.Manifests, parseRef(r))
	}
	m.Payment = parsePayment(field(root, "payment"))
	m.RateLimits = parseRateLimits(field(root, "rate_limits"))
	if trust, ok := field(root, "trust").(*jsObject); ok {
		if req, ok := field(trust, "agent_requirements").(*jsObject); ok {
			m.Trust = &TrustRequirements{
				RequireAttestation: asBool(req, "require_attestation"),
				TrustedProviders:   asStrArr(field(req, "trusted_providers")),
				AttestationURL:     asStr(req, "attestation_url"),
			}
		}
	}
	m.Signing = parseSigning(root)
	if s, ok := field(root, "serving").(*jsObject); ok {
		m.Serving = &Serving{}
		if arr, ok := field(s, "manifest").([]any); ok {
			m.Serving.Manifest = mapString(arr)
		}
		if arr, ok := field(s, "mcp").([]any); ok {
			m.Serving.MCP = mapString(arr)
		}
	}
	return m, nil
}

func parseUnit(u *jsObject) Unit {
	unit := Unit{
		ID:             strDefault(u, "id", ""),
		Path:           strDefault(u, "path", ""),
		Intent:         strDefault(u, "intent", ""),
		Scope:          asStr(u, "scope"),
		Access:         asStr(u, "access"),
		AuthScope:      asStr(u, "auth_scope"),
		Kind:           asStr(u, "kind"),
		AuthorityLevel: asStrPtr(u, "authority_level"),
		Audience:       asStrArr(field(u, "audience")),
		Triggers:       asStrArr(field(u, "triggers")),
		NotFor:         asStrArr(field(u, "not_for")),
		Deprecated:     asBool(u, "deprecated"),
		LoadEligible:   asBool(u, "load_eligible"),
		SizeTokens:     asNum(u, "size_tokens"),
		Bytes:          asNum(u, "bytes"),
		Payment:        parsePayment(field(u, "payment")),
		RateLimits:     parseRateLimits(field(u, "rate_limits")),
	}
	if t, ok := field(u, "temporal").(*jsObject); ok {
		unit.Temporal = &Temporal{
			ValidFrom:    asStr(t, "valid_from"),
			ValidUntil:   asStr(t, "valid_until"),
			SupersededBy: asStr(t, "superseded_by"),
		}
	}
	if a, ok := field(u, "action_scope").(*jsObject); ok {
		unit.ActionScope = &ActionScope{
			Tools:        asStrArr(field(a, "tools")),
			Paths:        asStrArr(field(a, "paths")),
			Capabilities: asStrArr(field(a, "capabilities")),
		}
		if s, ok := field(a, "spend").(*jsObject); ok {
			unit.ActionScope.Spend = &SpendScope{
				MaxSpend:       asNum(s, "max_spend"),
				AllowedVendors: asStrArr(field(s, "allowed_vendors")),
				Currency:       asStrPtr(s, "currency"),
			}
		}
		if d, ok := field(a, "deny").(*jsObject); ok {
			unit.ActionScope.Deny = &DenyScope{
				Tools:        asStrArr(field(d, "tools")),
				Paths:        asStrArr(field(d, "paths")),
				Capabilities: asStrArr(field(d, "capabilities")),
			}
		}
	}
	if steps, ok := field(u, "steps").([]any); ok {
		unit.Steps = []Step{}
		for _, sv := range steps {
			s, ok := sv.(*jsObject)
			if !ok {
				continue
			}
			if _, ok := s.get("id"); !ok {
				continue // only a step with no id at all is dropped (an id of null is "null")
			}
			step := Step{
				ID:               strDefault(s, "id", "null"),
				Uses:             asStr(s, "uses"),
				Action:           asStr(s, "action"),
				DependsOn:        asStrArr(field(s, "depends_on")),
				AuthorityLevel:   asStrPtr(s, "authority_level"),
				SuccessCondition: asStr(s, "success_condition"),
				OnFailure:        asStr(s, "on_failure"),
				Timeout:          asStr(s, "timeout"),
			}
			if esc, ok := field(s, "escalation").(string); ok {
				step.Escalation = []string{esc}
			} else {
				step.Escalation = asStrArr(field(s, "escalation"))
			}
			unit.Steps = append(unit.Steps, step)
		}
	}
	return unit
}

func parseRef(r *jsObject) ManifestRef {
	ref := ManifestRef{
		ID:           strDefault(r, "id", ""),
		URL:          strDefault(r, "url", ""),
		Label:        asStr(r, "label"),
		Relationship: asStr(r, "relationship"),
		LocalMirror:  asStr(r, "local_mirror"),
	}
	if arr, ok := field(r, "context").([]any); ok {
		ref.Context = mapString(arr)
	}
	if ai, ok := field(r, "agent_identity").(*jsObject); ok {
		ref.AgentIdentity = &AgentIdentity{
			Required:       asBool(ai, "required"),
			CredentialHint: asStr(ai, "credential_hint"),
			IssuerHint:     asStr(ai, "issuer_hint"),
			DocsURL:        asStr(ai, "docs_url"),
		}
	}
	return ref
}

func parsePayment(v any) *Payment {
	p, ok := v.(*jsObject)
	if !ok {
		return nil
	}
	pay := &Payment{
		DefaultTier:    asStr(p, "default_tier"),
		BillingContact: asStr(p, "billing_contact"),
	}
	if methods, ok := field(p, "methods").([]any); ok {
		pay.Methods = []PaymentMethod{}
		for _, mv := range methods {
			d, _ := mv.(*jsObject) // a scalar entry has no fields: type ""
			pay.Methods = append(pay.Methods, PaymentMethod{
				Type:               strDefault(d, "type", ""),
				Currency:           asStrPtr(d, "currency"),
				PricePerRequest:    asStrPtr(d, "price_per_request"),
				Networks:           asStrArr(field(d, "networks")),
				Wallet:             asStr(d, "wallet"),
				Provider:           asStr(d, "provider"),
				PlansURL:           asStr(d, "plans_url"),
				FreeTier:           asBool(d, "free_tier"),
				FreeRequestsPerDay: asNum(d, "free_requests_per_day"),
				UpgradeURL:         asStr(d, "upgrade_url"),
			})
		}
	}
	return pay
}

func parseRateLimits(v any) *RateLimits {
	r, ok := v.(*jsObject)
	if !ok {
		return nil
	}
	tier := func(key string) *RateTier {
		t, ok := field(r, key).(*jsObject)
		if !ok {
			return nil
		}
		return &RateTier{
			RequestsPerMinute: parseRate(t, "requests_per_minute"),
			RequestsPerHour:   parseRate(t, "requests_per_hour"),
			RequestsPerDay:    parseRate(t, "requests_per_day"),
		}
	}
	return &RateLimits{
		Default:       tier("default"),
		Authenticated: tier("authenticated"),
		Premium:       tier("premium"),
		Backoff:       asStr(r, "backoff"),
	}
}

func parseRate(o *jsObject, key string) *Rate {
	if s, ok := field(o, key).(string); ok && s == "unlimited" {
		return &Rate{Unlimited: true}
	}
	if n := asNum(o, key); n != nil {
		return &Rate{N: *n}
	}
	return nil
}

// parseSigning reads `signing`, else maps the legacy
// trust.content_integrity{signing{algorithm|scheme,key_id,public_key,
// signature}, signature_file} onto it.
func parseSigning(root *jsObject) *Signing {
	if s, ok := field(root, "signing").(*jsObject); ok {
		return &Signing{
			Scheme:    asStr(s, "scheme"),
			Scope:     asStr(s, "scope"),
			PublicKey: asStr(s, "public_key"),
			Signature: asStr(s, "signature"),
			KeyID:     asStrPtr(s, "key_id"),
		}
	}
	trust, _ := field(root, "trust").(*jsObject)
	ci, ok := field(trust, "content_integrity").(*jsObject)
	if !ok {
		return nil
	}
	legacy, ok := field(ci, "signing").(*jsObject)
	if !ok {
		return nil
	}
	orElse := func(a, b *string) string { // a ?? b
		if a != nil {
			return *a
		}
		if b != nil {
			return *b
		}
		return ""
	}
	return &Signing{
		Scheme:    orElse(asStrPtr(legacy, "algorithm"), asStrPtr(legacy, "scheme")),
		PublicKey: asStr(legacy, "public_key"),
		Signature: orElse(asStrPtr(ci, "signature_file"), asStrPtr(legacy, "signature")),
		KeyID:     asStrPtr(legacy, "key_id"),
	}
}
