package kungfustdio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/ndjson"
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
	proc    *ndjson.Conn
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
	r.Write(line[:len(line)/2])
	r.Fail(why) // every request in flight loses its answer with the stream
	r.Kill()
	<-r.Done()
	if err := p.spawn(); err != nil {
		return &engine.AdapterError{Step: req.Op, Err: fmt.Errorf("start again after the cut: %w", err)}
	}
	return &engine.AdapterError{Step: req.Op, Err: why}
}

// Start runs command (through sh -c) in dir and returns the adapter.
func Start(command, dir string) (*Process, error) {
	p := &Process{command: command, dir: dir, schemas: schema.Bundled()}
	if err := p.spawn(); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Process) spawn() error {
	r, err := ndjson.Start(p.command, ndjson.Options{Dir: p.dir, Env: os.Environ(), Who: "the implementation", Answer: "binding answer",
		MaxLine: MaxLine, Tail: 2048})
	if err != nil {
		return err
	}
	p.mu.Lock()
	p.proc = r
	p.mu.Unlock()
	return nil
}

func (p *Process) current() *ndjson.Conn {
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
	raw, _ := json.Marshal(req)
	line, err := r.Call(ctx, strconv.FormatInt(req.ID, 10), raw)
	switch {
	case ndjson.IsStopped(err):
		return reply{}, &engine.AdapterError{Step: req.Op, Err: err}
	case err != nil:
		if tail := r.Stderr(); tail != "" {
			return reply{}, fmt.Errorf("no answer to %s: %w (stderr: %s)", req.Op, err, tail)
		}
		return reply{}, fmt.Errorf("no answer to %s: %w", req.Op, err)
	}
	var doc map[string]any
	if err := json.Unmarshal(line, &doc); err != nil {
		return reply{}, &engine.AdapterError{Step: req.Op, Err: err}
	}
	return reply{doc}, nil
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
		if ctx.Err() != nil {
			return kungfu.Hello{}, &ndjson.Late{Msg: fmt.Sprintf("the implementation %q gave no answer to sifu's hello in time", p.command), Cause: err}
		}
		var ae *engine.AdapterError
		if errors.As(err, &ae) {
			err = ae.Err
		}
		return kungfu.Hello{}, &engine.AdapterError{Step: "hello", Err: fmt.Errorf("the implementation %q did not answer sifu's hello: %w", p.command, err)}
	}
	if !a.ok() {
		return kungfu.Hello{}, &engine.AdapterError{Step: "hello", Err: refusedHello(a.doc)}
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

// refusedHello says why an answer to the hello that is not ok refused it:
// the rejection it gave, or that it gave none.
func refusedHello(doc map[string]any) error {
	r, ok := doc["rejection"].(map[string]any)
	if !ok {
		line, _ := json.Marshal(doc)
		return fmt.Errorf("the implementation refused the hello without saying why (its answer %s has ok false and no rejection); it must answer the hello with ok true and who it is (docs/binding.md)", line)
	}
	rej := &kungfu.Rejection{}
	rej.Reason, _ = r["reason"].(string)
	rej.NextStep, _ = r["next_step"].(string)
	rej.Message, _ = r["message"].(string)
	return fmt.Errorf("the implementation refused the hello: %s; it must answer the hello with ok true and who it is (docs/binding.md)", rej)
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
	r.Kill()
	<-r.Done()
	return p.spawn()
}

// Close ends the implementation: stdin is closed, which tells it to finish,
// and the process is killed if it has not exited within 300 ms.
func (p *Process) Close() error {
	r := p.current()
	_ = r.CloseInput()
	select {
	case <-r.Done():
	case <-time.After(300 * time.Millisecond):
		r.Kill()
		<-r.Done()
	}
	return nil
}
