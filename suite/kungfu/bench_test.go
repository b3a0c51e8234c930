package kungfu_test

import (
	"context"
	"testing"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

// BenchmarkLoad measures compiling every feature and vector of the suite.
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		if _, err := runner.Load(sifu.Assets, kungfu.Suite); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFullRun measures one run of every profile (Full) against the
// in-process reference (compilation excluded).
func BenchmarkFullRun(b *testing.B) {
	plan, err := runner.Load(sifu.Assets, kungfu.Suite)
	if err != nil {
		b.Fatal(err)
	}
	cfg := runner.Config{Target: kungfu.RunTarget{New: reference}, TargetName: "inproc", Profiles: []string{"full"}}
	for b.Loop() {
		run, err := plan.Run(context.Background(), cfg)
		if err != nil || run.Summary.Failed() {
			b.Fatalf("run failed: %v %+v", err, run.Summary)
		}
	}
}
