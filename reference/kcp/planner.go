package kcp

import (
	"fmt"
	"slices"
	"strconv"
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

	p.Skipped = make([]SkippedUnit, 0, len(m.Units)) // every unit is skipped at most once
	store := make([]candidate, 0, len(m.Units))      // survivors by value; pointers taken after the loop
	for i := range m.Units {
		u := &pl.m.Units[i] // read-only: the manifest is never modified
		score, reasons, skip := pl.cascade(u)
		if skip != "" {
			p.Skipped = append(p.Skipped, SkippedUnit{ID: u.ID, Reason: skip})
			continue
		}
		s := pl.reduce(u, score, reasons)
		if o.strict && !s.LoadEligible {
			p.Skipped = append(p.Skipped, SkippedUnit{ID: u.ID, Reason: s.Reasons[len(s.Reasons)-1], Governance: s.Governance})
			continue
		}
		store = append(store, candidate{unit: s})
	}
	candidates := make([]*candidate, len(store))
	for i := range store {
		candidates[i] = &store[i]
	}
	// Score descending, then id in localeCompare order; stable.
	slices.SortStableFunc(candidates, func(a, b *candidate) int {
		if a.unit.Score != b.unit.Score {
			return b.unit.Score - a.unit.Score
		}
		return a.compareID(b)
	})

	w := pl.walk(candidates)
	p.Selected = make([]SelectedUnit, 0, len(w.accepted))
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
	// byID indexes m.Units for manifests larger than smallManifest (a
	// linear scan is cheaper below). Successor and step lookups take the
	// first unit with an id, the size lookup the last (the reference uses
	// find() for one and a Map for the other).
	byID map[string]unitIndex

	requiresAttestation bool
	agentCanAttest      bool
}

func newPlanner(m Manifest, o effective, terms []string) planner {
	pl := planner{m: m, o: o, terms: terms}
	if len(m.Units) > smallManifest {
		pl.byID = make(map[string]unitIndex, len(m.Units))
		for i, u := range m.Units {
			ix, ok := pl.byID[u.ID]
			if !ok {
				ix.first = i
			}
			ix.last = i
			pl.byID[u.ID] = ix
		}
	}
	if t := m.Trust; t != nil && t.RequireAttestation != nil {
		pl.requiresAttestation = *t.RequireAttestation
	}
	pl.agentCanAttest = !pl.requiresAttestation ||
		(o.attest != "" && slices.Contains(m.Trust.TrustedProviders, o.attest))
	return pl
}

// unitIndex is the first and last position of an id in m.Units.
type unitIndex struct{ first, last int }

// smallManifest is the unit count up to which ids are looked up by a
// linear scan instead of a map.
const smallManifest = 32

// lookup finds the first and last unit with id.
func (pl *planner) lookup(id string) (unitIndex, bool) {
	if pl.byID != nil {
		ix, ok := pl.byID[id]
		return ix, ok
	}
	ix, ok := unitIndex{}, false
	for i := range pl.m.Units {
		if pl.m.Units[i].ID == id {
			if !ok {
				ix.first = i
			}
			ix.last, ok = i, true
		}
	}
	return ix, ok
}

func (pl *planner) unitByID(id string) (*Unit, bool) {
	ix, ok := pl.lookup(id)
	if !ok {
		return nil, false
	}
	return &pl.m.Units[ix.first], true
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
func (pl *planner) cascade(u *Unit) (score int, reasons []string, skip string) {
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
	if score, reasons = scoreTerms(u, pl.terms); score == 0 {
		return 0, nil, reasonNotRelevant
	}
	return score, reasons, ""
}

// activeAt reports valid_from ≤ asOf ≤ valid_until, bounds inclusive and
// unset bounds open.
func (pl *planner) activeAt(u *Unit) bool {
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
func scoreUnit(u Unit, terms []string) (int, []string) { return scoreTerms(&u, terms) }

// scoreTerms is scoreUnit without copying the unit.
func scoreTerms(u *Unit, terms []string) (int, []string) {
	intent := lowerView(u.Intent)
	// Terms never contain a space, and the space isolates the final-sigma
	// context of each side, so matching id and path apart is the same as
	// matching the lower-cased "id path".
	id, path := lowerView(u.ID), lowerView(u.Path)
	var buf [8]string
	triggers := buf[:0]
	for _, tr := range u.Triggers {
		triggers = append(triggers, jsLower(tr))
	}
	var intentHits, triggerHits, idHits int
	for _, t := range terms {
		if intent.contains(t) {
			intentHits++
		}
		if triggerMatches(triggers, t) {
			triggerHits++
		}
		if id.contains(t) || path.contains(t) {
			idHits++
		}
	}
	if intentHits+triggerHits+idHits == 0 {
		return 0, nil
	}
	reasons := make([]string, 0, 4) // room for the score reasons and a reduction
	if intentHits > 0 {
		reasons = append(reasons, countReason(intentReasons, intentPrefix, intentHits))
	}
	if triggerHits > 0 {
		reasons = append(reasons, countReason(triggerReasons, triggerPrefix, triggerHits))
	}
	if idHits > 0 {
		reasons = append(reasons, countReason(idPathReasons, idPathPrefix, idHits))
	}
	return 3*intentHits + 4*triggerHits + 2*idHits, reasons
}

// lowered is jsLower(s) for substring tests, without allocating for ASCII
// text: fold marks ASCII text with upper-case letters, matched
// case-insensitively instead of being copied.
type lowered struct {
	s    string
	fold bool
}

func lowerView(s string) lowered {
	if isASCII(s) {
		return lowered{s: s, fold: !isLowerASCII(s)}
	}
	return lowered{s: jsLower(s)}
}

// contains reports whether the lower-cased text contains term (which is
// already lower case, as every task term is).
func (l lowered) contains(term string) bool {
	if !l.fold {
		return strings.Contains(l.s, term)
	}
	return containsFoldASCII(l.s, term)
}

// containsFoldASCII is strings.Contains(strings.ToLower(s), term) for an
// ASCII s and a lower-case term.
func containsFoldASCII(s, term string) bool {
	for i := 0; i+len(term) <= len(s); i++ {
		if hasLowerPrefix(s[i:], term) {
			return true
		}
	}
	return false
}

func hasLowerPrefix(s, term string) bool {
	for j := 0; j < len(term); j++ {
		c := s[j]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != term[j] {
			return false
		}
	}
	return true
}

// triggerMatches reports a trigger inside the term or the term inside a
// trigger.
func triggerMatches(triggers []string, term string) bool {
	for _, tr := range triggers {
		if strings.Contains(tr, term) || strings.Contains(term, tr) {
			return true
		}
	}
	return false
}

// countReason is prefix + "<n> term(s)"; counts below 16 come from the
// read-only table t, built at init for that prefix.
func countReason(t *[16]string, prefix string, n int) string {
	if n < len(t) {
		return t[n]
	}
	return prefix + strconv.Itoa(n) + " term(s)"
}

// Score reason prefixes and their countReason tables (never written after
// init).
const (
	intentPrefix  = "intent matches "
	triggerPrefix = "triggers match "
	idPathPrefix  = "id/path matches "
)

var intentReasons, triggerReasons, idPathReasons = countTable(intentPrefix), countTable(triggerPrefix), countTable(idPathPrefix)

func countTable(prefix string) *[16]string {
	var t [16]string
	for n := range t {
		t[n] = prefix + strconv.Itoa(n) + " term(s)"
	}
	return &t
}
