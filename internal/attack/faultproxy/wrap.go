package faultproxy

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sifu-dev/sifu/suite/kungfu"
)

// Config selects the faults of a run.
type Config struct {
	Faults []Fault
	// Seed makes every decision; print it, so a run can be repeated.
	Seed uint64
	// Rate is the chance a fault strikes one attempt; zero means 0.5.
	Rate float64
	// MaxDelay bounds one delay; zero means 20ms.
	MaxDelay time.Duration
	// Window is how long reordering gathers requests; zero means 2ms.
	Window time.Duration
	// Clock measures delays and windows; nil means real time.
	Clock Clock
	// Retries is how often a faulted request is repeated; zero means 64.
	// A fault strikes only the first two attempts at a request, but a cut
	// stream (stdio) also loses the answers of every request in flight, so
	// one request may lose several attempts to its neighbours' faults.
	Retries int
	// AdapterResets says that the adapter cuts its own connection (through
	// Decider.ResetError), so Wrap leaves the Target-level reset out.
	AdapterResets bool
}

// Has reports whether the configuration injects f.
func (c Config) Has(f Fault) bool { return slices.Contains(c.Faults, f) }

// Decider returns the seeded decisions of the configuration.
func (c Config) Decider() Decider { return Decider{Seed: c.Seed, Rate: c.Rate} }

// String describes the configuration for a run's header.
func (c Config) String() string {
	return fmt.Sprintf("faults %s, seed %d", String(c.Faults), c.Seed)
}

// Wrap puts the configured faults between the client and t, and a Retries
// wrapper on top. From the client inwards: retries, reordering,
// duplication, resets, lost answers, delays.
func Wrap(t kungfu.Target, c Config) kungfu.Target {
	if len(c.Faults) == 0 {
		return t
	}
	d := c.Decider()
	clock := c.Clock
	if clock == nil {
		clock = RealClock{}
	}
	maxDelay, window, retries := c.MaxDelay, c.Window, c.Retries
	if maxDelay <= 0 {
		maxDelay = 20 * time.Millisecond
	}
	if window <= 0 {
		window = 2 * time.Millisecond
	}
	if retries <= 0 {
		retries = 64
	}
	if c.Has(Delay) {
		t = Delays(t, d, maxDelay, clock)
	}
	if c.Has(DropResponse) {
		t = DropResponses(t, d)
	}
	if c.Has(Reset) && !c.AdapterResets {
		t = Resets(t, d)
	}
	if c.Has(Duplicate) {
		t = Duplicates(t, d)
	}
	if c.Has(Reorder) {
		t = Reorders(t, d, window, clock)
	}
	return Retries(t, retries)
}

// Tag marks the checks that are meant to hold under injected faults; a
// run with faults selects only them (docs/attack.md).
const Tag = "@faults"

// Tagged narrows a tag expression to the checks tagged Tag: Tag is added
// to every alternative of it.
func Tagged(expr string) string {
	if strings.TrimSpace(expr) == "" {
		return Tag
	}
	alts := strings.Split(expr, ",")
	for i, a := range alts {
		alts[i] = strings.TrimSpace(a) + " && " + Tag
	}
	return strings.Join(alts, ",")
}

// Configure reads a --faults list and its seed into a configuration; seed
// 0 picks one from the clock (print it, so the run can be repeated).
func Configure(list string, seed uint64) (*Config, error) {
	faults, err := Parse(list)
	if err != nil {
		return nil, err
	}
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	return &Config{Faults: faults, Seed: seed}, nil
}
