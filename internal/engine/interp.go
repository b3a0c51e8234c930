package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"
)

// Executor performs act, read and control steps against one target. The
// engine hands it steps whose parameters are already resolved. A new Executor
// is made for every check, so agents and objects never leak between checks.
//
// Execute returns the observed outcome; a rejection by the implementation is
// an outcome, not an error. Errors are reserved for ErrUnsupported,
// *AdapterError and *Violation.
type Executor interface {
	Execute(ctx context.Context, step Step) (Outcome, error)
}

// Run interprets a check with the given executor and returns its verdict.
// Steps run in order; the first step that does not hold decides the verdict.
func Run(ctx context.Context, check Check, exec Executor) Verdict {
	in := &interp{exec: exec, vars: map[string]any{}}
	for _, step := range check.Steps {
		if err := in.step(ctx, step); err != nil {
			return in.verdict(ctx, step, err)
		}
	}
	return Verdict{Status: Pass, Transcript: in.transcript}
}

type interp struct {
	exec       Executor
	vars       map[string]any
	last       *Outcome
	transcript []Exchange
}

// expectationError is a step whose outcome did not match its expectation.
type expectationError struct{ msg string }

func (e *expectationError) Error() string { return e.msg }

func (in *interp) verdict(ctx context.Context, step Step, err error) Verdict {
	v := Verdict{Step: step.Source, Message: err.Error(), Transcript: in.transcript}
	var adapterErr *AdapterError
	switch {
	case errors.Is(err, ErrUnsupported):
		v.Status = Untestable
	case ctx.Err() != nil && errors.Is(err, ctx.Err()), errors.Is(err, context.DeadlineExceeded):
		v.Status = Timeout
	case errors.As(err, &adapterErr):
		v.Status = HarnessError
	default:
		v.Status = Fail
	}
	return v
}

func (in *interp) step(ctx context.Context, step Step) error {
	switch step.Op {
	case OpExpect:
		subject := in.last
		if step.Subject != "" {
			o, ok := in.vars[step.Subject].(*Outcome)
			if !ok {
				return &AdapterError{Step: step.Source, Err: fmt.Errorf("no outcome captured as %q", step.Subject)}
			}
			subject = o
		}
		if subject == nil {
			return &AdapterError{Step: step.Source, Err: errors.New("nothing to judge: no earlier step")}
		}
		if err := in.judge(step, *subject); err != nil {
			return err
		}
		return in.capture(step, *subject)
	case OpParallel:
		return in.parallel(ctx, step)
	case OpAct, OpRead, OpControl:
		out, err := in.call(ctx, step)
		if err != nil {
			return err
		}
		return in.observe(step, out)
	default:
		return &AdapterError{Step: step.Source, Err: fmt.Errorf("unknown step op %q", step.Op)}
	}
}

// call resolves a step's variables, executes it and records the exchange.
func (in *interp) call(ctx context.Context, step Step) (Outcome, error) {
	resolved, err := in.resolve(step)
	if err != nil {
		return Outcome{}, err
	}
	start := time.Now()
	out, err := in.exec.Execute(ctx, resolved)
	in.transcript = append(in.transcript, exchange(resolved, out, err, time.Since(start)))
	return out, err
}

// exchange is the transcript line for one executed step.
func exchange(resolved Step, out Outcome, err error, elapsed time.Duration) Exchange {
	ex := Exchange{Source: resolved.Source, Op: resolved.Op, Agent: resolved.Agent, Name: resolved.Name,
		Key: resolved.Key, Params: resolved.Params, Elapsed: elapsed}
	if err != nil {
		ex.Error, ex.ErrorKind = err.Error(), errorKind(err)
	} else {
		o := out
		ex.Outcome = &o
	}
	return ex
}

// observe stores the outcome, judges the step's expectation and fills captures.
func (in *interp) observe(step Step, out Outcome) error {
	in.last = &out
	if step.Expect != nil {
		if err := in.judge(step, out); err != nil {
			return err
		}
	}
	return in.capture(step, out)
}

