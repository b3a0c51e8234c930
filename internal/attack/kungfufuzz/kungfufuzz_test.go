package kungfufuzz_test

import (
	"context"
	"testing"
	"testing/fstest"
	"time"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/kungfuinproc"
	"github.com/sifu-dev/sifu/internal/attack/fuzz"
	"github.com/sifu-dev/sifu/internal/attack/kungfufuzz"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/engine/vector"
	"github.com/sifu-dev/sifu/internal/schema"
	"github.com/sifu-dev/sifu/reference/kungfuref"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

func factory(faults ...kungfuref.Fault) kungfufuzz.Factory {
	return func(context.Context) (kungfu.Target, func(), error) {
		k, err := kungfuinproc.New(kungfuref.WithFaults(faults...))
		return k, func() {}, err
	}
}

func TestTheReferenceAgreesWithItself(t *testing.T) {
	cfg := kungfufuzz.Config{Target: factory(), Oracle: factory()}
	res, err := fuzz.Run(fuzz.Config{Seed: 7, Runs: 60, Steps: 30}, kungfufuzz.Property(context.Background(), cfg))
	if err != nil {
		t.Fatal(err)
	}
	if res.Divergence != nil {
		t.Fatalf("the reference diverged from itself: %s\n%s", res.Divergence.Detail, res.Divergence.Vector)
	}
	if res.Steps < 60 {
		t.Fatalf("only %d steps ran", res.Steps)
	}
}

// TestAReplayAfterARaceIsNoHarnessFault: seed 13's case 13 replays a keyed
// admission after steps issued at once. The model used to lose track of
// which step replayed (its step index was stale after a race), expected
// the secret a replay never discloses (KF-L3-06), and the run died on a
// harness fault at step 502.
func TestAReplayAfterARaceIsNoHarnessFault(t *testing.T) {
	cfg := kungfufuzz.Config{Target: factory(), Oracle: factory()}
	res, err := fuzz.Run(fuzz.Config{Seed: 13, Runs: 13, Steps: 200}, kungfufuzz.Property(context.Background(), cfg))
	if err != nil {
		t.Fatal(err)
	}
	if res.Divergence != nil {
		t.Fatalf("the reference diverged from itself: %s", res.Divergence.Detail)
	}
}

// TestAMutantYieldsAVectorThatCatchesIt: the shrunk finding, written as a
// vector, passes on the reference and fails on the mutant.
func TestAMutantYieldsAVectorThatCatchesIt(t *testing.T) {
	for _, fault := range []kungfuref.Fault{kungfuref.FaultStartsPublic, kungfuref.FaultWithdrawNotTerminal, kungfuref.FaultNoteLeaks, kungfuref.FaultLostUpdate} {
		t.Run(string(fault), func(t *testing.T) {
			cfg := kungfufuzz.Config{Target: factory(fault), Oracle: factory()}
			res, err := fuzz.Run(fuzz.Config{Seed: 3, Runs: 1000, Steps: 30, ShrinkTime: 5 * time.Second}, kungfufuzz.Property(context.Background(), cfg))
			if err != nil {
				t.Fatal(err)
			}
			d := res.Divergence
			if d == nil {
				t.Fatalf("no divergence in %d runs (%d steps)", res.Runs, res.Steps)
			}
			fsys := fstest.MapFS{"finding.json": {Data: d.Vector}}
			checks, err := vector.Compile(fsys, "finding.json", "kungfu", schema.NewSet(sifu.Assets, "vectors/schema"))
			if err != nil {
				t.Fatalf("the finding is not a valid vector: %v\n%s", err, d.Vector)
			}
			run := func(f kungfufuzz.Factory) engine.Verdict {
				k, release, err := f(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				defer release()
				h, _ := k.Hello(context.Background())
				return engine.Run(context.Background(), checks[0], kungfu.NewExecutor(k, h))
			}
			if v := run(factory()); v.Status != engine.Pass {
				t.Errorf("the finding fails on the reference: %s\n%s", v.Message, d.Vector)
			}
			if v := run(factory(fault)); v.Status != engine.Fail {
				t.Errorf("the finding does not fail on the mutant (%s)\n%s", v.Status, d.Vector)
			}
			t.Logf("%d steps in the shrunk case: %s", len(checks[0].Steps), d.Detail)
		})
	}
}
