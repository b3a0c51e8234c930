package agentkithttp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"

	"github.com/sifu-dev/sifu/suite/agentkit"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/inputfile"
	"github.com/sifu-dev/sifu/internal/netmsg"
)

// Doer sends requests to the gateway at base (Client does, over HTTP).
type Doer interface {
	Do(ctx context.Context, base string, req agentkit.Request) (agentkit.Response, error)
}

// Instance is one running gateway.
type Instance interface {
	URL() string
	// Stop kills the gateway (it gets no chance to clean up).
	Stop() error
}

// Launcher starts a gateway whose configuration sifu wrote into dir,
// listening on addr, and returns once it answers GET /healthz. A gateway
// that exits first returns a *StartFailure.
type Launcher interface {
	Hello() agentkit.Hello
	Launch(ctx context.Context, dir, addr string) (Instance, error)
}

// StartFailure is a gateway that exited during start-up.
type StartFailure struct {
	ExitCode int    // -1 when a signal ended it
	Stderr   string // the tail
	// How says how it ended, in words (proc.Ended); empty means it exited
	// with ExitCode.
	How string
}

// Ended says how the gateway ended: "exited with status 3", "was killed by
// a signal (segmentation fault)".
func (e *StartFailure) Ended() string {
	if e.How != "" {
		return e.How
	}
	return fmt.Sprintf("exited with status %d", e.ExitCode)
}

func (e *StartFailure) Error() string {
	return fmt.Sprintf("the gateway %s during start-up; stderr tail:\n%s", e.Ended(), e.Stderr)
}

// NoHealth is a gateway that kept running but did not answer GET /healthz
// with 200 in time.
type NoHealth struct {
	URL    string
	Limit  time.Duration
	Addr   string
	Output string // the tail
}

func (e *NoHealth) Error() string {
	return fmt.Sprintf("the gateway did not answer GET %s/healthz with 200 within %s (does it listen on serving.addr %s?); output tail:\n%s",
		e.URL, e.Limit, e.Addr, e.Output)
}

// Managed is an agentkit.Target whose gateways sifu starts itself, each check in its
// own working directory with a generated configuration.
type Managed struct {
	Launcher  Launcher
	Client    Doer
	Server    *Stub
	Templates fs.FS // nil: DefaultTemplates
	// Stuck, shared by the checks of a run, remembers a gateway that did
	// not come up with sifu's own configuration, so later checks fail at
	// once with the same message instead of waiting out the start-up limit
	// again. Nil: every check tries.
	Stuck *Stuck

	mu       sync.Mutex
	inst     Instance
	dir      string
	settings agentkit.Settings
	dirs     []string
	reserved []func() // the ports of its gateways, let go on Close
}

// Hello asks the launcher.
func (m *Managed) Hello(context.Context) (agentkit.Hello, error) { return m.Launcher.Hello(), nil }

// Stub returns the stub server.
func (m *Managed) Stub() agentkit.Stub { return m.Server }

func (m *Managed) templates() fs.FS {
	if m.Templates != nil {
		return m.Templates
	}
	return DefaultTemplates()
}

// inUse are the ports FreeAddr has handed out in this process and that
// are not released yet: two checks starting gateways at once are never
// handed the same port between one's probe and the other's bind.
var inUse = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// FreeAddr picks a free loopback port that no check of this process and no
// other sifu process of this user holds: besides the in-process set, each
// port is reserved by a lock file (in $TMPDIR/sifu-ports-<uid>) until
// release is called or the process ends, so that sifu runs side by side on
// one machine (the test packages of go test ./..., CI jobs) cannot start
// two gateways on one port, where the second would fail to bind while the
// first answered its health probe.
func FreeAddr() (addr string, release func(), err error) {
	for range 100 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return "", nil, &SetupError{Msg: fmt.Sprintf("cannot bind a loopback port for the gateway: %v", err)}
		}
		port := ln.Addr().(*net.TCPAddr).Port
		inUse.Lock()
		free := !inUse.ports[port]
		inUse.ports[port] = true
		inUse.Unlock()
		if !free {
			ln.Close()
			continue
		}
		lock, ok := reservePort(port)
		ln.Close() // only once the port is reserved
		release := func() {
			if lock != nil { // removed while still held, so the directory does not fill up
				_ = os.Remove(lock.Path())
				_ = lock.Unlock()
			}
			inUse.Lock()
			delete(inUse.ports, port)
			inUse.Unlock()
		}
		if ok {
			return ln.Addr().String(), release, nil
		}
		lock = nil // another process's: its file stays
		release()
	}
	return "", nil, &SetupError{Msg: "cannot find a loopback port for the gateway that no other check holds"}
}

