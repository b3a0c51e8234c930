package main

import (
	"context"
	"fmt"

	"github.com/sifu-dev/sifu/adapters/acpinproc"
	"github.com/sifu-dev/sifu/internal/attack/acpfuzz"
	"github.com/sifu-dev/sifu/internal/attack/fuzz"
	"github.com/sifu-dev/sifu/suite/acp"
)

// acpOracle is a fresh in-process ACP reference.
func acpOracle(context.Context) (acp.Target, func(), error) {
	return acpinproc.Reference{}, func() {}, nil
}

// acpFuzz fuzzes an ACP implementation with tool-call sequences, a fresh
// in-process reference answering each call alongside.
func acpFuzz(ctx context.Context, req fuzzRequest) (fuzz.Result, error) {
	rt, ok := req.target.(acp.RunTarget)
	if !ok {
		return fuzz.Result{}, fmt.Errorf("the acp fuzzer cannot drive a %T", req.target)
	}
	prop := acpfuzz.Property(ctx, acpfuzz.Config{Target: rt.New, Oracle: acpOracle, Name: fmt.Sprintf("fuzz-acp-%d", req.seed)})
	return fuzz.Run(fuzz.Config{Seed: req.seed, Runs: req.runs, Steps: req.steps, ShrinkTime: req.shrinkTime, Progress: req.progress}, prop)
}
