package engine

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
)

// Vocabulary is what a suite's steps mean to the core beyond the step model.
// The engine and the runner know no action, view or control by name: each
// suite declares the few whose meaning they must know.
type Vocabulary struct {
	// Provision is the control that makes the agent a step names (its
	// Agent): an act or read step, or another control, that names an agent
	// no earlier Provision step made is an authoring mistake. Empty for a
	// suite whose steps name no agent, where a step that names one is the
	// mistake.
	Provision string
	// Disturbing are the controls that act on everything an implementation
	// holds, not on one check's agents (Kungfu's clock and restart): on an
	// implementation the checks share, a check that uses one runs alone,
	// unless the implementation confines the control to the check's scope.
	Disturbing []string
	// Secrets are the places of secrets in the suite's exchanges (Kungfu's
	// admission secret, where it is issued and where it is presented): the
	// transcript records Redacted there and lists the place in the
	// exchange's Redacted, and a replay takes that value, and no other, to
	// match any value. A secret is known by where it is, never by the name
	// of a field.
	Secrets []Place
	// PeerText are the places of texts the implementation itself wrote (an
	// agent gateway's built-in prompts, its start-up log): the transcript
	// records a marker with the text's SHA-256 and length instead
	// ("[peer text sha256:… n bytes]"), followed by the texts the check
	// searched it for and found, so that a replay judges it as the run did.
	// A text any judgement reads otherwise (by equality, a pattern, a
	// comparison of outcomes, a capture) is kept.
	PeerText []Place
	// Derived rebuilds the members of a step's result that follow from its
	// other members, as the suite's executor makes them (ACP's parsed event
	// log and sequence numbers from the log's lines): given an exchange, it
	// returns those members. A transcript leaves out every member Derived
	// rebuilds exactly and lists it in the exchange's Derived; a replay
	// rebuilds them before it judges, so it sees what the run saw.
	Derived func(Exchange) map[string]any `json:"-"`
}

// Disturbs reports whether a check uses a disturbing control that the
// implementation does not confine to the check (scoped).
func (v Vocabulary) Disturbs(c Check, scoped []string) bool {
	for _, ctl := range c.Controls() {
		if slices.Contains(v.Disturbing, ctl) && !slices.Contains(scoped, ctl) {
			return true
		}
	}
	return false
}

// Lint checks a compiled check for authoring mistakes that would otherwise
// surface only at run time: variables used before they are captured, agents
// used before they are provisioned, unknown matcher operators and a malformed
// time factor (TimeTag). It returns the first problem, naming the step's
// source.
func Lint(c Check, v Vocabulary) error {
	vars := map[string]bool{}
	agents := map[string]bool{}
	if len(c.Rules) == 0 {
		return fmt.Errorf("%s: check %q names no rule; tag it with the rule IDs it evidences", c.Source, c.ID)
	}
	if _, err := timeFactor(c.Tags); err != nil {
		return fmt.Errorf("%s: check %q: %v", c.Source, c.ID, err)
	}
	var walk func(steps []Step, inParallel bool) error
	walk = func(steps []Step, inParallel bool) error {
		for _, s := range steps {
			if err := lintStep(s, v, vars, agents); err != nil {
				return err
			}
			if s.Op == OpParallel {
				if err := walk(s.Steps, true); err != nil {
					return err
				}
			}
			if s.Op == OpControl && v.Provision != "" && s.Name == v.Provision {
				agents[s.Agent] = true
			}
			for name := range s.Capture {
				vars[name] = true
			}
		}
		return nil
	}
	return walk(c.Steps, false)
}

var operatorKey = regexp.MustCompile(`^\$`)

func lintStep(s Step, v Vocabulary, vars, agents map[string]bool) error {
	use := func(where, text string) error {
		for _, name := range VarRefs(text) {
			if !vars[name] {
				return fmt.Errorf("%s: %s uses ${%s}, which no earlier step captures", s.Source, where, name)
			}
		}
		return nil
	}
	if s.Agent != "" && v.Provision == "" {
		return fmt.Errorf("%s: the step names agent %q, but this suite's steps name no agent", s.Source, s.Agent)
	}
	if s.Agent != "" && (s.Op == OpAct || s.Op == OpRead || s.Op == OpControl && s.Name != v.Provision) && !agents[s.Agent] {
		return fmt.Errorf("%s: agent %q acts before it is provisioned; provision it in an earlier step", s.Source, s.Agent)
	}
	if err := use("the key", s.Key); err != nil {
		return err
	}
	if err := walkStrings(s.Params, func(str string) error { return use("a parameter", str) }); err != nil {
		return err
	}
	if s.Subject != "" && !vars[s.Subject] {
		return fmt.Errorf("%s: judges %q, which no earlier step captures", s.Source, s.Subject)
	}
	if e := s.Expect; e != nil {
		if e.SameAs != "" && !vars[e.SameAs] {
			return fmt.Errorf("%s: compares with %q, which no earlier step captures", s.Source, e.SameAs)
		}
		for _, m := range e.Mask {
			if err := use("a mask", m); err != nil {
				return err
			}
		}
		for _, m := range e.Match {
			if err := walkStrings(m.Matcher, func(str string) error { return use("the matcher at "+m.Pointer, str) }); err != nil {
				return err
			}
			if obj, ok := m.Matcher.(map[string]any); ok && len(obj) == 1 {
				for k := range obj {
					if operatorKey.MatchString(k) {
						if _, _, known := operator(obj); !known {
							return fmt.Errorf("%s: unknown matcher operator %q at %s; known: %v", s.Source, k, m.Pointer, Operators)
						}
					}
				}
			}
		}
	}
	return nil
}

func walkStrings(v any, fn func(string) error) error {
	switch t := v.(type) {
	case string:
		return fn(t)
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(t)) {
			if err := walkStrings(t[k], fn); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range t {
			if err := walkStrings(e, fn); err != nil {
				return err
			}
		}
	}
	return nil
}
