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

// Session is one check's interpretation: the variables it captured, its
// last outcome and its transcript. Step is the engine's one step loop;
// Run drives a whole check through it, and attack mode (lockstep fuzzing,
// linearizability) drives generated steps through it, so that every step
// anyone runs is resolved, executed, recorded, judged and captured the
// same way.
type Session struct {
	exec       Executor
	vars       map[string]any
	last       *Outcome
	transcript []Exchange
	// vocab says how exchanges are recorded (Secrets, PeerText); lastEx
	// is the transcript index of the exchange behind last (-1 for none or
	// a parallel step's), and prose the exchanges whose peer text is hidden.
	vocab  Vocabulary
	lastEx int
	prose  map[int]*proseRecord
}

// NewSession starts a session over an executor.
func NewSession(exec Executor) *Session {
	return &Session{exec: exec, vars: map[string]any{}, lastEx: -1}
}

// Recording makes the session record its exchanges as the suite's
// vocabulary says: its secrets redacted and the implementation's own prose
// hidden where no judgement needs it (Vocabulary.Secrets, PeerText).
func (s *Session) Recording(v Vocabulary) *Session {
	s.vocab = v
	return s
}

// Fork starts a session over exec that knows every variable this one has
// captured so far, and nothing of its transcript: a separate client of the
// same check, such as one of the racers of a linearizability check.
func (s *Session) Fork(exec Executor) *Session {
	return &Session{exec: exec, vars: maps.Clone(s.vars), vocab: s.vocab, lastEx: -1}
}

// Vars are the variables captured so far (read-only).
func (s *Session) Vars() map[string]any { return s.vars }

// Transcript is every exchange of the session so far.
func (s *Session) Transcript() []Exchange { return s.transcript }

// Last is the outcome of the last act, read, control or parallel step,
// or nil before there is one.
func (s *Session) Last() *Outcome { return s.last }

// Step is the one step loop. It resolves the step's variables; executes an
// act, read or control step through the executor (the sub-steps of a
// parallel step at once); records every exchange in the transcript; judges
// the step's expectation against its outcome (an expect step judges an
// earlier outcome); and fills the step's captures from it. It returns the
// outcome and, when the step did not hold, why: ErrUnsupported, an
// *AdapterError, a *Violation, a context error or an expectation that
// failed (which fails the check).
func (s *Session) Step(ctx context.Context, step Step) (Outcome, error) {
	switch step.Op {
	case OpExpect:
		subject := s.last
		if step.Subject != "" {
			o, ok := s.vars[step.Subject].(*Outcome)
			if !ok {
				return Outcome{}, &AdapterError{Step: step.Source, Err: fmt.Errorf("no outcome captured as %q", step.Subject)}
			}
			subject = o
		}
		if subject == nil {
			return Outcome{}, &AdapterError{Step: step.Source, Err: errors.New("nothing to judge: no earlier step")}
		}
		err := s.judge(step, *subject)
		if err == nil {
			err = s.Capture(step, *subject)
		}
		if step.Subject == "" {
			s.hideProse(s.lastEx, step)
		}
		return *subject, err
	case OpParallel:
		return s.parallel(ctx, step)
	case OpAct, OpRead, OpControl:
		out, err := s.call(ctx, step)
		if err != nil {
			return out, err
		}
		err = s.observe(step, out)
		s.hideProse(s.lastEx, step)
		return out, err
	default:
		return Outcome{}, &AdapterError{Step: step.Source, Err: fmt.Errorf("unknown step op %q", step.Op)}
	}
}

// Judge judges an outcome against an expectation as a step of this
// session would (variables resolved from this session's), without
// executing or recording anything; it returns "" when it holds.
func (s *Session) Judge(exp Expect, out Outcome) string {
	err := s.judge(Step{Expect: &exp}, out)
	if err == nil {
		return ""
	}
	var e *expectationError
	if errors.As(err, &e) {
		return e.detail
	}
	return err.Error()
}

// Capture fills the step's captures from an outcome; it fails when a
// pointer finds nothing. Step captures by itself; Capture is for a driver
// that learns what to capture from the outcome (a fuzzer that keeps what
// the reference made).
func (s *Session) Capture(step Step, out Outcome) error {
	if len(step.Capture) == 0 {
		return nil
	}
	doc := outcomeDoc(out)
	for _, name := range slices.Sorted(maps.Keys(step.Capture)) {
		ptr := step.Capture[name]
		if ptr == "" {
			o := out
			s.vars[name] = &o
			continue
		}
		vals, ok := lookup(doc, ptr)
		if !ok || len(vals) != 1 {
			return &expectationError{msg: fmt.Sprintf("%s: cannot capture %s: nothing at %s in %s", step.Source, name, ptr, brief(doc))}
		}
		s.vars[name] = vals[0]
	}
	return nil
}