// reservePort locks the port's file; false when another process holds it.
// Where no lock file can be made the port is taken unreserved.
func reservePort(port int) (*flock.Flock, bool) {
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("sifu-ports-%d", os.Getuid()))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, true
	}
	lock := flock.New(filepath.Join(dir, strconv.Itoa(port)))
	ok, err := lock.TryLock()
	if err != nil {
		return nil, true
	}
	return lock, ok
}

// portTaken is a gateway that exited because its port was taken between
// FreeAddr and its bind (by another process: this one never hands a port
// out twice).
func portTaken(err error) bool {
	var sf *StartFailure
	if !errors.As(err, &sf) {
		return false
	}
	out := strings.ToLower(sf.Stderr)
	return strings.Contains(out, "address already in use") || strings.Contains(out, "only one usage of each socket address")
}

// EnvLauncher is a Launcher that can add variables to a gateway's
// environment (the checks of ${VAR} placeholders need them).
type EnvLauncher interface {
	LaunchEnv(ctx context.Context, dir, addr string, env map[string]string) (Instance, error)
}

// startAt renders files for a fresh port into dir and launches a gateway
// there, with env added to its environment, and with another port when the
// one it was given was taken meanwhile.
func (m *Managed) startAt(ctx context.Context, dir string, env map[string]string, render func(addr string) (map[string]string, error)) (Instance, error) {
	for attempt := 1; ; attempt++ {
		addr, release, err := FreeAddr()
		if err != nil {
			return nil, err
		}
		m.reserved = append(m.reserved, release)
		files, err := render(addr)
		if err != nil {
			return nil, &SetupError{Msg: err.Error()}
		}
		if err := WriteFiles(dir, files); err != nil {
			return nil, err
		}
		var inst Instance
		if el, ok := m.Launcher.(EnvLauncher); ok && len(env) > 0 {
			inst, err = el.LaunchEnv(ctx, dir, addr, env)
		} else if len(env) > 0 {
			return nil, &SetupError{Msg: "this gateway launcher cannot set the environment variables a check needs"}
		} else {
			inst, err = m.Launcher.Launch(ctx, dir, addr)
		}
		if attempt < 3 && portTaken(err) && ctx.Err() == nil {
			continue
		}
		return inst, err
	}
}

// defaultFiles renders the templates with settings s.
func (m *Managed) defaultFiles(s agentkit.Settings) func(addr string) (map[string]string, error) {
	return func(addr string) (map[string]string, error) {
		d, err := m.data(addr, s)
		if err != nil {
			return nil, err
		}
		files, err := Render(m.templates(), d)
		if err != nil {
			return nil, err
		}
		for n, text := range SupplyFiles(s) {
			files[n] = text
		}
		return files, nil
	}
}

func (m *Managed) tempDir() (string, error) {
	dir, err := os.MkdirTemp("", "sifu-agentkit-")
	if err != nil {
		return "", &SetupError{Msg: fmt.Sprintf("cannot create a working directory for the gateway: %v; check TMPDIR", err)}
	}
	m.dirs = append(m.dirs, dir)
	return dir, nil
}

func (m *Managed) data(addr string, s agentkit.Settings) (ConfigData, error) {
	return StubData(m.Server, addr, s)
}

// StubData fills the templates for a gateway at addr talking to stub.
func StubData(stub *Stub, addr string, s agentkit.Settings) (ConfigData, error) {
	d := ConfigData{Addr: addr, ModelURL: stub.ModelURL(), ToolsURL: stub.ToolsURL(), MCPURL: stub.MCPURL(), Settings: s,
		IncludeGiven: s.Include != nil}
	for _, src := range s.MCP {
		cfg, err := stub.mcpConfig(s.MCPKey, src)
		if err != nil {
			return ConfigData{}, err
		}
		d.MCPSources = append(d.MCPSources, MCPSourceData{Name: src.Name, Required: src.Required, Priority: src.Priority, Config: cfg})
	}
	for _, src := range s.Sources {
		cfg, err := placeURLs(src.Config, stub.ToolsURL())
		if err != nil {
			return ConfigData{}, fmt.Errorf("source %s: %w", src.Name, err)
		}
		src.Config, _ = cfg.(map[string]any)
		d.ExtraSources = append(d.ExtraSources, src)
	}
	stub.supplyData(&d)
	return d, nil
}

