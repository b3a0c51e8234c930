package registry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/sifu-dev/sifu/adapters/kcpexec"
	"github.com/sifu-dev/sifu/adapters/kcpinproc"
	"github.com/sifu-dev/sifu/adapters/kcpmcp"
	"github.com/sifu-dev/sifu/internal/attack/fuzz"
	"github.com/sifu-dev/sifu/internal/attack/kcpfuzz"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/inputfile"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/reference/kcpref"
	"github.com/sifu-dev/sifu/suite/kcp"
)

// KCP is the KCP suite: the Go planner in process, any planner command
// line or planner runner (--cmd), or a planner's MCP server over stdio
// (--target mcp --cmd).
var KCP = register(&Suite{
	Name:   "kcp",
	Checks: kcp.Suite,
	Kinds:  []string{"inproc", "exec", "mcp"},
	Faults: faultsFrom(kcpref.Faults, kcpref.CaughtBy),
	Fuzzes: true,
	// The KCP fuzzer mutates the corpus's planner vectors.
	FuzzFromChecks: true,
	open:           openKCP,
})

func openKCP(spec Spec) (*Subject, error) {
	var rt kcp.RunTarget
	switch spec.Kind {
	case "inproc":
		var faults []kcpref.Fault
		if spec.Mutant != "" {
			faults = []kcpref.Fault{kcpref.Fault(spec.Mutant)}
		}
		rt = kcp.RunTarget{New: func(context.Context) (kcp.Target, func(), error) {
			return kcpinproc.Reference{Faults: faults, Now: kcpinproc.NewClock()}, func() {}, nil
		}, Claims: append(slices.Clone(kcp.Profiles), kcp.MCPProfile, kcp.ServeProfile)}
	case "exec":
		var err error
		if rt, err = kcpExec(spec); err != nil {
			return nil, err
		}
	case "mcp":
		var err error
		if rt, err = kcpMCP(spec); err != nil {
			return nil, err
		}
	}
	return &Subject{Target: rt, done: rt.Done, fuzz: func(ctx context.Context, req FuzzRequest) (fuzz.Result, error) {
		return kcpFuzz(ctx, rt, req)
	}}, nil
}

// kcpTargetConfig is the --target-config file of the kcp suite.
type kcpTargetConfig struct {
	// Protocol is how the command is driven: "runner" (the planner runner
	// protocol, one long-lived process), "cli" (kcp-agent's plan command
	// line, one process per plan) or "detect" (the default: a hello
	// answered within a few seconds means a runner).
	Protocol string `yaml:"protocol"`
}

