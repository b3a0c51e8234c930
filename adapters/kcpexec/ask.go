package kcpexec

import (
	"context"

	"github.com/sifu-dev/sifu/adapters/kcpmodel"
	"github.com/sifu-dev/sifu/suite/kcp"
)

// runSession runs a request with a scripted model or reruns: its commands
// in one directory, the model served around them (kcpmodel.Run).
func (p Planner) runSession(ctx context.Context, req kcp.CLIRequest) (kcp.CLIResult, error) {
	return kcpmodel.Run(ctx, req, func(ctx context.Context, args []string) (kcp.CLIResult, error) {
		stdout, stderr, ended := p.exec(ctx, args)
		return p.ended(ctx, kcp.CLIResult{Stdout: stdout, Stderr: stderr}, ended)
	})
}