// placeURLs copies a source's config with "$TOOLS" at the start of a string
// replaced by the stub tools' base and "$NOWHERE" by a loopback URL where
// nothing listens.
func placeURLs(v any, tools string) (any, error) {
	switch x := v.(type) {
	case string:
		switch {
		case strings.HasPrefix(x, "$TOOLS"):
			return tools + strings.TrimPrefix(x, "$TOOLS"), nil
		case strings.HasPrefix(x, "$NOWHERE"):
			nowhere, err := Nowhere()
			return nowhere + strings.TrimPrefix(x, "$NOWHERE"), err
		}
		return x, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			c, err := placeURLs(e, tools)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, err := placeURLs(e, tools)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	}
	return v, nil
}

// Nowhere is a loopback URL where nothing listens: a port just bound and
// let go (nothing else is expected to take it within one check).
func Nowhere() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", &SetupError{Msg: fmt.Sprintf("cannot find a free loopback port for an unreachable source: %v", err)}
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return "http://" + addr, nil
}

// Stuck remembers the first failure to start a gateway that did not exit.
type Stuck struct {
	mu  sync.Mutex
	err error
}

func (s *Stuck) get() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *Stuck) set(err error) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = err
	}
}

// launch renders the settings into dir and starts a gateway there.
func (m *Managed) launch(ctx context.Context, dir string, s agentkit.Settings) error {
	if err := m.Stuck.get(); err != nil {
		return fmt.Errorf("not started again: an earlier check could not start this gateway: %w", err)
	}
	inst, err := m.startAt(ctx, dir, s.Env, m.defaultFiles(s))
	var sf *StartFailure
	down, made := downSources(s), checkMade(s)
	if err != nil && !errors.As(err, &sf) && ctx.Err() == nil && down == "" && made == "" {
		m.Stuck.set(err)
	}
	if err != nil && down != "" && !errors.As(err, new(*SetupError)) && ctx.Err() == nil {
		// the check made the source fail: a gateway that does not come up
		// is its verdict, not the harness's trouble
		return &engine.Violation{Msg: fmt.Sprintf("with the optional MCP source %s unable to start, the gateway did not come up: %s", down, OneLine(err.Error()))}
	}
	if err != nil && made != "" && !errors.As(err, new(*SetupError)) && ctx.Err() == nil {
		// a configuration the check built and the rules say starts
		return &engine.Violation{Msg: fmt.Sprintf("with %s, the gateway did not come up: %s", made, OneLine(err.Error()))}
	}
	if err != nil {
		return err
	}
	m.inst, m.dir, m.settings = inst, dir, s
	return nil
}

func (m *Managed) stop() {
	if m.inst != nil {
		_ = m.inst.Stop()
		m.inst = nil
	}
}

// checkMade names what of s a check built beyond sifu's own configuration
// (further sources, include and exclude patterns, MCP sources with nothing
// listening or with a version), or "".
func checkMade(s agentkit.Settings) string {
	var parts []string
	for _, src := range s.Sources {
		parts = append(parts, fmt.Sprintf("the %s source %s", src.Type, src.Name))
	}
	for _, src := range s.MCP {
		switch {
		case src.Absent:
			parts = append(parts, "the MCP source "+src.Name+" with nothing listening at its URL")
		case src.Version != "":
			parts = append(parts, "the MCP source "+src.Name+" of version "+src.Version)
		}
	}
	if s.Include != nil || len(s.Exclude) > 0 {
		parts = append(parts, "the assistant's include and exclude patterns")
	}
	return strings.Join(parts, ", ")
}

// downSources names the MCP sources of s that refuse to start, or "".
func downSources(s agentkit.Settings) string {
	var names []string
	for _, src := range s.MCP {
		if src.Down {
			names = append(names, src.Name+" (over "+src.Transport+")")
		}
	}
	return strings.Join(names, ", ")
}

