package faultproxy_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/kungfuinproc"
	"github.com/sifu-dev/sifu/internal/attack/faultproxy"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/reference/kungfuref"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

// instant is a clock whose waits end at once: delays and reorder windows
// cost no real time in tests.
type instant struct{ waits atomic.Int64 }

func (c *instant) After(time.Duration) <-chan time.Time {
	c.waits.Add(1)
	ch := make(chan time.Time, 1)
	ch <- time.Time{}
	return ch
}

// deliveries counts the acts and reads that reach the implementation.
type deliveries struct {
	kungfu.Target
	n *atomic.Int64
}

func (d deliveries) Act(ctx context.Context, a kungfu.Action) (kungfu.Response, error) {
	d.n.Add(1)
	return d.Target.Act(ctx, a)
}

func (d deliveries) Read(ctx context.Context, r kungfu.Read) (kungfu.Response, error) {
	d.n.Add(1)
	return d.Target.Read(ctx, r)
}

// loadPlan compiles the suite once for every test here.
var loadPlan = sync.OnceValues(func() (*runner.Plan, error) { return runner.Load(sifu.Assets, kungfu.Suite) })

// faultRun runs the @faults checks against the reference (with planted
// faults, if any) behind the fault proxy. It returns the run, how many
// requests reached the reference, how many the checks sent, and how often
// the clock was asked to wait.
func faultRun(t *testing.T, cfg faultproxy.Config, planted ...kungfuref.Fault) (*results.Run, int64, int64, int64) {
	t.Helper()
	plan, err := loadPlan()
	if err != nil {
		t.Fatal(err)
	}
	clock := &instant{}
	cfg.Clock = clock
	var delivered atomic.Int64
	target := kungfu.RunTarget{New: func(context.Context) (kungfu.Target, func(), error) {
		var opts []kungfuref.Option
		if len(planted) > 0 {
			opts = append(opts, kungfuref.WithFaults(planted...))
		}
		k, err := kungfuinproc.New(opts...)
		if err != nil {
			return nil, nil, err
		}
		return faultproxy.Wrap(deliveries{k, &delivered}, cfg), func() {}, nil
	}}
	run, err := plan.Run(context.Background(), runner.Config{Target: target, TargetName: "faulted", Tags: "@faults"})
	if err != nil {
		t.Fatal(err)
	}
	var sent int64
	for _, tc := range run.Tests {
		for _, ex := range tc.Transcript {
			if ex.Op == engine.OpAct || ex.Op == engine.OpRead {
				sent++
			}
		}
	}
	return run, delivered.Load(), sent, clock.waits.Load()
}

// TestReferenceKeepsEffectsExactUnderFaults: every @faults check passes
// against the reference under each fault alone and all together, and each
// fault really struck (more or fewer deliveries than requests, or waits).
func TestReferenceKeepsEffectsExactUnderFaults(t *testing.T) {
	sets := [][]faultproxy.Fault{faultproxy.All}
	for _, f := range faultproxy.All {
		sets = append(sets, []faultproxy.Fault{f})
	}
	for _, faults := range sets {
		for _, seed := range []uint64{1, 2} {
			name := fmt.Sprintf("%s/seed-%d", faultproxy.String(faults), seed)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				run, delivered, sent, waits := faultRun(t, faultproxy.Config{Faults: faults, Seed: seed})
				if run.Summary.Pass == 0 || run.Summary.Failed() {
					for _, tc := range run.Tests {
						t.Logf("%s: %s %s", tc.ID, tc.Status, tc.Message)
					}
					t.Fatalf("summary %+v", run.Summary)
				}
				switch f := faults[0]; {
				case len(faults) > 1:
				case f == faultproxy.Delay || f == faultproxy.Reorder:
					if waits == 0 {
						t.Errorf("%s never waited", f)
					}
				case delivered == sent:
					t.Errorf("%s: %d requests sent and %d delivered: the fault never struck", f, sent, delivered)
				}
			})
		}
	}
}

// TestFaultsCatchAnImplementationThatIgnoresKeys: the reference with
// replay-reexecutes planted (a repeated key runs the action again, i.e. keys
// are ignored) passes the @faults checks without faults, which repeat no
// request themselves, and fails them (fail, never harness_error) as soon as
// the proxy loses answers, duplicates or cuts requests.
func TestFaultsCatchAnImplementationThatIgnoresKeys(t *testing.T) {
	plan, err := loadPlan()
	if err != nil {
		t.Fatal(err)
	}
	repeatsNothing := map[string]bool{}
	for _, c := range plan.Checks {
		if c.ID == "kungfu/faults/keyed-memory-actions-take-effect-exactly-once" ||
			c.ID == "kungfu/faults/a-keyed-post-records-one-entry-and-one-obligation-whatever-was-lost" {
			repeatsNothing[c.ID] = true
		}
	}
	if len(repeatsNothing) != 2 {
		t.Fatalf("the checks this test relies on were renamed: %v", repeatsNothing)
	}
	clean, _, _, _ := faultRun(t, faultproxy.Config{}, kungfuref.FaultReplayReexecutes)
	for _, tc := range clean.Tests {
		if repeatsNothing[tc.ID] && tc.Status != engine.Pass {
			t.Fatalf("without faults %s must pass even when keys are ignored: %s %s", tc.ID, tc.Status, tc.Message)
		}
	}
	// Each fault alone, striking every first and second attempt; and all of
	// them at the default rate, as `sifu run --faults all` injects them.
	configs := []faultproxy.Config{
		{Faults: []faultproxy.Fault{faultproxy.DropResponse}, Rate: 1},
		{Faults: []faultproxy.Fault{faultproxy.Duplicate}, Rate: 1},
		{Faults: []faultproxy.Fault{faultproxy.Reset}, Rate: 1},
	}
	for seed := range uint64(4) {
		configs = append(configs, faultproxy.Config{Faults: faultproxy.All, Seed: seed + 1})
	}
	for _, cfg := range configs {
		t.Run(fmt.Sprintf("%s/rate-%g/seed-%d", faultproxy.String(cfg.Faults), cfg.Rate, cfg.Seed), func(t *testing.T) {
			t.Parallel()
			run, _, _, _ := faultRun(t, cfg, kungfuref.FaultReplayReexecutes)
			caught := 0
			for _, tc := range run.Tests {
				switch tc.Status {
				case engine.HarnessError, engine.Timeout:
					t.Errorf("%s ended %s: %s", tc.ID, tc.Status, tc.Message)
				case engine.Fail:
					if repeatsNothing[tc.ID] {
						caught++
					}
				}
			}
			if caught == 0 {
				for _, tc := range run.Tests {
					t.Logf("%s: %s %s (%d exchanges)", tc.ID, tc.Status, tc.Message, len(tc.Transcript))
				}
				t.Errorf("no check that repeats nothing by itself caught the ignored keys under %s", cfg)
			}
		})
	}
}
