// Package linear checks that concurrent Kungfu actions behave as if they ran
// one at a time. A race is any check with a parallel step: the steps before
// it set the stage, its sub-steps are issued at once by separate clients,
// and the recorded history (each call's invocation and response times and
// its answer) is checked with porcupine against the bundled reference used
// as the sequential specification: replaying the stage and any order of
// operations on a fresh reference must reproduce every answer.
package linear

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/sifu-dev/sifu/internal/attack/kungfufuzz"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

// Race is the concurrent part of one check and the stage before it.
type Race struct {
	ID    string
	Rules []string
	Stage []engine.Step
	Ops   []engine.Step
}

// MaxOps bounds the operations of a race worth checking: every step of
// the model replays the stage and an order on a fresh reference, so the
// cost grows with the square of the operations and more with backtracking.
// Larger parallel steps (floods against a rate limit) are left to their
// checks' own expectations.
const MaxOps = 32

// Races finds the first parallel step of each check, with at most MaxOps
// operations.
func Races(checks []engine.Check) []Race {
	var out []Race
	for _, c := range checks {
		var stage []engine.Step
		for _, s := range c.Steps {
			if s.Op == engine.OpParallel {
				r := Race{ID: c.ID, Rules: c.Rules, Stage: stage}
				for _, sub := range s.Steps {
					if sub.Op == engine.OpAct || sub.Op == engine.OpRead || sub.Op == engine.OpControl {
						sub.Expect, sub.Capture = nil, nil
						r.Ops = append(r.Ops, sub)
					}
				}
				if len(r.Ops) > 1 && len(r.Ops) <= MaxOps {
					out = append(out, r)
				}
				break
			}
			switch {
			case s.Op == engine.OpAct || s.Op == engine.OpRead || s.Op == engine.OpControl:
				s.Expect = nil
				stage = append(stage, s)
			case s.Op == engine.OpExpect && len(s.Capture) > 0 && s.Subject == "":
				// A Gherkin step that remembers part of the last answer.
				s.Expect = nil
				stage = append(stage, s)
			}
		}
	}
	return out
}

// Verdict is what the rounds of one race showed.
type Verdict struct {
	Race         string
	Rules        []string
	Rounds       int
	Linearizable bool
	// Undecided is true when the checker ran out of time: neither a pass
	// nor a proof of a violation.
	Undecided bool
	// Detail describes the first non-linearizable history.
	Detail string
	// Visualization is the HTML file porcupine drew for it.
	Visualization string
}

// observed is one operation's answer with the target's variables, so the
// model can compare it by meaning with the reference's.
type observed struct {
	out  engine.Outcome
	vars map[string]any
}

// Check runs the race rounds times against fresh targets and checks each
// history. A non-linearizable history ends the check; its visualisation is
// written to outDir when that is set.
func Check(ctx context.Context, r Race, target, oracle kungfu.Factory, rounds int, outDir string) (Verdict, error) {
	v := Verdict{Race: r.ID, Rules: r.Rules, Linearizable: true}
	for round := 0; round < rounds; round++ {
		history, err := record(ctx, r, target)
		if err != nil {
			return v, fmt.Errorf("race %s round %d: %w", r.ID, round+1, err)
		}
		v.Rounds++
		if done, err := Decide(r.model(ctx, oracle), history, round, outDir, &v); done || err != nil {
			return v, err
		}
	}
	return v, nil
}

// Decide checks one recorded history and records the outcome in v; done is
// true when the history was not shown linearizable (v says why, and the
// visualisation is written to outDir when that is set).
func Decide(model porcupine.Model, history []porcupine.Operation, round int, outDir string, v *Verdict) (bool, error) {
	res, info := porcupine.CheckOperationsVerbose(model, history, 10*time.Second)
	if res == porcupine.Ok {
		return false, nil
	}
	v.Linearizable = false
	if res == porcupine.Unknown {
		v.Undecided = true
		v.Detail = fmt.Sprintf("round %d: the checker ran out of time before finding an order or proving there is none", round+1)
		return true, nil
	}
	v.Detail = fmt.Sprintf("round %d: no order of the %d concurrent operations explains their answers (%s)", round+1, len(history), describeHistory(model, history))
	if outDir != "" {
		if err := os.MkdirAll(outDir, 0o755); err != nil {
			return true, err
		}
		v.Visualization = filepath.Join(outDir, "race-"+strings.NewReplacer("/", "-").Replace(v.Race)+".html")
		if err := porcupine.VisualizePath(model, info, v.Visualization); err != nil {
			return true, fmt.Errorf("writing the visualisation: %w", err)
		}
	}
	return true, nil
}

