package main

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu/adapters/exec"
	"github.com/sifu-dev/sifu/adapters/inproc"
	"github.com/sifu-dev/sifu/runner"
	"github.com/sifu-dev/sifu/suite/kcp"
)

func init() {
	register("kcp", suiteEntry{
		suite: kcp.Suite,
		targets: map[string]func(runFlags) (runner.Target, error){
			"inproc": func(runFlags) (runner.Target, error) {
				return kcp.RunTarget{New: func(context.Context) (kcp.Target, func(), error) {
					return inproc.KCP{}, func() {}, nil
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
	})
}
