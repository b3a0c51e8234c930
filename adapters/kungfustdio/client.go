package kungfustdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/proc"
	"github.com/sifu-dev/sifu/internal/schema"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

// Process is a kungfu.Target that drives one implementation subprocess. The
// restart control is carried out by the adapter itself: it kills the
// process (SIGKILL) and starts it again in the same directory.
type Process struct {
	command string
	dir     string
	schemas *schema.Set

	mu      sync.Mutex
	proc    *running
	nextID  int64
	restart bool // the implementation listed restart among its controls

	cutMu sync.RWMutex // held while the stream is cut and the process replaced
	cut   CutFunc
}

// CutFunc decides whether the stream carrying one act or read is cut in the
// middle of the request line, as a broken pipe would cut it; a non-nil error
// is the fault to report. identity names the request without its id.
type CutFunc func(ctx context.Context, identity string) error

// SetCut installs a CutFunc (see attack/faultproxy). A cut writes half the
// request line, kills the implementation and starts it again in the same
// directory, so every answer in flight is lost with the stream. Only an
// implementation that keeps its state across a restart (it lists the restart
// control) is killed; for others a cut would lose more than a connection, so
// the request is lost before it is written instead.
func (p *Process) SetCut(f CutFunc) {
	p.mu.Lock()
	p.cut = f
	p.mu.Unlock()
}

// maybeCut asks the CutFunc about a request and carries out the cut.
func (p *Process) maybeCut(ctx context.Context, req Request) error {
	p.mu.Lock()
	f, durable := p.cut, p.restart
	p.mu.Unlock()
	if f == nil {
		return nil
	}
	raw, _ := json.Marshal(Request{Op: req.Op, Action: req.Action, Key: req.Key, View: req.View, Params: req.Params})
	why := f(ctx, string(raw))
	if why == nil {
		return nil
	}
	if !durable {
		// The stream breaks before the line is sent: the request is lost,
		// and the implementation keeps running with its state.
		return &engine.AdapterError{Step: req.Op, Err: why}
	}
	p.cutMu.Lock()
	defer p.cutMu.Unlock()
	r := p.current()
	line, _ := json.Marshal(req)
	r.writeMu.Lock()
	_, _ = r.stdin.Write(line[:len(line)/2])
	r.writeMu.Unlock()
	r.fail(why) // every request in flight loses its answer with the stream
	r.kill()
	<-r.done
	if err := p.spawn(); err != nil {
		return &engine.AdapterError{Step: req.Op, Err: fmt.Errorf("start again after the cut: %w", err)}
	}
	return &engine.AdapterError{Step: req.Op, Err: why}
}

// running is one live subprocess and its pending requests.
type running struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	stderr  *tail
	writeMu sync.Mutex

	mu      sync.Mutex
	pending map[int64]chan reply
	dead    error // why the process stopped answering
	done    chan struct{}
}

// Start runs command (through sh -c) in dir and returns the adapter.
func Start(command, dir string) (*Process, error) {
	p := &Process{command: command, dir: dir, schemas: schema.NewSet(sifu.Assets, "vectors/schema")}
	if err := p.spawn(); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Process) spawn() error {
	cmd := exec.Command("sh", "-c", p.command)
	cmd.Dir = p.dir
	cmd.Env = os.Environ()
	// Its own process group, so that killing it reaches whatever the shell
	// started, and no orphan keeps the pipes open.
	proc.Isolate(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	r := &running{cmd: cmd, stdin: stdin, stderr: &tail{max: 2048}, pending: map[int64]chan reply{}, done: make(chan struct{})}
	cmd.Stderr = r.stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %q: %w", p.command, err)
	}
	go r.readLoop(stdout)
	p.mu.Lock()
	p.proc = r
	p.mu.Unlock()
	return nil
}

