package faultproxy

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sifu-dev/sifu/suite/kungfu"
)

// counter is a Target that records every act and read delivered to it.
type counter struct {
	mu    sync.Mutex
	got   []string // keys (acts) or views (reads), in delivery order
	fails error    // returned by every act, when set
}

func (c *counter) Hello(context.Context) (kungfu.Hello, error) { return kungfu.Hello{}, nil }
func (c *counter) Act(_ context.Context, a kungfu.Action) (kungfu.Response, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.got = append(c.got, a.Key)
	if c.fails != nil {
		return kungfu.Response{}, c.fails
	}
	return kungfu.Response{OK: true, Result: map[string]any{"n": len(c.got)}}, nil
}
func (c *counter) Read(_ context.Context, r kungfu.Read) (kungfu.Response, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.got = append(c.got, r.View)
	return kungfu.Response{OK: true, Result: map[string]any{}}, nil
}
func (c *counter) Control(context.Context, kungfu.Control) (kungfu.Response, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.got = append(c.got, "control")
	return kungfu.Response{OK: true}, nil
}
func (c *counter) deliveries() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.got)
}

// manualClock fires a window only when told to, and records every wait.
type manualClock struct {
	mu      sync.Mutex
	waits   []time.Duration
	pending []chan time.Time
	hold    bool // false: every wait ends at once
}

func (m *manualClock) After(d time.Duration) <-chan time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.waits = append(m.waits, d)
	ch := make(chan time.Time, 1)
	if m.hold {
		m.pending = append(m.pending, ch)
	} else {
		ch <- time.Time{}
	}
	return ch
}

func (m *manualClock) fire() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, ch := range m.pending {
		ch <- time.Time{}
	}
	m.pending = nil
}

var always = Decider{Seed: 1, Rate: 1}

func keyed(k string) kungfu.Action {
	return kungfu.Action{Agent: "a", Name: "memory.update", Key: k, Params: map[string]any{"content": k}}
}

func TestParse(t *testing.T) {
	got, err := Parse("reorder, drop-response,reorder")
	if err != nil || !slices.Equal(got, []Fault{DropResponse, Reorder}) {
		t.Errorf("got %v %v", got, err)
	}
	if got, _ := Parse("all"); !slices.Equal(got, All) {
		t.Errorf("all: %v", got)
	}
	if _, err := Parse("drop-response,jitter"); err == nil || !strings.Contains(err.Error(), `"jitter"`) || !strings.Contains(err.Error(), "reorder") {
		t.Errorf("an unknown fault must be named with the known ones: %v", err)
	}
}

func TestDecisionsAreSeededAndBounded(t *testing.T) {
	a, b, other := Decider{Seed: 42}, Decider{Seed: 42}, Decider{Seed: 43}
	same, differ, struck := true, false, 0
	for i := range 1000 {
		id := fmt.Sprintf("req-%d", i)
		if a.Strikes(Duplicate, id, 0) != b.Strikes(Duplicate, id, 0) {
			same = false
		}
		if a.Strikes(Duplicate, id, 0) != other.Strikes(Duplicate, id, 0) {
			differ = true
		}
		if a.Strikes(Duplicate, id, 0) {
			struck++
		}
		if a.Strikes(Duplicate, id, 2) || always.Strikes(Duplicate, id, 2) {
			t.Fatalf("%s: a fault struck a third attempt; a retrying client must get through", id)
		}
	}
	if !same || !differ {
		t.Errorf("same seed, same decisions (%v); another seed, others (%v)", same, differ)
	}
	if struck < 400 || struck > 600 {
		t.Errorf("rate 0.5 struck %d of 1000", struck)
	}
}

func TestOnlyRepeatableRequestsAreFaulted(t *testing.T) {
	c := &counter{}
	p := DropResponses(c, always)
	ctx := context.Background()
	if _, err := p.Act(ctx, kungfu.Action{Agent: "a", Name: "memory.create"}); err != nil {
		t.Errorf("an unkeyed action must pass: %v", err)
	}
	if _, err := p.Control(ctx, kungfu.Control{Name: "provision"}); err != nil {
		t.Errorf("a control must pass: %v", err)
	}
	if _, err := p.Read(ctx, kungfu.Read{Agent: "a", View: "turn"}); !errors.Is(err, ErrInjected) {
		t.Errorf("a read is repeatable and must be faulted: %v", err)
	}
}

func TestDropResponseAppliesThenLosesTheAnswer(t *testing.T) {
	c := &counter{}
	_, err := DropResponses(c, always).Act(context.Background(), keyed("k"))
	if !errors.Is(err, ErrInjected) || len(c.deliveries()) != 1 {
		t.Errorf("err %v, deliveries %v: the request must arrive once and its answer be lost", err, c.deliveries())
	}
}

func TestDuplicateDeliversTwice(t *testing.T) {
	for i := range 8 { // both orders and both answers occur among these keys
		c := &counter{}
		resp, err := Duplicates(c, always).Act(context.Background(), keyed(fmt.Sprint("k", i)))
		if err != nil || !resp.OK || len(c.deliveries()) != 2 {
			t.Errorf("key %d: %v %+v, deliveries %v", i, err, resp, c.deliveries())
		}
	}
}

