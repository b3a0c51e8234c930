// Package selftest is sifu's mutation self-test: it runs a suite against
// every mutant of its reference (the reference with one planted fault) and
// reports which mutants the suite kills. A surviving mutant is a missing or
// weak check; the answer is a new check, never deleting the mutant.
package selftest

import (
	"context"
	"fmt"
	"slices"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
)

// Mutant is a reference with one named fault planted.
type Mutant struct {
	Name string
	// Rules are the rules whose checks must catch the fault: only a check
	// of one of them that fails (or warns) kills the mutant.
	Rules  []string
	Target runner.Target
}

// Finding is what a prober found: a one-line description and the rules
// of what it found (the race's check, the fuzz finding's vector).
type Finding struct {
	Detail string
	Rules  []string
}

// Prober looks for a mutant beyond the scenarios and vectors, for example
// with a short fuzz run. It returns what it found, or a Finding with no
// Detail when the mutant behaved like the oracle.
type Prober func(ctx context.Context, m Mutant) (Finding, error)

// Outcome is what the suite did to one mutant.
type Outcome struct {
	Mutant string `json:"mutant"`
	// Rules are the rules whose checks must catch it.
	Rules  []string `json:"rules"`
	Killed bool     `json:"killed"`
	// KilledBy lists the checks of the mutant's rules that failed (or
	// warned) on it, sorted: what killed it.
	KilledBy []string `json:"killed_by,omitempty"`
	// Failed lists the other checks that failed on it: no evidence that
	// the checks of its rules can catch it, so they kill nothing.
	Failed []string `json:"failed_elsewhere,omitempty"`
	// Probe is what the prober found, if anything; it kills the mutant
	// when it names one of the mutant's rules.
	Probe string `json:"probe,omitempty"`
	// Broken lists checks that ended in timeout or harness_error: they
	// kill nothing, but deserve a look.
	Broken []string `json:"broken,omitempty"`
}

// Report is a self-test of one suite.
type Report struct {
	Suite    string    `json:"suite"`
	Checks   int       `json:"checks"`
	Outcomes []Outcome `json:"mutants"`
	Killed   int       `json:"killed"`
}

// Score is the share of mutants killed, 0 to 1.
func (r Report) Score() float64 {
	if len(r.Outcomes) == 0 {
		return 0
	}
	return float64(r.Killed) / float64(len(r.Outcomes))
}

// Survivors are the names of the mutants nothing killed.
func (r Report) Survivors() []string {
	var out []string
	for _, o := range r.Outcomes {
		if !o.Killed {
			out = append(out, o.Mutant)
		}
	}
	return out
}

// Caught lists, sorted, the checks of a run that evidence one of rules and
// failed (or, for a SHOULD, warned): the checks that caught a fault whose
// rules those are.
func Caught(run *results.Run, rules []string) []string {
	var by []string
	for _, t := range run.Tests {
		if t.Status != engine.Fail && t.Status != engine.Warn {
			continue
		}
		if slices.ContainsFunc(t.Rules, func(id string) bool { return slices.Contains(rules, id) }) {
			by = append(by, t.ID)
		}
	}
	slices.Sort(by)
	return by
}

// Run runs the plan against each mutant in turn (each run uses cfg's
// concurrency), then the prober, which may find what the checks miss. The
// checks first pass against the unmutated reference: a suite that fails
// there proves nothing about mutants.
//
// Only a check of a mutant's rules can kill it, so unless every is set a
// mutant meets only those checks: the verdict is the same, and a suite's
// self-test costs its mutants' checks rather than mutants × checks. A
// mutant that survives them meets every check too, so that its report
// still says which checks of other rules fail on it (Failed); with every
// set each mutant meets every check.
// done, when set, is called after each mutant with how many of them are
// done (a terminal's progress line).
func Run(ctx context.Context, plan *runner.Plan, reference runner.Target, mutants []Mutant, cfg runner.Config, every bool, probe Prober, done func(n, total int)) (Report, error) {
	if len(mutants) == 0 {
		return Report{}, &runner.UsageError{Msg: fmt.Sprintf("suite %s has no mutants to test", plan.Suite.Name)}
	}
	r := Report{Suite: plan.Suite.Name}
	cfg.Target, cfg.TargetName = reference, "reference"
	base, err := plan.Run(ctx, cfg)
	if err != nil {
		return r, err
	}
	r.Checks = len(base.Tests)
	for _, t := range base.Tests {
		if t.Status != engine.Pass && t.Status != engine.NotApplicable && t.Status != engine.Warn {
			return r, fmt.Errorf("selftest: check %s is %s against the unmutated reference (%s); fix that first", t.ID, t.Status, t.Message)
		}
	}
	for _, m := range mutants {
		cfg.Target, cfg.TargetName = m.Target, "mutant "+m.Name
		run, err := runMutant(ctx, plan, cfg, m, base, every)
		if err != nil {
			return r, fmt.Errorf("selftest: mutant %s: %w", m.Name, err)
		}
		o := Outcome{Mutant: m.Name, Rules: m.Rules, KilledBy: Caught(run, m.Rules)}
		for _, t := range run.Tests {
			switch {
			case (t.Status == engine.Fail || t.Status == engine.Warn) && !slices.Contains(o.KilledBy, t.ID):
				o.Failed = append(o.Failed, t.ID)
			case t.Status == engine.Timeout, t.Status == engine.HarnessError:
				o.Broken = append(o.Broken, t.ID)
			}
		}
		slices.Sort(o.Failed)
		slices.Sort(o.Broken)
		o.Killed = len(o.KilledBy) > 0
		if probe != nil {
			found, err := probe(ctx, m)
			if err != nil {
				return r, fmt.Errorf("selftest: probing mutant %s: %w", m.Name, err)
			}
			if found.Detail != "" {
				o.Probe = found.Detail
				if slices.ContainsFunc(found.Rules, func(id string) bool { return slices.Contains(m.Rules, id) }) {
					o.Killed = true
				} else {
					o.Probe += fmt.Sprintf(" (rules %v, none of the fault's %v: no kill)", found.Rules, m.Rules)
				}
			}
		}
		if o.Killed {
			r.Killed++
		}
		r.Outcomes = append(r.Outcomes, o)
		if done != nil {
			done(len(r.Outcomes), len(mutants))
		}
	}
	return r, ctx.Err()
}

// runMutant runs against one mutant the checks of the reference's run
// (base) that evidence its rules, and every check when none of those
// catches it or every is set.
func runMutant(ctx context.Context, plan *runner.Plan, cfg runner.Config, m Mutant, base *results.Run, every bool) (*results.Run, error) {
	if !every {
		var own []string
		for _, t := range base.Tests {
			if slices.ContainsFunc(t.Rules, func(id string) bool { return slices.Contains(m.Rules, id) }) {
				own = append(own, t.ID)
			}
		}
		if len(own) > 0 {
			cfg.Only = own
			run, err := plan.Run(ctx, cfg)
			if err != nil || len(Caught(run, m.Rules)) > 0 {
				return run, err
			}
		}
		cfg.Only = nil
	}
	return plan.Run(ctx, cfg)
}
