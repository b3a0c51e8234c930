package kungfu_test

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/kungfuinproc"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/reference/kungfuref"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

// negativeControls are the rules whose checks must catch each planted
// fault: the reference's own data, which sifu selftest counts kills by.
var negativeControls = kungfuref.CaughtBy

func TestEveryFaultHasANegativeControl(t *testing.T) {
	for _, f := range kungfuref.Faults {
		if _, ok := negativeControls[f]; !ok {
			t.Errorf("planted fault %q has no entry in negativeControls", f)
		}
	}
}

// TestChecksCatchPlantedFaults runs every profile the reference claims
// against the reference with one fault planted at a time.
func TestChecksCatchPlantedFaults(t *testing.T) {
	plan, err := runner.Load(sifu.Assets, kungfu.Suite)
	if err != nil {
		t.Fatal(err)
	}
	for _, fault := range kungfuref.Faults {
		t.Run(string(fault), func(t *testing.T) {
			t.Parallel()
			target := kungfu.RunTarget{New: func(context.Context) (kungfu.Target, func(), error) {
				k, err := kungfuinproc.New(kungfuref.WithFaults(fault))
				return k, func() {}, err
			}}
			run, err := plan.Run(context.Background(), runner.Config{Target: target, TargetName: "faulty"})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]bool{}
			for _, id := range negativeControls[fault] {
				want[id] = true
			}
			var caughtBy, failed []string
			for _, tc := range run.Tests {
				if tc.Status == engine.HarnessError || tc.Status == engine.Timeout {
					t.Errorf("%s ended %s under fault %s: %s", tc.ID, tc.Status, fault, tc.Message)
				}
				if tc.Status != engine.Fail {
					continue
				}
				failed = append(failed, tc.ID)
				for _, id := range tc.Rules {
					if want[id] {
						caughtBy = append(caughtBy, tc.ID)
						break
					}
				}
			}
			if len(caughtBy) == 0 {
				sort.Strings(failed)
				t.Errorf("fault %s was not caught by any check of %v (failed checks: %s)",
					fault, negativeControls[fault], strings.Join(failed, ", "))
			}
		})
	}
}