// record sets the stage on a fresh target and issues the operations at once.
func record(ctx context.Context, r Race, target kungfu.Factory) ([]porcupine.Operation, error) {
	t, release, err := target(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	h, err := t.Hello(ctx)
	if err != nil {
		return nil, err
	}
	exec := kungfu.NewExecutor(t, h)
	session := engine.NewSession(exec)
	if err := r.setStage(ctx, session); err != nil {
		return nil, err
	}
	vars := session.Vars()
	ops := make([]porcupine.Operation, len(r.Ops))
	var wg sync.WaitGroup
	gate := make(chan struct{})
	origin := time.Now()
	errs := make([]error, len(r.Ops))
	for i, s := range r.Ops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			// A session per client: each resolves its variables from the
			// stage and keeps no state of its own.
			client := engine.NewSession(exec)
			for k, val := range vars {
				client.Vars()[k] = val
			}
			call := time.Since(origin).Nanoseconds()
			out, err := client.Do(ctx, s)
			ret := time.Since(origin).Nanoseconds()
			errs[i] = err
			out.Result = engine.Normalize(out.Result)
			ops[i] = porcupine.Operation{ClientId: i, Input: i, Call: call, Output: observed{out: out, vars: vars}, Return: ret}
		}()
	}
	close(gate)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("operation %d (%s): %w", i+1, r.Ops[i].Text, err)
		}
	}
	return ops, nil
}

// model is the sequential specification: the state is the order of the
// operations applied so far, and an operation may come next when a fresh
// reference, given the stage and that order, answers it as the target did.
func (r Race) model(ctx context.Context, oracle kungfu.Factory) porcupine.Model {
	key := func(s any) string { return fmt.Sprint(s) }
	return porcupine.Model{
		Init: func() any { return []int{} },
		Step: func(state, input, output any) (bool, any) {
			order := append(append([]int{}, state.([]int)...), input.(int))
			got, vars, err := r.replay(ctx, oracle, order)
			if err != nil {
				return false, state
			}
			want := output.(observed)
			if kungfufuzz.Compare(got, want.out, vars, want.vars) != "" {
				return false, state
			}
			return true, order
		},
		Equal: func(a, b any) bool { return key(a) == key(b) },
		DescribeOperation: func(input, output any) string {
			o := output.(observed).out
			verdict := "ok"
			if !o.OK && o.Rejection != nil {
				verdict = o.Rejection.Reason
			}
			return fmt.Sprintf("%s → %s", r.Ops[input.(int)].Text, verdict)
		},
		DescribeState: func(state any) string { return fmt.Sprintf("applied %v", state) },
	}
}

// replay runs the stage and the operations in order on a fresh reference
// and returns the last operation's answer.
func (r Race) replay(ctx context.Context, oracle kungfu.Factory, order []int) (engine.Outcome, map[string]any, error) {
	t, release, err := oracle(ctx)
	if err != nil {
		return engine.Outcome{}, nil, err
	}
	defer release()
	h, err := t.Hello(ctx)
	if err != nil {
		return engine.Outcome{}, nil, err
	}
	session := engine.NewSession(kungfu.NewExecutor(t, h))
	if err := r.setStage(ctx, session); err != nil {
		return engine.Outcome{}, nil, err
	}
	var last engine.Outcome
	for _, i := range order {
		if last, err = session.Do(ctx, r.Ops[i]); err != nil {
			return engine.Outcome{}, nil, err
		}
	}
	last.Result = engine.Normalize(last.Result)
	return last, session.Vars(), nil
}

func describeHistory(m porcupine.Model, ops []porcupine.Operation) string {
	parts := make([]string, len(ops))
	for i, op := range ops {
		parts[i] = m.DescribeOperation(op.Input, op.Output)
	}
	return strings.Join(parts, "; ")
}

// setStage runs the steps before the race, filling their captures.
func (r Race) setStage(ctx context.Context, session *engine.Session) error {
	var last engine.Outcome
	for _, s := range r.Stage {
		if s.Op != engine.OpExpect {
			out, err := session.Do(ctx, s)
			if err != nil {
				return fmt.Errorf("setting the stage at %s: %w", s.Source, err)
			}
			last = out
		}
		if err := session.Capture(s, last); err != nil {
			return fmt.Errorf("setting the stage at %s: %w", s.Source, err)
		}
	}
	return nil
}