// readLoop routes answers to their requests. Anything that is not an answer
// to a pending request breaks the connection: every waiting request then
// ends with a harness error that quotes the line and the stderr tail.
func (r *running) readLoop(stdout io.Reader) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), MaxLine)
	var why error
	for sc.Scan() {
		line := sc.Bytes()
		var doc map[string]any
		id, isID := float64(0), false
		if err := json.Unmarshal(line, &doc); err == nil {
			id, isID = doc["id"].(float64)
		}
		if !isID || id != float64(int64(id)) {
			why = fmt.Errorf("the implementation wrote a line that is not a binding answer: %q", excerpt(line))
			break
		}
		r.mu.Lock()
		ch, ok := r.pending[int64(id)]
		delete(r.pending, int64(id))
		r.mu.Unlock()
		if !ok {
			why = fmt.Errorf("the implementation answered id %d, which no request is waiting for", int64(id))
			break
		}
		ch <- reply{doc}
	}
	if why == nil {
		why = sc.Err()
	}
	if why != nil {
		// The implementation broke the protocol: stop it now rather than
		// wait for it to exit on its own.
		r.fail(why)
		r.kill()
	}
	waitErr := r.cmd.Wait()
	r.fail(fmt.Errorf("the implementation exited (%v)", waitErr))
	close(r.done)
}

// fail records the first reason the process stopped answering and ends
// every pending request with it.
func (r *running) fail(why error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dead == nil {
		r.dead = why
	}
	for id, ch := range r.pending {
		close(ch)
		delete(r.pending, id)
	}
}

// kill ends the process group without warning (SIGKILL).
func (r *running) kill() {
	proc.Kill(r.cmd)
}

