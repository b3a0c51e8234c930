package registry

import (
	"context"
	"fmt"
	"strings"
	"testing/fstest"
	"time"

	"github.com/sifu-dev/sifu/internal/attack/linear"
	"github.com/sifu-dev/sifu/internal/attack/selftest"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/progress"
	"github.com/sifu-dev/sifu/internal/runner"
)

// SelftestRequest is a mutation self-test of one suite.
type SelftestRequest struct {
	Suite       *Suite
	Timeout     time.Duration
	Concurrency int
	// FuzzRuns, when positive, fuzzes each mutant that many cases after
	// the checks; RaceRounds, when positive, runs every race that often.
	FuzzRuns   int
	Seed       uint64
	ShrinkTime time.Duration
	RaceRounds int
	// Mutants, when set, are the only mutants tested.
	Mutants []string
	// EveryCheck runs every check against every mutant (to see which
	// checks of other rules fail on it too), not only its rules' checks.
	EveryCheck bool
	// Done is told how many mutants are done.
	Done func(n, total int)
}

// Selftest runs the suite against its reference and every mutant of it:
// a mutant is killed only when a check of one of its fault's rules fails
// on it (or a probe finds it with one of those rules).
func Selftest(ctx context.Context, req SelftestRequest) (selftest.Report, error) {
	s := req.Suite
	if req.Timeout <= 0 {
		return selftest.Report{}, usagef("--timeout must be positive, e.g. 30s")
	}
	if len(s.Faults) == 0 {
		return selftest.Report{}, usagef("suite %s has no mutants yet", s.Name)
	}
	plan, err := s.Plan()
	if err != nil {
		return selftest.Report{}, err
	}
	reference, err := s.Open(Spec{Kind: s.Kinds[0]})
	if err != nil {
		return selftest.Report{}, err
	}
	defer reference.Close()
	mutants, err := s.Mutants(req.Mutants...)
	if err != nil {
		return selftest.Report{}, err
	}
	var probe selftest.Prober
	fuzzes, races := req.FuzzRuns > 0 && s.Fuzzes, req.RaceRounds > 0 && s.Races
	if fuzzes || races {
		probe = func(ctx context.Context, m selftest.Mutant) (selftest.Finding, error) {
			t := m.Target.(*Subject)
			if fuzzes {
				res, err := t.Fuzz(ctx, FuzzRequest{Seed: req.Seed, Runs: req.FuzzRuns, ShrinkTime: req.ShrinkTime})
				if err != nil {
					return selftest.Finding{}, err
				}
				if d := res.Divergence; d != nil {
					verdict, err := ReplayFinding(ctx, s, req.Seed, d.Vector, reference, t)
					if err != nil {
						return selftest.Finding{}, err
					}
					return selftest.Finding{Detail: fmt.Sprintf("fuzz step %d: %s [%s]", d.Step+1, d.Detail, verdict), Rules: d.Rules}, nil
				}
			}
			if races {
				return raceProbe(ctx, plan, t, req.RaceRounds)
			}
			return selftest.Finding{}, nil
		}
	}
	cfg := runner.Config{Timeout: req.Timeout, Concurrency: req.Concurrency, Harness: Harness()}
	return selftest.Run(ctx, plan, reference, mutants, cfg, req.EveryCheck, probe, req.Done)
}

// SelftestEach runs Selftest on each named suite (every suite when names
// is empty), one after the other, with req's settings: meter, when set,
// gives the progress line of a suite's mutants, each is told each suite's
// report as it ends. It returns the reports and how many mutants survived.
func SelftestEach(ctx context.Context, names []string, req SelftestRequest, meter func(suite string, mutants int) *progress.Meter, each func(selftest.Report)) (reports []selftest.Report, survivors int, err error) {
	if len(names) == 0 {
		names = Names()
	}
	for _, name := range names {
		s, err := Lookup(name)
		if err != nil {
			return nil, 0, err
		}
		req.Suite = s
		n := len(s.Faults)
		if len(req.Mutants) > 0 {
			n = len(req.Mutants)
		}
		var m *progress.Meter
		if meter != nil {
			m = meter(name, n)
		}
		req.Done = func(int, int) { m.Add(1) }
		r, err := Selftest(ctx, req)
		m.Done()
		if err != nil {
			return nil, 0, err
		}
		reports = append(reports, r)
		survivors += len(r.Survivors())
		if each != nil {
			each(r)
		}
	}
	return reports, survivors, nil
}

// raceProbe runs every race of the plan against a target and describes
// the first history no serial order explains (or whose stage did not
// hold).
func raceProbe(ctx context.Context, plan *runner.Plan, t *Subject, rounds int) (selftest.Finding, error) {
	for _, r := range linear.Races(plan.Checks) {
		v, err := t.Race(ctx, r, rounds, "")
		if err != nil {
			return selftest.Finding{}, err
		}
		switch {
		case v.Stage != "":
			return selftest.Finding{Detail: "race " + r.ID + ": its stage did not hold", Rules: r.Rules}, nil
		case !v.Linearizable && !v.Undecided:
			return selftest.Finding{Detail: "race " + r.ID + " not linearizable", Rules: r.Rules}, nil
		}
	}
	return selftest.Finding{}, nil
}

// ReplayFinding compiles a fuzz finding as the suite compiles any vector
// and runs it against the reference and the mutant: a finding is only as
// good as the check it becomes.
func ReplayFinding(ctx context.Context, s *Suite, seed uint64, vec []byte, reference, mutant runner.Target) (string, error) {
	if vec == nil {
		return "no vector written", nil
	}
	file := fuzzName(s.Name, seed) + ".json"
	plan, err := s.Plan(runner.WithVectors(fstest.MapFS{file: {Data: vec}}, "."))
	if err != nil {
		return "", fmt.Errorf("the finding does not compile: %w", err)
	}
	var only []string
	for _, c := range plan.Checks {
		if strings.HasPrefix(c.Source, file) {
			only = append(only, c.ID)
		}
	}
	status := func(t runner.Target) (engine.Status, error) {
		run, err := plan.Run(ctx, runner.Config{Target: t, TargetName: "replay", Only: only, Harness: Harness()})
		if err != nil || len(run.Tests) == 0 {
			return "", err
		}
		return run.Tests[0].Status, nil
	}
	onRef, err := status(reference)
	if err != nil {
		return "", err
	}
	onMutant, err := status(mutant)
	if err != nil {
		return "", err
	}
	if onRef == engine.Pass && onMutant == engine.Fail {
		return "its vector passes on the reference and fails on the mutant", nil
	}
	return fmt.Sprintf("its vector is %s on the reference and %s on the mutant", onRef, onMutant), nil
}
