package kcpref

import (
	"math"
	"slices"
	"strconv"
)

// walkResult is the outcome of the greedy walk over the sorted candidates.
type walkResult struct {
	accepted   []int32 // indices into the store, in final order
	beyondMax  int
	unmeasured int // accepted load-eligible units of undeclared size (context budget only)
}

// walk is §3.6 over store in sorted order (it reuses sorted's storage for
// the accepted indices, and appends its skips to *skipped): drop units
// beyond maxUnits silently,
// then hold each load-eligible unit to the money ceiling and then to the
// context ceiling. Money is added before the context check and is not
// rolled back when the unit is then refused for context (a reference
// quirk kept on purpose).
func (pl *planner) walk(store []SelectedUnit, sorted []int32, skipped *[]SkippedUnit) walkResult {
	// accepted is a subsequence of sorted, so it is filtered in place.
	w := walkResult{accepted: sorted[:0]}
	var spend, usedTokens float64
	budget := pl.o.budget
	skip := func(u *SelectedUnit, reason string) { // a ceiling skip carries no governance
		*skipped = append(*skipped, SkippedUnit{ID: u.ID, Reason: reason})
	}
	var msg [160]byte // reasons are built here and copied out once
	for _, c := range sorted {
		u := &store[c]
		limit := pl.o.maxUnits
		if pl.o.has(FaultMaxUnitsOffByOne) {
			limit++
		}
		if pl.o.has(FaultMaxUnitsFloored) {
			limit = math.Floor(limit)
		}
		if float64(len(w.accepted)) >= limit {
			w.beyondMax++
			continue
		}
		if budget != nil && u.LoadEligible && !pl.o.has(FaultBudgetUnchecked) {
			if price := u.Payment.PricePerRequest; price != nil && *price > 0 {
				if cur := u.Payment.Currency; (cur == nil || *cur != pl.o.currency) && !pl.o.has(FaultCurrencyIgnored) {
					skip(u, "over budget: costs "+jsTemplate(u.Payment.Cost)+", budget is in "+pl.o.currency)
					continue
				}
				total := pl.o.spent + spend + *price
				if total > budget.Amount+1e-9 || (total >= budget.Amount-1e-9 && pl.o.has(FaultBudgetCeilingExclusive)) {
					b := append(msg[:0], "over budget: "...)
					b = appendJSNumber(b, *price)
					b = append(b, " would exceed remaining "...)
					b = appendJSNumber(b, money(budget.Amount-pl.o.spent-spend))
					b = append(b, " of "...)
					b = appendJSNumber(b, budget.Amount)
					b = append(b, ' ')
					skip(u, string(append(b, pl.o.currency...)))
					continue
				}
				spend += *price
			}
		}
		if ceiling := pl.o.contextBudget; ceiling != nil && u.LoadEligible && !pl.o.has(FaultContextUnchecked) {
			tokens, _, measured := pl.size(u.ID)
			switch {
			case !measured && pl.o.strict && !pl.o.has(FaultStrictKeepsUnsized):
				skip(u, reasonStrictNoSize)
				continue
			case !measured:
				w.unmeasured++
			case usedTokens+tokens > *ceiling+1e-9 || (usedTokens+tokens == *ceiling && pl.o.has(FaultContextCeilingExclusive)):
				b := append(msg[:0], "over context budget: "...)
				b = appendTokens(b, tokens)
				b = append(b, " tokens would exceed remaining "...)
				b = appendTokens(b, *ceiling-usedTokens)
				b = append(b, " of "...)
				skip(u, string(appendTokens(b, *ceiling)))
				continue
			default:
				usedTokens += tokens
			}
		}
		w.accepted = append(w.accepted, c)
	}
	return w
}

// size is the declared size of the last unit with this id: size_tokens,
// else ceil(bytes/4) (approximate), else unmeasured.
func (pl *planner) size(id string) (tokens float64, approximate, measured bool) {
	ix, _ := pl.lookup(id)
	return pl.sizeOf(&pl.m.Units[ix.last])
}

// sizeOf is one unit's own size (the trace sizes each unit by itself,
// where the plan sizes it by its id, the last unit of that id).
func (pl *planner) sizeOf(u *Unit) (tokens float64, approximate, measured bool) {
	switch {
	case u.SizeTokens != nil:
		return *u.SizeTokens, false, true
	case u.Bytes != nil && pl.o.has(FaultBytesFloor):
		return math.Floor(*u.Bytes / 4), true, true
	case u.Bytes != nil:
		return math.Ceil(*u.Bytes / 4), true, true
	}
	return 0, false, false
}

