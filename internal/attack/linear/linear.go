// Package linear checks that steps issued at once behave as if they ran
// one at a time. A race is any check with a parallel step: the steps before
// it set the stage, its sub-steps are issued at once by separate clients,
// and the recorded history (each call's invocation and response times and
// its answer) is checked with porcupine against the bundled reference used
// as the sequential specification: replaying the stage and any order of
// operations on a fresh reference must reproduce every answer, as the
// suite's agreement (Checker.Agree) compares answers.
//
// The package knows no suite: every step, of the stage, of the racers and
// of every replay, runs through the engine's one step loop (engine.Session),
// and answers are compared by engine.Agree over each suite's projection.
package linear

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/sifu-dev/sifu/internal/engine"
)

// Race is the concurrent part of one check and the stage before it.
type Race struct {
	ID    string
	Rules []string
	// Stage is every step of the check before its parallel step, with its
	// expectations and captures: a stage that does not hold is reported,
	// not raced over.
	Stage []engine.Step
	// Ops are the parallel step's sub-steps, without expectations or
	// captures: what a racer answers depends on the order.
	Ops []engine.Step
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
		for i, s := range c.Steps {
			if s.Op != engine.OpParallel {
				continue
			}
			r := Race{ID: c.ID, Rules: c.Rules, Stage: c.Steps[:i:i]}
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
	}
	return out
}

// Executors makes a fresh executor over a fresh implementation, and the
// function that releases both (runner.Target.NewExecutor is one).
type Executors func(ctx context.Context) (engine.Executor, func(), error)

// Agreement says how a target's answer to an op differs from the
// reference's, or "" when they agree, given the variables each side's
// session captured: a suite projects both answers to what it compares and
// judges them with engine.Agree.
type Agreement func(reference, target engine.Outcome, refVars, targetVars map[string]any) string

// Checker checks races of one suite.
type Checker struct {
	// Target is the implementation checked; Reference the sequential
	// specification, fresh for every replay.
	Target, Reference Executors
	Agree             Agreement
	// Describe says what an op did, for the history's description and its
	// visualisation; nil: the op's text and ok or the rejection's reason.
	Describe func(op engine.Step, out engine.Outcome) string
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
	// Stage is set when the race's stage did not hold on the target (the
	// check itself fails there): the race was not run.
	Stage string
	// Detail describes the first non-linearizable history, or the stage
	// that did not hold.
	Detail string
	// Visualization is the HTML file porcupine drew for it.
	Visualization string
}

// Holds reports whether the race showed nothing wrong.
func (v Verdict) Holds() bool { return v.Linearizable && v.Stage == "" }

// observed is one operation's answer with the target's variables, so the
// model can compare it by meaning with the reference's.
type observed struct {
	out  engine.Outcome
	vars map[string]any
}

// stageError is a stage step that did not hold on the target.
type stageError struct{ err error }

func (e *stageError) Error() string { return e.err.Error() }

