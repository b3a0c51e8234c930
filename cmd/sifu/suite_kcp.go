package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/exec"
	"github.com/sifu-dev/sifu/adapters/inproc"
	"github.com/sifu-dev/sifu/attack/fuzz"
	"github.com/sifu-dev/sifu/attack/fuzz/kcpfuzz"
	"github.com/sifu-dev/sifu/attack/selftest"
	refkcp "github.com/sifu-dev/sifu/reference/kcp"
	"github.com/sifu-dev/sifu/runner"
	"github.com/sifu-dev/sifu/suite/kcp"
)

func init() {
	register("kcp", suiteEntry{
		suite: kcp.Suite,
		targets: map[string]func(runFlags) (runner.Target, error){
			"inproc": func(f runFlags) (runner.Target, error) {
				var faults []refkcp.Fault
				if f.mutant != "" {
					if !slices.Contains(refkcp.Faults, refkcp.Fault(f.mutant)) {
						return nil, &runner.UsageError{Msg: fmt.Sprintf("--mutant %q is not a planted fault of the KCP reference; `sifu selftest --suite kcp` lists them", f.mutant)}
					}
					faults = []refkcp.Fault{refkcp.Fault(f.mutant)}
				}
				return kcp.RunTarget{New: func(context.Context) (kcp.Target, func(), error) {
					return inproc.KCP{Faults: faults}, func() {}, nil
				}}, nil
			},
			"exec": func(f runFlags) (runner.Target, error) {
				if strings.TrimSpace(f.command) == "" {
					return nil, &runner.UsageError{Msg: `--target exec needs --cmd, e.g. --cmd "sifu kcp" or --cmd "kcp-agent"`}
				}
				return kcp.RunTarget{New: func(context.Context) (kcp.Target, func(), error) {
					return exec.Planner{Command: f.command}, func() {}, nil
				}}, nil
			},
		},
		commands: []func() *cobra.Command{newKCPCmd},
		fuzz:     kcpFuzz,
		mutants: func() []selftest.Mutant {
			var out []selftest.Mutant
			for _, f := range refkcp.Faults {
				out = append(out, selftest.Mutant{Name: string(f), Target: kcp.RunTarget{New: func(context.Context) (kcp.Target, func(), error) {
					return inproc.KCP{Faults: []refkcp.Fault{f}}, func() {}, nil
				}}})
			}
			return out
		},
	})
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
	cfg := kcpfuzz.Config{Target: target, Oracle: inproc.KCP{}, Seeds: kcpfuzz.Seeds(plan.Checks), Name: fmt.Sprintf("fuzz-kcp-%d", req.seed)}
	return fuzz.Run(fuzz.Config{Seed: req.seed, Runs: req.runs, Steps: req.steps, ShrinkTime: req.shrinkTime, Progress: req.progress}, kcpfuzz.Property(ctx, cfg))
}
