package engine

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
)

// Lint checks a compiled check for authoring mistakes that would otherwise
// surface only at run time: variables used before they are captured, agents
// used before they are provisioned, and unknown matcher operators. It returns
// the first problem, naming the step's source.
func Lint(c Check) error {
	vars := map[string]bool{}
	agents := map[string]bool{}
	if len(c.Rules) == 0 {
		return fmt.Errorf("%s: check %q names no rule; tag it with the rule IDs it evidences", c.Source, c.ID)
	}
	var walk func(steps []Step, inParallel bool) error
	walk = func(steps []Step, inParallel bool) error {
		for _, s := range steps {
			if err := lintStep(s, vars, agents); err != nil {
				return err
			}
			if s.Op == OpParallel {
				if err := walk(s.Steps, true); err != nil {
					return err
				}
			}
			if s.Op == OpControl && s.Name == "provision" {
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

func lintStep(s Step, vars, agents map[string]bool) error {
	use := func(where, text string) error {
		for _, name := range VarRefs(text) {
			if !vars[name] {
				return fmt.Errorf("%s: %s uses ${%s}, which no earlier step captures", s.Source, where, name)
			}
		}
		return nil
	}
	if s.Agent != "" && (s.Op == OpAct || s.Op == OpRead || s.Op == OpControl && s.Name == "deactivate") && !agents[s.Agent] {
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
