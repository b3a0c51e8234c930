package kcp

// Fault is a deliberate bug that can be planted in the planner, so that a
// check can show it catches the behaviour it claims to check. A fault is
// chosen through Options.Faults, which no vector or flag can set.
type Fault string

// The planted faults: each breaks one gate, reason or budget rule.
const (
	FaultAudienceIgnored      Fault = "audience-ignored"      // the audience gate lets every role through
	FaultNotForIgnored        Fault = "not-for-ignored"       // not_for never excludes a unit
	FaultExpiryIgnored        Fault = "expiry-ignored"        // an expired unit stays relevant
	FaultDeprecatedKept       Fault = "deprecated-kept"       // deprecated units are not skipped
	FaultGatesSwapped         Fault = "gates-swapped"         // deprecation is checked before the temporal window
	FaultSupersessionIgnored  Fault = "supersession-ignored"  // an active successor does not replace its predecessor
	FaultReasonReworded       Fault = "reason-reworded"       // the relevance reason string is reworded
	FaultBudgetUnchecked      Fault = "budget-unchecked"      // the money ceiling is never applied
	FaultContextUnchecked     Fault = "context-unchecked"     // the context ceiling is never applied
	FaultRestrictedOpen       Fault = "restricted-open"       // restricted units are eligible without credentials
	FaultAttestationIgnored   Fault = "attestation-ignored"   // required attestation is never asked for
	FaultSkillsEligible       Fault = "skills-eligible"       // skills and playbooks need no eligibility grant
	FaultTieBreakReversed     Fault = "tie-break-reversed"    // equal scores are ordered by id descending
	FaultMaxUnitsOffByOne     Fault = "max-units-off-by-one"  // one unit more than maxUnits is selected
	FaultCurrencyIgnored      Fault = "currency-ignored"      // a price in another currency counts against the budget
	FaultStrictKeepsUnsized   Fault = "strict-keeps-unsized"  // strict mode selects units that declare no size
	FaultUnaffordableSelected Fault = "unaffordable-selected" // a unit with no usable payment method stays eligible
)

// Faults lists every planted fault.
var Faults = []Fault{
	FaultAudienceIgnored, FaultNotForIgnored, FaultExpiryIgnored, FaultDeprecatedKept, FaultGatesSwapped,
	FaultSupersessionIgnored, FaultReasonReworded, FaultBudgetUnchecked, FaultContextUnchecked,
	FaultRestrictedOpen, FaultAttestationIgnored, FaultSkillsEligible, FaultTieBreakReversed,
	FaultMaxUnitsOffByOne, FaultCurrencyIgnored, FaultStrictKeepsUnsized, FaultUnaffordableSelected,
}

// has reports whether a fault is planted; the planner asks only on the
// paths a fault changes, so an honest plan pays one length check.
func (e *effective) has(f Fault) bool {
	for _, x := range e.faults {
		if x == f {
			return true
		}
	}
	return false
}

// reverseTies reverses each run of equal scores in a sorted order (the
// tie-break-reversed fault).
func reverseTies(store []SelectedUnit, order []int32) {
	for i := 0; i < len(order); {
		j := i + 1
		for j < len(order) && store[order[j]].Score == store[order[i]].Score {
			j++
		}
		for a, b := i, j-1; a < b; a, b = a+1, b-1 {
			order[a], order[b] = order[b], order[a]
		}
		i = j
	}
}
