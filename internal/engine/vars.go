package engine

import (
	"fmt"
	"regexp"
	"strings"
)

// varRef matches ${name} inside a string.
var varRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_.-]*)\}`)

// VarRefs returns the variable names a string refers to.
func VarRefs(s string) []string {
	var names []string
	for _, m := range varRef.FindAllStringSubmatch(s, -1) {
		names = append(names, m[1])
	}
	return names
}

// expand substitutes variables in s. A string that is exactly one reference
// yields the variable's value unchanged (a number stays a number).
func (s *Session) expand(text string) (any, error) {
	if !strings.Contains(text, "${") {
		return text, nil
	}
	if m := varRef.FindStringSubmatch(text); m != nil && m[0] == text {
		v, ok := s.vars[m[1]]
		if !ok {
			return nil, &AdapterError{Step: "resolve", Err: fmt.Errorf("variable ${%s} was never captured", m[1])}
		}
		return v, nil
	}
	var missing string
	out := varRef.ReplaceAllStringFunc(text, func(ref string) string {
		name := varRef.FindStringSubmatch(ref)[1]
		v, ok := s.vars[name]
		if !ok {
			missing = name
			return ref
		}
		return fmt.Sprint(v)
	})
	if missing != "" {
		return nil, &AdapterError{Step: "resolve", Err: fmt.Errorf("variable ${%s} was never captured", missing)}
	}
	return out, nil
}

// resolveValue expands variables anywhere inside a decoded JSON value.
func (s *Session) resolveValue(v any) (any, error) {
	switch t := v.(type) {
	case string:
		return s.expand(t)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			r, err := s.resolveValue(e)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			r, err := s.resolveValue(e)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	default:
		return v, nil
	}
}

// resolve returns a copy of step with every variable expanded.
func (s *Session) resolve(step Step) (Step, error) {
	out := step
	key, err := s.expand(step.Key)
	if err != nil {
		return step, fmt.Errorf("%s: %w", step.Source, err)
	}
	out.Key = fmt.Sprint(key)
	if step.Params != nil {
		p, err := s.resolveValue(map[string]any(step.Params))
		if err != nil {
			return step, fmt.Errorf("%s: %w", step.Source, err)
		}
		out.Params = p.(map[string]any)
	}
	return out, nil
}
