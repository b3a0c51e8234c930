package kcp

import (
	"fmt"
	"slices"
	"strings"
)

// Warning and reason templates of the planner (contract strings).
const (
	warnNoTerms        = "task produced no search terms after stopword removal"
	reasonDeprecated   = "deprecated"
	reasonNotRelevant  = "no task-relevance match"
	reasonAttestation  = "restricted: requires attestation the agent cannot present"
	reasonStrictNoSize = "size undeclared — excluded under strict (declare size_tokens or bytes)"
)

// Plan is the deterministic planner: given a task, a manifest and the
// agent's options it decides what to load, what to skip and why, which
// federation refs may be fetched, and what it costs. It is pure: the
// manifest is never modified, no clock is read (Options.AsOf is "now"),
// and the same inputs always give the same plan.
//
// Units pass a cascade of gates in manifest order (audience, not_for,
// temporal window, deprecation, supersession, relevance); the first that
// fails skips the unit with its reason. Survivors are scored and reduced
// (skill eligibility, playbook composition and authority, spend, deny,
// attestation, payment, access), sorted by score then id, and walked
// greedily under maxUnits and the money and context ceilings.
func Plan(task string, m Manifest, opts Options) AgentPlan {
	o := resolveOptions(opts)
	pl := newPlanner(m, o, Terms(task))
	p := AgentPlan{
		Task:        task,
		TaskTerms:   pl.terms,
		Manifest:    PlanManifest{Project: m.Project, Version: m.Version, KCPVersion: m.KCPVersion, Source: m.Source, SHA256: m.SHA256, Signed: m.Signing != nil},
		Environment: o.env,
		AsOf:        o.asOf,
		Options:     echoOptions(o),
		Selected:    []SelectedUnit{},
		Skipped:     []SkippedUnit{},
		Warnings:    []string{},
	}
	if len(pl.terms) == 0 {
		p.Warnings = append(p.Warnings, warnNoTerms)
	}
	var warning string
	p.Serving, warning = checkServing(m.Serving, m.Source)
	if warning != "" {
		p.Warnings = append(p.Warnings, warning)
	}
	p.Trust = pl.trust()

	var candidates []*candidate
	for _, u := range m.Units {
		score, reasons, skip := pl.cascade(u)
		if skip != "" {
			p.Skipped = append(p.Skipped, SkippedUnit{ID: u.ID, Reason: skip})
			continue
		}
		c := pl.reduce(u, score, reasons)
		if o.strict && !c.unit.LoadEligible {
			p.Skipped = append(p.Skipped, SkippedUnit{ID: u.ID, Reason: c.unit.Reasons[len(c.unit.Reasons)-1], Governance: c.unit.Governance})
			continue
		}
		candidates = append(candidates, c)
	}
	// Score descending, then id in localeCompare order; stable.
	slices.SortStableFunc(candidates, func(a, b *candidate) int {
		if a.unit.Score != b.unit.Score {
			return b.unit.Score - a.unit.Score
		}
		return a.idKey.compare(b.idKey)
	})

	w := pl.walk(candidates)
	for _, c := range w.accepted {
		p.Selected = append(p.Selected, c.unit)
	}
	p.Skipped = append(p.Skipped, w.skipped...)
	if w.beyondMax > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%d relevant unit(s) beyond maxUnits=%s not selected", w.beyondMax, formatJSNumber(o.maxUnits)))
	}
	if o.contextBudget != nil && w.unmeasured > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%d selected unit(s) declare no size — the context projection is a lower bound (unmeasured)", w.unmeasured))
	}
	p.Budget = pl.budgetSummary(w.accepted)
	p.Context = pl.contextSummary(w.accepted)
	p.Federation = pl.federation()
	return p
}

// planner holds the per-call lookups; it never writes to the manifest.
type planner struct {
	m     Manifest
	o     effective
	terms []string
	// firstByID and lastByID index m.Units. Successor and step lookups
	// take the first unit with an id, the size lookup the last (the
	// reference uses find() for one and a Map for the other).
	firstByID map[string]int
	lastByID  map[string]int

	requiresAttestation bool
	agentCanAttest      bool
}

func newPlanner(m Manifest, o effective, terms []string) *planner {
	pl := &planner{m: m, o: o, terms: terms, firstByID: map[string]int{}, lastByID: map[string]int{}}
	for i, u := range m.Units {
		if _, ok := pl.firstByID[u.ID]; !ok {
			pl.firstByID[u.ID] = i
		}
		pl.lastByID[u.ID] = i
	}
	if t := m.Trust; t != nil && t.RequireAttestation != nil {
		pl.requiresAttestation = *t.RequireAttestation
	}
	pl.agentCanAttest = !pl.requiresAttestation ||
		(o.attest != "" && slices.Contains(m.Trust.TrustedProviders, o.attest))
	return pl
}

func (pl *planner) unitByID(id string) (Unit, bool) {
	i, ok := pl.firstByID[id]
	if !ok {
		return Unit{}, false
	}
	return pl.m.Units[i], true
}

