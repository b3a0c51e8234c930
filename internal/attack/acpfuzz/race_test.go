package acpfuzz_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/acpinproc"
	"github.com/sifu-dev/sifu/internal/attack/acpfuzz"
	"github.com/sifu-dev/sifu/internal/attack/linear"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/suite/acp"
)

func races(t *testing.T) []linear.Race {
	t.Helper()
	plan, err := runner.Load(sifu.Assets, acp.Suite)
	if err != nil {
		t.Fatal(err)
	}
	rs := linear.Races(plan.Checks)
	if len(rs) < 2 {
		t.Fatalf("only %d ACP races", len(rs))
	}
	return rs
}

func reference(context.Context) (acp.Target, func(), error) {
	return acpinproc.Reference{}, func() {}, nil
}

// checker races the target f makes against the in-process reference.
func checker(f acp.Factory) linear.Checker {
	return linear.Checker{Target: acp.RunTarget{New: f}.NewExecutor, Reference: acp.RunTarget{New: reference}.NewExecutor,
		Agree: acpfuzz.RaceAgree, Describe: acpfuzz.DescribeRaceCall}
}

func TestTheReferenceIsLinearizable(t *testing.T) {
	for _, r := range races(t) {
		v, err := checker(reference).Check(context.Background(), r, 3, "")
		if err != nil {
			t.Fatal(err)
		}
		if !v.Holds() {
			t.Errorf("%s: %s", r.ID, v.Detail)
		}
	}
}

// staleAppends is an implementation that loses appends made at once: each
// concurrent append reads the folder, waits until every other has read it
// too, and then writes from what it read, so all of them take the same seq
// and the last write wins. The barrier makes the loss certain instead of
// a matter of timing.
type staleAppends struct {
	acpinproc.Reference
	stage   int // appends before the race, left alone
	barrier *barrier
	mu      *sync.Mutex
	calls   *int
}

type barrier struct {
	mu      sync.Mutex
	cond    *sync.Cond
	waiting int
	n       int
}

func (b *barrier) wait() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.waiting++
	if b.waiting >= b.n {
		b.cond.Broadcast()
		return
	}
	for b.waiting < b.n {
		b.cond.Wait()
	}
}

func (s staleAppends) Append(ctx context.Context, r acp.AppendRequest) (acp.Answer, error) {
	s.mu.Lock()
	*s.calls++
	racing := *s.calls > s.stage
	s.mu.Unlock()
	if !racing {
		return s.Reference.Append(ctx, r)
	}
	snapshot := map[string][]byte{}
	for _, name := range []string{"events.jsonl", "protocol.json"} {
		raw, err := os.ReadFile(filepath.Join(r.Folder, name))
		if err != nil {
			return acp.Answer{}, err
		}
		snapshot[name] = raw
	}
	s.barrier.wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, raw := range snapshot {
		if err := os.WriteFile(filepath.Join(r.Folder, name), raw, 0o644); err != nil {
			return acp.Answer{}, err
		}
	}
	return s.Reference.Append(ctx, r)
}

func TestAnImplementationThatLosesAppendsIsNotLinearizable(t *testing.T) {
	caught := 0
	for _, r := range races(t) {
		stage := 0
		for _, s := range r.Stage {
			if s.Name == "append" {
				stage++
			}
		}
		lossy := func(context.Context) (acp.Target, func(), error) {
			b := &barrier{n: len(r.Ops)}
			b.cond = sync.NewCond(&b.mu)
			return staleAppends{stage: stage, barrier: b, mu: &sync.Mutex{}, calls: new(int)}, func() {}, nil
		}
		v, err := checker(lossy).Check(context.Background(), r, 1, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if v.Linearizable {
			t.Logf("%s: linearizable even when appends are lost", r.ID)
			continue
		}
		if v.Undecided {
			// The checker ran out of time (a loaded machine): no order was
			// found, but none was proved impossible, so nothing was caught.
			t.Logf("%s: undecided: %s", r.ID, v.Detail)
			continue
		}
		caught++
		t.Logf("%s: %s", r.ID, v.Detail)
		if _, err := os.Stat(v.Visualization); err != nil {
			t.Errorf("no visualisation: %v", err)
		}
	}
	if caught == 0 {
		t.Fatal("no race caught an implementation that loses concurrent appends")
	}
}