// budgetSummary is §3.7 for money, over the accepted load-eligible units.
func (pl *planner) budgetSummary(accepted []SelectedUnit) BudgetSummary {
	b := BudgetSummary{RateTier: "default", PerRequestCosts: []UnitCost{}}
	rl := pl.m.RateLimits
	tier := (*RateTier)(nil)
	switch {
	case slices.Contains(pl.o.methods, "subscription") && rl != nil && rl.Premium != nil:
		b.RateTier, tier = "premium", rl.Premium
	case len(pl.o.credentials) > 0 && rl != nil && rl.Authenticated != nil:
		b.RateTier, tier = "authenticated", rl.Authenticated
	case rl != nil:
		tier = rl.Default
	}
	if tier != nil {
		b.RequestsPerMinute = tier.RequestsPerMinute
	}
	var sum float64
	costs := 0
	for i := range accepted {
		if accepted[i].LoadEligible && accepted[i].Payment.Method == "x402" && accepted[i].Payment.Cost != nil {
			costs++
		}
	}
	if costs > 0 {
		b.PerRequestCosts = make([]UnitCost, 0, costs)
	}
	for i := range accepted {
		u := &accepted[i]
		if !u.LoadEligible {
			continue
		}
		if u.Payment.PricePerRequest != nil {
			sum += *u.Payment.PricePerRequest
		}
		if u.Payment.Method == "x402" && u.Payment.Cost != nil {
			b.PerRequestCosts = append(b.PerRequestCosts, UnitCost{Unit: u.ID, Cost: *u.Payment.Cost})
		}
	}
	projected := money(sum)
	budget := pl.o.budget
	var buf [160]byte
	if budget == nil {
		switch {
		case costs > 0:
			b.Note = string(append(strconv.AppendInt(buf[:0], int64(costs), 10), " selected unit(s) are pay-per-request; budget before loading."...))
		case pl.o.has(FaultNoteReworded):
			b.Note = "every selected unit is free to load at the resolved tier."
		default:
			b.Note = "all selected units are free to load at the resolved tier."
		}
		return b
	}
	spent := money(pl.o.spent)
	remaining := money(budget.Amount - spent - projected)
	b.Ceiling, b.ProjectedSpend = pl.newFloat(budget.Amount), pl.newFloat(projected)
	b.Remaining, b.Currency = pl.newFloat(remaining), pl.o.currency
	if spent > 0 {
		b.AlreadyCommitted = pl.newFloat(spent)
	}
	note := appendJSNumber(append(buf[:0], "projected spend "...), projected)
	if spent > 0 {
		note = append(appendJSNumber(append(note, " (+"...), spent), " committed upstream)"...)
	}
	note = appendJSNumber(append(note, " of "...), budget.Amount)
	note = append(append(append(note, ' '), pl.o.currency...), "; "...)
	note = appendJSNumber(note, remaining)
	b.Note = string(append(note, " remaining."...))
	return b
}

// contextSummary is §3.7 for tokens, over the accepted load-eligible
// units. Unmeasured units are counted even without a context budget.
func (pl *planner) contextSummary(accepted []SelectedUnit) ContextSummary {
	var c ContextSummary
	var projected float64
	for i := range accepted {
		if !accepted[i].LoadEligible {
			continue
		}
		tokens, approximate, measured := pl.size(accepted[i].ID)
		if !measured {
			c.Unmeasured++
			continue
		}
		projected += tokens
		c.Approximate = c.Approximate || approximate
	}
	ceiling := pl.o.contextBudget
	if ceiling == nil {
		c.Note = "no context budget set."
		return c
	}
	remaining := *ceiling - projected
	c.Ceiling, c.ProjectedTokens, c.Remaining = pl.newFloat(*ceiling), pl.newFloat(projected), pl.newFloat(remaining)
	var buf [160]byte
	note := appendTokens(append(buf[:0], "projected "...), projected)
	note = appendTokens(append(note, " of "...), *ceiling)
	note = appendTokens(append(note, " tokens; "...), remaining)
	note = append(note, " remaining"...)
	switch {
	case c.Approximate && c.Unmeasured > 0:
		note = append(strconv.AppendInt(append(note, " (some sizes estimated, "...), int64(c.Unmeasured), 10), " unmeasured)"...)
	case c.Approximate:
		note = append(note, " (some sizes estimated)"...)
	case c.Unmeasured > 0:
		note = append(strconv.AppendInt(append(note, " ("...), int64(c.Unmeasured), 10), " unmeasured)"...)
	}
	c.Note = string(append(note, '.'))
	return c
}
