package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu/adapters/acpexec"
	"github.com/sifu-dev/sifu/adapters/acpinproc"
	"github.com/sifu-dev/sifu/internal/attack/selftest"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/reference/acpref"
	"github.com/sifu-dev/sifu/suite/acp"
)

func init() {
	register("acp", suiteEntry{
		suite: acp.Suite,
		targets: map[string]func(runFlags) (runner.Target, error){
			"inproc": func(f runFlags) (runner.Target, error) {
				var faults []acpref.Fault
				if f.mutant != "" {
					if !slices.Contains(acpref.Faults, acpref.Fault(f.mutant)) {
						return nil, &runner.UsageError{Msg: fmt.Sprintf("--mutant %q is not a planted fault of the ACP reference; `sifu selftest --suite acp` lists them", f.mutant)}
					}
					faults = []acpref.Fault{acpref.Fault(f.mutant)}
				}
				return acp.RunTarget{New: func(context.Context) (acp.Target, func(), error) {
					return acpinproc.Reference{Faults: faults}, func() {}, nil
				}}, nil
			},
			"exec": func(f runFlags) (runner.Target, error) {
				if strings.TrimSpace(f.targetConfig) == "" {
					return nil, &runner.UsageError{Msg: "--target exec needs --target-config FILE with the command template of each ACP tool, e.g. --target-config docs/acp-sifu.target.json (see docs/acp.md)"}
				}
				cfg, err := acpexec.LoadConfig(f.targetConfig)
				if err != nil {
					return nil, &runner.UsageError{Msg: err.Error()}
				}
				return acp.RunTarget{Claims: cfg.Claims(), New: func(context.Context) (acp.Target, func(), error) {
					return acpexec.Tools{Config: cfg}, func() {}, nil
				}}, nil
			},
		},
		commands: []func() *cobra.Command{newACPCmd},
		fuzz:     acpFuzz,
		mutants: func() []selftest.Mutant {
			var out []selftest.Mutant
			for _, f := range acpref.Faults {
				out = append(out, selftest.Mutant{Name: string(f), Target: acp.RunTarget{New: func(context.Context) (acp.Target, func(), error) {
					return acpinproc.Reference{Faults: []acpref.Fault{f}}, func() {}, nil
				}}})
			}
			return out
		},
	})
}
