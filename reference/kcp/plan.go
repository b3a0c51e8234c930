package kcp

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
	Environment string // Options.Env; "" when none
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
	// Signed reports a signing block; verification is not the planner's.
	Signed bool
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
	AttestationProvider string
	MaxUnits            float64
	Strict              bool
	Budget              *Budget
	ContextBudget       *float64
	GrantCeiling        string
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
	Spend              *SpendCheck
	GrantRequests      []GrantRequest
	ProhibitedAttempts []ProhibitedAttempt
}

// AuthorityBinding is the resolved authority ceiling of a playbook.
type AuthorityBinding struct {
	Ceiling string // the level
	BoundBy string // "playbook authority_level" or "agent grant_ceiling"
}

// SpendCheck is the outcome of checking Options.Spend against
// action_scope.spend.
type SpendCheck struct {
	Step    string
	Within  bool
	Detail  string // "" when within
	Ceiling *SpendScope
}

// GrantRequest is a structured escalation request of a playbook step.
type GrantRequest struct {
	Step       string
	Escalation []string
	Authority  string
}

// ProhibitedAttempt is an action token denied by action_scope.deny.
type ProhibitedAttempt struct {
	Step      string
	Token     string
	Dimension string // "tool", "path" or "capability"
	DeniedBy  string
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
	AlreadyCommitted *float64 // budget.spent, when positive
	Note             string
}

// UnitCost is the per-request cost of a selected, load-eligible unit.
type UnitCost struct {
	ID              string
	Cost            string
	PricePerRequest *float64
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
	Declared []string // serving.manifest
	Source   string
	// Status is "bound" (source listed), "unbound" (an http(s) source
	// not listed: trust capped at 'known'), or "not-checked".
	Status string
}