// TryConfigure starts a gateway with s in a fresh directory and reports
// whether it came up; one that neither comes up nor exits is Hung.
func (m *Managed) TryConfigure(ctx context.Context, s agentkit.Settings) (agentkit.StartResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	dir, err := m.tempDir()
	if err != nil {
		return agentkit.StartResult{}, err
	}
	inst, err := m.startAt(ctx, dir, s.Env, m.defaultFiles(s))
	var sf *StartFailure
	var nh *NoHealth
	switch {
	case errors.As(err, &sf):
		return agentkit.StartResult{ExitCode: sf.ExitCode, Stderr: sf.Stderr}, nil
	case errors.As(err, &nh) && ctx.Err() == nil:
		return agentkit.StartResult{ExitCode: -1, Hung: true, Stderr: nh.Output}, nil
	case err != nil:
		return agentkit.StartResult{}, err
	}
	_ = inst.Stop()
	return agentkit.StartResult{Started: true}, nil
}

// Configure starts a fresh gateway, in a fresh directory, with s.
func (m *Managed) Configure(ctx context.Context, s agentkit.Settings) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stop()
	dir, err := m.tempDir()
	if err != nil {
		return err
	}
	return m.launch(ctx, dir, s)
}

// Restart kills the gateway and starts it again in the same directory.
func (m *Managed) Restart(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.inst == nil {
		return errors.New("restart before the gateway was started")
	}
	m.stop()
	return m.launch(ctx, m.dir, m.settings)
}

// Do starts the default gateway when needed and sends req to it.
func (m *Managed) Do(ctx context.Context, req agentkit.Request) (agentkit.Response, error) {
	m.mu.Lock()
	if m.inst == nil {
		dir, err := m.tempDir()
		if err == nil {
			err = m.launch(ctx, dir, agentkit.DefaultSettings())
		}
		if err != nil {
			m.mu.Unlock()
			return agentkit.Response{}, err
		}
	}
	inst := m.inst
	m.mu.Unlock()
	resp, err := m.Client.Do(ctx, inst.URL(), req)
	if d, ok := inst.(interface{ Diagnose() string }); ok && err != nil && ctx.Err() == nil {
		err = fmt.Errorf("%w\n%s", err, d.Diagnose())
	}
	return resp, err
}

// CorruptStore spoils every file below the current gateway's ./suspend.
func (m *Managed) CorruptStore(context.Context) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.inst == nil {
		return 0, errors.New("corrupting the suspend store before the gateway was started")
	}
	n := 0
	err := filepath.WalkDir(filepath.Join(m.dir, "suspend"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		return os.WriteFile(p, []byte("\x00{\"torn"), 0o644)
	})
	return n, err
}

// WorkFile reads a file under the running gateway's working directory.
func (m *Managed) WorkFile(_ context.Context, name string) ([]byte, error) {
	m.mu.Lock()
	dir := m.dir
	m.mu.Unlock()
	if dir == "" {
		return nil, errors.New("reading a file of the gateway before the gateway was started")
	}
	p := filepath.Join(dir, filepath.FromSlash(name))
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return inputfile.Read(p)
}

// TryStart renders files into a fresh directory and starts a gateway there.
func (m *Managed) TryStart(ctx context.Context, files map[string]string) (agentkit.StartResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	dir, err := m.tempDir()
	if err != nil {
		return agentkit.StartResult{}, err
	}
	inst, err := m.startAt(ctx, dir, nil, func(addr string) (map[string]string, error) {
		rendered := map[string]string{}
		d, err := m.data(addr, agentkit.DefaultSettings())
		if err != nil {
			return nil, err
		}
		for name, text := range files {
			out, err := RenderText(name, text, d)
			if err != nil {
				return nil, err
			}
			rendered[name] = out
		}
		return rendered, nil
	})
	var sf *StartFailure
	if errors.As(err, &sf) {
		return agentkit.StartResult{ExitCode: sf.ExitCode, Stderr: sf.Stderr}, nil
	}
	if err != nil {
		return agentkit.StartResult{}, err
	}
	_ = inst.Stop()
	return agentkit.StartResult{Started: true}, nil
}

