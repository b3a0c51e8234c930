package kungfu_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/kungfuinproc"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

func reference(ctx context.Context) (kungfu.Target, func(), error) {
	t, err := kungfuinproc.New()
	return t, func() {}, err
}

// TestReferencePassesMemoryProfile runs every Memory-profile check against
// the bundled reference in-process: all of them must pass.
func TestReferencePassesMemoryProfile(t *testing.T) {
	plan, err := runner.Load(sifu.Assets, kungfu.Suite)
	if err != nil {
		t.Fatal(err)
	}
	run, err := plan.Run(context.Background(), runner.Config{
		Target: kungfu.RunTarget{New: reference}, TargetName: "inproc", Profiles: []string{"memory"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range run.Tests {
		if tc.Status != engine.Pass && tc.Status != engine.NotApplicable {
			t.Errorf("%s (%s): %s: %s", tc.ID, tc.Source, tc.Status, tc.Message)
		}
	}
	if run.Summary.Pass == 0 {
		t.Fatal("no check passed")
	}
	var unmet []string
	for _, r := range run.Rules {
		if r.Status == results.RuleFail || r.Status == results.RuleWarn {
			unmet = append(unmet, r.ID+"="+r.Status)
		}
	}
	if len(unmet) > 0 {
		t.Errorf("rules not met: %s", strings.Join(unmet, " "))
	}
}

// TestEveryAxisValueIsChecked: every value of every matrix the catalogue
// names (a rule's axes: roles, versions, deadlines) is covered by a check
// that evidences the rule and carries the tag axis:value.
func TestEveryAxisValueIsChecked(t *testing.T) {
	plan, err := runner.Load(sifu.Assets, kungfu.Suite)
	if err != nil {
		t.Fatal(err)
	}
	cells := plan.Axes()
	if len(cells) == 0 {
		t.Fatal("the catalogue names no matrix")
	}
	for _, c := range cells {
		if len(c.Checks) == 0 {
			t.Errorf("%s: %s %s is checked by no check tagged @%s:%s", c.Rule, c.Axis, c.Value, c.Axis, c.Value)
		}
	}
}
