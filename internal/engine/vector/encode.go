package vector

import (
	"encoding/json"
	"fmt"

	"github.com/sifu-dev/sifu/internal/engine"
)

// File is a vector file in sifu's format, for tools that write vectors
// (the fuzzer writes each shrunk divergence as one).
type File struct {
	Schema      string      `json:"$schema,omitempty"`
	Suite       string      `json:"suite"`
	Description string      `json:"description,omitempty"`
	Checks      []FileCheck `json:"checks"`
}

// FileCheck is one check of a File.
type FileCheck struct {
	ID      string           `json:"id"`
	Title   string           `json:"title"`
	Rules   []string         `json:"rules"`
	Tags    []string         `json:"tags,omitempty"`
	Comment string           `json:"comment,omitempty"`
	Steps   []map[string]any `json:"steps"`
}

// Encode turns compiled steps back into vector steps, the inverse of what
// Compile does to one step.
func Encode(steps []engine.Step) ([]map[string]any, error) {
	out := make([]map[string]any, 0, len(steps))
	for _, s := range steps {
		m, err := encodeStep(s)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

func encodeStep(s engine.Step) (map[string]any, error) {
	m := map[string]any{}
	switch s.Op {
	case engine.OpAct:
		m["act"] = s.Name
	case engine.OpRead:
		m["read"] = s.Name
	case engine.OpControl:
		m["control"] = s.Name
	case engine.OpParallel:
		subs, err := Encode(s.Steps)
		if err != nil {
			return nil, err
		}
		m["parallel"] = subs
	case engine.OpExpect:
		if s.Subject != "" {
			m["subject"] = s.Subject
		}
	default:
		return nil, fmt.Errorf("vector: cannot encode step op %q", s.Op)
	}
	if s.Agent != "" {
		m["agent"] = s.Agent
	}
	if s.Key != "" {
		m["key"] = s.Key
	}
	if len(s.Params) > 0 {
		m["params"] = s.Params
	}
	if len(s.Capture) > 0 {
		m["capture"] = s.Capture
	}
	if e := s.Expect; e != nil {
		ed := map[string]any{}
		if e.Outcome != "" {
			ed["outcome"] = e.Outcome
		}
		if e.Reason != "" {
			ed["reason"] = e.Reason
		}
		if e.NextStep != "" {
			ed["next_step"] = e.NextStep
		}
		if len(e.Match) > 0 {
			match := map[string]any{}
			for _, mt := range e.Match {
				match[mt.Pointer] = mt.Matcher
			}
			ed["match"] = match
		}
		if e.SameAs != "" {
			ed["same_as"] = e.SameAs
		}
		if len(e.Mask) > 0 {
			ed["mask"] = e.Mask
		}
		m["expect"] = ed
	}
	return m, nil
}

// Marshal renders a File the way sifu's own vectors are written.
func (f File) Marshal() ([]byte, error) {
	raw, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(raw, '\n'), nil
}
