// Package fuzz is sifu's model-based fuzzer: a suite generates random,
// valid-looking cases and runs each against the target and a fresh
// reference (the oracle) in lockstep; the first divergence is shrunk by
// pgregory.net/rapid to a minimal case, which the suite writes as a vector
// in its own format.
package fuzz

import (
	"flag"
	"fmt"
	"reflect"
	"runtime/debug"
	"strconv"
	"strings"
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

// Probe is how a property reports to the run: one probe per case.
type Probe struct {
	t   *rapid.T
	run *state
	// n is the case's 1-based number in the run, steps the steps it ran.
	n, steps int
	// stopped says the case already reported (Diverged, Broken or
	// Unreachable), so a panic that follows is rapid stopping it.
	stopped bool
}

type state struct {
	mu         sync.Mutex
	seed       uint64
	steps      atomic.Int64
	divergence *Divergence
	diverged   int // the case the first divergence was found in
	harness    *HarnessError
	target     *TargetError
}

// HarnessError is a fault of the harness itself in a fuzz run, not of the
// target: the oracle failed, the model expected what the oracle did not
// answer (a capture it could not make), or the property panicked. It says
// what reproduces it: the run's seed, and the case and step it happened
// at (the same seed with --runs Case reaches it again).
type HarnessError struct {
	Seed uint64
	// Case is the 1-based case of the run it happened in, 0 when no case
	// did (rapid could not generate valid cases, say).
	Case int
	// Step is the 1-based step of that case, 0 before its first step.
	Step int
	// Shrinking says it happened while a divergence found earlier (in
	// case DivergedCase) was being shrunk, in a case rapid derived from
	// that one.
	Shrinking    bool
	DivergedCase int
	Err          error
	// Stack is where a panic happened.
	Stack string
}

func (e *HarnessError) Error() string {
	at := fmt.Sprintf("in case %d at step %d", e.Case, e.Step)
	if e.Step == 0 {
		at = fmt.Sprintf("in case %d before its first step", e.Case)
	}
	switch {
	case e.Shrinking:
		at = fmt.Sprintf("while shrinking the divergence of case %d", e.DivergedCase)
	case e.Case == 0:
		at = "in no case in particular"
	}
	return fmt.Sprintf("the fuzzer itself failed %s (seed %d), a fault of sifu, not of the target: %v", at, e.Seed, e.Err)
}

func (e *HarnessError) Unwrap() error { return e.Err }

// TargetError is a target that could not be started or reached for a
// case, though it was for the run.
type TargetError struct {
	Seed uint64
	Case int
	Err  error
}

func (e *TargetError) Error() string {
	return fmt.Sprintf("the target could not be started for case %d (seed %d): %v", e.Case, e.Seed, e.Err)
}

func (e *TargetError) Unwrap() error { return e.Err }

// Stepped counts one step run against both sides.
func (p *Probe) Stepped() {
	p.steps++
	p.run.steps.Add(1)
}

// Diverged records a divergence and fails the case (it does not return).
func (p *Probe) Diverged(d *Divergence) {
	p.run.mu.Lock()
	p.run.divergence = d // the last divergence rapid replays is the minimal one
	if p.run.diverged == 0 {
		p.run.diverged = p.n
	}
	p.run.mu.Unlock()
	p.stopped = true
	p.t.Fatalf("step %d diverged: %s", d.Step+1, d.Detail)
}

// Broken records a fault of the harness (the oracle failed, the model's
// expectation did not hold) at the case's last counted step, and stops the
// case; the run ends with a HarnessError.
func (p *Probe) Broken(err error) {
	p.broken(err, "")
	p.stopped = true
	p.t.Fatalf("harness: %v", err)
}

func (p *Probe) broken(err error, stack string) {
	p.run.mu.Lock()
	defer p.run.mu.Unlock()
	if p.run.harness != nil {
		return // the first fault is the one the seed reproduces
	}
	p.run.harness = &HarnessError{Seed: p.run.seed, Case: p.n, Step: p.steps, Err: err, Stack: stack,
		Shrinking: p.run.diverged != 0, DivergedCase: p.run.diverged}
}

// Unreachable records that the target could not be started for this case
// and stops the case; the run ends with a TargetError.
func (p *Probe) Unreachable(err error) {
	p.run.mu.Lock()
	if p.run.target == nil {
		p.run.target = &TargetError{Seed: p.run.seed, Case: p.n, Err: err}
	}
	p.run.mu.Unlock()
	p.stopped = true
	p.t.Fatalf("target: %v", err)
}

// over says the run is over without shrinking: a harness fault or a
// target lost before any divergence leaves nothing to minimise.
func (s *state) over() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.diverged == 0 && (s.harness != nil || s.target != nil)
}

