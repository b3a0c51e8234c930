package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/kcpexec"
	"github.com/sifu-dev/sifu/adapters/kcpinproc"
	"github.com/sifu-dev/sifu/internal/attack/fuzz"
	"github.com/sifu-dev/sifu/internal/attack/kcpfuzz"
	"github.com/sifu-dev/sifu/internal/attack/selftest"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/reference/kcpref"
	"github.com/sifu-dev/sifu/suite/kcp"
)

func init() {
	register("kcp", suiteEntry{
		suite: kcp.Suite,
		targets: map[string]func(runFlags) (runner.Target, error){
			"inproc": func(f runFlags) (runner.Target, error) {
				var faults []kcpref.Fault
				if f.mutant != "" {
					if !slices.Contains(kcpref.Faults, kcpref.Fault(f.mutant)) {
						return nil, &runner.UsageError{Msg: fmt.Sprintf("--mutant %q is not a planted fault of the KCP reference; `sifu selftest --suite kcp` lists them", f.mutant)}
					}
					faults = []kcpref.Fault{kcpref.Fault(f.mutant)}
				}
				return kcp.RunTarget{New: func(context.Context) (kcp.Target, func(), error) {
					return kcpinproc.Reference{Faults: faults}, func() {}, nil
				}}, nil
			},
			"exec": kcpExecTarget,
		},
		commands: []func() *cobra.Command{newKCPCmd},
		fuzz:     kcpFuzz,
		// The KCP fuzzer mutates the corpus's planner vectors.
		fuzzFromChecks: true,
		mutants: func() []selftest.Mutant {
			var out []selftest.Mutant
			for _, f := range kcpref.Faults {
				out = append(out, selftest.Mutant{Name: string(f), Target: kcp.RunTarget{New: func(context.Context) (kcp.Target, func(), error) {
					return kcpinproc.Reference{Faults: []kcpref.Fault{f}}, func() {}, nil
				}}})
			}
			return out
		},
	})
}

// kcpTargetConfig is the --target-config file of the kcp suite.
type kcpTargetConfig struct {
	// Protocol is how --cmd is driven: "runner" (the planner runner
	// protocol, one long-lived process), "cli" (kcp-agent's plan command
	// line, one process per plan) or "detect" (the default: a hello
	// answered within a few seconds means a runner).
	Protocol string `yaml:"protocol"`
}

// kcpExecTarget drives --cmd as a planner runner (docs/kcp-runner.md) or
// as a kcp-agent style command line, as --target-config says or a hello
// shows. The runner is started once, on first use, and serves every
// check; a command line is a process per plan.
func kcpExecTarget(f runFlags) (runner.Target, error) {
	if strings.TrimSpace(f.command) == "" {
		return nil, &runner.UsageError{Msg: `--target exec needs --cmd: a planner runner, e.g. --cmd "sifu-kcp --serve" or --cmd "node runners/kcp-node/runner.mjs", or a command line, e.g. --cmd "kcp-agent" (see docs/kcp-runner.md)`}
	}
	cfg := kcpTargetConfig{Protocol: "detect"}
	if f.targetConfig != "" {
		raw, err := os.ReadFile(f.targetConfig)
		if err != nil {
			return nil, &runner.UsageError{Msg: fmt.Sprintf("--target-config: %v", err)}
		}
		dec := yaml.NewDecoder(bytes.NewReader(raw))
		dec.KnownFields(true)
		if err := dec.Decode(&cfg); err != nil && !errors.Is(err, io.EOF) {
			return nil, &runner.UsageError{Msg: fmt.Sprintf("--target-config %s: %v (keys: protocol)", f.targetConfig, err)}
		}
		if !slices.Contains([]string{"detect", "runner", "cli"}, cfg.Protocol) {
			return nil, &runner.UsageError{Msg: fmt.Sprintf("--target-config %s: protocol %q: use runner, cli or detect", f.targetConfig, cfg.Protocol)}
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
				target = kcpexec.Planner{Command: f.command}
			case "runner":
				runnerProc, startErr = kcpexec.StartRunner(ctx, f.command)
				target = runnerProc
			default:
				if runnerProc = kcpexec.Detect(ctx, f.command); runnerProc != nil {
					target = runnerProc
				} else {
					target = kcpexec.Planner{Command: f.command}
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
			return kcp.Profiles
		},
		Done: func() {
			if runnerProc != nil {
				runnerProc.Close()
			}
		},
	}, nil
}

// kcpFuzz fuzzes a planner with mutations of the corpus, the in-process
// reference planning each case alongside.
func kcpFuzz(ctx context.Context, req fuzzRequest) (fuzz.Result, error) {
	rt, ok := req.target.(kcp.RunTarget)
	if !ok {
		return fuzz.Result{}, fmt.Errorf("the kcp fuzzer cannot drive a %T", req.target)
	}
	target, release, err := rt.New(ctx)
	if err != nil {
		return fuzz.Result{}, err
	}
	defer release()
	plan, err := runner.Load(sifu.Assets, kcp.Suite)
	if err != nil {
		return fuzz.Result{}, err
	}
	checks, err := runner.MatchChecks(plan.Checks, req.checks)
	if err != nil {
		return fuzz.Result{}, err
	}
	seeds := kcpfuzz.Seeds(checks)
	if len(seeds) == 0 {
		return fuzz.Result{}, &runner.UsageError{Msg: fmt.Sprintf("--check %s selects no planner vector to mutate (the fuzzer starts from planner vectors, e.g. 'kcp/budget-*')", strings.Join(req.checks, " --check "))}
	}
	cfg := kcpfuzz.Config{Target: target, Oracle: kcpinproc.Reference{}, Seeds: seeds, Name: fmt.Sprintf("fuzz-kcp-%d", req.seed)}
	return fuzz.Run(fuzz.Config{Seed: req.seed, Runs: req.runs, Steps: req.steps, ShrinkTime: req.shrinkTime, Progress: req.progress}, kcpfuzz.Property(ctx, cfg))
}