// Probe starts a gateway once with sifu's default configuration and stops
// it again. It is how a run finds, before any check, a gateway that cannot
// start at all (a command that is not there, a configuration it refuses):
// the error is one line saying what happened, with the end of the
// gateway's output.
func (m *Managed) Probe(ctx context.Context) error {
	defer m.Close()
	m.mu.Lock()
	dir, err := m.tempDir()
	m.mu.Unlock()
	if err != nil {
		return err
	}
	inst, err := m.startAt(ctx, dir, nil, m.defaultFiles(agentkit.DefaultSettings()))
	var sf *StartFailure
	switch {
	case errors.As(err, &sf):
		pe := &ProbeError{What: sf.Ended() + " before it answered GET /healthz", Output: OneLine(sf.Stderr)}
		switch sf.ExitCode {
		case 127:
			pe.What += " (the shell found no such command)"
			pe.Hint = "check the path: the command runs through sh -c in each check's own working directory"
		case 126:
			pe.What += " (the shell could not execute it)"
			pe.Hint = "check that it names an executable gateway binary"
		default:
			pe.Hint = "if it refused sifu's generated configuration, adapt the templates with --target-config (docs/agentkit.md)"
		}
		return pe
	case err != nil:
		var nh *NoHealth
		if errors.As(err, &nh) {
			return &ProbeError{What: fmt.Sprintf("did not answer GET /healthz with 200 within %s", nh.Limit), Output: OneLine(nh.Output),
				Hint: fmt.Sprintf("it must serve serving.addr of the app.yaml in its working directory (here %s); start_timeout in --target-config allows longer", nh.Addr)}
		}
		return &ProbeError{What: OneLine(err.Error())}
	}
	if err := inst.Stop(); err != nil {
		return err
	}
	if err := m.probeMCP(ctx); err != nil {
		return err
	}
	return m.probeSupply(ctx)
}

// probeSupply starts the gateway once more with the supply of the supply
// checks (a required a2a source, a vector source, a system prompt from the
// http prompt source, all served by sifu): a gateway that refuses them,
// and still starts without them, is said once, instead of failing every
// supply check.
func (m *Managed) probeSupply(ctx context.Context) error {
	s := agentkit.DefaultSettings()
	s.MCPKey = "probe"
	s.A2A = []agentkit.A2ASource{{Name: "probe_a2a", Required: true}}
	s.Vector = []agentkit.VectorSource{{Name: "probe_vector", Docs: []string{"sifu probe"}}}
	s.Prompts = &agentkit.PromptSettings{Served: map[string]string{"probe": "You are sifu's probe."}}
	s.System = "cap://prompt/remote/probe"
	r, err := m.TryConfigure(ctx, s)
	if err != nil {
		return &ProbeError{What: "could not be given sifu's stub supply: " + OneLine(err.Error())}
	}
	if r.Started || !m.startsPlain(ctx) {
		return nil
	}
	what := fmt.Sprintf("exited with status %d", r.ExitCode)
	if r.Hung {
		what = "did not answer GET /healthz"
	}
	return &ProbeError{What: what + " when given the a2a source probe_a2a, the vector source probe_vector and the system prompt cap://prompt/remote/probe (served by sifu's own stubs), though it started without them",
		Output: OneLine(r.Stderr), Hint: "the supply is written by the app.yaml and agents/assistant.yaml templates; adapt them with --target-config, or leave the supply profile out (docs/agentkit.md)"}
}

// probeSources are the MCP sources of the second probe, one per transport.
var probeSources = []agentkit.MCPSource{{Name: "probe_stdio", Transport: "stdio", Required: true},
	{Name: "probe_sse", Transport: "sse", Required: true}, {Name: "probe_http", Transport: "http", Required: true}}

// startsPlain says whether the gateway still starts with the default
// settings after a probe with more failed: when it no longer starts at
// all, the probe's sources are not to blame, and the checks say what the
// gateway does (harness errors with its output), not the probe.
func (m *Managed) startsPlain(ctx context.Context) bool {
	again, err := m.TryConfigure(ctx, agentkit.DefaultSettings())
	return err == nil && again.Started
}

// probeMCP starts the gateway once more, with a required MCP source over
// each transport served by sifu's stub: a gateway that refuses them (or
// cannot reach the stub), and still starts without them, is said once,
// naming the sources, instead of failing every MCP check.
func (m *Managed) probeMCP(ctx context.Context) error {
	s := agentkit.DefaultSettings()
	s.MCP, s.MCPKey = probeSources, "probe"
	r, err := m.TryConfigure(ctx, s)
	if err != nil {
		return &ProbeError{What: "could not be given sifu's stub MCP server: " + OneLine(err.Error())}
	}
	if r.Started {
		return nil
	}
	if !m.startsPlain(ctx) {
		return nil
	}
	what := fmt.Sprintf("exited with status %d", r.ExitCode)
	if r.Hung {
		what = "did not answer GET /healthz"
	}
	return &ProbeError{What: what + " when given the MCP tool sources probe_stdio, probe_sse and probe_http (type: mcp over stdio, sse and http, served by sifu's own stub MCP server), though it started without them",
		Output: OneLine(r.Stderr), Hint: "the MCP sources are written by the app.yaml template; adapt it with --target-config (docs/agentkit.md)"}
}