func excerpt(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

func (p *Process) current() *running {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.proc
}

// call sends one request and waits for its answer, the context, or the
// process's end.
func (p *Process) call(ctx context.Context, req Request) (reply, error) {
	// A request that starts while the stream is being cut waits for the new
	// process, rather than failing at once on the dead one.
	p.cutMu.RLock()
	r := p.current()
	p.cutMu.RUnlock()
	p.mu.Lock()
	p.nextID++
	req.ID = p.nextID
	p.mu.Unlock()
	ch := make(chan reply, 1)
	r.mu.Lock()
	if r.dead != nil {
		r.mu.Unlock()
		return reply{}, r.failure(req, r.dead)
	}
	r.pending[req.ID] = ch
	r.mu.Unlock()
	raw, _ := json.Marshal(req)
	r.writeMu.Lock()
	_, err := r.stdin.Write(append(raw, '\n'))
	r.writeMu.Unlock()
	if err != nil {
		r.mu.Lock()
		why := r.dead // a stream that was cut reports the cut
		r.mu.Unlock()
		if why == nil {
			why = fmt.Errorf("write to the implementation: %w", err)
		}
		return reply{}, r.failure(req, why)
	}
	select {
	case a, ok := <-ch:
		if !ok {
			r.mu.Lock()
			why := r.dead
			r.mu.Unlock()
			return reply{}, r.failure(req, why)
		}
		return a, nil
	case <-ctx.Done():
		r.mu.Lock()
		delete(r.pending, req.ID)
		r.mu.Unlock()
		if tail := r.stderr.String(); tail != "" {
			return reply{}, fmt.Errorf("no answer to %s: %w (stderr: %s)", req.Op, ctx.Err(), tail)
		}
		return reply{}, fmt.Errorf("no answer to %s: %w", req.Op, ctx.Err())
	}
}

// failure is the harness error of a request the process will not answer.
// It quotes the stderr tail once the process has ended and its stderr is
// drained (the process is being killed by then), so the message holds what
// the implementation said last; a process that lingers is quoted as it is
// after a moment.
func (r *running) failure(req Request, why error) error {
	select {
	case <-r.done:
	case <-time.After(2 * time.Second):
	}
	return &engine.AdapterError{Step: req.Op, Err: fmt.Errorf("%w; stderr tail: %q", why, r.stderr.String())}
}

// reply is one decoded answer line: decoded once, validated as it is.
type reply struct{ doc map[string]any }

// ok reports whether the reply says ok.
func (a reply) ok() bool { b, _ := a.doc["ok"].(bool); return b }

func (p *Process) checked(a reply, op string) (kungfu.Response, error) {
	body := make(map[string]any, len(a.doc))
	for k, v := range a.doc {
		if k != "id" {
			body[k] = v
		}
	}
	if err := p.schemas.ValidateValue(BindingSchemaRef("response"), op+" answer", body); err != nil {
		return kungfu.Response{}, &engine.AdapterError{Step: op, Err: err}
	}
	resp := kungfu.Response{}
	resp.OK, _ = body["ok"].(bool)
	resp.Result, _ = body["result"].(map[string]any)
	if r, ok := body["rejection"].(map[string]any); ok {
		resp.Rejection = &kungfu.Rejection{}
		resp.Rejection.Reason, _ = r["reason"].(string)
		resp.Rejection.NextStep, _ = r["next_step"].(string)
		resp.Rejection.Message, _ = r["message"].(string)
	}
	return resp, nil
}

// BindingSchemaRef names a definition of the binding schema.
func BindingSchemaRef(def string) string { return "kungfu-binding.schema.json#/$defs/" + def }

// Hello asks the implementation who it is.
func (p *Process) Hello(ctx context.Context) (kungfu.Hello, error) {
	a, err := p.call(ctx, Request{Op: "hello"})
	if err != nil {
		return kungfu.Hello{}, err
	}
	if !a.ok() {
		return kungfu.Hello{}, &engine.AdapterError{Step: "hello", Err: fmt.Errorf("hello was refused: %v", a.doc["rejection"])}
	}
	if err := p.schemas.ValidateValue(BindingSchemaRef("hello"), "hello answer", a.doc["result"]); err != nil {
		return kungfu.Hello{}, &engine.AdapterError{Step: "hello", Err: err}
	}
	var h kungfu.Hello
	raw, _ := json.Marshal(a.doc["result"])
	_ = json.Unmarshal(raw, &h)
	p.mu.Lock()
	p.restart = h.Supports(kungfu.ControlRestart)
	p.mu.Unlock()
	return h, nil
}

// Act performs an action.
func (p *Process) Act(ctx context.Context, act kungfu.Action) (kungfu.Response, error) {
	req := Request{Op: "act", Agent: act.Agent, Action: act.Name, Key: act.Key, Params: act.Params}
	if act.Key != "" {
		if err := p.maybeCut(ctx, req); err != nil {
			return kungfu.Response{}, err
		}
	}
	a, err := p.call(ctx, req)
	if err != nil {
		return kungfu.Response{}, err
	}
	return p.checked(a, "act")
}

// Read answers a view.
func (p *Process) Read(ctx context.Context, rd kungfu.Read) (kungfu.Response, error) {
	req := Request{Op: "read", Agent: rd.Agent, View: rd.View, Params: rd.Params}
	if err := p.maybeCut(ctx, req); err != nil {
		return kungfu.Response{}, err
	}
	a, err := p.call(ctx, req)
	if err != nil {
		return kungfu.Response{}, err
	}
	return p.checked(a, "read")
}

// Control runs a control-plane operation. A restart of the whole
// implementation really restarts the process; a restart confined to one
// scope (it names the scope) is the implementation's to carry out.
func (p *Process) Control(ctx context.Context, c kungfu.Control) (kungfu.Response, error) {
	if _, scoped := c.Params[kungfu.ScopeParam]; c.Name == kungfu.ControlRestart && !scoped {
		if err := p.Restart(); err != nil {
			return kungfu.Response{}, &engine.AdapterError{Step: "restart", Err: err}
		}
		return kungfu.Response{OK: true, Result: map[string]any{"restarted": true}}, nil
	}
	a, err := p.call(ctx, Request{Op: "control", Control: c.Name, Params: c.Params})
	if err != nil {
		return kungfu.Response{}, err
	}
	return p.checked(a, "control")
}

// Restart kills the implementation without warning and starts it again.
func (p *Process) Restart() error {
	p.cutMu.Lock()
	defer p.cutMu.Unlock()
	r := p.current()
	r.kill()
	<-r.done
	return p.spawn()
}

// Close ends the implementation: stdin is closed, which tells it to finish,
// and the process is killed if it has not exited within 300 ms.
func (p *Process) Close() error {
	r := p.current()
	_ = r.stdin.Close()
	select {
	case <-r.done:
	case <-time.After(300 * time.Millisecond):
		r.kill()
		<-r.done
	}
	return nil
}

// tail keeps the last bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(bytes.ToValidUTF8(t.buf, nil)))
}
