package acpfuzz_test

import (
	"context"
	"testing"

	"github.com/sifu-dev/sifu/internal/attack/acpfuzz"
	"github.com/sifu-dev/sifu/internal/attack/fuzz"
)

// BenchmarkFuzzSteps measures in-process fuzz throughput: steps (one call
// on the target and on the oracle, compared) per second, reference
// against reference, so nothing diverges.
func BenchmarkFuzzSteps(b *testing.B) {
	cfg := acpfuzz.Config{Target: factory(), Oracle: factory(), Name: "bench"}
	steps := 0
	for b.Loop() {
		res, err := fuzz.Run(fuzz.Config{Seed: 1, Runs: 20}, acpfuzz.Property(context.Background(), cfg))
		if err != nil || res.Divergence != nil {
			b.Fatalf("%v %v", err, res.Divergence)
		}
		steps += res.Steps
	}
	b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
	b.ReportMetric(float64(steps)/float64(b.N), "steps/op")
}
