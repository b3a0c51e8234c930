package agentkitref

// This file holds structured output: an agent's final answer checked
// against a JSON Schema and, when it does not meet it, given back to the
// model to fix.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// StructuredOutput is an agent's structured_output.
type StructuredOutput struct {
	Schema     string `yaml:"schema"`
	MaxRetries int    `yaml:"max_retries"` // default 2
}

// compileSchema compiles an agent's output schema; nil for none.
func compileSchema(text string) (*jsonschema.Schema, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("output.json", strings.NewReader(text)); err != nil {
		return nil, fmt.Errorf("structured_output: the schema is not JSON: %w", err)
	}
	s, err := c.Compile("output.json")
	if err != nil {
		return nil, fmt.Errorf("structured_output: the schema does not compile: %w", err)
	}
	return s, nil
}

// jsonPart is the JSON an answer holds: what lies between its first
// opening brace or bracket and its last closing one (the answer itself
// when there is no such pair).
func jsonPart(s string) string {
	open := strings.IndexFunc(s, func(r rune) bool { return r == '{' || r == '[' })
	shut := strings.LastIndexFunc(s, func(r rune) bool { return r == '}' || r == ']' })
	if open >= 0 && shut > open {
		return s[open : shut+1]
	}
	return s
}

func meets(schema *jsonschema.Schema, text string) error {
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return schema.Validate(v)
}

// structured is the answer the turn gives: the JSON of an answer meeting
// the schema, after up to max_retries fixes by the model, each asked in a
// request of its own that quotes the answer and what is wrong with it.
func (t *turn) structured(ctx context.Context, answer string) (string, error) {
	schema := t.agent.schema
	if schema == nil {
		return answer, nil
	}
	retries := t.agent.cfg.StructuredOutput.MaxRetries
	if retries <= 0 {
		retries = 2
	}
	current := answer
	var problem error
	for i := 0; ; i++ {
		candidate := jsonPart(current)
		if problem = meets(schema, candidate); problem == nil {
			if has(t.g.faults, FaultStructuredProse) {
				return current, nil
			}
			return candidate, nil
		}
		if has(t.g.faults, FaultStructuredNoFix) {
			return current, nil
		}
		if i == retries {
			break
		}
		t.calls++
		reply, err := t.g.completeRetrying(ctx, t.agent, []message{
			{Role: "system", Content: "Answer with one JSON object that meets this JSON Schema, and nothing else:\n" + t.agent.cfg.StructuredOutput.Schema},
			{Role: "user", Content: fmt.Sprintf("Fix this answer so that it meets the schema.\nWhat is wrong: %v\nThe answer:\n%s", problem, current)},
		}, nil, nil)
		if err != nil {
			return "", err
		}
		current = reply.Content
	}
	if has(t.g.faults, FaultStructuredFailOpen) {
		return current, nil
	}
	return "", fmt.Errorf("structured output: the answer still does not meet the schema after %d fixes: %w", retries, problem)
}
