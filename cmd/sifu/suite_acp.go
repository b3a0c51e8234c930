package main

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu/adapters/exec"
	"github.com/sifu-dev/sifu/adapters/inproc"
	"github.com/sifu-dev/sifu/runner"
	"github.com/sifu-dev/sifu/suite/acp"
)

func init() {
	register("acp", suiteEntry{
		suite: acp.Suite,
		targets: map[string]func(runFlags) (runner.Target, error){
			"inproc": func(runFlags) (runner.Target, error) {
				return acp.RunTarget{New: func(context.Context) (acp.Target, func(), error) {
					return inproc.ACP{}, func() {}, nil
				}}, nil
			},
			"exec": func(f runFlags) (runner.Target, error) {
				if strings.TrimSpace(f.targetConfig) == "" {
					return nil, &runner.UsageError{Msg: "--target exec needs --target-config FILE with the command template of each ACP tool, e.g. --target-config docs/acp-sifu.target.json (see docs/acp.md)"}
				}
				cfg, err := exec.LoadACPConfig(f.targetConfig)
				if err != nil {
					return nil, &runner.UsageError{Msg: err.Error()}
				}
				return acp.RunTarget{Claims: cfg.Profiles, New: func(context.Context) (acp.Target, func(), error) {
					return exec.ACPTarget{Config: cfg}, func() {}, nil
				}}, nil
			},
		},
		commands: []func() *cobra.Command{newACPCmd},
	})
}
