package kcp

import (
	"context"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/steps/kcpsteps"
)

// Suite is where the KCP suite's data lives in sifu's assets. Its vectors
// are in the upstream kcp-agent format, read as is.
var Suite = runner.Suite{
	Name:          "kcp",
	Catalogue:     "vectors/kcp/rules.json",
	Features:      "features/kcp",
	Vectors:       "vectors/kcp",
	Schemas:       "vectors/schema",
	Register:      kcpsteps.Register,
	CompileVector: CompileVector,
	Vocabulary:    engine.Vocabulary{Derived: Derived},
	Uses:          uses,
}

// uses is what a check needs of a target beyond its rules' profiles: a
// check that starts a server (a signatures check over serve's REST, say)
// needs the serve profile.
func uses(c engine.Check) []string {
	if Serves(c) {
		return []string{ServeProfile}
	}
	return nil
}

// Derived is what a step's result holds that follows from the rest of it
// (engine.Vocabulary.Derived): a command's output read as JSON, an MCP
// answer's text, parsed JSON and refused, a tool list's names.
func Derived(ex engine.Exchange) map[string]any {
	switch ex.Name {
	case "cli":
		return deriveCommand(ex)
	case "mcp_call", "mcp_tools":
		return deriveMCP(ex)
	case "http":
		return deriveHTTP(ex)
	case "cli_start", "cli_await", "cli_stop":
		return deriveBackground(ex)
	}
	return nil
}

// Profiles every planner is checked against: the planner, the confidence
// gate, the plan JSON of a kcp-agent style command line, and its other
// commands (validate, replay, diff, --trace) and exit codes, its memory
// and publisher tools, ask against a scripted model, and its manifest
// signatures and network boundary.
var Profiles = []string{"planner", "assess", "cli", "commands", "memory", "scaffold", "ask", SignaturesProfile, NetworkProfile}

// SignaturesProfile is the profile of the checks on manifest signatures,
// over the command line and the MCP tools.
const SignaturesProfile = "signatures"

// NetworkProfile is the profile of the checks on the network boundary
// (the fetch guard and federation), over the command line and MCP.
const NetworkProfile = "network"

// Factory makes a Target for one check.
type Factory func(ctx context.Context) (Target, func(), error)

// RunTarget adapts a Factory to the runner.
type RunTarget struct {
	New Factory
	// Claims are the profiles the target offers (default: Profiles).
	Claims []string
	// ClaimsOf, when set, says them from the target New made (a runner
	// names its ops in its hello).
	ClaimsOf func(Target) []string
	// Done releases what the target holds for the whole run, such as a
	// long-lived runner process; nil when nothing.
	Done func()
	// Ready, when set, readies the target for the checks a run chose
	// before the first runs (runner.PreparingTarget).
	Ready func(ctx context.Context, checks []engine.Check) error
}

// Prepare calls Ready.
func (rt RunTarget) Prepare(ctx context.Context, checks []engine.Check) error {
	if rt.Ready == nil {
		return nil
	}
	return rt.Ready(ctx, checks)
}

// Serves reports whether a check starts a server (a serve step).
func Serves(c engine.Check) bool {
	for _, s := range c.Steps {
		if s.Name == "serve" {
			return true
		}
	}
	return false
}

// Close calls Done.
func (rt RunTarget) Close() error {
	if rt.Done != nil {
		rt.Done()
	}
	return nil
}

func (rt RunTarget) seam() runner.Seam[Target] {
	return runner.Seam[Target]{New: rt.New, Hello: rt.hello, Executor: func(_ context.Context, t Target) (engine.Executor, func(), error) {
		e := NewExecutor(t)
		return e, e.Close, nil
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

// hello is what the runner records of a target: its hello and the
// profiles it claims.
func (rt RunTarget) hello(ctx context.Context, t Target) (results.TargetInfo, error) {
	h, err := t.Hello(ctx)
	if err != nil {
		return results.TargetInfo{}, err
	}
	claims := rt.Claims
	if rt.ClaimsOf != nil {
		claims = rt.ClaimsOf(t)
	}
	if claims == nil {
		claims = Profiles
	}
	return results.TargetInfo{Implementation: h.Implementation, Version: h.Version, Profiles: claims}, nil
}
