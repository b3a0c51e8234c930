package kcpexec

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/proc"
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
	proc   *runnerProc
	hello  RunnerHello
	closed bool
	nextID atomic.Int64 // ids only grow, across restarts too
}

// runnerProc is one live runner process.
type runnerProc struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	stderr  *tailBuffer
	writeMu sync.Mutex

	mu      sync.Mutex
	pending map[string]chan runnerAnswer
	dead    error
	done    chan struct{}
}

type runnerAnswer struct {
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Refusal *string         `json:"refusal"`
	Error   *string         `json:"error"`
	raw     []byte
}

// StartRunner starts command (through sh -c) and says hello; an error
// means it is not a runner that speaks protocol 1.
func StartRunner(ctx context.Context, command string) (*Runner, error) {
	r := &Runner{command: command, schemas: schema.NewSet(sifu.Assets, "vectors/schema")}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.startLocked(ctx); err != nil {
		return nil, err
	}
	return r, nil
}

// Detect starts command and says hello. A hello answer within
// DetectTimeout means a runner, which it returns running; anything else
// (no answer, a line that is no answer, an exit) means a plain command
// line: it returns nil, and the process is gone.
func Detect(ctx context.Context, command string) *Runner {
	ctx, cancel := context.WithTimeout(ctx, DetectTimeout)
	defer cancel()
	r, err := StartRunner(ctx, command)
	if err != nil {
		return nil
	}
	return r
}

// startLocked starts the process and waits for its hello; r.mu is held.
func (r *Runner) startLocked(ctx context.Context) (*runnerProc, error) {
	cmd := exec.Command("sh", "-c", r.command)
	cmd.Env = append(os.Environ(), "TZ=UTC")
	proc.Isolate(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p := &runnerProc{cmd: cmd, stdin: stdin, stderr: &tailBuffer{max: 4096}, pending: map[string]chan runnerAnswer{}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %q: %w", r.command, err)
	}
	go p.readLoop(stdout)
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
		p.kill()
		<-p.done
		r.proc = nil
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

// readLoop routes answers to their requests; a line that is no answer
// ends the process.
func (p *runnerProc) readLoop(stdout io.Reader) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), maxRunnerLine)
	var why error
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var a runnerAnswer
		if err := json.Unmarshal(line, &a); err != nil || len(a.ID) == 0 {
			why = fmt.Errorf("the runner wrote a line that is not an answer: %q", excerptLine(line))
			break
		}
		a.raw = append([]byte(nil), line...)
		key := idKey(a.ID)
		p.mu.Lock()
		ch, ok := p.pending[key]
		delete(p.pending, key)
		p.mu.Unlock()
		if !ok {
			why = fmt.Errorf("the runner answered id %s, which no request is waiting for", key)
			break
		}
		ch <- a
	}
	if why == nil {
		why = sc.Err()
	}
	if why != nil {
		p.fail(why)
		p.kill()
	}
	err := p.cmd.Wait()
	p.fail(fmt.Errorf("the runner exited (%v)", err))
	close(p.done)
}

// idKey is an id's canonical text (1 and 1.0 are one id).
func idKey(raw json.RawMessage) string {
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		if f, err := n.Float64(); err == nil {
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
	}
	return string(raw)
}

func excerptLine(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

func (p *runnerProc) fail(why error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dead == nil {
		p.dead = why
	}
	for id, ch := range p.pending {
		close(ch)
		delete(p.pending, id)
	}
}

func (p *runnerProc) kill() {
	proc.Kill(p.cmd)
}

// process returns the live process, starting it (again) when needed.
func (r *Runner) process(ctx context.Context) (*runnerProc, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, &engine.AdapterError{Step: "runner", Err: errors.New("the runner was closed")}
	}
	if p := r.proc; p != nil {
		p.mu.Lock()
		dead := p.dead
		p.mu.Unlock()
		if dead == nil {
			return p, nil
		}
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

func (r *Runner) callOn(ctx context.Context, p *runnerProc, req map[string]any) (runnerAnswer, error) {
	op, _ := req["op"].(string)
	id := r.nextID.Add(1)
	req["id"] = id
	key := strconv.FormatInt(id, 10)
	ch := make(chan runnerAnswer, 1)
	p.mu.Lock()
	if p.dead != nil {
		why := p.dead
		p.mu.Unlock()
		return runnerAnswer{}, p.failure(op, why)
	}
	p.pending[key] = ch
	p.mu.Unlock()
	line, err := json.Marshal(req)
	if err != nil {
		return runnerAnswer{}, err
	}
	p.writeMu.Lock()
	_, err = p.stdin.Write(append(line, '\n'))
	p.writeMu.Unlock()
	if err != nil {
		p.mu.Lock()
		why := p.dead
		p.mu.Unlock()
		if why == nil {
			why = fmt.Errorf("write to the runner: %w", err)
		}
		return runnerAnswer{}, p.failure(op, why)
	}
	select {
	case a, ok := <-ch:
		if !ok {
			p.mu.Lock()
			why := p.dead
			p.mu.Unlock()
			return runnerAnswer{}, p.failure(op, why)
		}
		if err := r.schemas.Validate(RunnerSchema+"#/$defs/answer", op+" answer", a.raw); err != nil {
			return runnerAnswer{}, &engine.AdapterError{Step: op, Err: err}
		}
		return a, nil
	case <-ctx.Done():
		p.mu.Lock()
		delete(p.pending, key)
		p.mu.Unlock()
		return runnerAnswer{}, fmt.Errorf("the runner did not answer %s: %w (stderr: %s)", op, ctx.Err(), p.stderr.String())
	}
}

func (p *runnerProc) failure(op string, why error) error {
	return &engine.AdapterError{Step: op, Err: fmt.Errorf("%w; stderr tail: %q", why, p.stderr.String())}
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
	_ = p.stdin.Close() // a runner ends at the end of its input
	select {
	case <-p.done:
	case <-time.After(2 * time.Second):
		p.kill()
		<-p.done
	}
	return nil
}

// tailBuffer keeps the last bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(b), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(bytes.ToValidUTF8(t.buf, nil)))
}
