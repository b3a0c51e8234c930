package linear_test

import (
	"context"
	"testing"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/kungfuinproc"
	"github.com/sifu-dev/sifu/internal/attack/kungfufuzz"
	"github.com/sifu-dev/sifu/internal/attack/linear"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/reference/kungfuref"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

func factory(faults ...kungfuref.Fault) kungfu.Factory {
	return func(context.Context) (kungfu.Target, func(), error) {
		k, err := kungfuinproc.New(kungfuref.WithFaults(faults...))
		return k, func() {}, err
	}
}

// checker races the reference with faults planted against the reference.
func checker(faults ...kungfuref.Fault) linear.Checker {
	return linear.Checker{Target: kungfu.RunTarget{New: factory(faults...)}.NewExecutor,
		Reference: kungfu.RunTarget{New: factory()}.NewExecutor, Agree: kungfufuzz.Compare}
}

func races(t *testing.T) []linear.Race {
	plan, err := runner.Load(sifu.Assets, kungfu.Suite)
	if err != nil {
		t.Fatal(err)
	}
	rs := linear.Races(plan.Checks)
	if len(rs) < 10 {
		t.Fatalf("only %d races in the suite", len(rs))
	}
	return rs
}

func TestTheReferenceIsLinearizable(t *testing.T) {
	for _, r := range races(t) {
		v, err := checker().Check(context.Background(), r, 5, "")
		if err != nil {
			t.Fatalf("%s: %v", r.ID, err)
		}
		switch {
		case v.Undecided:
			t.Logf("%s: %s (a slow machine or -race)", r.ID, v.Detail)
		case !v.Holds():
			t.Errorf("%s: %s", r.ID, v.Detail)
		}
	}
}

// TestTwoTakersOfOneAssignmentAreFlagged: a reference that lets a second
// take succeed produces a history no serial order explains.
func TestPlantedRacesAreFlagged(t *testing.T) {
	for _, c := range []struct {
		fault kungfuref.Fault
		race  string
	}{
		{kungfuref.FaultSecondTake, "kungfu/thread_races/concurrent-takes-and-deliveries-land-once"},
		{kungfuref.FaultCapRace, "kungfu/task_concurrency/concurrent-adoptions-stop-at-the-limit"},
		{kungfuref.FaultLostUpdate, "kungfu/concurrency/concurrent-updates-each-get-their-own-version"},
	} {
		t.Run(string(c.fault), func(t *testing.T) {
			for _, r := range races(t) {
				if r.ID != c.race {
					continue
				}
				dir := t.TempDir()
				v, err := checker(c.fault).Check(context.Background(), r, 20, dir)
				if err != nil {
					t.Fatal(err)
				}
				if v.Linearizable {
					t.Fatalf("porcupine found every history of %s linearizable under %s", r.ID, c.fault)
				}
				if v.Visualization == "" {
					t.Errorf("no visualisation written")
				}
				t.Log(v.Detail)
				return
			}
			t.Fatalf("no race %s", c.race)
		})
	}
}
