package kcpref

// Options are the planner inputs besides the task and the manifest (the
// PlanOptions of the reference). The JSON names are those of a conformance
// vector's `options` object, so a vector can be decoded straight into it.
//
// Defaults (applied by [Plan], never by mutating Options): no env, maxUnits
// 5, not strict, no budget, no context budget, and capabilities role
// "agent", paymentMethods ["free"], credentials [], no attestation
// provider. AsOf has no default here: it is the planner's only notion of
// "now", and the caller supplies it (see [DefaultAsOf]).
type Options struct {
	// Env is the runtime environment used for federation context slicing;
	// nil means none declared (fail-closed for context-tagged refs). An
	// empty env is declared: it matches a ref tagged "".
	Env *string `json:"env,omitempty"`
	// AsOf is the ISO date (YYYY-MM-DD) the temporal gates compare
	// against, as plain strings.
	AsOf string `json:"asOf,omitempty"`
	// MaxUnits caps the selected units; nil means 5. It is a JS number:
	// NaN disables the cap, a fraction compares as a fraction.
	MaxUnits *float64 `json:"maxUnits,omitempty"`
	// Strict moves units that are not load-eligible to skipped, and
	// excludes units of undeclared size under a context budget.
	Strict bool `json:"strict,omitempty"`
	// Budget is the money ceiling for pay-per-request units.
	Budget *Budget `json:"budget,omitempty"`
	// ContextBudget is the token ceiling for the context window.
	ContextBudget *float64 `json:"contextBudget,omitempty"`
	// Capabilities describe the agent; a field that is set replaces the
	// default (a shallow merge).
	Capabilities Capabilities `json:"capabilities"`
	// GrantCeiling is the agent's authority grant ceiling (§3.13); nil
	// means none (an empty one is a level no scale holds).
	GrantCeiling *string `json:"grantCeiling,omitempty"`
	// Spend is a proposed spend to check against action_scope.spend
	// (§4.3a.1).
	Spend *SpendProposal `json:"spend,omitempty"`
	// Action is a proposed action to check against action_scope.deny
	// (§4.3b).
	Action *ActionProposal `json:"action,omitempty"`
	// Faults plant deliberate bugs (faults.go), for sifu's mutation
	// self-test; never set from a vector or a flag.
	Faults []Fault `json:"-"`
}

// Budget is the money ceiling.
type Budget struct {
	Amount float64 `json:"amount"`
	// Currency is nil for the default "USDC"; an empty currency is a
	// currency of its own, as in the reference.
	Currency *string `json:"currency,omitempty"`
	// Spent is money already committed upstream (in a federation walk);
	// nil means none.
	Spent *float64 `json:"spent,omitempty"`
}

// Capabilities describe what the agent is and holds. Each field replaces
// its default when set, even to an empty value (JS object spread).
type Capabilities struct {
	// Role is the audience role; nil means the default "agent".
	Role *string `json:"role,omitempty"`
	// PaymentMethods the agent can settle; nil means ["free"], while an
	// empty non-nil list means none.
	PaymentMethods []string `json:"paymentMethods"`
	// Credentials the agent holds; nil means none.
	Credentials []string `json:"credentials"`
	// AttestationProvider the agent can present; nil (or "") means none.
	AttestationProvider *string `json:"attestationProvider,omitempty"`
}

// SpendProposal is a spend an invocation would make; a nil field is not
// proposed.
type SpendProposal struct {
	Amount   *float64 `json:"amount,omitempty"`
	Vendor   *string  `json:"vendor,omitempty"`
	Currency *string  `json:"currency,omitempty"`
}

// ActionProposal is an action an invocation would attempt; a nil field is
// not proposed.
type ActionProposal struct {
	Tool       *string `json:"tool,omitempty"`
	Path       *string `json:"path,omitempty"`
	Capability *string `json:"capability,omitempty"`
}

// DefaultMaxUnits is the maxUnits default.
const DefaultMaxUnits = 5

// DefaultCurrency is the budget currency default.
const DefaultCurrency = "USDC"

// effective is Options with every default applied.
type effective struct {
	env           *string
	asOf          string
	maxUnits      float64
	strict        bool
	budget        *Budget
	currency      string
	spent         float64 // budget.spent, 0 when none
	contextBudget *float64
	role          string
	methods       []string
	credentials   []string
	attest        *string
	grantCeiling  *string
	spend         *SpendProposal
	action        *ActionProposal
	faults        []Fault
}

// defaultPaymentMethods is the paymentMethods default. It is shared and
// read-only: the planner never writes to effective.methods, and echoes a
// copy.
var defaultPaymentMethods = []string{"free"}

func resolveOptions(o Options) effective {
	e := effective{
		faults:        o.Faults,
		env:           o.Env,
		asOf:          o.AsOf,
		maxUnits:      DefaultMaxUnits,
		strict:        o.Strict,
		budget:        o.Budget,
		currency:      DefaultCurrency,
		contextBudget: o.ContextBudget,
		role:          "agent",
		methods:       defaultPaymentMethods,
		credentials:   []string{},
		attest:        o.Capabilities.AttestationProvider,
		grantCeiling:  o.GrantCeiling,
		spend:         o.Spend,
		action:        o.Action,
	}
	if o.MaxUnits != nil {
		e.maxUnits = *o.MaxUnits
	}
	if b := o.Budget; b != nil {
		if b.Currency != nil {
			e.currency = *b.Currency
		}
		if b.Spent != nil {
			e.spent = *b.Spent
		}
	}
	if o.Capabilities.Role != nil {
		e.role = *o.Capabilities.Role
	}
	if o.Capabilities.PaymentMethods != nil {
		e.methods = o.Capabilities.PaymentMethods
	}
	if o.Capabilities.Credentials != nil {
		e.credentials = o.Capabilities.Credentials
	}
	return e
}

// Str returns a pointer to a copy of s, for the optional fields of
// Options.
func Str(s string) *string { return &s }
