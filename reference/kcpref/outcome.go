package kcpref

import "math"

// VectorOutcome is the projection of a plan that the conformance vectors
// pin (their `expect` object). Arrays keep their order; optional keys are
// pointers with omitempty, because an absent key and a present one are
// different outcomes.
type VectorOutcome struct {
	Selected   []OutcomeSelected   `json:"selected"`
	Skipped    []OutcomeSkipped    `json:"skipped"`
	Federation []OutcomeFederation `json:"federation"`
	Trust      OutcomeTrust        `json:"trust"`
	Budget     OutcomeBudget       `json:"budget"`
	Context    OutcomeContext      `json:"context"`
	Warnings   []string            `json:"warnings"`
}

// OutcomeSelected is one selected unit.
type OutcomeSelected struct {
	ID           string `json:"id"`
	LoadEligible bool   `json:"loadEligible"`
	Score        int    `json:"score"`
}

// OutcomeSkipped is one skipped unit.
type OutcomeSkipped struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// OutcomeFederation is one federation decision.
type OutcomeFederation struct {
	ID               string  `json:"id"`
	Selected         bool    `json:"selected"`
	Reason           string  `json:"reason"`
	CredentialNeeded *string `json:"credentialNeeded,omitempty"`
}

// OutcomeTrust is the trust gate.
type OutcomeTrust struct {
	RequiresAttestation bool `json:"requiresAttestation"`
	AgentCanAttest      bool `json:"agentCanAttest"`
}

// OutcomeBudget is the money summary; all but RateTier only with a budget.
type OutcomeBudget struct {
	RateTier       string   `json:"rateTier"`
	Ceiling        *float64 `json:"ceiling,omitempty"`
	ProjectedSpend *float64 `json:"projectedSpend,omitempty"`
	Remaining      *float64 `json:"remaining,omitempty"`
	Currency       *string  `json:"currency,omitempty"`
}

// OutcomeContext is the token summary; the first three only with a
// context budget.
type OutcomeContext struct {
	Ceiling         *float64 `json:"ceiling,omitempty"`
	ProjectedTokens *float64 `json:"projectedTokens,omitempty"`
	Remaining       *float64 `json:"remaining,omitempty"`
	Approximate     bool     `json:"approximate"`
	Unmeasured      int      `json:"unmeasured"`
}

// Outcome projects a plan onto the VectorOutcome of the conformance
// vectors (the reference's outcomeOf). Lists are never nil, and -0 is
// written as 0, as JSON.stringify does.
func Outcome(p AgentPlan) VectorOutcome {
	o := VectorOutcome{
		Selected:   make([]OutcomeSelected, 0, len(p.Selected)),
		Skipped:    make([]OutcomeSkipped, 0, len(p.Skipped)),
		Federation: make([]OutcomeFederation, 0, len(p.Federation)),
		Trust:      OutcomeTrust{RequiresAttestation: p.Trust.RequiresAttestation, AgentCanAttest: p.Trust.AgentCanAttest},
		Budget: OutcomeBudget{
			RateTier:       p.Budget.RateTier,
			Ceiling:        jsonNumber(p.Budget.Ceiling),
			ProjectedSpend: jsonNumber(p.Budget.ProjectedSpend),
			Remaining:      jsonNumber(p.Budget.Remaining),
		},
		Context: OutcomeContext{
			Ceiling:         jsonNumber(p.Context.Ceiling),
			ProjectedTokens: jsonNumber(p.Context.ProjectedTokens),
			Remaining:       jsonNumber(p.Context.Remaining),
			Approximate:     p.Context.Approximate,
			Unmeasured:      p.Context.Unmeasured,
		},
		Warnings: append([]string{}, p.Warnings...),
	}
	if p.Budget.Ceiling != nil {
		cur := p.Budget.Currency
		o.Budget.Currency = &cur
	}
	for _, s := range p.Selected {
		o.Selected = append(o.Selected, OutcomeSelected{ID: s.ID, LoadEligible: s.LoadEligible, Score: s.Score})
	}
	for _, s := range p.Skipped {
		o.Skipped = append(o.Skipped, OutcomeSkipped{ID: s.ID, Reason: s.Reason})
	}
	for _, f := range p.Federation {
		of := OutcomeFederation{ID: f.ID, Selected: f.Selected, Reason: f.Reason}
		if f.CredentialNeeded != "" {
			need := f.CredentialNeeded
			of.CredentialNeeded = &need
		}
		o.Federation = append(o.Federation, of)
	}
	return o
}

// jsonNumber copies an optional number, turning -0 into 0. A non-finite
// number (which JSON.stringify writes as null) is kept; encoding/json
// refuses it, which surfaces the anomaly instead of hiding it.
func jsonNumber(p *float64) *float64 {
	if p == nil {
		return nil
	}
	v := *p
	if v == 0 {
		v = math.Abs(v)
	}
	return &v
}