func (in *interp) capture(step Step, out Outcome) error {
	if len(step.Capture) == 0 {
		return nil
	}
	doc := outcomeDoc(out)
	for _, name := range slices.Sorted(maps.Keys(step.Capture)) {
		ptr := step.Capture[name]
		if ptr == "" {
			o := out
			in.vars[name] = &o
			continue
		}
		vals, ok := lookup(doc, ptr)
		if !ok || len(vals) != 1 {
			return &expectationError{msg: fmt.Sprintf("%s: cannot capture %s: nothing at %s in %s", step.Source, name, ptr, brief(doc))}
		}
		in.vars[name] = vals[0]
	}
	return nil
}

func (in *interp) judge(step Step, out Outcome) error {
	exp := step.Expect
	if exp == nil {
		return nil
	}
	var sameAs *Outcome
	if exp.SameAs != "" {
		o, ok := in.vars[exp.SameAs].(*Outcome)
		if !ok {
			return &AdapterError{Step: step.Source, Err: fmt.Errorf("no outcome captured as %q", exp.SameAs)}
		}
		sameAs = o
	}
	mask := make([]string, 0, len(exp.Mask))
	for _, m := range exp.Mask {
		v, err := in.expand(m)
		if err != nil {
			return err
		}
		mask = append(mask, fmt.Sprint(v))
	}
	_, replaying := in.exec.(*replayer)
	if msg := (judger{wild: replaying}).judge(*exp, out, sameAs, mask, in.resolveValue); msg != "" {
		return &expectationError{msg: fmt.Sprintf("%s: %s", stepLabel(step), msg)}
	}
	return nil
}

func (in *interp) parallel(ctx context.Context, step Step) error {
	// Resolve every sub-step first, so a bad one stops the step before any
	// request is sent.
	resolved := make([]Step, len(step.Steps))
	for i, sub := range step.Steps {
		r, err := in.resolve(sub)
		if err != nil {
			return err
		}
		resolved[i] = r
	}
	outs := make([]Outcome, len(resolved))
	errs := make([]error, len(resolved))
	exchanges := make([]Exchange, len(resolved))
	if _, replaying := in.exec.(*replayer); replaying {
		// A replay answers from a transcript in the order it was recorded.
		for i, r := range resolved {
			outs[i], errs[i] = in.exec.Execute(ctx, r)
			exchanges[i] = exchange(r, outs[i], errs[i], 0)
		}
	} else {
		var wg sync.WaitGroup
		start := make(chan struct{}) // released together, to make the requests race
		for i, r := range resolved {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// A panic in the adapter is that sub-step's harness error,
				// not the end of the run.
				defer func() {
					if p := recover(); p != nil {
						errs[i] = &AdapterError{Step: r.Source, Err: fmt.Errorf("the adapter panicked: %v", p)}
						exchanges[i] = exchange(r, Outcome{}, errs[i], 0)
					}
				}()
				<-start
				t0 := time.Now()
				outs[i], errs[i] = in.exec.Execute(ctx, r)
				exchanges[i] = exchange(r, outs[i], errs[i], time.Since(t0))
			}()
		}
		close(start)
		wg.Wait()
	}
	in.transcript = append(in.transcript, exchanges...)
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return in.observe(step, Combine(outs))
}

// Combine folds the outcomes of concurrent steps into one outcome whose result
// is {"outcomes":[…], "ok_count":n, "rejected_count":n}.
func Combine(outs []Outcome) Outcome {
	list := make([]any, len(outs))
	okCount := 0
	for i, o := range outs {
		list[i] = outcomeDoc(o)
		if o.OK {
			okCount++
		}
	}
	return Outcome{OK: true, Result: map[string]any{
		"outcomes":       list,
		"ok_count":       float64(okCount),
		"rejected_count": float64(len(outs) - okCount),
	}}
}

func stepLabel(step Step) string {
	if step.Text != "" {
		return fmt.Sprintf("%s (%s)", step.Source, step.Text)
	}
	return step.Source
}
