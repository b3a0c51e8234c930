package inproc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	refkcp "github.com/sifu-dev/sifu/reference/kcp"
	"github.com/sifu-dev/sifu/suite/kcp"
)

// KCP adapts the reference planner (reference/kcp) to kcp.Target.
type KCP struct {
	// Faults are planted in every plan (reference/kcp/faults.go).
	Faults []refkcp.Fault
}

// Hello describes the reference planner.
func (KCP) Hello(context.Context) (kcp.Hello, error) {
	return kcp.Hello{Implementation: "sifu-reference-kcp", Version: "0.1.0"}, nil
}

// Plan parses the manifest, plans, and projects the plan to VectorOutcome.
func (k KCP) Plan(_ context.Context, req kcp.PlanRequest) (map[string]any, error) {
	m, err := refkcp.ParseManifest([]byte(req.Manifest))
	if err != nil {
		return nil, &kcp.Refusal{Message: err.Error()}
	}
	var opts refkcp.Options
	if err := recode(req.Options, &opts); err != nil {
		return nil, fmt.Errorf("options: %w", err)
	}
	opts.Faults = k.Faults
	return asMap(refkcp.Outcome(refkcp.Plan(req.Task, m, opts)))
}

// Assess runs the confidence gate, with the vector's fixed evaluator result
// or error as the judge, and returns the verdict the vectors compare.
func (KCP) Assess(_ context.Context, req kcp.AssessRequest) (map[string]any, error) {
	var opts refkcp.AssessOptions
	if err := recode(req.Options, &opts); err != nil {
		return nil, fmt.Errorf("options: %w", err)
	}
	switch {
	case req.EvaluatorError != nil:
		msg := *req.EvaluatorError
		opts.Evaluator = func(string, string, []refkcp.Unit) (refkcp.Judgement, error) {
			return refkcp.Judgement{}, errors.New(msg)
		}
	case req.Evaluator != nil:
		var j refkcp.Judgement
		if err := recode(req.Evaluator, &j); err != nil {
			return nil, fmt.Errorf("evaluator: %w", err)
		}
		opts.Evaluator = func(string, string, []refkcp.Unit) (refkcp.Judgement, error) { return j, nil }
	}
	var units []refkcp.Unit
	if err := recode(req.Units, &units); err != nil {
		return nil, fmt.Errorf("units: %w", err)
	}
	v, err := refkcp.Assess(req.Task, req.Answer, units, opts)
	if err != nil {
		return nil, &kcp.Refusal{Message: err.Error()}
	}
	signals := make([]any, len(v.Signals))
	for i, s := range v.Signals {
		signals[i] = map[string]any{"source": s.Source, "score": s.Score}
	}
	out := map[string]any{"passed": v.Passed, "score": v.Score, "threshold": v.Threshold, "signals": signals, "detail": v.Detail}
	if v.Severity != "" {
		out["severity"] = v.Severity
	}
	return out, nil
}

func recode(from, to any) error {
	raw, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, to)
}

func asMap(v any) (map[string]any, error) {
	var m map[string]any
	return m, recode(v, &m)
}
