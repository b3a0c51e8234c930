package kcpref

import "sync/atomic"

// The lower-cased text of the units a plan matches task terms against
// (intent, id, path, triggers) is kept from one plan to the next for the
// manifest planned last, as a long-lived planner plans one manifest
// again and again. Nothing of a plan itself is kept: every plan runs
// every gate. A kept text is used only for a unit whose fields are the
// very strings it was made from (compared by value, so an edited or a
// different manifest is never matched against stale text); any other
// unit is lower-cased as it is planned. The text is made on the second
// consecutive plan of the same units, so planning many manifests in turn
// costs only the check.

// unitText is one unit's text and the fields it was made from.
type unitText struct {
	intent, id, path    string
	triggers            []string
	lIntent, lID, lPath string
	lTriggers           []string
}

// manifestText is the kept text of one manifest's units.
type manifestText struct {
	first *Unit // &units[0] of the slice it was made from
	units []unitText
}

var (
	keptText atomic.Pointer[manifestText]
	lastPlan atomic.Pointer[Unit] // &units[0] of the slice planned last
)

// textFor returns the kept text of units, making it when the same units
// were planned the time before; nil when there is none.
func textFor(units []Unit) *manifestText {
	if len(units) == 0 {
		return nil
	}
	first := &units[0]
	if t := keptText.Load(); t != nil && t.first == first && len(t.units) == len(units) {
		return t
	}
	if lastPlan.Swap(first) != first {
		return nil
	}
	t := &manifestText{first: first, units: make([]unitText, len(units))}
	for i := range units {
		u, ut := &units[i], &t.units[i]
		ut.intent, ut.id, ut.path, ut.triggers = u.Intent, u.ID, u.Path, u.Triggers
		ut.lIntent, ut.lID, ut.lPath = jsLower(u.Intent), jsLower(u.ID), jsLower(u.Path)
		ut.lTriggers = make([]string, len(u.Triggers))
		for j, tr := range u.Triggers {
			ut.lTriggers[j] = jsLower(tr)
		}
	}
	keptText.Store(t)
	return t
}

// of returns the kept text of units[i] when it was made from u's fields
// as they are now; nil otherwise.
func (t *manifestText) of(i int, u *Unit) *unitText {
	if t == nil || i >= len(t.units) {
		return nil
	}
	ut := &t.units[i]
	if ut.intent != u.Intent || ut.id != u.ID || ut.path != u.Path || len(ut.triggers) != len(u.Triggers) {
		return nil
	}
	for j, tr := range u.Triggers {
		if ut.triggers[j] != tr {
			return nil
		}
	}
	return ut
}
