package kcpref

import (
	"slices"
	"strconv"
	"strings"
	"unsafe"
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
// and the same inputs always give the same plan. The one thing kept
// between calls is the lower-cased text of the units last planned
// (unittext.go), used only where a unit's fields are still the strings
// it was made from, so it changes no result.
//
// Units pass a cascade of gates in manifest order (audience, not_for,
// temporal window, deprecation, supersession, relevance); the first that
// fails skips the unit with its reason. Survivors are scored and reduced
// (skill eligibility, playbook composition and authority, spend, deny,
// attestation, payment, access), sorted by score then id, and walked
// greedily under maxUnits and the money and context ceilings.
func Plan(task string, m Manifest, opts Options) AgentPlan {
	o := resolveOptions(opts)
	// The terms live in scratch until the cascade has counted the reasons:
	// then one array holds both (see below).
	var termBuf [16]string
	terms := appendTerms(termBuf[:0], jsLower(task))
	if o.has(FaultShortTermsKept) {
		terms = appendTermsOver(termBuf[:0], jsLower(task), 1)
	}
	pl := newPlanner(m, o)
	pl.text = textFor(m.Units)
	p := AgentPlan{
		Task:        task,
		Manifest:    PlanManifest{Project: m.Project, Version: m.Version, KCPVersion: m.KCPVersion, Source: m.Source, SHA256: m.SHA256},
		Environment: o.env,
		AsOf:        o.asOf,
		Selected:    []SelectedUnit{},
		Skipped:     []SkippedUnit{},
		Warnings:    []string{},
	}
	if len(terms) == 0 {
		p.Warnings = append(p.Warnings, warnNoTerms)
	}
	var warning string
	p.Serving, warning = checkServing(m.Serving, m.Source)
	if warning != "" {
		p.Warnings = append(p.Warnings, warning)
	}
	p.Trust = pl.trust()

	n := len(m.Units)
	// First pass: the cascade, kept in scratch so the survivors' storage
	// is allocated once at its exact size.
	var gateBuf [smallManifest]gate
	gates := gateBuf[:0]
	if n > smallManifest {
		gates = make([]gate, 0, n)
	}
	survivors, reasonSlots := 0, 0
	for i := range m.Units {
		g := pl.cascade(i, terms) // read-only: the manifest is never modified
		if g.skip == "" {
			survivors++
			g.room = g.hits.reasonCount() + pl.reductionRoom(&pl.m.Units[i])
			reasonSlots += g.room
		}
		gates = append(gates, g)
	}
	// One array holds the task terms, the echoed option lists and every
	// survivor's reasons.
	nt := len(terms)
	words := make([]string, 0, nt+len(o.methods)+len(o.credentials)+reasonSlots+survivors)
	words = append(words, terms...)
	p.TaskTerms = words[:nt:nt]
	p.Options = echoOptions(o, &words)
	l := len(words)
	pl.reasons, pl.strs = words[l:l:l+reasonSlots], words[l+reasonSlots:l+reasonSlots] // a cost per survivor
	// A price per survivor, the budget's four and the context's three.
	pl.survivors, pl.floatCap = survivors, survivors+7
	// Every unit is skipped at most once; survivors only under strict or
	// a ceiling.
	skips := n - survivors
	if o.strict || o.budget != nil || o.contextBudget != nil {
		skips = n
	}
	p.Skipped = make([]SkippedUnit, 0, skips)
	store := make([]SelectedUnit, 0, survivors)
	for i := range m.Units {
		u, g := &pl.m.Units[i], &gates[i]
		if g.skip != "" {
			p.Skipped = append(p.Skipped, SkippedUnit{ID: u.ID, Reason: g.skip})
			continue
		}
		store = store[:len(store)+1] // a zero slot: fresh from make, or cleared below
		s := &store[len(store)-1]
		pl.reduce(s, u, g.score(), pl.scoreReasons(g))
		if o.strict && !s.LoadEligible {
			p.Skipped = append(p.Skipped, SkippedUnit{ID: u.ID, Reason: s.Reasons[len(s.Reasons)-1], Governance: s.Governance})
			*s = SelectedUnit{}
			store = store[:len(store)-1]
		}
	}
	var orderBuf [smallManifest]int32
	order := orderBuf[:0]
	if len(store) > smallManifest {
		order = make([]int32, 0, len(store))
	}
	for i := range store {
		order = append(order, int32(i))
	}
	sortCandidates(store, order)
	if o.has(FaultTieBreakReversed) {
		reverseTies(store, order)
	}

	w := pl.walk(store, order, &p.Skipped)
	p.Selected = gather(store, w.accepted)
	if w.beyondMax > 0 {
		p.Warnings = append(p.Warnings, strconv.Itoa(w.beyondMax)+" relevant unit(s) beyond maxUnits="+formatJSNumber(o.maxUnits)+" not selected")
	}
	if o.contextBudget != nil && w.unmeasured > 0 {
		p.Warnings = append(p.Warnings, strconv.Itoa(w.unmeasured)+" selected unit(s) declare no size — the context projection is a lower bound (unmeasured)")
	}
	p.Budget = pl.budgetSummary(p.Selected)
	p.Context = pl.contextSummary(p.Selected)
	p.Federation = pl.federation()
	return p
}

// planner holds the per-call lookups; it never writes to the manifest.
type planner struct {
	m Manifest
	o effective
	// byID indexes m.Units for manifests larger than smallManifest (a
	// linear scan is cheaper below). Successor and step lookups take the
	// first unit with an id, the size lookup the last (the reference uses
	// find() for one and a Map for the other).
	byID map[string]unitIndex

	requiresAttestation bool
	agentCanAttest      bool

	// reasons is one backing array for every survivor's reasons, handed
	// out in capacity-limited pieces (see scoreReasons).
	reasons []string
	// strs and floats hold the plan's optional values, so that each is
	// not an allocation of its own (see newString and newFloat);
	// floatCap sizes floats, allocated on first use.
	strs     []string
	floats   []float64
	floatCap int
	// govs holds the survivors' governance records (see newGovernance).
	govs      []Governance
	survivors int // units past the cascade

	// text is the manifest's kept lower-cased text (unittext.go), or nil.
	text *manifestText
}

// newString returns a pointer to a copy of s in pl.strs.
func (pl *planner) newString(s string) *string {
	if len(pl.strs) == cap(pl.strs) {
		pl.strs = make([]string, 0, 4) // not reached: Plan sizes pl.strs
	}
	pl.strs = append(pl.strs, s)
	return &pl.strs[len(pl.strs)-1]
}

// newGovernance returns a pointer to a copy of g in pl.govs, allocated
// on first use with room for every survivor.
func (pl *planner) newGovernance(g Governance) *Governance {
	if len(pl.govs) == cap(pl.govs) {
		pl.govs = make([]Governance, 0, max(pl.survivors, 1))
	}
	pl.govs = append(pl.govs, g)
	return &pl.govs[len(pl.govs)-1]
}

// newFloat returns a pointer to a copy of x in pl.floats. A full array
// is replaced, not grown, so earlier pointers stay valid.
func (pl *planner) newFloat(x float64) *float64 {
	if len(pl.floats) == cap(pl.floats) {
		pl.floats = make([]float64, 0, max(pl.floatCap, 4))
	}
	pl.floats = append(pl.floats, x)
	return &pl.floats[len(pl.floats)-1]
}

func newPlanner(m Manifest, o effective) planner {
	pl := planner{m: m, o: o}
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
		(o.attest != nil && *o.attest != "" && slices.Contains(m.Trust.TrustedProviders, *o.attest))
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

// echoOptions copies the effective options into the plan, so it does
// not alias the caller's. The two lists are appended to *strs, whose
// capacity must hold them, and the four optional values share one
// allocation.
func echoOptions(o effective, strs *[]string) PlanOptions {
	po := PlanOptions{
		Role:                o.role,
		PaymentMethods:      cloneInto(strs, o.methods),
		Credentials:         cloneInto(strs, o.credentials),
		AttestationProvider: o.attest,
		MaxUnits:            o.maxUnits,
		Strict:              o.strict,
		GrantCeiling:        o.grantCeiling,
	}
	if o.budget == nil && o.contextBudget == nil && o.spend == nil && o.action == nil {
		return po
	}
	box := new(struct {
		budget        Budget
		contextBudget float64
		spend         SpendProposal
		action        ActionProposal
	})
	if o.budget != nil {
		box.budget, po.Budget = *o.budget, &box.budget
	}
	if o.contextBudget != nil {
		box.contextBudget, po.ContextBudget = *o.contextBudget, &box.contextBudget
	}
	if o.spend != nil {
		box.spend, po.Spend = *o.spend, &box.spend
	}
	if o.action != nil {
		box.action, po.Action = *o.action, &box.action
	}
	return po
}

// cloneInto is slices.Clone(s) stored at the end of *strs, which must
// have room for it; the result's capacity is its length.
func cloneInto(strs *[]string, s []string) []string {
	if s == nil {
		return nil
	}
	l := len(*strs)
	*strs = append(*strs, s...)
	return (*strs)[l:len(*strs):len(*strs)]
}

func (pl *planner) trust() PlanTrust {
	t := PlanTrust{RequiresAttestation: pl.requiresAttestation, AgentCanAttest: pl.agentCanAttest}
	switch {
	case !t.RequiresAttestation:
		t.Note = "no manifest-level attestation requirement"
	case t.AgentCanAttest:
		t.Note = "manifest requires attestation; the agent can present it"
	default:
		t.Note = "manifest requires attestation; the agent CANNOT — restricted units are gated"
	}
	return t
}

// gate is the outcome of the cascade for one unit: the first failing
// gate's reason, or the task-term hits that make up its score.
type gate struct {
	skip string
	hits termHits
	room int // a survivor's room for reasons: its score reasons and its likely reductions
}

// reductionRoom is the room scoreReasons leaves for a survivor's
// reductions: one, and two more for the access reason and its x402 hint
// when the unit needs credentials the agent lacks, and one for
// attestation when the unit is restricted and the manifest requires it.
// More reductions than that reallocate the unit's reasons.
func (pl *planner) reductionRoom(u *Unit) int {
	n := 1
	if (u.Access == "authenticated" || u.Access == "restricted") && len(pl.o.credentials) == 0 {
		n += 2
	}
	if pl.requiresAttestation && u.Access == "restricted" {
		n++
	}
	return n
}

// termHits counts the task terms found in a unit's intent, triggers and
// id/path.
type termHits struct{ intent, trigger, idPath int }

func (h termHits) score() int { return 3*h.intent + 4*h.trigger + 2*h.idPath }

func (h termHits) reasonCount() int {
	n := 0
	for _, c := range [...]int{h.intent, h.trigger, h.idPath} {
		if c > 0 {
			n++
		}
	}
	return n
}

// appendReasons appends the score reasons of h.
func (h termHits) appendReasons(reasons []string) []string {
	if h.intent > 0 {
		reasons = append(reasons, countReason(intentReasons, intentPrefix, h.intent))
	}
	if h.trigger > 0 {
		reasons = append(reasons, countReason(triggerReasons, triggerPrefix, h.trigger))
	}
	if h.idPath > 0 {
		reasons = append(reasons, countReason(idPathReasons, idPathPrefix, h.idPath))
	}
	return reasons
}

func (g *gate) score() int { return g.hits.score() }

// scoreReasons returns g's score reasons in the next piece of pl.reasons,
// its capacity limited to g.room, so appending more reductions than that
// reallocates instead of overwriting a neighbour.
func (pl *planner) scoreReasons(g *gate) []string {
	n := g.room
	if cap(pl.reasons)-len(pl.reasons) < n {
		pl.reasons = make([]string, 0, n) // not reached: Plan sizes pl.reasons
	}
	l := len(pl.reasons)
	pl.reasons = pl.reasons[:l+n]
	return g.hits.appendReasons(pl.reasons[l : l : l+n])
}

// cascade runs the skip gates of §3.4 in order and returns the first
// failing gate's reason, or the unit's term hits when it passes them all.
func (pl *planner) cascade(i int, terms []string) gate {
	u := &pl.m.Units[i]
	role := pl.o.role
	faulty := len(pl.o.faults) > 0
	if len(u.Audience) > 0 && !slices.Contains(u.Audience, role) && !(faulty && pl.o.has(FaultAudienceIgnored)) {
		var buf [160]byte
		r := appendJSONStringArray(append(buf[:0], "audience "...), u.Audience)
		return gate{skip: string(append(append(append(r, " excludes role '"...), role...), '\''))}
	}
	if !(faulty && pl.o.has(FaultNotForIgnored)) {
		for _, n := range u.NotFor {
			lower := jsLower(n)
			for _, t := range terms {
				if strings.Contains(lower, t) {
					return gate{skip: "not_for declares it does not serve '" + n + "'"}
				}
			}
		}
	}
	if faulty && pl.o.has(FaultGatesSwapped) && isTrue(u.Deprecated) {
		return gate{skip: reasonDeprecated}
	}
	if t := u.Temporal; t != nil {
		if t.ValidFrom != "" && (compareUTF16(t.ValidFrom, pl.o.asOf) > 0 || (faulty && pl.o.has(FaultValidFromExclusive) && t.ValidFrom == pl.o.asOf)) {
			return gate{skip: "not active until " + t.ValidFrom}
		}
		if t.ValidUntil != "" && compareUTF16(t.ValidUntil, pl.o.asOf) < 0 && !(faulty && pl.o.has(FaultExpiryIgnored)) {
			if t.SupersededBy != "" {
				return gate{skip: "expired " + t.ValidUntil + " (superseded by " + t.SupersededBy + ")"}
			}
			return gate{skip: "expired " + t.ValidUntil}
		}
	}
	if isTrue(u.Deprecated) && !(faulty && pl.o.has(FaultDeprecatedKept)) {
		return gate{skip: reasonDeprecated}
	}
	if t := u.Temporal; t != nil && t.SupersededBy != "" && !(faulty && pl.o.has(FaultSupersessionIgnored)) {
		if succ, ok := pl.unitByID(t.SupersededBy); ok && !isTrue(succ.Deprecated) &&
			pl.activeAt(succ) && (len(succ.Audience) == 0 || slices.Contains(succ.Audience, role)) {
			return gate{skip: "superseded by " + t.SupersededBy + " (successor active)"}
		}
	}
	h := countHitsIn(u, terms, pl.text.of(i, u))
	if h.score() == 0 {
		if faulty && pl.o.has(FaultReasonReworded) {
			return gate{skip: "no task relevance match"}
		}
		return gate{skip: reasonNotRelevant}
	}
	return gate{hits: h}
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
	h := countHits(u, terms)
	if h.score() == 0 {
		return 0, nil
	}
	return h.score(), h.appendReasons(make([]string, 0, 4)) // room for the score reasons and a reduction
}

// countHits counts the term hits of §3.3 in u.
func countHits(u *Unit, terms []string) termHits { return countHitsIn(u, terms, nil) }

// countHitsIn is countHits with the unit's kept lower-cased text, if any.
func countHitsIn(u *Unit, terms []string, ut *unitText) termHits {
	if ut != nil {
		return matchTerms(ut.lIntent, ut.lID, ut.lPath, ut.lTriggers, terms)
	}
	// The lower-cased fields of ASCII text with capitals are written into
	// scratch and read through views of it that never leave this call.
	var scratch [512]byte
	buf := scratch[:0]
	var intent, id, path string
	intent, buf = lowerInto(buf, u.Intent)
	// Terms never contain a space, and the space isolates the final-sigma
	// context of each side, so matching id and path apart is the same as
	// matching the lower-cased "id path".
	id, buf = lowerInto(buf, u.ID)
	path, buf = lowerInto(buf, u.Path)
	var trBuf [8]string
	var triggers []string
	if len(u.Triggers) <= len(trBuf) {
		for i, tr := range u.Triggers {
			trBuf[i], buf = lowerInto(buf, tr)
		}
		triggers = trBuf[:len(u.Triggers)]
	} else {
		triggers = make([]string, len(u.Triggers)) // holds no views of scratch
		for i, tr := range u.Triggers {
			triggers[i] = jsLower(tr)
		}
	}
	return matchTerms(intent, id, path, triggers, terms)
}

// matchTerms counts the hits of terms in a unit's lower-cased text.
func matchTerms(intent, id, path string, triggers, terms []string) termHits {
	var h termHits
	for _, t := range terms {
		if strings.Contains(intent, t) {
			h.intent++
		}
		if triggerMatches(triggers, t) {
			h.trigger++
		}
		if strings.Contains(id, t) || strings.Contains(path, t) {
			h.idPath++
		}
	}
	return h
}

// lowerInto is jsLower(s). Text that is already lower case is returned
// as it is; ASCII text is lower-cased into buf's spare capacity and
// returned as a view of it (valid while buf's array is; buf is never
// grown, so earlier views stay valid); other text is lower-cased by
// jsLower.
func lowerInto(buf []byte, s string) (string, []byte) {
	switch ascii, upper := asciiCase(s); {
	case !ascii && cap(buf)-len(buf) >= 2*len(s): // a lower-case code point takes at most 3/2 the bytes
		start := len(buf)
		buf = appendJSLower(buf, s)
		return unsafe.String(&buf[start], len(buf)-start), buf
	case !ascii:
		return jsLower(s), buf
	case !upper:
		return s, buf
	case cap(buf)-len(buf) < len(s):
		return strings.ToLower(s), buf
	}
	start := len(buf)
	buf = appendLowerASCII(buf, s)
	return unsafe.String(&buf[start], len(s)), buf
}

// triggerMatches reports a trigger inside the term or the term inside a
// trigger (both lower case).
func triggerMatches(triggers []string, term string) bool {
	for _, tr := range triggers {
		if strings.Contains(tr, term) || strings.Contains(term, tr) {
			return true
		}
	}
	return false
}

// countReason is prefix + "<n> term(s)"; counts below 16 come from the
// read-only table t for that prefix.
func countReason(t *[16]string, prefix string, n int) string {
	if n < len(t) {
		return t[n]
	}
	return prefix + strconv.Itoa(n) + " term(s)"
}

// Score reason prefixes.
const (
	intentPrefix  = "intent matches "
	triggerPrefix = "triggers match "
	idPathPrefix  = "id/path matches "
)

// The countReason tables, written out so that they cost nothing at
// start-up (TestCountReasonTables checks them).
var (
	intentReasons = &[16]string{
		"intent matches 0 term(s)", "intent matches 1 term(s)", "intent matches 2 term(s)", "intent matches 3 term(s)",
		"intent matches 4 term(s)", "intent matches 5 term(s)", "intent matches 6 term(s)", "intent matches 7 term(s)",
		"intent matches 8 term(s)", "intent matches 9 term(s)", "intent matches 10 term(s)", "intent matches 11 term(s)",
		"intent matches 12 term(s)", "intent matches 13 term(s)", "intent matches 14 term(s)", "intent matches 15 term(s)",
	}
	triggerReasons = &[16]string{
		"triggers match 0 term(s)", "triggers match 1 term(s)", "triggers match 2 term(s)", "triggers match 3 term(s)",
		"triggers match 4 term(s)", "triggers match 5 term(s)", "triggers match 6 term(s)", "triggers match 7 term(s)",
		"triggers match 8 term(s)", "triggers match 9 term(s)", "triggers match 10 term(s)", "triggers match 11 term(s)",
		"triggers match 12 term(s)", "triggers match 13 term(s)", "triggers match 14 term(s)", "triggers match 15 term(s)",
	}
	idPathReasons = &[16]string{
		"id/path matches 0 term(s)", "id/path matches 1 term(s)", "id/path matches 2 term(s)", "id/path matches 3 term(s)",
		"id/path matches 4 term(s)", "id/path matches 5 term(s)", "id/path matches 6 term(s)", "id/path matches 7 term(s)",
		"id/path matches 8 term(s)", "id/path matches 9 term(s)", "id/path matches 10 term(s)", "id/path matches 11 term(s)",
		"id/path matches 12 term(s)", "id/path matches 13 term(s)", "id/path matches 14 term(s)", "id/path matches 15 term(s)",
	}
)
