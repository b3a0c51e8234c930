// Package registry defines every suite sifu runs, once: its checks, the
// targets it can drive (built from a typed Spec, not from command-line
// flags), the planted faults of its reference with the rules whose checks
// must catch each, its fuzzer and its race checker. cmd/sifu binds its
// flags to TargetArgs, RunArgs, FuzzArgs and RaceArgs, which the registry
// turns into a Spec and a request (reading the files they name), and
// prints what the registry's runs return; nothing else knows which suites
// exist.
package registry

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/internal/attack/faultproxy"
	"github.com/sifu-dev/sifu/internal/attack/fuzz"
	"github.com/sifu-dev/sifu/internal/attack/linear"
	"github.com/sifu-dev/sifu/internal/attack/selftest"
	"github.com/sifu-dev/sifu/internal/declaration"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
)

// Harness is what results say ran them (results.This).
func Harness() results.Harness { return results.This() }

// Spec says which implementation to drive and how to reach it: the typed
// form of the command line's target flags.
type Spec struct {
	// Kind is the target kind: "inproc" (the bundled reference), "http",
	// "stdio", "exec" or "process", as the suite knows them.
	Kind string
	// URL is the base URL of a running implementation (http).
	URL string
	// Command speaks the suite's binding or is its command line (stdio,
	// exec).
	Command string
	// StartCommand is a gateway command sifu starts per check (agentkit).
	StartCommand string
	// ControlToken is presented on control requests (kungfu over http).
	ControlToken string
	// RequestTimeout bounds one request (http, agentkit), and every
	// target's hello before the first check (Config.HelloTimeout).
	RequestTimeout time.Duration
	// Map is a surface map (kungfu over mcp; empty: the bundled one).
	Map string
	// Config is a suite-specific file describing how to drive the
	// implementation (--target-config).
	Config string
	// Mutant plants this fault of the bundled reference (inproc).
	Mutant string
	// Faults, when set, injects transport faults (kungfu only).
	Faults *faultproxy.Config
	// NoProbe starts nothing before a check asks (a --list).
	NoProbe bool
}

// Conditions records what the harness changed about the target: a
// planted fault or injected faults; nil when neither.
func (s Spec) Conditions() *results.Conditions {
	if s.Mutant == "" && s.Faults == nil {
		return nil
	}
	c := &results.Conditions{Mutant: s.Mutant}
	if fc := s.Faults; fc != nil {
		for _, k := range fc.Faults {
			c.Faults = append(c.Faults, string(k))
		}
		c.FaultSeed = fc.Seed
	}
	return c
}

// Fault is a planted fault of a suite's reference with the rules whose
// checks must catch it (the reference's CaughtBy).
type Fault struct {
	Name  string
	Rules []string
}

// Suite is one suite's definition.
type Suite struct {
	Name string
	// Checks is where the suite's checks live and how they compile.
	Checks runner.Suite
	// Kinds are the target kinds it drives; the first is the bundled
	// reference, in process.
	Kinds []string
	// Faults are its reference's planted faults.
	Faults []Fault
	// FuzzFromChecks says the fuzzer mutates the suite's checks, so fuzz
	// --check narrows what it starts from.
	FuzzFromChecks bool
	// Fuzzes and Races say whether the suite has a fuzzer and races.
	Fuzzes, Races bool

	open func(Spec) (*Subject, error)
	// injects says the suite's targets take injected faults (Spec.Faults).
	injects bool

	once sync.Once
	plan *runner.Plan
	err  error
}

// Subject is an implementation ready to check: the runner's view, and what
// attack mode needs of the same implementation.
type Subject struct {
	runner.Target
	// Kind is the target kind it was opened as.
	Kind string
	done func()
	// helloTimeout bounds the hello the fuzzer and the race checker ask
	// for first (--request-timeout).
	helloTimeout time.Duration
	fuzz         func(context.Context, FuzzRequest) (fuzz.Result, error)
	race         *linear.Checker
}

// Workers and Shared pass on what the suite's target says of itself, which
// the embedded interface alone would hide from the runner: how many checks
// it takes at once, and whether every check shares its state (so checks
// that disturb it run alone).
func (t *Subject) Workers() int {
	if w, ok := t.Target.(runner.WorkersTarget); ok {
		return w.Workers()
	}
	return 0
}

// Prepare: see Workers.
func (t *Subject) Prepare(ctx context.Context, checks []engine.Check) error {
	if p, ok := t.Target.(runner.PreparingTarget); ok {
		return p.Prepare(ctx, checks)
	}
	return nil
}

// Shared: see Workers.
func (t *Subject) Shared() bool {
	s, ok := t.Target.(runner.SharedTarget)
	return ok && s.Shared()
}

// Lacking: see Workers (runner.LackingTarget).
func (t *Subject) Lacking(c engine.Check) string {
	if l, ok := t.Target.(runner.LackingTarget); ok {
		return l.Lacking(c)
	}
	return ""
}

// Close releases what the target holds for the whole run (a process every
// check shares).
func (t *Subject) Close() error {
	if t.done != nil {
		t.done()
	}
	return nil
}

// FuzzRequest is one fuzz run.
type FuzzRequest struct {
	Seed       uint64
	Runs       int
	Steps      int
	ShrinkTime time.Duration
	// Progress is called as each case starts.
	Progress func()
	// Checks are --check patterns: the checks a fuzzer that starts from
	// the suite's checks starts from.
	Checks []string
}

func (r FuzzRequest) config() fuzz.Config {
	return fuzz.Config{Seed: r.Seed, Runs: r.Runs, Steps: r.Steps, ShrinkTime: r.ShrinkTime, Progress: r.Progress}
}

