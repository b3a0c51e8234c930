package faultproxy_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/sifu-dev/sifu/adapters/kungfuinproc"
	"github.com/sifu-dev/sifu/internal/attack/faultproxy"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/reference/kungfuref"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

// BenchmarkDecision measures one seeded decision.
func BenchmarkDecision(b *testing.B) {
	d := faultproxy.Decider{Seed: 1}
	id := faultproxy.Request{Op: "act", Name: "memory.update", Key: "k", Params: map[string]any{"content": "x"}}.Identity()
	for b.Loop() {
		d.Strikes(faultproxy.Duplicate, id, 0)
	}
}

// BenchmarkKeyedAct measures a keyed memory.create against the in-process
// reference (rate limit off), directly and behind the proxy with every fault
// (instant clock): the proxy's own cost plus the extra deliveries it makes.
func BenchmarkKeyedAct(b *testing.B) {
	for _, faults := range [][]faultproxy.Fault{nil, faultproxy.All} {
		b.Run(fmt.Sprintf("faults=%s", faultproxy.String(faults)), func(b *testing.B) {
			limits := kungfuref.DefaultLimits
			limits.ActionsPerMinute = 0
			k, err := kungfuinproc.New(kungfuref.WithLimits(limits))
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			r, _ := k.Control(ctx, kungfu.Control{Name: "provision", Params: map[string]any{"name": "alice"}})
			agent := r.Result["agent"].(string)
			t := faultproxy.Wrap(k, faultproxy.Config{Faults: faults, Seed: 1, Clock: &instant{}})
			i := 0
			for b.Loop() {
				i++
				resp, err := t.Act(ctx, kungfu.Action{Agent: agent, Name: "memory.create", Key: fmt.Sprint("k", i),
					Params: map[string]any{"content": "v"}})
				if err != nil || !resp.OK {
					b.Fatal(err, resp.Rejection)
				}
			}
		})
	}
}

// BenchmarkFaultChecks measures one run of the @faults checks against the
// in-process reference, without faults and with every fault.
func BenchmarkFaultChecks(b *testing.B) {
	plan, err := loadPlan()
	if err != nil {
		b.Fatal(err)
	}
	for _, faults := range [][]faultproxy.Fault{nil, faultproxy.All} {
		b.Run(fmt.Sprintf("faults=%s", faultproxy.String(faults)), func(b *testing.B) {
			cfg := faultproxy.Config{Faults: faults, Seed: 1, Clock: &instant{}}
			target := kungfu.RunTarget{New: func(context.Context) (kungfu.Target, func(), error) {
				k, err := kungfuinproc.New()
				return faultproxy.Wrap(k, cfg), func() {}, err
			}}
			for b.Loop() {
				run, err := plan.Run(context.Background(), runner.Config{Target: target, TargetName: "b", Tags: "@faults"})
				if err != nil || run.Summary.Failed() {
					b.Fatalf("%v %+v", err, run.Summary)
				}
			}
		})
	}
}
