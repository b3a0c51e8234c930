package kcpexec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/ndjson"
	"github.com/sifu-dev/sifu/internal/schema"
	"github.com/sifu-dev/sifu/suite/kcp"
)

// RunnerSchema is the JSON Schema of the planner runner protocol.
const RunnerSchema = "kcp-runner.schema.json"

// RunnerProtocol is the protocol version sifu speaks.
const RunnerProtocol = 1

// DetectTimeout is how long Detect waits for a hello answer.
const DetectTimeout = 10 * time.Second

// maxRunnerLine is the longest answer line sifu reads from a runner.
const maxRunnerLine = 64 << 20

// RunnerHello is what a runner says about itself.
type RunnerHello struct {
	Protocol       int      `json:"protocol"`
	Implementation string   `json:"implementation"`
	Version        string   `json:"version"`
	Language       string   `json:"language,omitempty"`
	Homepage       string   `json:"homepage,omitempty"`
	Ops            []string `json:"ops"`
}

// Runner is a kcp.Target that drives one long-lived planner runner
// process (docs/kcp-runner.md): every plan and assess is a line to its
// standard input, answered by a line on its standard output, matched by
// id, so checks may call it at once. If the process dies, the requests in
// flight fail and the next request starts it again.
type Runner struct {
	command string
	schemas *schema.Set

	mu     sync.Mutex
	proc   *ndjson.Conn
	hello  RunnerHello
	closed bool
	nextID atomic.Int64 // ids only grow, across restarts too
}

type runnerAnswer struct {
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Refusal *string         `json:"refusal"`
	Error   *string         `json:"error"`
	raw     []byte
}

// runnerOptions say how a runner is started and read.
func runnerOptions() ndjson.Options {
	return ndjson.Options{Env: append(os.Environ(), "TZ=UTC"), Who: "the runner", Answer: "answer", MaxLine: maxRunnerLine, Tail: 4096, SkipBlank: true}
}

// StartRunner starts command (through sh -c) and says hello; an error
// means it is not a runner that speaks protocol 1.
func StartRunner(ctx context.Context, command string) (*Runner, error) {
	r := &Runner{command: command, schemas: schema.Bundled()}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.startLocked(ctx); err != nil {
		return nil, err
	}
	return r, nil
}

// Detect starts command and says hello. A hello answer within
// DetectTimeout, or within half the time ctx has left when that is
// shorter (the other half is the command line's probe plan, Planner.Hello),
// means a runner, which it returns running; anything else (no answer, a
// line that is no answer, an exit) means a plain command line: it returns
// nil and why the command is no runner, and the process is gone.
func Detect(ctx context.Context, command string) (*Runner, error) {
	limit := DetectTimeout
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline)/2 < limit {
		limit = time.Until(deadline) / 2
	}
	dctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	r, err := StartRunner(dctx, command)
	var ae *engine.AdapterError
	if errors.As(err, &ae) {
		err = ae.Err
	}
	if err != nil && dctx.Err() != nil && ctx.Err() == nil {
		err = fmt.Errorf("%w (it was given %s)", err, limit.Round(time.Millisecond))
	}
	return r, err
}

// startLocked starts the process and waits for its hello; r.mu is held.
func (r *Runner) startLocked(ctx context.Context) (*ndjson.Conn, error) {
	p, err := ndjson.Start(r.command, runnerOptions())
	if err != nil {
		return nil, err
	}
	r.proc = p
	a, err := r.callOn(ctx, p, map[string]any{"op": "hello", "protocol": RunnerProtocol})
	if err == nil && a.Error != nil {
		err = fmt.Errorf("the runner refused hello: %s", *a.Error)
	}
	if err == nil {
		err = r.validate("hello", a.Result)
	}
	var h RunnerHello
	if err == nil {
		err = json.Unmarshal(a.Result, &h)
	}
	if err != nil {
		p.Kill()
		<-p.Done()
		r.proc = nil
		var ae *engine.AdapterError
		switch {
		case ctx.Err() != nil:
			err = &ndjson.Late{Msg: fmt.Sprintf("the planner runner %q gave no answer to sifu's hello in time%s", r.command, stderrSaid(p.Stderr())), Cause: ctx.Err()}
		case errors.As(err, &ae):
			err = fmt.Errorf("the planner runner %q did not answer sifu's hello: %w", r.command, ae.Err)
		default:
			err = fmt.Errorf("the planner runner %q did not answer sifu's hello: %w", r.command, err)
		}
		return nil, &engine.AdapterError{Step: "hello", Err: err}
	}
	r.hello = h
	return p, nil
}

