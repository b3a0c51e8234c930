package acpfuzz_test

import (
	"context"
	"testing"
	"testing/fstest"
	"time"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/acpinproc"
	"github.com/sifu-dev/sifu/internal/attack/acpfuzz"
	"github.com/sifu-dev/sifu/internal/attack/fuzz"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/schema"
	"github.com/sifu-dev/sifu/reference/acpref"
	"github.com/sifu-dev/sifu/suite/acp"
)

func factory(faults ...acpref.Fault) acp.Factory {
	return func(context.Context) (acp.Target, func(), error) {
		return acpinproc.Reference{Faults: faults}, func() {}, nil
	}
}

func TestTheReferenceAgreesWithItself(t *testing.T) {
	runs := 200
	if testing.Short() {
		runs = 40
	}
	cfg := acpfuzz.Config{Target: factory(), Oracle: factory(), Name: "fuzz-acp-1"}
	res, err := fuzz.Run(fuzz.Config{Seed: 1, Runs: runs, Steps: 8}, acpfuzz.Property(context.Background(), cfg))
	if err != nil {
		t.Fatal(err)
	}
	if res.Divergence != nil {
		t.Fatalf("the reference diverged from itself: %s\n%s", res.Divergence.Detail, res.Divergence.Vector)
	}
	t.Logf("%d cases, %d steps", res.Runs, res.Steps)
}

// replay compiles a finding and runs it on an implementation.
func replay(t *testing.T, d *fuzz.Divergence, faults ...acpref.Fault) engine.Verdict {
	t.Helper()
	checks, err := acp.CompileVector(fstest.MapFS{"fuzz.json": {Data: d.Vector}}, "fuzz.json", schema.NewSet(sifu.Assets, "vectors/schema"))
	if err != nil {
		t.Fatalf("the finding is not an ACP vector: %v\n%s", err, d.Vector)
	}
	if len(checks) != 1 {
		t.Fatalf("the finding compiles to %d checks", len(checks))
	}
	e, release, err := acp.NewExecutor(acpinproc.Reference{Faults: faults})
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	return engine.Run(context.Background(), checks[0], e)
}

func TestPlantedFaultsAreFoundAndTheirFindingsReplay(t *testing.T) {
	for _, f := range []acpref.Fault{acpref.FaultNonParticipantAppends, acpref.FaultSkipReadinessGate, acpref.FaultSeqGapMissed, acpref.FaultAnyoneAdvances} {
		t.Run(string(f), func(t *testing.T) {
			t.Parallel()
			cfg := acpfuzz.Config{Target: factory(f), Oracle: factory(), Name: "fuzz-acp-" + string(f)}
			res, err := fuzz.Run(fuzz.Config{Seed: 7, Runs: 150, ShrinkTime: time.Second}, acpfuzz.Property(context.Background(), cfg))
			if err != nil {
				t.Fatal(err)
			}
			d := res.Divergence
			if d == nil || d.Vector == nil {
				t.Fatalf("the fuzz did not find %s in %d cases", f, res.Runs)
			}
			t.Logf("found at step %d: %s", d.Step+1, d.Detail)
			if v := replay(t, d); v.Status != engine.Pass {
				t.Errorf("the finding fails on the reference: %s\n%s", v.Message, d.Vector)
			}
			if v := replay(t, d, f); v.Status != engine.Fail {
				t.Errorf("the finding does not fail on the mutant: %s %s\n%s", v.Status, v.Message, d.Vector)
			}
		})
	}
}

func TestUsageTextIsNotCompared(t *testing.T) {
	upstream := "usage: append_event.py [-h] --folder FOLDER --participant PARTICIPANT\n                       --event {blocked,completed}\nappend_event.py: error: argument --event: invalid choice: 'x'\n"
	sifu := "usage: sifu acp append --folder F --participant P --event E --summary S\nsifu acp append: error: argument --event: invalid choice: 'x'\n"
	if a, b := acpfuzz.ScrubUsage(upstream), acpfuzz.ScrubUsage(sifu); a != b || a != "error: argument --event: invalid choice: 'x'\n" {
		t.Fatalf("scrubbed:\n%q\n%q", a, b)
	}
	o := engine.Outcome{Result: map[string]any{"exit": 2, "stderr": upstream}}
	g := engine.Outcome{Result: map[string]any{"exit": 2, "stderr": sifu}}
	if d := acpfuzz.Compare(o, g); d != "" {
		t.Fatalf("the usage text made a divergence: %s", d)
	}
	g.Result = map[string]any{"exit": 2, "stderr": "usage: x\nx: error: another message\n"}
	if d := acpfuzz.Compare(o, g); d == "" {
		t.Fatal("a different message after the usage text must still diverge")
	}
}