// rapidSignal says a recovered panic is rapid's own way of ending a case
// (a failure, a skip, data exhausted), not a fault of the property.
func rapidSignal(r any) bool {
	t := reflect.TypeOf(r)
	return t != nil && t.PkgPath() == "pgregory.net/rapid"
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
// deterministic for a given seed and a deterministic target. A fault of the
// harness (Probe.Broken, a panic in the property, a failure rapid reports
// that no case recorded) ends the run with a *HarnessError, unshrunk; one
// met while shrinking a divergence is returned with that divergence. A
// target lost before any divergence ends it with a *TargetError.
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
			return Result{}, &HarnessError{Seed: cfg.Seed, Err: fmt.Errorf("configuring rapid: %w", err)}
		}
	}
	res := Result{Seed: cfg.Seed}
	st := &state{seed: cfg.Seed}
	var runs atomic.Int64
	t := &recorder{name: "sifu-fuzz"}
	rapid.Check(t, func(rt *rapid.T) {
		if st.over() {
			return // rapid reproducing a harness fault: nothing to shrink
		}
		n := int(runs.Add(1))
		if cfg.Progress != nil {
			cfg.Progress()
		}
		p := &Probe{t: rt, run: st, n: n}
		defer func() {
			if r := recover(); r != nil {
				if !p.stopped && !rapidSignal(r) {
					p.broken(fmt.Errorf("panic: %v", r), string(debug.Stack()))
				}
				panic(r)
			}
		}()
		prop(rt, p)
	})
	res.Runs, res.Steps, res.Log = int(runs.Load()), int(st.steps.Load()), t.logs
	res.Divergence = st.divergence
	switch {
	case st.harness != nil:
		return res, st.harness
	case st.target != nil && res.Divergence == nil:
		return res, st.target
	case t.failed && res.Divergence == nil && st.target == nil:
		// rapid failed the run but no case said why: it could not generate
		// valid cases, say.
		return res, &HarnessError{Seed: cfg.Seed, Err: fmt.Errorf("rapid failed the run without a divergence: %s", t.failure())}
	}
	return res, nil
}

// recorder is the rapid.TB a fuzz run reports to: it keeps the log and
// whether anything failed, and never stops the goroutine.
type recorder struct {
	name   string
	logs   []string
	errors []string // what failed the run, as rapid said it
	failed bool
}

// failure is rapid's own account of why the run failed: the first line of
// its first error.
func (r *recorder) failure() string {
	if len(r.errors) == 0 {
		return "no reason given"
	}
	first, _, _ := strings.Cut(r.errors[0], "\n")
	return first
}

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return r.name }
func (r *recorder) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}
func (r *recorder) Log(args ...any)                   { r.logs = append(r.logs, fmt.Sprint(args...)) }
func (r *recorder) Skipf(format string, args ...any)  { r.Logf(format, args...) }
func (r *recorder) Skip(args ...any)                  { r.Log(args...) }
func (r *recorder) SkipNow()                          {}
func (r *recorder) Errorf(format string, args ...any) { r.fail(fmt.Sprintf(format, args...)) }
func (r *recorder) Error(args ...any)                 { r.fail(fmt.Sprint(args...)) }
func (r *recorder) Fatalf(format string, args ...any) { r.fail(fmt.Sprintf(format, args...)) }
func (r *recorder) Fatal(args ...any)                 { r.fail(fmt.Sprint(args...)) }
func (r *recorder) fail(msg string) {
	r.failed = true
	r.errors = append(r.errors, msg)
	r.logs = append(r.logs, msg)
}
func (r *recorder) FailNow()     { r.failed = true }
func (r *recorder) Fail()        { r.failed = true }
func (r *recorder) Failed() bool { return r.failed }

// Rare is true about once in n+1 draws. rapid favours small values and
// shrinks toward them, so the usual path is the small one and a shrunk
// case keeps only the rare turns it needs.
func Rare(t *rapid.T, label string, n int) bool {
	return rapid.IntRange(0, n).Draw(t, label) == n
}