func (r *Runner) validate(def string, raw json.RawMessage) error {
	if raw == nil {
		return fmt.Errorf("the %s answer has no result", def)
	}
	return r.schemas.Validate(RunnerSchema+"#/$defs/"+def, def+" result", raw)
}

// process returns the live process, starting it (again) when needed.
func (r *Runner) process(ctx context.Context) (*ndjson.Conn, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, &engine.AdapterError{Step: "runner", Err: errors.New("the runner was closed")}
	}
	if p := r.proc; p != nil && p.Dead() == nil {
		return p, nil
	}
	return r.startLocked(ctx)
}

// call sends one request and waits for its answer.
func (r *Runner) call(ctx context.Context, req map[string]any) (runnerAnswer, error) {
	p, err := r.process(ctx)
	if err != nil {
		return runnerAnswer{}, err
	}
	return r.callOn(ctx, p, req)
}

func (r *Runner) callOn(ctx context.Context, p *ndjson.Conn, req map[string]any) (runnerAnswer, error) {
	op, _ := req["op"].(string)
	id := r.nextID.Add(1)
	req["id"] = id
	line, err := json.Marshal(req)
	if err != nil {
		return runnerAnswer{}, err
	}
	raw, err := p.Call(ctx, strconv.FormatInt(id, 10), line)
	switch {
	case ndjson.IsStopped(err):
		return runnerAnswer{}, &engine.AdapterError{Step: op, Err: err}
	case err != nil:
		return runnerAnswer{}, fmt.Errorf("the runner did not answer %s: %w%s", op, err, stderrSaid(p.Stderr()))
	}
	var a runnerAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		return runnerAnswer{}, &engine.AdapterError{Step: op, Err: err}
	}
	a.raw = raw
	if err := r.schemas.Validate(RunnerSchema+"#/$defs/answer", op+" answer", a.raw); err != nil {
		return runnerAnswer{}, &engine.AdapterError{Step: op, Err: err}
	}
	return a, nil
}

