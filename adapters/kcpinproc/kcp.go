// Package kcpinproc drives the bundled KCP planner (reference/kcpref) in
// process, through the suite's seam (kcp.Target).
package kcpinproc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sifu-dev/sifu/adapters/kcphttp"
	"github.com/sifu-dev/sifu/adapters/kcploopback"
	"github.com/sifu-dev/sifu/adapters/kcpmcp"
	"github.com/sifu-dev/sifu/adapters/kcpmodel"
	"github.com/sifu-dev/sifu/reference/kcpref"
	"github.com/sifu-dev/sifu/reference/kcpref/kcpcli"
	"github.com/sifu-dev/sifu/suite/kcp"
)

// Reference adapts the reference planner (reference/kcpref) to kcp.Target, and its
// command line (reference/kcp/kcpcli) to kcp.CommandLine.
type Reference struct {
	// Faults are planted in every plan (reference/kcp/faults.go).
	Faults []kcpref.Fault
	// Now, when set, is the command line's clock (NewClock).
	Now func() time.Time
}

// NewClock is a clock for one check's command lines. When
// SOURCE_DATE_EPOCH is set it starts there and moves one second on at each
// reading, so what the reference records (memory's recordedAt) is the same
// on every run and still ordered. Without it, it is the wall clock at
// millisecond resolution (recordedAt's), never reading the same instant
// twice: in process, two command lines of one check can run within a
// millisecond, and episodes recorded at one instant have no order.
func NewClock() func() time.Time {
	var mu sync.Mutex
	s, ok := os.LookupEnv("SOURCE_DATE_EPOCH")
	sec, err := strconv.ParseInt(s, 10, 64)
	if !ok || err != nil {
		var last time.Time
		return func() time.Time {
			mu.Lock()
			defer mu.Unlock()
			now := time.Now().UTC().Truncate(time.Millisecond)
			if !now.After(last) {
				now = last.Add(time.Millisecond)
			}
			last = now
			return now
		}
	}
	t := time.Unix(sec, 0).UTC()
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(time.Second)
		return t
	}
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
func (k Reference) RunCLI(ctx context.Context, req kcp.CLIRequest) (kcp.CLIResult, error) {
	if req.Model != nil || len(req.Rerun) > 0 {
		return kcpmodel.Run(ctx, req, func(_ context.Context, args []string) (kcp.CLIResult, error) {
			var stdout, stderr bytes.Buffer
			cli := kcpcli.CLI{Name: "sifu kcp", Stdout: &stdout, Stderr: &stderr, Faults: k.Faults, Now: k.Now}
			return kcp.CLIResult{Exit: cli.Main(args), Stdout: stdout.String(), Stderr: stderr.String()}, nil
		})
	}
	return kcploopback.Run(req, k.runCLI)
}

func (k Reference) runCLI(req kcp.CLIRequest) (kcp.CLIResult, error) {
	dir, file, args, err := req.Materialize()
	if err != nil {
		return kcp.CLIResult{}, err
	}
	defer req.Release(dir)
	var stdout, stderr bytes.Buffer
	cli := kcpcli.CLI{Name: "sifu kcp", Stdout: &stdout, Stderr: &stderr, Faults: k.Faults, Now: k.Now}
	code := cli.Main(args)
	return kcp.CLIResult{Exit: code, Stdout: kcp.Unplace(stdout.String(), dir, file), Stderr: kcp.Unplace(stderr.String(), dir, file)}, nil
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

// StartServe starts the reference's HTTP server (kcpcli's serve) in
// process on a loopback port, its faults planted.
func (k Reference) StartServe(_ context.Context, req kcp.ServeRequest) (kcp.ServeSession, error) {
	dir, args, err := req.Materialize()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	cfg, err := kcpcli.ParseServeArgs(kcp.PlacePort(args, port))
	if err != nil {
		ln.Close()
		os.RemoveAll(dir)
		return nil, &kcp.ServeStartError{Command: "sifu kcp serve", What: err.Error(), Hint: "fix the check's arguments"}
	}
	cfg.Port = port
	var stdout, stderr bytes.Buffer
	cli := kcpcli.CLI{Stdout: &stdout, Stderr: &stderr, Faults: k.Faults}
	srv := &http.Server{Handler: cli.ServeHandler(cfg), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan struct{})
	go func() { _ = srv.Serve(ln); close(served) }()
	stop := func() kcp.ServeOutput {
		_ = srv.Close()
		<-served
		return kcp.ServeOutput{Stdout: stdout.String(), Stderr: stderr.String()}
	}
	return kcphttp.NewSession(port, dir, kcpcli.Implementation, 30*time.Second, stop), nil
}

// StartCLI runs the reference's command line in process, in the request's
// directory, until Stop closes its Done (kcp.Background).
func (k Reference) StartCLI(_ context.Context, req kcp.CLIRequest) (kcp.RunningCLI, error) {
	dir, file, args, err := req.Materialize()
	if err != nil {
		return nil, err
	}
	place := func(s string) string { return kcp.Unplace(s, dir, file) }
	r := &running{out: kcp.NewOutput(place), place: place, stop: make(chan struct{}), ended: make(chan struct{})}
	cli := kcpcli.CLI{Name: "sifu kcp", Stdout: r.out, Stderr: &r.stderr, Faults: k.Faults, Now: k.Now, Done: r.stop}
	go func() {
		cli.Main(args)
		r.out.End()
		close(r.ended)
	}()
	return r, nil
}

type running struct {
	out    *kcp.Output
	stderr lockedBuffer
	place  func(string) string
	stop   chan struct{}
	ended  chan struct{}
	once   sync.Once
}

func (r *running) Output() *kcp.Output { return r.out }

func (r *running) Stop() kcp.CLIResult {
	r.once.Do(func() { close(r.stop) })
	<-r.ended
	return kcp.CLIResult{Stdout: r.out.Rest(), Stderr: r.place(r.stderr.String())}
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