// ProbeError is a gateway that could not start with sifu's default
// configuration.
type ProbeError struct {
	What   string // what happened, one line
	Output string // the end of the gateway's output, one line
	Hint   string // what to look at
}

func (e *ProbeError) Error() string {
	msg := e.What
	if e.Output != "" {
		msg += "; its output ends: " + e.Output
	}
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	return msg
}

// OneLine folds the last lines of a process's output into one line: at
// most three non-blank lines, joined by " | ", and at most 400 bytes.
func OneLine(s string) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && l != "(nothing)" {
			lines = append(lines, l)
		}
	}
	if len(lines) > 3 {
		lines = lines[len(lines)-3:]
	}
	out := strings.Join(lines, " | ")
	if len(out) > 400 {
		out = "…" + strings.ToValidUTF8(out[len(out)-400:], "")
	}
	return out
}

// Close stops the gateway and removes the working directories.
func (m *Managed) Close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stop()
	for _, d := range m.dirs {
		_ = os.RemoveAll(d)
	}
	m.dirs = nil
	for _, release := range m.reserved {
		release()
	}
	m.reserved = nil
}

// Remote is a gateway somebody else runs, at a fixed URL, already pointed
// at sifu's stub. It cannot be configured, restarted or started.
type Remote struct {
	URL    string
	Client Doer
	Server *Stub
}

// Hello names the URL, once the gateway answered GET /healthz: a URL where
// nothing listens, that answers no HTTP, or that does not answer in time is
// said before any check. What status and body it answers is the checks'
// business.
func (r *Remote) Hello(ctx context.Context) (agentkit.Hello, error) {
	if _, err := r.Client.Do(ctx, r.URL, agentkit.Request{Method: "GET", Path: "/healthz"}); err != nil {
		if ctx.Err() != nil {
			return agentkit.Hello{}, fmt.Errorf("the gateway at %s gave no answer to GET /healthz in time: %w", r.URL, err)
		}
		return agentkit.Hello{}, fmt.Errorf("the gateway at %s did not answer GET /healthz (is it running there, and is --url right?): %w", r.URL, netmsg.Clean(err))
	}
	return agentkit.Hello{Implementation: r.URL, Version: "remote gateway"}, nil
}

// Do sends req to the URL.
func (r *Remote) Do(ctx context.Context, req agentkit.Request) (agentkit.Response, error) {
	return r.Client.Do(ctx, r.URL, req)
}

// Stub returns the stub server.
func (r *Remote) Stub() agentkit.Stub { return r.Server }

// Configure is not possible on a gateway sifu did not start.
func (r *Remote) Configure(context.Context, agentkit.Settings) error {
	return fmt.Errorf("a remote gateway cannot be reconfigured: %w", engine.ErrUnsupported)
}

// Restart is not possible on a gateway sifu did not start.
func (r *Remote) Restart(context.Context) error {
	return fmt.Errorf("a remote gateway cannot be restarted by sifu: %w", engine.ErrUnsupported)
}

// CorruptStore is not possible on a gateway sifu did not configure.
func (r *Remote) CorruptStore(context.Context) (int, error) {
	return 0, fmt.Errorf("the suspend store of a remote gateway is out of sifu's reach: %w", engine.ErrUnsupported)
}

// TryStart is not possible on a gateway sifu did not start.
// WorkFile cannot read a remote gateway's files.
func (r *Remote) WorkFile(context.Context, string) ([]byte, error) {
	return nil, fmt.Errorf("%w: the files of a gateway sifu did not start", engine.ErrUnsupported)
}

func (r *Remote) TryStart(context.Context, map[string]string) (agentkit.StartResult, error) {
	return agentkit.StartResult{}, fmt.Errorf("a remote gateway cannot be started with a fixture config: %w", engine.ErrUnsupported)
}

// TryConfigure is not possible on a gateway sifu did not start.
func (r *Remote) TryConfigure(context.Context, agentkit.Settings) (agentkit.StartResult, error) {
	return agentkit.StartResult{}, fmt.Errorf("a remote gateway cannot be started with other settings: %w", engine.ErrUnsupported)
}

// Close does nothing.
func (r *Remote) Close() {}

var (
	_ agentkit.Target = (*Managed)(nil)
	_ agentkit.Target = (*Remote)(nil)
)