// kcpExec drives the command as a planner runner (docs/kcp-runner.md) or
// as a kcp-agent style command line, as the config says or a hello shows.
// The runner is started once, on first use, and serves every check; a
// command line is a process per plan.
func kcpExec(spec Spec) (kcp.RunTarget, error) {
	if strings.TrimSpace(spec.Command) == "" {
		return kcp.RunTarget{}, usagef(`--target exec needs --cmd: a planner runner, e.g. --cmd "sifu-kcp --serve" or --cmd "node runners/kcp-node/runner.mjs", or a command line, e.g. --cmd "kcp-agent" (see docs/kcp-runner.md)`)
	}
	cfg := kcpTargetConfig{Protocol: "detect"}
	if spec.Config != "" {
		raw, err := inputfile.Read(spec.Config)
		if err != nil {
			return kcp.RunTarget{}, usagef("--target-config: %v", err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(inputfile.Text(raw)))
		dec.KnownFields(true)
		if err := dec.Decode(&cfg); err != nil && !errors.Is(err, io.EOF) {
			return kcp.RunTarget{}, usagef("--target-config %s: %v (keys: protocol)", spec.Config, err)
		}
		if !slices.Contains([]string{"detect", "runner", "cli"}, cfg.Protocol) {
			return kcp.RunTarget{}, usagef("--target-config %s: protocol %q: use runner, cli or detect", spec.Config, cfg.Protocol)
		}
	}
	var once sync.Once
	var target kcp.Target
	var runnerProc *kcpexec.Runner
	var startErr error
	resolve := func(ctx context.Context) (kcp.Target, error) {
		once.Do(func() {
			switch cfg.Protocol {
			case "cli":
				target = kcpexec.Planner{Command: spec.Command}
			case "runner":
				runnerProc, startErr = kcpexec.StartRunner(ctx, spec.Command)
				target = runnerProc
			default:
				var notRunner error
				if runnerProc, notRunner = kcpexec.Detect(ctx, spec.Command); runnerProc != nil {
					target = runnerProc
				} else {
					target = kcpexec.Planner{Command: spec.Command, NotRunner: notRunner}
				}
			}
		})
		return target, startErr
	}
	return kcp.RunTarget{
		New: func(ctx context.Context) (kcp.Target, func(), error) {
			t, err := resolve(ctx)
			if err != nil {
				return nil, nil, err
			}
			return t, func() {}, nil
		},
		ClaimsOf: func(t kcp.Target) []string {
			if r, ok := t.(*kcpexec.Runner); ok {
				return r.Profiles()
			}
			return append(slices.Clone(kcp.Profiles), kcp.ServeProfile)
		},
		// A command line that is to serve is started once before the
		// first serve check: one that cannot start fails the run (exit 2)
		// with one message, not every serve check.
		Ready: func(ctx context.Context, checks []engine.Check) error {
			if spec.NoProbe || !slices.ContainsFunc(checks, kcp.Serves) {
				return nil
			}
			t, err := resolve(ctx)
			if err != nil {
				return err
			}
			p, ok := t.(kcpexec.Planner)
			if !ok {
				return nil
			}
			s, err := p.StartServe(ctx, kcp.ServeRequest{})
			if err != nil {
				return fmt.Errorf("the serve checks cannot run: %w", err)
			}
			s.Stop()
			return nil
		},
		Done: func() {
			if runnerProc != nil {
				runnerProc.Close()
			}
		},
	}, nil
}

// kcpMCP drives the command as an MCP server over stdio (kcp-agent's
// `mcp`): started once, on first use, probed (initialize and tools/list
// within --request-timeout) and serving every check.
func kcpMCP(spec Spec) (kcp.RunTarget, error) {
	if strings.TrimSpace(spec.Command) == "" {
		return kcp.RunTarget{}, usagef(`--target mcp needs --cmd: a planner's MCP server over stdio, e.g. --cmd "sifu-kcp mcp" or --cmd "kcp-agent mcp"`)
	}
	if spec.Config != "" {
		return kcp.RunTarget{}, usagef("--target mcp takes no --target-config")
	}
	var once sync.Once
	var server *kcpmcp.Server
	var startErr error
	return kcp.RunTarget{
		New: func(ctx context.Context) (kcp.Target, func(), error) {
			once.Do(func() { server, startErr = kcpmcp.Start(ctx, spec.Command, spec.RequestTimeout) })
			if startErr != nil {
				return nil, nil, startErr
			}
			return server, func() {}, nil
		},
		Claims: kcpmcp.Profiles(),
		Done: func() {
			if server != nil {
				server.Close()
			}
		},
	}, nil
}

// kcpFuzz fuzzes a planner with mutations of the corpus, the in-process
// reference planning each case alongside.
func kcpFuzz(ctx context.Context, rt kcp.RunTarget, req FuzzRequest) (fuzz.Result, error) {
	target, release, err := rt.New(ctx)
	if err != nil {
		return fuzz.Result{}, err
	}
	defer release()
	plan, err := suites["kcp"].Plan()
	if err != nil {
		return fuzz.Result{}, &fuzz.HarnessError{Seed: req.Seed, Err: fmt.Errorf("loading the kcp checks the fuzzer mutates: %w", err)}
	}
	checks, err := runner.MatchChecks(plan.Checks, req.Checks)
	if err != nil {
		return fuzz.Result{}, err
	}
	seeds := kcpfuzz.Seeds(checks)
	if len(seeds) == 0 {
		return fuzz.Result{}, usagef("--check %s selects no planner vector to mutate (the fuzzer starts from planner vectors, e.g. 'kcp/budget-*')", strings.Join(req.Checks, " --check "))
	}
	cfg := kcpfuzz.Config{Target: target, Oracle: kcpinproc.Reference{}, Seeds: seeds, Name: fuzzName("kcp", req.Seed)}
	return fuzz.Run(req.config(), kcpfuzz.Property(ctx, cfg))
}
