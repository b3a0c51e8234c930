package faultproxy

import (
	"context"
	"errors"
	"sort"
	"sync"
	"time"

	"github.com/sifu-dev/sifu/suite/kungfu"
)

// DropResponses returns a Target that delivers each struck request and loses
// its answer: the implementation has applied it, the client sees an error.
func DropResponses(t kungfu.Target, d Decider) kungfu.Target {
	return wrapper{Target: t, hook: func(ctx context.Context, r Request, call next) (kungfu.Response, error) {
		resp, err := call(ctx)
		if err != nil || !d.Strikes(DropResponse, r.Identity(), Attempt(ctx)) {
			return resp, err
		}
		return kungfu.Response{}, injected(DropResponse, "the request was delivered and its answer lost")
	}}
}

// Duplicates returns a Target that delivers each struck request twice,
// either one after the other or both at once, and answers with one of the
// two answers.
func Duplicates(t kungfu.Target, d Decider) kungfu.Target {
	return wrapper{Target: t, hook: func(ctx context.Context, r Request, call next) (kungfu.Response, error) {
		id, n := r.Identity(), Attempt(ctx)
		if !d.Strikes(Duplicate, id, n) {
			return call(ctx)
		}
		draw := d.Draw(Duplicate, id, n+1000)
		var resps [2]kungfu.Response
		var errs [2]error
		if draw&2 != 0 { // both at once
			var wg sync.WaitGroup
			for i := range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					resps[i], errs[i] = call(ctx)
				}()
			}
			wg.Wait()
		} else {
			for i := range 2 {
				resps[i], errs[i] = call(ctx)
			}
		}
		pick := int(draw & 1)
		return resps[pick], errs[pick]
	}}
}

// Delays returns a Target that holds each struck answer back for a seeded
// time below max, measured on clock. A context that ends first wins.
func Delays(t kungfu.Target, d Decider, max time.Duration, clock Clock) kungfu.Target {
	return wrapper{Target: t, hook: func(ctx context.Context, r Request, call next) (kungfu.Response, error) {
		resp, err := call(ctx)
		id, n := r.Identity(), Attempt(ctx)
		if max <= 0 || !d.Strikes(Delay, id, n) {
			return resp, err
		}
		wait := time.Duration(d.Draw(Delay, id, n+1000) % uint64(max))
		select {
		case <-clock.After(wait):
			return resp, err
		case <-ctx.Done():
			return kungfu.Response{}, ctx.Err()
		}
	}}
}

// Resets returns a Target that cuts the connection of each struck request:
// either in the middle of the request (the implementation never gets it) or
// in the middle of the answer (it applied the request; the answer is lost).
// Adapters with a real connection cut it themselves, see ResetError.
func Resets(t kungfu.Target, d Decider) kungfu.Target {
	return wrapper{Target: t, hook: func(ctx context.Context, r Request, call next) (kungfu.Response, error) {
		id, n := r.Identity(), Attempt(ctx)
		if !d.Strikes(Reset, id, n) {
			return call(ctx)
		}
		if d.Draw(Reset, id, n+1000)&1 == 0 {
			return kungfu.Response{}, injected(Reset, "the connection was cut in the middle of the request body")
		}
		if _, err := call(ctx); err != nil {
			return kungfu.Response{}, err
		}
		return kungfu.Response{}, injected(Reset, "the connection was cut in the middle of the response body")
	}}
}

// Reorders returns a Target that gathers the requests arriving within one
// window of clock time and delivers them one at a time, in an order drawn
// from the seed and the requests (not from their arrival).
func Reorders(t kungfu.Target, d Decider, window time.Duration, clock Clock) kungfu.Target {
	ro := &reorderer{d: d, window: window, clock: clock}
	return wrapper{Target: t, hook: ro.hook}
}

type reorderer struct {
	d      Decider
	window time.Duration
	clock  Clock

	mu    sync.Mutex
	batch []*held
}

type held struct {
	ctx   context.Context
	r     Request
	call  next
	order uint64
	done  chan result
}

type result struct {
	resp kungfu.Response
	err  error
}

func (ro *reorderer) hook(ctx context.Context, r Request, call next) (kungfu.Response, error) {
	h := &held{ctx: ctx, r: r, call: call, done: make(chan result, 1),
		order: ro.d.Draw(Reorder, r.Identity(), Attempt(ctx))}
	ro.mu.Lock()
	if len(ro.batch) == 0 {
		go ro.release(ro.clock.After(ro.window))
	}
	ro.batch = append(ro.batch, h)
	ro.mu.Unlock()
	select {
	case res := <-h.done:
		return res.resp, res.err
	case <-ctx.Done():
		// The request may still be delivered later: like a real network,
		// the proxy cannot take it back.
		return kungfu.Response{}, ctx.Err()
	}
}

// release waits for the window to end and delivers the batch in its drawn
// order, one request at a time.
func (ro *reorderer) release(window <-chan time.Time) {
	<-window
	ro.mu.Lock()
	batch := ro.batch
	ro.batch = nil
	ro.mu.Unlock()
	sort.SliceStable(batch, func(i, j int) bool {
		if batch[i].order != batch[j].order {
			return batch[i].order < batch[j].order
		}
		return batch[i].r.Identity() < batch[j].r.Identity()
	})
	for _, h := range batch {
		if h.ctx.Err() != nil {
			h.done <- result{err: h.ctx.Err()}
			continue
		}
		resp, err := h.call(h.ctx)
		h.done <- result{resp, err}
	}
}

// Retries returns a Target that repeats a request that failed with an
// injected fault, with the same idempotency key, up to n more times. Each
// attempt carries its number in the context (see Attempt).
func Retries(t kungfu.Target, n int) kungfu.Target {
	return wrapper{Target: t, hook: func(ctx context.Context, r Request, call next) (kungfu.Response, error) {
		for attempt := 0; ; attempt++ {
			resp, err := call(WithAttempt(ctx, attempt))
			if err == nil || !errors.Is(err, ErrInjected) || attempt >= n || ctx.Err() != nil {
				return resp, err
			}
		}
	}}
}
