package kcpref

// AgentPlan is the planner's inspectable artifact (named after the
// reference's type; Go cannot give the function [Plan] and its result the
// same name). Build it with [Plan]; project it with [Outcome]; print it
// with [PlanJSON]. Optional fields are pointers, nil slices or empty strings
// and are left out of the JSON when unset.
type AgentPlan struct {
	Task        string
	TaskTerms   []string // Terms(Task), duplicates kept
	Manifest    PlanManifest
	Trust       PlanTrust
	Environment *string // Options.Env; nil when none
	AsOf        string
	Options     PlanOptions // the effective options, defaults applied

	// Selected holds the units to load, in final order (score descending,
	// then localeCompare on id), after maxUnits and the ceilings.
	Selected []SelectedUnit
	// Skipped holds the cascade (and strict) skips in manifest order,
	// then the ceiling skips in walk order.
	Skipped    []SkippedUnit
	Federation []FederationChoice
	Budget     BudgetSummary
	Context    ContextSummary
	Warnings   []string
	// Serving is the serving-binding check (§3.12); nil when the
	// manifest declares no serving block.
	Serving *ServingCheck
}

// PlanManifest identifies the planned manifest.
type PlanManifest struct {
	Project    string
	Version    string
	KCPVersion *string
	Source     string
	SHA256     string
}

// PlanTrust is the trust gate (§3.2).
type PlanTrust struct {
	RequiresAttestation bool
	AgentCanAttest      bool
	Note                string
}

// PlanOptions echoes the effective options.
type PlanOptions struct {
	Role                string
	PaymentMethods      []string
	Credentials         []string
	AttestationProvider *string
	MaxUnits            float64
	Strict              bool
	Budget              *Budget
	ContextBudget       *float64
	GrantCeiling        *string
	Spend               *SpendProposal
	Action              *ActionProposal
}

// SelectedUnit is a unit in the load plan. A unit that is not
// LoadEligible is listed (it takes a maxUnits slot) but must not be
// loaded; its Reasons say why.
type SelectedUnit struct {
	ID, Path, Intent string
	Score            int
	// Reasons are the score reasons, then every eligibility reduction.
	Reasons []string
	Payment PaymentChoice
	// ActionScope is the manifest unit's own action_scope, shared with the
	// manifest: treat it as read-only.
	ActionScope *ActionScope
	// Governance is nil when no invocation gate recorded anything.
	Governance          *Governance
	LoadEligible        bool
	RequiresAttestation bool // the manifest requires attestation and the unit is restricted
}

// Governance carries the structured results of the invocation gates of
// skills and playbooks (§3.13, §3.14, §4.3a.1, §4.3b). A plan holds it
// by pointer, since most units have none.
type Governance struct {
	Authority          *AuthorityBinding
	Spend              *SpendLimit
	GrantRequests      []GrantRequest
	ProhibitedAttempts []ProhibitedAttempt
}

// AuthorityBinding is the resolved authority ceiling of a playbook: the
// lowest of its declared sources, and which source that was.
type AuthorityBinding struct {
	Ceiling       string // the level
	BindingSource string // "playbook authority_level" or "agent grant_ceiling"
}

// SpendLimit is the action_scope.spend that binds a proposed spend
// (§4.3a.1): the one a step breached, else the lowest max_spend.
type SpendLimit struct {
	MaxSpend       *float64
	AllowedVendors []string // nil unless the scope lists vendors
	Currency       *string
	BindingSource  string // "step '<id>' action_scope.spend"
}

// GrantRequest is an escalation a playbook step declares that the planner
// cannot clear itself (§3.14): a grant is owed before enactment.
type GrantRequest struct {
	Step     string
	Triggers []string // the triggers that fired
	Note     string
}

// ProhibitedAttempt is a proposed action token a deny list refuses
// (§4.3b): final, never grantable.
type ProhibitedAttempt struct {
	Step          string
	Dimension     string // "tools", "paths" or "capabilities"
	Token         string
	BindingSource string // the deny list(s) that matched
	Note          string
}

// PaymentChoice is how the agent would pay for a unit.
type PaymentChoice struct {
	// Method is "free", "x402", another declared type, or
	// "needs a or b" when the agent supports none.
	Method          string
	Cost            *string  // x402: "<price_per_request> <currency>/request", verbatim
	PricePerRequest *float64 // x402: Number(price_per_request) unless NaN
	Currency        *string
	Affordable      bool
}

// SkippedUnit is a unit left out, with the one reason that decided it.
type SkippedUnit struct {
	ID         string
	Reason     string
	Governance *Governance // shared with the SelectedUnit it was; nil when none
}

// FederationChoice is the decision for one federation ref (§3.6).
type FederationChoice struct {
	ID       string
	URL      string
	Selected bool
	Reason   string
	// CredentialNeeded is the credential hint the agent lacks; set even
	// when the ref is not selected.
	CredentialNeeded string
	DocsURL          string
	LocalMirror      string
}

// BudgetSummary is the money side of the plan (§4.14).
type BudgetSummary struct {
	RateTier          string // "default", "authenticated" or "premium"
	RequestsPerMinute *Rate
	PerRequestCosts   []UnitCost
	// The next four are set only when a budget is given.
	Ceiling          *float64
	ProjectedSpend   *float64
	Remaining        *float64
	Currency         string
	AlreadyCommitted *float64 // money(budget.spent), when positive
	Note             string
}

// UnitCost is the per-request cost of a selected, load-eligible x402
// unit.
type UnitCost struct {
	Unit string // the unit's id
	Cost string
}

// ContextSummary is the token side of the plan (§4.15).
type ContextSummary struct {
	// The next three are set only when a context budget is given.
	Ceiling         *float64
	ProjectedTokens *float64
	Remaining       *float64
	Approximate     bool // some size came from bytes/4
	Unmeasured      int  // selected load-eligible units with no size
	Note            string
}

// ServingCheck is the serving-binding check (§3.12 / C22).
type ServingCheck struct {
	// Status is "bound" (the http(s) source is listed), "unbound" (it is
	// not: trust capped at 'known'), "local" (not retrieved over
	// http(s)) or "no-binding" (serving.manifest lists nothing).
	Status string
	Detail string
	// RetrievalURL is the source, for an http(s) source.
	RetrievalURL string
	// Declared is serving.manifest; nil for no-binding.
	Declared []string
}