func TestDelayWaitsOnTheClock(t *testing.T) {
	clock := &manualClock{}
	c := &counter{}
	p := Delays(c, always, time.Second, clock)
	if _, err := p.Act(context.Background(), keyed("k")); err != nil {
		t.Fatal(err)
	}
	if len(clock.waits) != 1 || clock.waits[0] >= time.Second || len(c.deliveries()) != 1 {
		t.Errorf("waits %v, deliveries %v", clock.waits, c.deliveries())
	}
	// A wait that outlasts the check ends with the check's context.
	clock.hold = true
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Act(ctx, keyed("k2")); !errors.Is(err, context.Canceled) {
		t.Errorf("a delay past the deadline: %v", err)
	}
}

func TestResetCutsBeforeOrAfterDelivery(t *testing.T) {
	c := &counter{}
	p := Resets(c, always)
	before, after := 0, 0
	for i := range 40 {
		n := len(c.deliveries())
		_, err := p.Act(context.Background(), keyed(fmt.Sprint("k", i)))
		if !errors.Is(err, ErrInjected) {
			t.Fatalf("k%d: %v", i, err)
		}
		if len(c.deliveries()) == n {
			before++
			if !strings.Contains(err.Error(), "request body") {
				t.Errorf("k%d undelivered, but the message says %q", i, err)
			}
		} else {
			after++
			if !strings.Contains(err.Error(), "response body") {
				t.Errorf("k%d delivered, but the message says %q", i, err)
			}
		}
	}
	if before == 0 || after == 0 {
		t.Errorf("cuts before delivery %d, after %d: both must occur", before, after)
	}
}

// TestReorderDeliversInTheDrawnOrder holds five concurrent requests in one
// window and checks they are delivered one by one in the order the seed
// draws, whatever order they arrived in.
func TestReorderDeliversInTheDrawnOrder(t *testing.T) {
	keys := []string{"a", "b", "c", "d", "e"}
	run := func(arrival []string) []string {
		clock := &manualClock{hold: true}
		c := &counter{}
		ro := &reorderer{d: Decider{Seed: 9}, window: time.Millisecond, clock: clock}
		p := wrapper{Target: c, hook: ro.hook}
		var wg sync.WaitGroup
		for _, k := range arrival {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := p.Act(context.Background(), keyed(k)); err != nil {
					t.Error(err)
				}
			}()
			for !contains(ro, k) {
				runtime.Gosched() // wait until k joined the batch
			}
		}
		clock.fire()
		wg.Wait()
		return c.deliveries()
	}
	first := run(keys)
	second := run([]string{"e", "d", "c", "b", "a"})
	if !slices.Equal(first, second) {
		t.Errorf("arrival order changed the delivery order: %v vs %v", first, second)
	}
	want := slices.Clone(keys)
	sort.Slice(want, func(i, j int) bool {
		d := Decider{Seed: 9}
		return d.Draw(Reorder, Request{Op: "act", Name: "memory.update", Key: want[i], Params: map[string]any{"content": want[i]}}.Identity(), 0) <
			d.Draw(Reorder, Request{Op: "act", Name: "memory.update", Key: want[j], Params: map[string]any{"content": want[j]}}.Identity(), 0)
	})
	if !slices.Equal(first, want) {
		t.Errorf("delivered %v, drawn order %v", first, want)
	}
}

func contains(ro *reorderer, key string) bool {
	ro.mu.Lock()
	defer ro.mu.Unlock()
	for _, h := range ro.batch {
		if h.r.Key == key {
			return true
		}
	}
	return false
}

func TestRetriesRepeatOnlyInjectedFaults(t *testing.T) {
	var attempts []int
	flaky := wrapper{Target: &counter{}, hook: func(ctx context.Context, r Request, call next) (kungfu.Response, error) {
		attempts = append(attempts, Attempt(ctx))
		if Attempt(ctx) < 2 {
			return kungfu.Response{}, injected(Reset, "test")
		}
		return call(ctx)
	}}
	resp, err := Retries(flaky, 5).Act(context.Background(), keyed("k"))
	if err != nil || !resp.OK || !slices.Equal(attempts, []int{0, 1, 2}) {
		t.Errorf("%v %+v, attempts %v", err, resp, attempts)
	}
	broken := &counter{fails: errors.New("the implementation crashed")}
	if _, err := Retries(broken, 5).Act(context.Background(), keyed("k")); err == nil || len(broken.deliveries()) != 1 {
		t.Errorf("a real failure must not be repeated: %v, deliveries %v", err, broken.deliveries())
	}
	if _, err := Retries(DropResponses(&counter{}, Decider{Seed: 1, Rate: 1, Attempts: 10}), 2).Act(context.Background(), keyed("k")); !errors.Is(err, ErrInjected) {
		t.Errorf("after its retries the fault must surface: %v", err)
	}
}

// TestTaggedNarrowsEveryAlternative: a fault run selects only the checks
// tagged @faults, whatever the tag expression asked for.
func TestTaggedNarrowsEveryAlternative(t *testing.T) {
	for expr, want := range map[string]string{
		"":                    "@faults",
		"@KF-L3-02":           "@KF-L3-02 && @faults",
		"@a && ~@b, @c":       "@a && ~@b && @faults,@c && @faults",
		"@KF-L3-02,@KF-L2-01": "@KF-L3-02 && @faults,@KF-L2-01 && @faults",
	} {
		if got := Tagged(expr); got != want {
			t.Errorf("Tagged(%q) = %q, want %q", expr, got, want)
		}
	}
}
