// Package kcpinproc drives the bundled KCP planner (reference/kcpref) in
// process, through the suite's seam (kcp.Target).
package kcpinproc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sifu-dev/sifu/adapters/kcploopback"
	"github.com/sifu-dev/sifu/adapters/kcpmcp"
	"github.com/sifu-dev/sifu/reference/kcpref"
	"github.com/sifu-dev/sifu/reference/kcpref/kcpcli"
	"github.com/sifu-dev/sifu/suite/kcp"
)

// Reference adapts the reference planner (reference/kcpref) to kcp.Target, and its
// command line (reference/kcp/kcpcli) to kcp.CommandLine.
type Reference struct {
	// Faults are planted in every plan (reference/kcp/faults.go).
	Faults []kcpref.Fault
}

// Hello describes the reference planner.
func (Reference) Hello(context.Context) (kcp.Hello, error) {
	return kcp.Hello{Implementation: kcpcli.Implementation, Version: kcpcli.Version}, nil
}

// Plan parses the manifest (its source the vector's name, as kcp-agent's
// vector runner sets it), plans, and returns the library plan.
func (k Reference) Plan(_ context.Context, req kcp.PlanRequest) (map[string]any, error) {
	m, err := kcpref.ParseManifest([]byte(req.Manifest))
	if err != nil {
		return nil, &kcp.Refusal{Message: err.Error()}
	}
	m.Source = req.Name
	var opts kcpref.Options
	if err := recode(req.Options, &opts); err != nil {
		return nil, fmt.Errorf("options: %w", err)
	}
	opts.Faults = k.Faults
	var plan map[string]any
	if err := json.Unmarshal(kcpref.PlanObject(kcpref.Plan(req.Task, m, opts)), &plan); err != nil {
		return nil, fmt.Errorf("the plan JSON: %w", err)
	}
	return plan, nil
}

// RunCLI runs the reference's command line in process, over the manifest
// written to a temporary file.
func (k Reference) RunCLI(_ context.Context, req kcp.CLIRequest) (kcp.CLIResult, error) {
	base, stop, err := kcploopback.Start(req.Server)
	if err != nil {
		return kcp.CLIResult{}, err
	}
	defer stop()
	dir, file, args, err := req.WithServer(base).Materialize()
	if err != nil {
		return kcp.CLIResult{}, err
	}
	defer os.RemoveAll(dir)
	var stdout, stderr bytes.Buffer
	cli := kcpcli.CLI{Name: "sifu kcp", Stdout: &stdout, Stderr: &stderr, Faults: k.Faults}
	code := cli.Main(args)
	requests := stop()
	return kcp.CLIResult{Exit: code, Requests: requests, Stdout: kcp.UnplaceServer(kcp.Unplace(stdout.String(), dir, file), base),
		Stderr: kcp.UnplaceServer(kcp.Unplace(stderr.String(), dir, file), base)}, nil
}

// Assess runs the confidence gate, with the vector's fixed evaluator result
// or error as the judge, and returns its verdict.
func (k Reference) Assess(_ context.Context, req kcp.AssessRequest) (map[string]any, error) {
	var opts kcpref.AssessOptions
	if err := recode(req.Options, &opts); err != nil {
		return nil, fmt.Errorf("options: %w", err)
	}
	opts.Faults = k.Faults
	switch {
	case req.EvaluatorError != nil:
		msg := *req.EvaluatorError
		opts.Evaluator = func(string, string, []kcpref.Unit) (kcpref.Judgement, error) {
			return kcpref.Judgement{}, errors.New(msg)
		}
	case req.Evaluator != nil:
		var j kcpref.Judgement
		if err := recode(req.Evaluator, &j); err != nil {
			return nil, fmt.Errorf("evaluator: %w", err)
		}
		opts.Evaluator = func(string, string, []kcpref.Unit) (kcpref.Judgement, error) { return j, nil }
	}
	var units []kcpref.Unit
	if err := recode(req.Units, &units); err != nil {
		return nil, fmt.Errorf("units: %w", err)
	}
	v, err := kcpref.Assess(req.Task, req.Answer, units, opts)
	if err != nil {
		return nil, &kcp.Refusal{Message: err.Error()}
	}
	return asMap(v)
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

// ListTools lists the reference's MCP tools (kcpcli's MCP server, in
// process).
func (k Reference) ListTools(ctx context.Context) ([]any, error) {
	var tools []any
	err := k.withMCP(ctx, func(s *kcpmcp.Server) (err error) {
		tools, err = s.ListTools(ctx)
		return err
	})
	return tools, err
}

// CallTool calls one of the reference's MCP tools, its faults planted.
func (k Reference) CallTool(ctx context.Context, call kcp.ToolCall) (map[string]any, error) {
	var res map[string]any
	err := k.withMCP(ctx, func(s *kcpmcp.Server) (err error) {
		res, err = s.CallTool(ctx, call)
		return err
	})
	return res, err
}

// withMCP runs f over a session with a fresh in-process MCP server.
func (k Reference) withMCP(ctx context.Context, f func(*kcpmcp.Server) error) error {
	st, ct := mcp.NewInMemoryTransports()
	ss, err := kcpcli.CLI{Faults: k.Faults}.MCPServer().Connect(ctx, st, nil)
	if err != nil {
		return err
	}
	defer ss.Close()
	s, err := kcpmcp.Connect(ctx, ct, kcpcli.Implementation)
	if err != nil {
		return err
	}
	defer s.Close()
	return f(s)
}