// Fuzz fuzzes the target against a fresh bundled reference.
func (t *Subject) Fuzz(ctx context.Context, req FuzzRequest) (fuzz.Result, error) {
	if t.fuzz == nil {
		return fuzz.Result{}, &runner.UsageError{Msg: "this target cannot be fuzzed"}
	}
	if err := t.probe(ctx); err != nil {
		return fuzz.Result{}, err
	}
	return t.fuzz(ctx, req)
}

// Race checks one race of the suite against the target, the bundled
// reference as the sequential specification.
func (t *Subject) Race(ctx context.Context, r linear.Race, rounds int, outDir string) (linear.Verdict, error) {
	if t.race == nil {
		return linear.Verdict{}, &runner.UsageError{Msg: "this target has no race checker"}
	}
	return t.race.Check(ctx, r, rounds, outDir)
}

// probe asks the target for its hello as a run does first, so a target
// that cannot be reached or started is reported as such (exit 2), never
// as a divergence or a failed race.
func (t *Subject) probe(ctx context.Context) error {
	return runner.Probe(ctx, runner.Config{Target: t.Target, TargetName: t.Kind, HelloTimeout: t.helloTimeout})
}

// Open builds the target a spec names.
func (s *Suite) Open(spec Spec) (*Subject, error) {
	if spec.Kind == "" {
		spec.Kind = s.Kinds[0]
	}
	if spec.StartCommand != "" && spec.Kind == s.Kinds[0] && slices.Contains(s.Kinds, "process") {
		spec.Kind = "process" // --start-cmd names the implementation: results say so
	}
	if !slices.Contains(s.Kinds, spec.Kind) {
		return nil, usagef("unknown target %q for suite %s; available: %v", spec.Kind, s.Name, slices.Sorted(slices.Values(s.Kinds)))
	}
	if spec.Mutant != "" && spec.Kind != s.Kinds[0] {
		return nil, usagef("--mutant plants a fault in the bundled reference: it needs --target %s", s.Kinds[0])
	}
	if spec.Mutant != "" && !slices.ContainsFunc(s.Faults, func(f Fault) bool { return f.Name == spec.Mutant }) {
		return nil, usagef("--mutant %q is not a planted fault of the %s reference; `sifu selftest --suite %s` lists them", spec.Mutant, s.Name, s.Name)
	}
	if spec.Faults != nil && !s.injects {
		return nil, usagef("--faults: suite %s cannot inject faults into target %s; faults exist for the kungfu suite's inproc, http and stdio targets", s.Name, spec.Kind)
	}
	t, err := s.open(spec)
	if err != nil {
		return nil, err
	}
	t.Kind, t.helloTimeout = spec.Kind, spec.RequestTimeout
	return t, nil
}

// Plan is the suite's bundled checks, loaded once; with options (other
// vectors), loaded afresh.
func (s *Suite) Plan(opts ...runner.LoadOption) (*runner.Plan, error) {
	if len(opts) > 0 {
		return runner.Load(sifu.Assets, s.Checks, opts...)
	}
	s.once.Do(func() { s.plan, s.err = runner.Load(sifu.Assets, s.Checks) })
	return s.plan, s.err
}

// Sources are the suite's files a statement's evidence hashes.
func (s *Suite) Sources() declaration.Sources {
	c := s.Checks
	return declaration.Sources{FS: sifu.Assets, Catalogue: c.Catalogue, Features: c.Features, Vectors: c.Vectors}
}

// Mutants are the bundled reference with each planted fault, or those
// named in only. A mutant whose target cannot be built is an error: a
// fault left out of the self-test would be a fault nobody checks.
func (s *Suite) Mutants(only ...string) ([]selftest.Mutant, error) {
	var out []selftest.Mutant
	for _, f := range s.Faults {
		if len(only) > 0 && !slices.Contains(only, f.Name) {
			continue
		}
		t, err := s.Open(Spec{Kind: s.Kinds[0], Mutant: f.Name})
		if err != nil {
			return nil, fmt.Errorf("mutant %s of the %s reference: %w", f.Name, s.Name, err)
		}
		out = append(out, selftest.Mutant{Name: f.Name, Rules: f.Rules, Target: t})
	}
	for _, name := range only {
		if !slices.ContainsFunc(s.Faults, func(f Fault) bool { return f.Name == name }) {
			return nil, usagef("--mutant %s: not a mutant of suite %s", name, s.Name)
		}
	}
	return out, nil
}

var suites = map[string]*Suite{}

func register(s *Suite) *Suite {
	if _, dup := suites[s.Name]; dup {
		panic("registry: suite registered twice: " + s.Name)
	}
	suites[s.Name] = s
	return s
}

// Names are the registered suites, sorted.
func Names() []string { return slices.Sorted(maps.Keys(suites)) }

// Lookup finds a suite by name; an unknown one is a usage error.
func Lookup(name string) (*Suite, error) {
	s, ok := suites[name]
	if !ok {
		return nil, usagef("unknown suite %q; available: %v", name, Names())
	}
	return s, nil
}

func usagef(format string, args ...any) error {
	return &runner.UsageError{Msg: fmt.Sprintf(format, args...)}
}

// faultsFrom lists a reference's faults, in its order, with their rules.
func faultsFrom[F ~string](faults []F, caughtBy map[F][]string) []Fault {
	out := make([]Fault, len(faults))
	for i, f := range faults {
		out[i] = Fault{Name: string(f), Rules: caughtBy[f]}
	}
	return out
}

// fuzzName is the file stem and case id of a fuzz finding.
func fuzzName(suite string, seed uint64) string { return fmt.Sprintf("fuzz-%s-%d", suite, seed) }
