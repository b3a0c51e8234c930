package kcp_test

import (
	"context"
	"testing"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/kcpinproc"
	"github.com/sifu-dev/sifu/internal/attack/selftest"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/reference/kcpref"
	"github.com/sifu-dev/sifu/suite/kcp"
)

// TestChecksCatchPlantedFaults: every planted fault of the reference planner
// makes a check of one of its rules (kcpref.CaughtBy) fail (a fail, not a
// harness error), so no gate, reason string or budget rule goes unchecked.
func TestChecksCatchPlantedFaults(t *testing.T) {
	plan, err := runner.Load(sifu.Assets, kcp.Suite)
	if err != nil {
		t.Fatal(err)
	}
	if len(kcpref.Faults) < 15 {
		t.Fatalf("only %d planted faults", len(kcpref.Faults))
	}
	for _, fault := range kcpref.Faults {
		t.Run(string(fault), func(t *testing.T) {
			target := kcp.RunTarget{New: func(context.Context) (kcp.Target, func(), error) {
				return kcpinproc.Reference{Faults: []kcpref.Fault{fault}}, func() {}, nil
			}, Claims: append(append([]string{}, kcp.Profiles...), kcp.MCPProfile, kcp.ServeProfile)}
			run, err := plan.Run(context.Background(), runner.Config{Target: target, TargetName: "faulty", Tags: "~@slow"})
			if err != nil {
				t.Fatal(err)
			}
			for _, tc := range run.Tests {
				if tc.Status == engine.HarnessError || tc.Status == engine.Timeout {
					t.Errorf("%s ended %s under %s: %s", tc.ID, tc.Status, fault, tc.Message)
				}
			}
			if len(selftest.Caught(run, kcpref.CaughtBy[fault])) == 0 {
				t.Errorf("no check of %v caught the planted fault %s", kcpref.CaughtBy[fault], fault)
			}
		})
	}
}