func echoOptions(o effective) PlanOptions {
	return PlanOptions{
		Role:                o.role,
		PaymentMethods:      slices.Clone(o.methods),
		Credentials:         slices.Clone(o.credentials),
		AttestationProvider: o.attest,
		MaxUnits:            o.maxUnits,
		Strict:              o.strict,
		Budget:              clonePtr(o.budget),
		ContextBudget:       clonePtr(o.contextBudget),
		GrantCeiling:        o.grantCeiling,
		Spend:               clonePtr(o.spend),
		Action:              clonePtr(o.action),
	}
}

// clonePtr copies *p so the plan does not alias the caller's options.
func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func (pl *planner) trust() PlanTrust {
	t := PlanTrust{RequiresAttestation: pl.requiresAttestation, AgentCanAttest: pl.agentCanAttest}
	switch {
	case !t.RequiresAttestation:
		t.Note = "no manifest attestation requirement"
	case t.AgentCanAttest:
		t.Note = fmt.Sprintf("manifest requires attestation; the agent presents '%s', a trusted provider", pl.o.attest)
	default:
		t.Note = "manifest requires attestation the agent cannot present — restricted units are not load-eligible"
	}
	return t
}

// cascade runs the skip gates of §3.4 in order and returns the first
// failing gate's reason, or the unit's score and score reasons when it
// passes them all.
func (pl *planner) cascade(u Unit) (score int, reasons []string, skip string) {
	role := pl.o.role
	if len(u.Audience) > 0 && !slices.Contains(u.Audience, role) {
		return 0, nil, fmt.Sprintf("audience %s excludes role '%s'", jsonStringArray(u.Audience), role)
	}
	for _, n := range u.NotFor {
		lower := jsLower(n)
		for _, t := range pl.terms {
			if strings.Contains(lower, t) {
				return 0, nil, fmt.Sprintf("not_for declares it does not serve '%s'", n)
			}
		}
	}
	if t := u.Temporal; t != nil {
		if t.ValidFrom != "" && compareUTF16(t.ValidFrom, pl.o.asOf) > 0 {
			return 0, nil, "not active until " + t.ValidFrom
		}
		if t.ValidUntil != "" && compareUTF16(t.ValidUntil, pl.o.asOf) < 0 {
			reason := "expired " + t.ValidUntil
			if t.SupersededBy != "" {
				reason += " (superseded by " + t.SupersededBy + ")"
			}
			return 0, nil, reason
		}
	}
	if isTrue(u.Deprecated) {
		return 0, nil, reasonDeprecated
	}
	if t := u.Temporal; t != nil && t.SupersededBy != "" {
		if succ, ok := pl.unitByID(t.SupersededBy); ok && !isTrue(succ.Deprecated) &&
			pl.activeAt(succ) && (len(succ.Audience) == 0 || slices.Contains(succ.Audience, role)) {
			return 0, nil, fmt.Sprintf("superseded by %s (successor active)", t.SupersededBy)
		}
	}
	if score, reasons = scoreUnit(u, pl.terms); score == 0 {
		return 0, nil, reasonNotRelevant
	}
	return score, reasons, ""
}

// activeAt reports valid_from ≤ asOf ≤ valid_until, bounds inclusive and
// unset bounds open.
func (pl *planner) activeAt(u Unit) bool {
	t := u.Temporal
	if t == nil {
		return true
	}
	if t.ValidFrom != "" && compareUTF16(t.ValidFrom, pl.o.asOf) > 0 {
		return false
	}
	return t.ValidUntil == "" || compareUTF16(t.ValidUntil, pl.o.asOf) >= 0
}

func isTrue(b *bool) bool { return b != nil && *b }

// scoreUnit is §3.3: substring matching of every task term (duplicates
// included) against the lower-cased intent, the triggers (both ways: a
// trigger inside the term or the term inside a trigger) and "id path".
// score = 3·intent + 4·trigger + 2·id/path hits.
func scoreUnit(u Unit, terms []string) (int, []string) {
	intent := jsLower(u.Intent)
	idPath := jsLower(u.ID + " " + u.Path)
	triggers := make([]string, len(u.Triggers))
	for i, tr := range u.Triggers {
		triggers[i] = jsLower(tr)
	}
	var intentHits, triggerHits, idHits int
	for _, t := range terms {
		if strings.Contains(intent, t) {
			intentHits++
		}
		if slices.ContainsFunc(triggers, func(tr string) bool {
			return strings.Contains(tr, t) || strings.Contains(t, tr)
		}) {
			triggerHits++
		}
		if strings.Contains(idPath, t) {
			idHits++
		}
	}
	var reasons []string
	if intentHits > 0 {
		reasons = append(reasons, fmt.Sprintf("intent matches %d term(s)", intentHits))
	}
	if triggerHits > 0 {
		reasons = append(reasons, fmt.Sprintf("triggers match %d term(s)", triggerHits))
	}
	if idHits > 0 {
		reasons = append(reasons, fmt.Sprintf("id/path matches %d term(s)", idHits))
	}
	return 3*intentHits + 4*triggerHits + 2*idHits, reasons
}
