package kcpcli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/sifu-dev/sifu/reference/kcpref"
)

// RunnerProtocol is the version of the planner runner protocol
// (docs/kcp-runner.md) that Serve speaks.
const RunnerProtocol = 1

// Implementation and Version name the reference planner in a hello.
const (
	Implementation = "sifu-reference-kcp"
	Version        = "0.1.0"
)

// maxLine is the longest request line Serve reads.
const maxLine = 16 << 20

// request is one line of the runner protocol; which fields are set
// depends on op.
type request struct {
	ID       json.RawMessage `json:"id"`
	Op       string          `json:"op"`
	Protocol *int            `json:"protocol"`
	Manifest *string         `json:"manifest"`
	Source   *string         `json:"source"`
	Task     *string         `json:"task"`
	Options  json.RawMessage `json:"options"`
	// Warmup, Batches and Batch shape a bench request.
	Warmup  *int `json:"warmup"`
	Batches *int `json:"batches"`
	Batch   *int `json:"batch"`
}

// Serve speaks the planner runner protocol on in and out until in ends
// or a stop request: one JSON request per line, one JSON answer per line,
// in order. A manifest or input the planner rejects is a refusal (an
// answer); a line it cannot carry out is an error. It returns the exit
// code.
func (c CLI) Serve(in io.Reader) int {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	w := bufio.NewWriter(c.Stdout)
	enc := json.NewEncoder(w) // one line per answer, no HTML escaping (as JSON.stringify)
	enc.SetEscapeHTML(false)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		answer, stop := c.answer(line)
		if err := enc.Encode(answer); err != nil {
			_ = enc.Encode(map[string]any{"id": answer["id"], "error": "the answer cannot be encoded: " + err.Error()})
		}
		if err := w.Flush(); err != nil {
			return c.fail(kcpref.ExitFailure, err.Error())
		}
		if stop {
			return kcpref.ExitOK
		}
	}
	if err := sc.Err(); err != nil {
		return c.fail(kcpref.ExitFailure, "reading requests: "+err.Error())
	}
	return kcpref.ExitOK
}

func (c CLI) answer(line []byte) (map[string]any, bool) {
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return map[string]any{"id": nil, "error": "the line is not a runner request: " + err.Error()}, false
	}
	id := any(nil)
	if len(req.ID) > 0 {
		id = req.ID
	}
	out := func(key string, v any) map[string]any { return map[string]any{"id": id, key: v} }
	switch req.Op {
	case "hello":
		if req.Protocol == nil || *req.Protocol != RunnerProtocol {
			return out("error", fmt.Sprintf("this runner speaks protocol %d", RunnerProtocol)), false
		}
		return out("result", map[string]any{"protocol": RunnerProtocol, "implementation": Implementation, "version": Version,
			"language": "go", "ops": []string{"plan", "assess", "bench"}}), false
	case "plan":
		res, refusal, err := c.servePlan(req)
		return reply(out, res, refusal, err), false
	case "assess":
		res, refusal, err := c.serveAssess(line)
		return reply(out, res, refusal, err), false
	case "bench":
		res, refusal, err := c.serveBench(req)
		return reply(out, res, refusal, err), false
	case "stop":
		return out("result", map[string]any{}), true
	}
	return out("error", fmt.Sprintf("unknown op %q: the ops are hello, plan, assess, bench and stop", req.Op)), false
}

func reply(out func(string, any) map[string]any, result any, refusal string, err error) map[string]any {
	switch {
	case err != nil:
		return out("error", err.Error())
	case refusal != "":
		return out("refusal", refusal)
	}
	return out("result", result)
}

func (c CLI) today() string {
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	return kcpref.DefaultAsOf(now())
}

// servePlan parses and plans, as kcp-agent's plan(parseManifest(manifest,
// source), task, options) does, and returns the library plan.
func (c CLI) servePlan(req request) (json.RawMessage, string, error) {
	task, m, opts, refusal, err := c.planInput(req)
	if refusal != "" || err != nil {
		return nil, refusal, err
	}
	return kcpref.PlanObject(kcpref.Plan(task, m, opts)), "", nil
}

