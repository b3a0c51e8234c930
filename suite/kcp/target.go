// Package kcp is the KCP suite of sifu: the seam any knowledge-manifest
// planner is driven through (in-process, or a planner CLI), the upstream
// vector format compiled into sifu checks, and the executor between them.
package kcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/sifu-dev/sifu/engine"
)

// Target is one planner implementation as sifu sees it.
type Target interface {
	Hello(ctx context.Context) (Hello, error)
	// Plan plans a task over a manifest (raw YAML) and returns the plan
	// projected to the VectorOutcome object, as JSON data.
	Plan(ctx context.Context, req PlanRequest) (map[string]any, error)
	// Assess runs the confidence gate and returns its verdict as JSON data.
	// A gate that refuses its input returns a *Refusal.
	Assess(ctx context.Context, req AssessRequest) (map[string]any, error)
}

// Hello describes a planner.
type Hello struct {
	Implementation string `json:"implementation"`
	Version        string `json:"version"`
}

// PlanRequest is one planning call.
type PlanRequest struct {
	Name     string         `json:"name"`
	Manifest string         `json:"manifest"`
	Task     string         `json:"task"`
	Options  map[string]any `json:"options"`
}

// AssessRequest is one confidence-gate call, as an assess vector gives it.
type AssessRequest struct {
	Task           string         `json:"task"`
	Answer         string         `json:"answer"`
	Units          []any          `json:"units"`
	Options        map[string]any `json:"options"`
	Evaluator      map[string]any `json:"evaluator,omitempty"`
	EvaluatorError *string        `json:"evaluatorError,omitempty"`
}

// Refusal is a planner or gate that rejected its input with a message (the
// implementation's error, which vectors may expect).
type Refusal struct{ Message string }

func (r *Refusal) Error() string { return r.Message }

// Executor runs compiled KCP steps against a Target.
type Executor struct{ target Target }

// NewExecutor returns an executor for one check.
func NewExecutor(t Target) *Executor { return &Executor{target: t} }

// Execute performs a plan or assess step.
func (e *Executor) Execute(ctx context.Context, step engine.Step) (engine.Outcome, error) {
	raw, _ := json.Marshal(step.Params)
	var result map[string]any
	var err error
	switch step.Name {
	case "plan":
		var req PlanRequest
		_ = json.Unmarshal(raw, &req)
		result, err = e.target.Plan(ctx, req)
	case "assess":
		var req AssessRequest
		_ = json.Unmarshal(raw, &req)
		result, err = e.target.Assess(ctx, req)
	case "properties":
		runs, _ := step.Params["runs"].(float64)
		seed, _ := step.Params["seed"].(float64)
		var violations []any
		violations, err = checkProperties(ctx, e.target, int(runs), uint64(seed))
		result = map[string]any{"runs": runs, "seed": seed, "violations": violations}
	default:
		return engine.Outcome{}, &engine.AdapterError{Step: step.Source, Err: fmt.Errorf("the kcp suite cannot execute %q", step.Name)}
	}
	if refusal, ok := err.(*Refusal); ok {
		return engine.Outcome{Rejection: &engine.Rejection{Reason: "error", NextStep: "stop", Message: refusal.Message}}, nil
	}
	if err != nil {
		return engine.Outcome{}, err
	}
	return engine.Outcome{OK: true, Result: engine.Normalize(result)}, nil
}
