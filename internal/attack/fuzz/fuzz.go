// Package fuzz is sifu's model-based fuzzer: a suite generates random,
// valid-looking cases and runs each against the target and a fresh
// reference (the oracle) in lockstep; the first divergence is shrunk by
// pgregory.net/rapid to a minimal case, which the suite writes as a vector
// in its own format.
package fuzz

import (
	"flag"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// Divergence is a case on which the target and the oracle disagreed.
type Divergence struct {
	// Step is the 0-based index of the step that diverged.
	Step int
	// Detail says what differed.
	Detail string
	// Rules are the rule IDs the diverging step touches.
	Rules []string
	// Vector is the case as a vector file in the suite's own format: the
	// oracle's answers are its expectations, so it passes on the reference
	// and fails where the target diverged.
	Vector []byte
}

// Property runs one generated case drawn from t, reporting each step and
// any divergence to p. Cases are best drawn with t.Repeat, one action per
// step, so that rapid can shrink a finding by deleting whole steps.
type Property func(t *rapid.T, p *Probe)

// Probe is how a property reports to the run.
type Probe struct {
	t   *rapid.T
	run *state
}

type state struct {
	mu         sync.Mutex
	steps      atomic.Int64
	divergence *Divergence
	harness    error
}

// Stepped counts one step run against both sides.
func (p *Probe) Stepped() { p.run.steps.Add(1) }

// Diverged records a divergence and fails the case (it does not return).
func (p *Probe) Diverged(d *Divergence) {
	p.run.mu.Lock()
	p.run.divergence = d // the last divergence rapid replays is the minimal one
	p.run.mu.Unlock()
	p.t.Fatalf("step %d diverged: %s", d.Step+1, d.Detail)
}

// Broken records a harness problem (the oracle failed) and stops the case.
func (p *Probe) Broken(err error) {
	p.run.mu.Lock()
	p.run.harness = err
	p.run.mu.Unlock()
	p.t.Fatalf("harness: %v", err)
}

// Config bounds a fuzz run.
type Config struct {
	Seed  uint64 // 0 picks one from the clock; printed either way
	Runs  int    // cases to generate (default 100)
	Steps int    // average steps per case (default 30)
	// ShrinkTime bounds the minimisation of a divergence (default 30s).
	ShrinkTime time.Duration
	// Progress, when set, is called as each case starts.
	Progress func()
}

// Result is what a fuzz run found.
type Result struct {
	Seed  uint64
	Runs  int // cases run, shrinking included
	Steps int // steps run, shrinking included
	// Divergence is the minimal diverging case, nil when none was found.
	Divergence *Divergence
	// Log is rapid's account of the run.
	Log []string
}

// rapidFlags guards rapid's configuration, which lives in package flags.
var rapidFlags sync.Mutex

var initTesting sync.Once

// Run generates cases until one diverges or cfg.Runs pass. It is
// deterministic for a given seed and a deterministic target.
func Run(cfg Config, prop Property) (Result, error) {
	if cfg.Runs <= 0 {
		cfg.Runs = 100
	}
	if cfg.Steps <= 0 {
		cfg.Steps = 30
	}
	if cfg.ShrinkTime <= 0 {
		cfg.ShrinkTime = 30 * time.Second
	}
	if cfg.Seed == 0 {
		cfg.Seed = uint64(time.Now().UnixNano())
	}
	// rapid reads testing.Short and its own flags from the standard flag
	// set; outside `go test` both need registering first.
	initTesting.Do(func() {
		testing.Init()
		if !flag.Parsed() {
			flag.CommandLine.Parse(nil)
		}
	})
	rapidFlags.Lock()
	defer rapidFlags.Unlock()
	for name, value := range map[string]string{
		"rapid.checks":     strconv.Itoa(cfg.Runs),
		"rapid.steps":      strconv.Itoa(cfg.Steps),
		"rapid.seed":       strconv.FormatUint(cfg.Seed, 10),
		"rapid.nofailfile": "true",
		"rapid.shrinktime": cfg.ShrinkTime.String(),
	} {
		if err := flag.Set(name, value); err != nil {
			return Result{}, fmt.Errorf("fuzz: configuring rapid: %w", err)
		}
	}
	res := Result{Seed: cfg.Seed}
	st := &state{}
	var runs atomic.Int64
	t := &recorder{name: "sifu-fuzz"}
	rapid.Check(t, func(rt *rapid.T) {
		runs.Add(1)
		if cfg.Progress != nil {
			cfg.Progress()
		}
		prop(rt, &Probe{t: rt, run: st})
	})
	res.Runs, res.Steps, res.Log = int(runs.Load()), int(st.steps.Load()), t.logs
	res.Divergence = st.divergence
	if st.harness != nil && res.Divergence == nil {
		return res, st.harness
	}
	return res, nil
}

// recorder is the rapid.TB a fuzz run reports to: it keeps the log and
// whether anything failed, and never stops the goroutine.
type recorder struct {
	name   string
	logs   []string
	failed bool
}

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return r.name }
func (r *recorder) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}
func (r *recorder) Log(args ...any)                  { r.logs = append(r.logs, fmt.Sprint(args...)) }
func (r *recorder) Skipf(format string, args ...any) { r.Logf(format, args...) }
func (r *recorder) Skip(args ...any)                 { r.Log(args...) }
func (r *recorder) SkipNow()                         {}
func (r *recorder) Errorf(format string, args ...any) {
	r.failed = true
	r.Logf(format, args...)
}
func (r *recorder) Error(args ...any) { r.failed = true; r.Log(args...) }
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = true
	r.Logf(format, args...)
}
func (r *recorder) Fatal(args ...any) { r.failed = true; r.Log(args...) }
func (r *recorder) FailNow()          { r.failed = true }
func (r *recorder) Fail()             { r.failed = true }
func (r *recorder) Failed() bool      { return r.failed }

// Rare is true about once in n+1 draws. rapid favours small values and
// shrinks toward them, so the usual path is the small one and a shrunk
// case keeps only the rare turns it needs.
func Rare(t *rapid.T, label string, n int) bool {
	return rapid.IntRange(0, n).Draw(t, label) == n
}