// Run interprets a check with the given executor and returns its verdict.
// Steps run in order through Session.Step; the first step that does not
// hold decides the verdict. Once ctx is done no further step starts, even
// over an executor that does not heed ctx: the check ends a timeout.
func Run(ctx context.Context, check Check, exec Executor) Verdict {
	return RunRecording(ctx, check, exec, Vocabulary{})
}

// RunRecording is Run with the transcript recorded as the suite's
// vocabulary says (Session.Recording).
func RunRecording(ctx context.Context, check Check, exec Executor, v Vocabulary) Verdict {
	s := NewSession(exec).Recording(v)
	for _, step := range check.Steps {
		if err := ctx.Err(); err != nil {
			return s.Verdict(ctx, step, fmt.Errorf("the step at %s was not started: %w", step.Source, err))
		}
		if _, err := s.Step(ctx, step); err != nil {
			return s.Verdict(ctx, step, err)
		}
	}
	return Verdict{Status: Pass, Transcript: s.transcript}
}

// Verdict is the verdict a check gets when step ended it with err: a
// missing capability is untestable, a context that ran out a timeout, a
// broken adapter a harness error, anything else a failure.
func (s *Session) Verdict(ctx context.Context, step Step, err error) Verdict {
	v := Verdict{Step: step.Source, Message: err.Error(), Transcript: s.transcript}
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

// expectationError is a step whose outcome did not match its expectation.
type expectationError struct{ msg, detail string }

func (e *expectationError) Error() string { return e.msg }

// call resolves a step's variables, executes it and records the exchange.
func (s *Session) call(ctx context.Context, step Step) (Outcome, error) {
	resolved, err := s.resolve(step)
	if err != nil {
		return Outcome{}, err
	}
	start := time.Now()
	out, err := s.exec.Execute(ctx, resolved)
	s.transcript = append(s.transcript, s.record(resolved, out, err, time.Since(start)))
	s.lastEx = len(s.transcript) - 1
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
func (s *Session) observe(step Step, out Outcome) error {
	s.last = &out
	if step.Expect != nil {
		if err := s.judge(step, out); err != nil {
			return err
		}
	}
	return s.Capture(step, out)
}

func (s *Session) judge(step Step, out Outcome) error {
	exp := step.Expect
	if exp == nil {
		return nil
	}
	var sameAs *Outcome
	if exp.SameAs != "" {
		o, ok := s.vars[exp.SameAs].(*Outcome)
		if !ok {
			return &AdapterError{Step: step.Source, Err: fmt.Errorf("no outcome captured as %q", exp.SameAs)}
		}
		sameAs = o
	}
	mask := make([]string, 0, len(exp.Mask))
	for _, m := range exp.Mask {
		v, err := s.expand(m)
		if err != nil {
			return err
		}
		mask = append(mask, fmt.Sprint(v))
	}
	var wild string
	if r, replaying := s.exec.(*replayer); replaying {
		wild = r.wild
	}
	if msg := (judger{wild: wild}).judge(*exp, out, sameAs, mask, s.resolveValue); msg != "" {
		return &expectationError{msg: fmt.Sprintf("%s: %s", stepLabel(step), msg), detail: msg}
	}
	return nil
}

func (s *Session) parallel(ctx context.Context, step Step) (Outcome, error) {
	// Resolve every sub-step first, so a bad one stops the step before any
	// request is sent.
	resolved := make([]Step, len(step.Steps))
	for i, sub := range step.Steps {
		r, err := s.resolve(sub)
		if err != nil {
			return Outcome{}, err
		}
		resolved[i] = r
	}
	outs := make([]Outcome, len(resolved))
	errs := make([]error, len(resolved))
	exchanges := make([]Exchange, len(resolved))
	if _, replaying := s.exec.(*replayer); replaying {
		// A replay answers from a transcript in the order it was recorded.
		for i, r := range resolved {
			outs[i], errs[i] = s.exec.Execute(ctx, r)
			exchanges[i] = s.record(r, outs[i], errs[i], 0)
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
						exchanges[i] = s.record(r, Outcome{}, errs[i], 0)
					}
				}()
				<-start
				t0 := time.Now()
				outs[i], errs[i] = s.exec.Execute(ctx, r)
				exchanges[i] = s.record(r, outs[i], errs[i], time.Since(t0))
			}()
		}
		close(start)
		wg.Wait()
	}
	s.transcript = append(s.transcript, exchanges...)
	s.lastEx = -1
	for _, err := range errs {
		if err != nil {
			return Outcome{}, err
		}
	}
	out := Combine(outs)
	return out, s.observe(step, out)
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