// serveBench times Plan on a manifest parsed once (the bench op): Warmup
// plans untimed, then Batches batches of Batch plans, each batch's time
// divided by its plans.
func (c CLI) serveBench(req request) (any, string, error) {
	if req.Warmup == nil || req.Batches == nil || req.Batch == nil || *req.Warmup < 0 || *req.Batches < 1 || *req.Batch < 1 {
		return nil, "", errors.New("a bench request needs integer warmup ≥ 0, batches ≥ 1 and batch ≥ 1")
	}
	task, m, opts, refusal, err := c.planInput(req)
	if refusal != "" || err != nil {
		return nil, refusal, err
	}
	for range *req.Warmup {
		kcpref.Plan(task, m, opts)
	}
	ns := make([]float64, 0, *req.Batches)
	for range *req.Batches {
		start := time.Now()
		for range *req.Batch {
			kcpref.Plan(task, m, opts)
		}
		ns = append(ns, float64(time.Since(start).Nanoseconds())/float64(*req.Batch))
	}
	return map[string]any{"ns_per_plan": ns}, "", nil
}

// planInput reads a plan or bench request: the task, the parsed manifest
// (with the request's source), the options with asOf defaulting to today;
// or the planner's refusal of the manifest.
func (c CLI) planInput(req request) (string, kcpref.Manifest, kcpref.Options, string, error) {
	var m kcpref.Manifest
	var opts kcpref.Options
	if req.Manifest == nil || req.Task == nil {
		return "", m, opts, "", fmt.Errorf("a %s request needs manifest and task", req.Op)
	}
	var present map[string]json.RawMessage
	if len(req.Options) > 0 {
		if err := json.Unmarshal(req.Options, &opts); err != nil {
			return "", m, opts, "", fmt.Errorf("options: %v", err)
		}
		_ = json.Unmarshal(req.Options, &present)
	}
	if _, ok := present["asOf"]; !ok {
		opts.AsOf = c.today()
	}
	m, err := kcpref.ParseManifest([]byte(*req.Manifest))
	if err != nil {
		return "", m, opts, err.Error(), nil
	}
	if req.Source != nil {
		m.Source = *req.Source
	}
	return *req.Task, m, opts, "", nil
}

// serveAssess runs the confidence gate with the request's fixed judge.
func (c CLI) serveAssess(line []byte) (any, string, error) {
	var req struct {
		Task           string            `json:"task"`
		Answer         string            `json:"answer"`
		Units          []kcpref.Unit     `json:"units"`
		Options        json.RawMessage   `json:"options"`
		Evaluator      *kcpref.Judgement `json:"evaluator"`
		EvaluatorError *string           `json:"evaluatorError"`
	}
	if err := json.Unmarshal(line, &req); err != nil {
		return nil, "", fmt.Errorf("an assess request: %v", err)
	}
	var opts kcpref.AssessOptions
	var present map[string]json.RawMessage
	if len(req.Options) > 0 {
		if err := json.Unmarshal(req.Options, &opts); err != nil {
			return nil, "", fmt.Errorf("options: %v", err)
		}
		_ = json.Unmarshal(req.Options, &present)
	}
	if _, ok := present["asOf"]; !ok {
		opts.AsOf = c.today()
	}
	switch {
	case req.EvaluatorError != nil:
		msg := *req.EvaluatorError
		opts.Evaluator = func(string, string, []kcpref.Unit) (kcpref.Judgement, error) {
			return kcpref.Judgement{}, errors.New(msg)
		}
	case req.Evaluator != nil:
		j := *req.Evaluator
		opts.Evaluator = func(string, string, []kcpref.Unit) (kcpref.Judgement, error) { return j, nil }
	}
	v, err := kcpref.Assess(req.Task, req.Answer, req.Units, opts)
	if err != nil {
		return nil, err.Error(), nil
	}
	return v, "", nil
}
