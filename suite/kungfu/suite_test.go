package kungfu_test

import (
	"context"
	"testing"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/kungfuinproc"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

func reference(ctx context.Context) (kungfu.Target, func(), error) {
	t, err := kungfuinproc.New()
	return t, func() {}, err
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