// Check runs the race rounds times against fresh targets and checks each
// history. A non-linearizable history ends the check; its visualisation is
// written to outDir when that is set.
func (c Checker) Check(ctx context.Context, r Race, rounds int, outDir string) (Verdict, error) {
	v := Verdict{Race: r.ID, Rules: r.Rules, Linearizable: true}
	m := c.model(ctx, r)
	for round := 0; round < rounds; round++ {
		history, err := c.record(ctx, r)
		var stage *stageError
		if errors.As(err, &stage) {
			v.Stage, v.Detail = stage.Error(), fmt.Sprintf("round %d: the stage did not hold on the target: %v", round+1, stage)
			return v, nil
		}
		if err != nil {
			return v, fmt.Errorf("race %s round %d: %w", r.ID, round+1, err)
		}
		v.Rounds++
		if done, err := Decide(m, history, round, outDir, &v); done || err != nil {
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

// record sets the stage on a fresh target and issues the operations at
// once, each from a session of its own that knows the stage's variables.
func (c Checker) record(ctx context.Context, r Race) ([]porcupine.Operation, error) {
	exec, release, err := c.Target(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	session := engine.NewSession(exec)
	if err := setStage(ctx, r, session); err != nil {
		return nil, &stageError{err}
	}
	ops := make([]porcupine.Operation, len(r.Ops))
	var wg sync.WaitGroup
	gate := make(chan struct{})
	origin := time.Now()
	errs := make([]error, len(r.Ops))
	for i, s := range r.Ops {
		client := session.Fork(exec)
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			call := time.Since(origin).Nanoseconds()
			out, err := client.Step(ctx, s)
			ret := time.Since(origin).Nanoseconds()
			errs[i] = err
			out.Result = engine.Normalize(out.Result)
			ops[i] = porcupine.Operation{ClientId: i, Input: i, Call: call, Output: observed{out: out, vars: session.Vars()}, Return: ret}
		}()
	}
	close(gate)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("operation %d (%s): %w", i+1, label(r.Ops[i]), err)
		}
	}
	return ops, nil
}

// model is the sequential specification: the state is the order of the
// operations applied so far, and an operation may come next when a fresh
// reference, given the stage and that order, answers it as the target did.
// Replays are kept by order, so porcupine's backtracking replays each
// order once.
func (c Checker) model(ctx context.Context, r Race) porcupine.Model {
	type replayed struct {
		out  engine.Outcome
		vars map[string]any
		err  error
	}
	var mu sync.Mutex
	cache := map[string]replayed{}
	replay := func(order []int) replayed {
		key := fmt.Sprint(order)
		mu.Lock()
		got, ok := cache[key]
		mu.Unlock()
		if !ok {
			got.out, got.vars, got.err = c.replay(ctx, r, order)
			mu.Lock()
			cache[key] = got
			mu.Unlock()
		}
		return got
	}
	describe := c.Describe
	if describe == nil {
		describe = func(op engine.Step, o engine.Outcome) string {
			verdict := "ok"
			if !o.OK && o.Rejection != nil {
				verdict = o.Rejection.Reason
			}
			return fmt.Sprintf("%s → %s", label(op), verdict)
		}
	}
	return porcupine.Model{
		Init: func() any { return []int{} },
		Step: func(state, input, output any) (bool, any) {
			order := append(append([]int{}, state.([]int)...), input.(int))
			got := replay(order)
			if got.err != nil {
				return false, state
			}
			want := output.(observed)
			if c.Agree(got.out, want.out, got.vars, want.vars) != "" {
				return false, state
			}
			return true, order
		},
		Equal:             func(a, b any) bool { return fmt.Sprint(a) == fmt.Sprint(b) },
		DescribeOperation: func(input, output any) string { return describe(r.Ops[input.(int)], output.(observed).out) },
		DescribeState:     func(state any) string { return fmt.Sprintf("applied %v", state) },
	}
}

// replay runs the stage and the operations in order on a fresh reference
// and returns the last operation's answer.
func (c Checker) replay(ctx context.Context, r Race, order []int) (engine.Outcome, map[string]any, error) {
	exec, release, err := c.Reference(ctx)
	if err != nil {
		return engine.Outcome{}, nil, err
	}
	defer release()
	session := engine.NewSession(exec)
	if err := setStage(ctx, r, session); err != nil {
		return engine.Outcome{}, nil, fmt.Errorf("the reference: %w", err)
	}
	var last engine.Outcome
	for _, i := range order {
		if last, err = session.Step(ctx, r.Ops[i]); err != nil {
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

// setStage runs the steps before the race through the session, judging
// their expectations and filling their captures.
func setStage(ctx context.Context, r Race, session *engine.Session) error {
	for _, s := range r.Stage {
		if _, err := session.Step(ctx, s); err != nil {
			return fmt.Errorf("setting the stage at %s: %w", s.Source, err)
		}
	}
	return nil
}

func label(s engine.Step) string {
	if s.Text != "" {
		return s.Text
	}
	return s.Source
}
