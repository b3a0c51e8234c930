package kcpref

import (
	"errors"
	"fmt"
)

// Manifest is a parsed knowledge.yaml. Optional scalars the planner tests
// for truthiness are plain strings ("" means not declared); fields whose
// absence is observable are pointers or nil slices.
type Manifest struct {
	Project             string        // `project`, default "(unnamed)"
	Version             string        // `version`, default "0.0.0"
	KCPVersion          *string       // `kcp_version`
	AuthorityLevelScale []string      // `authority_level_scale`; nil unless an array
	Units               []Unit        // `units`; non-mapping entries dropped
	Manifests           []ManifestRef // `manifests` (federation refs); non-mapping entries dropped
	Payment             *Payment      // manifest-wide `payment`
	RateLimits          *RateLimits   // `rate_limits`
	Trust               *TrustRequirements
	Signing             *Signing
	Serving             *Serving

	// Source is where the manifest was read from (a path or URL). The
	// parser leaves it empty; callers set it. Only an http(s) source is
	// checked against serving.manifest.
	Source string
	// SHA256 is the hex digest of the raw bytes given to ParseManifest.
	SHA256 string
}

// Unit is one knowledge unit of a manifest.
type Unit struct {
	ID, Path, Intent string
	Scope            string
	Access           string // "public", "authenticated", "restricted", …
	AuthScope        string
	Kind             string  // "", "knowledge", "skill", "playbook", …
	AuthorityLevel   *string // nil when not declared
	Audience         []string
	Triggers         []string
	NotFor           []string
	Deprecated       *bool
	LoadEligible     *bool
	SizeTokens       *float64
	Bytes            *float64
	Temporal         *Temporal
	Payment          *Payment
	RateLimits       *RateLimits
	ActionScope      *ActionScope
	// Steps is nil unless `steps` is an array (which may be empty).
	Steps []Step
}

// Temporal is a unit's validity window; "" means the bound is not set.
type Temporal struct {
	ValidFrom, ValidUntil, SupersededBy string
}

// Payment is a `payment` block.
type Payment struct {
	DefaultTier    string
	Methods        []PaymentMethod // nil when `methods` is not an array
	BillingContact string
}

// PaymentMethod is one entry of payment.methods.
type PaymentMethod struct {
	Type               string
	Currency           *string
	PricePerRequest    *string // kept verbatim, e.g. "0.30"
	Networks           []string
	Wallet             string
	Provider           string
	PlansURL           string
	FreeTier           *bool
	FreeRequestsPerDay *float64
	UpgradeURL         string
}

// RateLimits is a `rate_limits` block.
type RateLimits struct {
	Default, Authenticated, Premium *RateTier
	Backoff                         string
}

// RateTier is one tier of rate_limits.
type RateTier struct {
	RequestsPerMinute, RequestsPerHour, RequestsPerDay *Rate
}

// Rate is a request rate: a number, or "unlimited".
type Rate struct {
	Unlimited bool
	N         float64
}

// ActionScope bounds what an invokable unit may touch (§4.3a).
type ActionScope struct {
	Tools, Paths, Capabilities []string
	Spend                      *SpendScope
	Deny                       *DenyScope
}

// SpendScope is action_scope.spend (§4.3a.1).
type SpendScope struct {
	MaxSpend       *float64
	AllowedVendors []string
	Currency       *string
}

// DenyScope is action_scope.deny (§4.3b); paths may use * and ** globs.
type DenyScope struct {
	Tools, Paths, Capabilities []string
}

// Step is one step of a playbook (§4.3c).
type Step struct {
	ID               string
	Uses             string
	Action           string
	DependsOn        []string
	AuthorityLevel   *string // nil when not declared
	Escalation       []string
	SuccessCondition string
	OnFailure        string
	Timeout          string
}

// ManifestRef is one federation reference (`manifests[]`, §3.6).
type ManifestRef struct {
	ID, URL      string
	Label        string
	Relationship string
	LocalMirror  string
	// Context lists the environments the ref serves; nil when `context`
	// is absent or not an array (a scalar is dropped: the ref is untagged).
	Context       []string
	AgentIdentity *AgentIdentity
}

// AgentIdentity is a ref's agent_identity block.
type AgentIdentity struct {
	Required       *bool
	CredentialHint string
	IssuerHint     string
	DocsURL        string
}

// TrustRequirements is trust.agent_requirements (§3.2).
type TrustRequirements struct {
	RequireAttestation *bool
	TrustedProviders   []string
	AttestationURL     string
}

// Signing is the `signing` block, or the legacy
// trust.content_integrity block mapped onto it.
type Signing struct {
	Scheme, Scope, PublicKey, Signature string
	KeyID                               *string
}

// Serving is the `serving` block (§3.12).
type Serving struct {
	Manifest []string // nil when absent
	MCP      []string
}

// ErrNotMapping is returned when the YAML document is not a mapping.
var ErrNotMapping = errors.New("manifest is not a YAML mapping")

// ParseError is a YAML syntax or construction error; Line and Column are
// 1-based and zero when unknown.
type ParseError struct {
	Line, Column int
	Reason       string
}

func (e *ParseError) Error() string {
	switch {
	case e.Line > 0 && e.Column > 0:
		return fmt.Sprintf("%s (%d:%d)", e.Reason, e.Line, e.Column)
	case e.Line > 0:
		return fmt.Sprintf("%s (line %d)", e.Reason, e.Line)
	}
	return e.Reason
}
