// Package agentkit is the agent-kit gateway suite of sifu: the seam any
// gateway claiming agent-kit's HTTP contract is driven through (Target),
// the stub model and tools it talks to (Stub), the settings a check may
// vary, the suite's vector format, the executor between them and the
// suite's public entry (Test). Gateways sifu starts per check, a running
// gateway at a URL and the stub server are adapters/agentkithttp.
package agentkit

import (
	"context"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
)

// Request is one HTTP request to a gateway.
type Request struct {
	Method string
	Path   string
	Accept string
	Body   []byte // sent as application/json when not nil
}

// Response is what the gateway answered, read to the end.
type Response struct {
	Status int
	Header Header
	Body   []byte
	// Stream is the answer's event stream, split into its items by the
	// transport, when the answer is text/event-stream.
	Stream *Stream
}

// Header holds an answer's header fields by their canonical names
// ("Content-Type").
type Header map[string][]string

// Get is the first value of a header field, or "".
func (h Header) Get(name string) string {
	if v := h[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Stream is a server-sent event stream as it came: its data frames (the
// data lines of one event, joined by newlines) and its other lines (event:,
// id:, retry: or anything else; comments aside), in order.
type Stream struct {
	Items []StreamItem
	// EndsWithBlankLine says whether the body ends with an empty line, as
	// a stream whose last event is complete does.
	EndsWithBlankLine bool
}

// StreamItem is one data frame (Frame) or one other line (Line, Frame
// empty and IsLine set).
type StreamItem struct {
	Frame  string
	Line   string
	IsLine bool
}

// Hello describes an implementation.
type Hello struct {
	Implementation string
	Version        string
}

// StartResult is what a start-up attempt showed.
type StartResult struct {
	Started  bool   `json:"started"`
	ExitCode int    `json:"exit_code"`
	Stderr   string `json:"stderr"`
	// Hung is a gateway that neither came up nor exited within the
	// start-up limit.
	Hung bool `json:"hung,omitempty"`
}

// Target is one gateway as a check drives it.
type Target interface {
	Hello(ctx context.Context) (Hello, error)
	// Do sends a request to the current gateway, starting it first with the
	// default settings when the check has not configured one.
	Do(ctx context.Context, req Request) (Response, error)
	// Stub is the model and tool server the gateway talks to.
	Stub() Stub
	// Configure (re)starts the gateway with settings.
	Configure(ctx context.Context, s Settings) error
	// Restart kills the gateway and starts it again on the same working
	// directory (and so the same suspend store).
	Restart(ctx context.Context) error
	// TryStart starts a gateway with the given files (templates rendered
	// with the current ports) and reports whether it came up.
	TryStart(ctx context.Context, files map[string]string) (StartResult, error)
	// TryConfigure starts a gateway with settings, in a fresh directory,
	// reports whether it came up and stops it again.
	TryConfigure(ctx context.Context, s Settings) (StartResult, error)
	// CorruptStore overwrites every file of the running gateway's suspend
	// store (the suspend.dir sifu configured) with bytes no store can read,
	// as a torn write or a bad disk would; it returns how many it spoiled.
	CorruptStore(ctx context.Context) (int, error)
	// WorkFile reads a file the running gateway wrote, by its path
	// relative to the gateway's working directory; a file that is not
	// there is (nil, nil).
	WorkFile(ctx context.Context, name string) ([]byte, error)
	Close()
}

// Profiles every gateway is checked against.
var Profiles = []string{"gateway", "suspend", "config", "mcp", "catalog", "supply"}

// Factory makes a Target for one check.
type Factory func(ctx context.Context) (Target, func(), error)

// RunTarget adapts a Factory to the runner.
type RunTarget struct {
	New Factory
	// Claims are the profiles offered (default: Profiles).
	Claims []string
	// Controls offered (default: configure, restart, startup).
	Controls []string
	IsShared bool
}

// Shared reports whether every check talks to one gateway.
func (rt RunTarget) Shared() bool { return rt.IsShared }

func (rt RunTarget) seam() runner.Seam[Target] {
	return runner.Seam[Target]{New: rt.New, Hello: rt.hello, Executor: func(_ context.Context, t Target) (engine.Executor, func(), error) {
		return NewExecutor(t), runner.Nothing, nil
	}}
}

// Describe asks one target for its hello.
func (rt RunTarget) Describe(ctx context.Context) (results.TargetInfo, error) {
	return rt.seam().Describe(ctx)
}

// NewExecutor makes a target and an executor over it for one check.
func (rt RunTarget) NewExecutor(ctx context.Context) (engine.Executor, func(), error) {
	return rt.seam().NewExecutor(ctx)
}

// hello is what the runner records of a gateway: its hello, the profiles
// and the controls it offers.
func (rt RunTarget) hello(ctx context.Context, t Target) (results.TargetInfo, error) {
	h, err := t.Hello(ctx)
	if err != nil {
		return results.TargetInfo{}, err
	}
	claims, controls := rt.Claims, rt.Controls
	if claims == nil {
		claims = Profiles
	}
	if controls == nil {
		controls = []string{"configure", "restart", "startup", "corrupt-store"}
	}
	return results.TargetInfo{Implementation: h.Implementation, Version: h.Version, Profiles: claims, Controls: controls}, nil
}

var _ runner.Target = RunTarget{}