// Hello is the runner's hello.
func (r *Runner) Hello(ctx context.Context) (kcp.Hello, error) {
	if _, err := r.process(ctx); err != nil {
		return kcp.Hello{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return kcp.Hello{Implementation: r.hello.Implementation, Version: r.hello.Version}, nil
}

// Info is the runner's whole hello.
func (r *Runner) Info() RunnerHello {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.hello
}

// Profiles are the KCP profiles the runner's ops offer.
func (r *Runner) Profiles() []string {
	var out []string
	for _, p := range []struct{ op, profile string }{{"plan", "planner"}, {"assess", "assess"}} {
		if slices.Contains(r.Info().Ops, p.op) {
			out = append(out, p.profile)
		}
	}
	return out
}

// answer turns an answer into a result, a refusal or an error.
func (r *Runner) answer(op, def string, a runnerAnswer) (map[string]any, error) {
	switch {
	case a.Error != nil:
		return nil, &engine.AdapterError{Step: op, Err: fmt.Errorf("the runner could not %s: %s", op, *a.Error)}
	case a.Refusal != nil:
		return nil, &kcp.Refusal{Message: *a.Refusal}
	}
	if err := r.validate(def, a.Result); err != nil {
		return nil, &engine.AdapterError{Step: op, Err: err}
	}
	var out map[string]any
	if err := json.Unmarshal(a.Result, &out); err != nil {
		return nil, &engine.AdapterError{Step: op, Err: err}
	}
	return out, nil
}

// Plan sends a plan request with the manifest text, task and options as
// they are (the source is the vector's name) and returns the plan object.
func (r *Runner) Plan(ctx context.Context, req kcp.PlanRequest) (map[string]any, error) {
	opts := req.Options
	if opts == nil {
		opts = map[string]any{}
	}
	a, err := r.call(ctx, map[string]any{"op": "plan", "manifest": req.Manifest, "source": req.Name, "task": req.Task, "options": opts})
	if err != nil {
		return nil, err
	}
	return r.answer("plan", "plan", a)
}

// Assess sends an assess request and returns the verdict.
func (r *Runner) Assess(ctx context.Context, req kcp.AssessRequest) (map[string]any, error) {
	if !slices.Contains(r.Info().Ops, "assess") {
		return nil, fmt.Errorf("the runner offers no assess: %w", engine.ErrUnsupported)
	}
	msg := map[string]any{"op": "assess", "task": req.Task, "answer": req.Answer, "units": orEmptyList(req.Units), "options": orEmptyMap(req.Options)}
	if req.Evaluator != nil {
		msg["evaluator"] = req.Evaluator
	}
	if req.EvaluatorError != nil {
		msg["evaluatorError"] = *req.EvaluatorError
	}
	a, err := r.call(ctx, msg)
	if err != nil {
		return nil, err
	}
	return r.answer("assess", "verdict", a)
}

// BenchRequest asks a runner to time its planner in process: the
// manifest parsed once, Warmup plans untimed, then Batches batches of Batch
// plans each.
type BenchRequest struct {
	Plan    kcp.PlanRequest
	Warmup  int
	Batches int
	Batch   int
}

// Bench times the runner's planner (the bench op): each batch's time per
// plan, in the order timed. A runner whose hello lists no bench op cannot.
func (r *Runner) Bench(ctx context.Context, req BenchRequest) ([]time.Duration, error) {
	if _, err := r.process(ctx); err != nil {
		return nil, err
	}
	if !slices.Contains(r.Info().Ops, "bench") {
		return nil, fmt.Errorf("the runner %q offers no bench op: %w", r.command, engine.ErrUnsupported)
	}
	a, err := r.call(ctx, map[string]any{"op": "bench", "manifest": req.Plan.Manifest, "source": req.Plan.Name, "task": req.Plan.Task,
		"options": orEmptyMap(req.Plan.Options), "warmup": req.Warmup, "batches": req.Batches, "batch": req.Batch})
	if err != nil {
		return nil, err
	}
	res, err := r.answer("bench", "bench", a)
	if err != nil {
		return nil, err
	}
	list, _ := res["ns_per_plan"].([]any)
	out := make([]time.Duration, 0, len(list))
	for _, v := range list {
		ns, _ := v.(float64)
		out = append(out, time.Duration(ns))
	}
	return out, nil
}

// stderrSaid is the end of a runner's standard error, for a message, or
// nothing when it wrote none.
func stderrSaid(tail string) string {
	if tail == "" {
		return ""
	}
	return fmt.Sprintf(" (its standard error ends: %q)", tail)
}

func orEmptyList(l []any) []any {
	if l == nil {
		return []any{}
	}
	return l
}

func orEmptyMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// Close asks the runner to stop, closes its input and ends it.
func (r *Runner) Close() error {
	r.mu.Lock()
	p := r.proc
	r.closed, r.proc = true, nil
	r.mu.Unlock()
	if p == nil {
		return nil
	}
	_ = p.CloseInput() // a runner ends at the end of its input
	select {
	case <-p.Done():
	case <-time.After(2 * time.Second):
		p.Kill()
		<-p.Done()
	}
	return nil
}
