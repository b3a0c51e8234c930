package acp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/acpinproc"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/reference/acpref"
	"github.com/sifu-dev/sifu/suite/acp"
)

// negativeControls are the rules whose checks must catch each planted
// fault: the reference's own data, which sifu selftest counts kills by.
var negativeControls = acpref.CaughtBy

func TestEveryFaultHasANegativeControl(t *testing.T) {
	for _, f := range acpref.Faults {
		if _, ok := negativeControls[f]; !ok {
			t.Errorf("planted fault %q has no entry in negativeControls", f)
		}
	}
	if len(acpref.Faults) < 12 {
		t.Errorf("only %d planted faults; keep at least one per MUST area", len(acpref.Faults))
	}
}

// TestChecksCatchPlantedFaults runs the checks of each fault's rules
// against the reference with that one fault planted.
func TestChecksCatchPlantedFaults(t *testing.T) {
	plan, err := runner.Load(sifu.Assets, acp.Suite)
	if err != nil {
		t.Fatal(err)
	}
	for _, fault := range acpref.Faults {
		t.Run(string(fault), func(t *testing.T) {
			t.Parallel()
			target := acp.RunTarget{New: func(context.Context) (acp.Target, func(), error) {
				return acpinproc.Reference{Faults: []acpref.Fault{fault}}, func() {}, nil
			}}
			rules := negativeControls[fault]
			run, err := plan.Run(context.Background(), runner.Config{Target: target, TargetName: "faulty", Rules: rules})
			if err != nil {
				t.Fatal(err)
			}
			var caughtBy []string
			for _, tc := range run.Tests {
				if tc.Status == engine.Fail || tc.Status == engine.Warn {
					caughtBy = append(caughtBy, tc.ID)
				}
			}
			if len(caughtBy) == 0 {
				t.Fatalf("no check of %s caught the planted fault %q", strings.Join(rules, ", "), fault)
			}
			t.Logf("caught by %s", strings.Join(caughtBy, ", "))
		})
	}
}
