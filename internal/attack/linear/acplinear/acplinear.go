// Package acplinear checks that ACP tool calls made at once behave as if
// they ran one at a time. A race is a check's parallel step (appends fired
// together) and the calls before it; each call's invocation and return are
// recorded and the history is checked with porcupine, the in-process
// reference serving as the sequential specification: replaying the stage
// and a candidate order on a fresh reference folder must reproduce each
// call's exit code and output, so two appends that both claim one seq, or
// an append whose event is lost, have no order that explains them.
package acplinear

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/sifu-dev/sifu/internal/attack/linear"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/suite/acp"
)

// Races are the parallel steps of the ACP checks, with their stages.
func Races(checks []engine.Check) []linear.Race { return linear.Races(checks) }

// answer is what a call showed: compared by exit code and scrubbed output.
type answer struct {
	Exit   any
	Stdout any
	Stderr any
}

func answerOf(o engine.Outcome) answer {
	r, _ := engine.Normalize(o.Result).(map[string]any)
	return answer{Exit: r["exit"], Stdout: r["stdout"], Stderr: r["stderr"]}
}

func (a answer) String() string {
	s := fmt.Sprintf("exit %v", a.Exit)
	if out, _ := a.Stdout.(string); out != "" {
		s += ": " + strings.TrimSpace(strings.SplitN(out, "\n", 2)[0])
	}
	if e, _ := a.Stderr.(string); e != "" {
		s += ": " + strings.TrimSpace(strings.SplitN(e, "\n", 2)[0])
	}
	return s
}

// Check runs the race rounds times against fresh target folders and checks
// each history; the first one no order explains ends it, and its
// visualisation is written to outDir when that is set.
func Check(ctx context.Context, r linear.Race, target, oracle acp.Factory, rounds int, outDir string) (linear.Verdict, error) {
	v := linear.Verdict{Race: r.ID, Rules: r.Rules, Linearizable: true}
	m := model(ctx, r, oracle)
	for round := 0; round < rounds; round++ {
		history, err := record(ctx, r, target)
		if err != nil {
			return v, fmt.Errorf("race %s round %d: %w", r.ID, round+1, err)
		}
		v.Rounds++
		if done, err := linear.Decide(m, history, round, outDir, &v); done || err != nil {
			return v, err
		}
	}
	return v, nil
}

// open makes an implementation and an executor in a fresh folder, with the
// stage set.
func open(ctx context.Context, r linear.Race, f acp.Factory) (*acp.Executor, func(), error) {
	t, release, err := f(ctx)
	if err != nil {
		return nil, nil, err
	}
	e, cleanup, err := acp.NewExecutor(t)
	if err != nil {
		release()
		return nil, nil, err
	}
	done := func() { cleanup(); release() }
	for _, s := range r.Stage {
		if _, err := e.Execute(ctx, s); err != nil {
			done()
			return nil, nil, fmt.Errorf("setting the stage at %s: %w", s.Source, err)
		}
	}
	return e, done, nil
}

// record sets the stage and issues the race's calls at once, one goroutine
// each, timing every call.
func record(ctx context.Context, r linear.Race, target acp.Factory) ([]porcupine.Operation, error) {
	e, done, err := open(ctx, r, target)
	if err != nil {
		return nil, err
	}
	defer done()
	ops := make([]porcupine.Operation, len(r.Ops))
	errs := make([]error, len(r.Ops))
	gate := make(chan struct{})
	origin := time.Now()
	var wg sync.WaitGroup
	for i, s := range r.Ops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			call := time.Since(origin).Nanoseconds()
			out, err := e.Execute(ctx, s)
			ret := time.Since(origin).Nanoseconds()
			errs[i] = err
			ops[i] = porcupine.Operation{ClientId: i, Input: i, Call: call, Output: answerOf(out), Return: ret}
		}()
	}
	close(gate)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("call %d (%s): %w", i+1, r.Ops[i].Source, err)
		}
	}
	return ops, nil
}

// model is the sequential specification: the state is the order of the
// calls applied so far; a call may come next when a fresh reference folder,
// given the stage and that order, answers it as the target did. Replays
// are cached by order.
func model(ctx context.Context, r linear.Race, oracle acp.Factory) porcupine.Model {
	var mu sync.Mutex
	cache := map[string]answer{}
	replay := func(order []int) (answer, error) {
		key := fmt.Sprint(order)
		mu.Lock()
		a, ok := cache[key]
		mu.Unlock()
		if ok {
			return a, nil
		}
		e, done, err := open(ctx, r, oracle)
		if err != nil {
			return answer{}, err
		}
		defer done()
		var last engine.Outcome
		for _, i := range order {
			if last, err = e.Execute(ctx, r.Ops[i]); err != nil {
				return answer{}, err
			}
		}
		a = answerOf(last)
		mu.Lock()
		cache[key] = a
		mu.Unlock()
		return a, nil
	}
	return porcupine.Model{
		Init: func() any { return []int{} },
		Step: func(state, input, output any) (bool, any) {
			order := append(append([]int{}, state.([]int)...), input.(int))
			got, err := replay(order)
			if err != nil || got != output.(answer) {
				return false, state
			}
			return true, order
		},
		Equal: func(a, b any) bool { return fmt.Sprint(a) == fmt.Sprint(b) },
		DescribeOperation: func(input, output any) string {
			s := r.Ops[input.(int)]
			return fmt.Sprintf("%v appends %v → %s", s.Params["participant"], s.Params["event"], output.(answer))
		},
		DescribeState: func(state any) string { return fmt.Sprintf("applied %v", state) },
	}
}
