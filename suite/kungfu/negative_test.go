package kungfu_test

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/inproc"
	"github.com/sifu-dev/sifu/engine"
	ref "github.com/sifu-dev/sifu/reference/kungfu"
	"github.com/sifu-dev/sifu/runner"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

// negativeControls maps every planted fault of the reference to the rules
// whose checks must catch it. Each fault must make at least one check that
// evidences one of these rules fail: a check that cannot fail is no evidence.
var negativeControls = map[ref.Fault][]string{
	ref.FaultNonAuthorWrites:          {"KF-5-04"},
	ref.FaultStartsPublic:             {"KF-5-03"},
	ref.FaultMutableVersions:          {"KF-5-06", "KF-L1-02"},
	ref.FaultWithdrawNotTerminal:      {"KF-5-05"},
	ref.FaultReplayDrift:              {"KF-L3-04"},
	ref.FaultReplayReexecutes:         {"KF-L3-02"},
	ref.FaultConflictIgnored:          {"KF-L3-03"},
	ref.FaultExistenceLeak:            {"KF-12-07"},
	ref.FaultImplicitSuccess:          {"KF-L2-06"},
	ref.FaultNoNextStep:               {"KF-L2-04", "KF-8-14"},
	ref.FaultStrangerReadsOldVersions: {"KF-5-09"},
	ref.FaultUpdateChangesVisibility:  {"KF-5-08"},
	ref.FaultListsWithdrawn:           {"KF-5-11"},
	ref.FaultNoRateLimit:              {"KF-L4-05"},
	ref.FaultDeactivatedActs:          {"KF-4-01"},
	ref.FaultDeactivationErases:       {"KF-4-04"},
	ref.FaultContentInStructure:       {"KF-L6-01", "KF-12-01"},
	ref.FaultSharedKeys:               {"KF-L3-01", "KF-9-13"},
	ref.FaultLostUpdate:               {"KF-L5-01"},
	ref.FaultRestartForgetsUpdates:    {"KF-L1-01", "KF-L1-04"},
	ref.FaultPhantomObligation:        {"KF-1-03"},
	ref.FaultPartialEffect:            {"KF-L2-03", "KF-L2-01"},
	ref.FaultCompensation:             {"KF-L2-07", "KF-L4-06"},
	ref.FaultContentActs:              {"KF-L6-03"},
	ref.FaultRevokedReads:             {"KF-9-18"},
}

func TestEveryFaultHasANegativeControl(t *testing.T) {
	for _, f := range ref.Faults {
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
	for _, fault := range ref.Faults {
		t.Run(string(fault), func(t *testing.T) {
			t.Parallel()
			target := kungfu.RunTarget{New: func(context.Context) (kungfu.Target, func(), error) {
				k, err := inproc.NewKungfu(ref.WithFaults(fault))
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
